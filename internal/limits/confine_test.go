package limits

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain runs the confined children of these tests: this test binary,
// started again by RunConfined.
func TestMain(m *testing.M) {
	if Child() {
		os.Exit(childMain(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func childMain(args []string) int {
	if err := AcceptChild(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 99
	}
	switch args[0] {
	case "alloc": // hold N MB, every page touched
		n, _ := strconv.Atoi(args[1])
		var keep [][]byte
		for i := 0; i < n; i++ {
			b := make([]byte, 1<<20)
			for k := 0; k < len(b); k += 4096 {
				b[k] = 1
			}
			keep = append(keep, b)
		}
		fmt.Println(len(keep))
		return 0
	case "exit":
		n, _ := strconv.Atoi(args[1])
		return n
	case "where":
		cg, _ := os.ReadFile("/proc/self/cgroup")
		fmt.Printf("tmp=%s\nlimit=%d\ncgroup=%s\n%s", os.TempDir(), Current().MemoryBytes, Current().Cgroup, cg)
		return 0
	case "wait-int":
		c := make(chan os.Signal, 1)
		signal.Notify(c, os.Interrupt)
		fmt.Println("ready")
		<-c
		return 130
	case "ignore-int":
		signal.Ignore(os.Interrupt)
		fmt.Println("ready")
		time.Sleep(time.Minute)
		return 0
	}
	return 98
}

func confinable(t *testing.T) {
	t.Helper()
	if err := CanConfine(); err != nil {
		t.Skipf("memory cgroups are not writable here, so --memory is refused: %v", err)
	}
}

func TestConfinedChild(t *testing.T) {
	confinable(t)
	var out strings.Builder
	o, err := RunConfined(context.Background(), ChildSpec{Bytes: 64 << 20, Args: []string{"where"}, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(o.Dir)
	if o.Code != 0 || o.Signal != 0 || o.OOM {
		t.Fatalf("outcome %+v: %s", o, out.String())
	}
	var cgroup string
	for _, l := range strings.Split(out.String(), "\n") {
		if v, ok := strings.CutPrefix(l, "cgroup="); ok {
			cgroup = v
		}
	}
	if !strings.Contains(out.String(), "tmp="+filepath.Join(o.Dir, "tmp")+"\n") ||
		!strings.Contains(out.String(), "limit=67108864\n") || cgroup == "" ||
		!strings.Contains(out.String(), ":"+strings.TrimPrefix(cgroup, "/sys/fs/cgroup/memory")+"\n") {
		t.Errorf("child saw:\n%s", out.String())
	}
	if _, err := os.Stat(cgroup); !os.IsNotExist(err) {
		t.Errorf("cgroup %s left behind: %v", cgroup, err)
	}
	// The exit status comes through.
	o, err = RunConfined(context.Background(), ChildSpec{Bytes: 64 << 20, Args: []string{"exit", "7"}, Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(o.Dir)
	if o.Code != 7 || o.Signal != 0 {
		t.Errorf("exit 7: %+v", o)
	}
}

func TestConfinedOutOfMemory(t *testing.T) {
	confinable(t)
	var out strings.Builder
	o, err := RunConfined(context.Background(), ChildSpec{Bytes: 32 << 20, Args: []string{"alloc", "400"}, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(o.Dir)
	if !o.OOM || o.Signal != syscall.SIGKILL || o.Peak < 24<<20 {
		t.Errorf("400MB under a 32MB limit: %+v, output %q", o, out.String())
	}
	// Within the limit: no OOM.
	o, err = RunConfined(context.Background(), ChildSpec{Bytes: 128 << 20, Args: []string{"alloc", "8"}, Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(o.Dir)
	if o.OOM || o.Code != 0 || o.Signal != 0 {
		t.Errorf("8MB under 128MB: %+v", o)
	}
}

// runReady starts a child that prints "ready", cancels ctx once it has,
// and returns the outcome and how long the child took to end after that.
func runReady(t *testing.T, cmd string, grace time.Duration) (Outcome, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var cancelled time.Time
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if sc.Text() == "ready" && cancelled.IsZero() {
				cancelled = time.Now()
				cancel()
			}
		}
	}()
	o, err := RunConfined(ctx, ChildSpec{Bytes: 64 << 20, Args: []string{cmd}, Stdout: pw, Stderr: io.Discard, Grace: grace})
	pw.Close()
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(o.Dir)
	return o, time.Since(cancelled)
}

func TestConfinedInterrupt(t *testing.T) {
	confinable(t)
	// Cancelling forwards an interrupt.
	if o, _ := runReady(t, "wait-int", time.Minute); o.Code != 130 || o.Killed {
		t.Errorf("interrupted child: %+v", o)
	}
	// A child that ignores it is killed after the grace period.
	o, _ := runReady(t, "ignore-int", 200*time.Millisecond)
	if !o.Killed || o.Signal != syscall.SIGKILL || o.OOM {
		t.Errorf("child ignoring the interrupt: %+v", o)
	}
}
