package mariadb

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/proc"
	"github.com/litebench/litebench/internal/proc/proctest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	proctest.Cleanup()
	os.Exit(code)
}

// running lists the live processes whose command line mentions s, by
// program name.
func running(s string) map[int]string {
	out := map[int]string{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(b, []byte(s)) || !proc.Running(pid) {
			continue
		}
		args := strings.Split(string(b), "\x00")
		name := filepath.Base(args[0])
		if (name == "sh" || name == "bash") && len(args) > 1 {
			name = filepath.Base(args[1])
		}
		if name == "mariadbd" && bytes.Contains(b, []byte("--bootstrap")) {
			name += " --bootstrap"
		}
		out[pid] = name
	}
	return out
}

// litebench SIGKILLed at random moments of a managed MariaDB server's
// set-up (mariadb-install-db and its mariadbd --bootstrap, the server
// starting, the database being made) leaves nothing after the next run:
// no process, no temp directory, no record.
func TestKilledDuringSetUp(t *testing.T) {
	if testing.Short() {
		t.Skip("ten managed MariaDB set-ups")
	}
	if err := Engine.(engine.Served).Available(); err != nil {
		if os.Getenv("LITEBENCH_REQUIRE_ENGINES") == "1" {
			t.Fatalf("%v (LITEBENCH_REQUIRE_ENGINES=1)", err)
		}
		t.Skip(err)
	}
	lb := proctest.Litebench(t)
	// A temp dir of the test's own, which the server's user (nobody, when
	// the test runs as root) may write in as in /tmp.
	tmp, err := os.MkdirTemp("", "mariadb-kill-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o1777); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "TMPDIR="+tmp)
	rng := rand.New(rand.NewPCG(7, 11)) // the kill moments, the same every run
	caught := map[string]int{}
	for i := range 10 {
		// Even trials kill at a moment of the first seconds, which
		// mariadb-install-db takes; odd ones shortly after the server
		// itself has started.
		delay := time.Duration(rng.Int64N(int64(5 * time.Second)))
		if i%2 == 1 {
			delay = time.Duration(rng.Int64N(int64(300 * time.Millisecond)))
		}
		cmd := exec.Command(lb, "insert", "--target", "mariadb", "--rows", "100", "--no-store", "--progress", "0")
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		if i%2 == 1 {
			server := func() bool {
				for _, n := range running(tmp) {
					if n == "mariadbd" {
						return true
					}
				}
				return false
			}
			for !server() && time.Since(t0) < 60*time.Second {
				time.Sleep(10 * time.Millisecond)
			}
		}
		time.Sleep(delay)
		delay = time.Since(t0)
		at := running(tmp)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		var names []string
		for _, n := range at {
			names = append(names, n)
			caught[n]++
		}
		t.Logf("trial %d: killed after %v, running: %v", i, delay.Round(time.Millisecond), names)

		next := exec.Command(lb, "--version")
		next.Env = env
		if out, err := next.CombinedOutput(); err != nil {
			t.Fatalf("the next run: %v\n%s", err, out)
		}
		var left map[int]string
		for range 100 {
			if left = running(tmp); len(left) == 0 {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if len(left) > 0 {
			t.Errorf("trial %d: still running after the next run: %v", i, left)
		}
		ents, _ := os.ReadDir(tmp)
		for _, e := range ents {
			if e.Name() == fmt.Sprintf(".litebench-%d", os.Geteuid()) {
				if recs, _ := os.ReadDir(filepath.Join(tmp, e.Name())); len(recs) > 0 {
					t.Errorf("trial %d: records left: %v", i, recs)
				}
				continue
			}
			t.Errorf("trial %d: %s left in the temp dir", i, e.Name())
		}
		if t.Failed() {
			break
		}
	}
	t.Logf("programs caught running at the kill: %v", caught)
}
