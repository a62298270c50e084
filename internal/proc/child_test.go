package proc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/own"
)

// gone waits (up to a generous 5 s) until pid no longer runs.
func gone(pid int) bool {
	for range 250 {
		if !Running(pid) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// A leader that exits leaves nothing of its group running, even a
// grandchild that holds its output open: the wait returns.
func TestGroupKilledWhenLeaderExits(t *testing.T) {
	var out bytes.Buffer
	cmd := exec.Command("sh", "-c", "sleep 300 & echo $!; exit 3")
	cmd.Stdout = &out
	c, err := StartChild(cmd)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = c.Wait(ctx)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("wait: %v, want exit status 3", err)
	}
	g, _ := strconv.Atoi(strings.TrimSpace(out.String()))
	if g == 0 || !gone(g) {
		t.Errorf("grandchild %d (%q) still runs", g, out.String())
	}
	if left := Group(c.Pid()); len(left) > 0 {
		t.Errorf("left in the group: %v", left)
	}
}

// Kill kills the whole group; the ended context of Wait does too.
func TestWaitCancelKillsGroup(t *testing.T) {
	r, w, _ := os.Pipe()
	defer r.Close()
	cmd := exec.Command("sh", "-c", "sleep 300 & echo $!; exec sleep 300")
	cmd.Stdout = w
	c, err := StartChild(cmd)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(r).ReadString('\n')
	g, _ := strconv.Atoi(strings.TrimSpace(line))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Wait(ctx); err != context.Canceled {
		t.Errorf("wait: %v", err)
	}
	if g == 0 || !gone(g) || !gone(c.Pid()) {
		t.Errorf("group %d (grandchild %d) still runs: %v", c.Pid(), g, Group(c.Pid()))
	}
}

// Each child's environment names its group; the record of a running child
// is held, and goes when the child has gone.
func TestChildRecorded(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	r, w, _ := os.Pipe()
	defer r.Close()
	cmd := exec.Command("sh", "-c", "echo $"+EnvGroup+"; exec sleep 300")
	cmd.Stdout = w
	c, err := StartChild(cmd)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(r).ReadString('\n')
	if tok := strings.TrimSpace(line); tok != c.token || len(tok) != 32 {
		t.Errorf("%s=%q, want %q", EnvGroup, tok, c.token)
	}
	dir, _ := own.StateDir()
	recs, _ := filepath.Glob(filepath.Join(dir, groupRecord+"*"))
	if len(recs) != 1 {
		t.Fatalf("records %v", recs)
	}
	var rec record
	b, _ := os.ReadFile(recs[0])
	if err := json.Unmarshal(b, &rec); err != nil || rec.Pid != c.Pid() || rec.Token != c.token || rec.Start == 0 {
		t.Errorf("record %s (%v), child %d", b, err, c.Pid())
	}
	if n := Sweep(); n != 0 {
		t.Errorf("Sweep killed %d processes of a running litebench", n)
	}
	if !Running(c.Pid()) {
		t.Fatal("Sweep killed a live litebench's child")
	}
	KillAll()
	<-c.Done()
	if recs, _ := filepath.Glob(filepath.Join(dir, groupRecord+"*")); len(recs) != 0 {
		t.Errorf("records left: %v", recs)
	}
}

const envHelper = "LITEBENCH_PROC_TEST_HELPER"

// TestHelper is the litebench that is killed: it starts a child that
// starts a grandchild, prints their pids and waits to be killed.
func TestHelper(t *testing.T) {
	if os.Getenv(envHelper) == "" {
		t.Skip("run by TestSweep")
	}
	os.Unsetenv(envHelper)
	r, w, _ := os.Pipe()
	cmd := exec.Command("sh", "-c", "sleep 300 & echo $!; exec sleep 300")
	cmd.Stdout = w
	c, err := StartChild(cmd)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(r).ReadString('\n')
	fmt.Printf("%d %s", c.Pid(), line)
	time.Sleep(time.Minute)
}

// What a SIGKILLed litebench left running is killed by the next one's
// Sweep: the child by its parent-death signal at once, the grandchild by
// the sweep; a process that a record names but that is not what was
// recorded (another start time, no token) is left alone.
func TestSweep(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	helper := exec.Command(os.Args[0], "-test.run=^TestHelper$")
	helper.Env = append(os.Environ(), envHelper+"=1")
	out, _ := helper.StdoutPipe()
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	var child, grand int
	if _, err := fmt.Fscan(out, &child, &grand); err != nil {
		helper.Process.Kill()
		t.Fatal(err)
	}
	helper.Process.Signal(syscall.SIGKILL)
	helper.Wait()
	if !gone(child) {
		t.Errorf("child %d outlived the killed litebench", child)
	}
	if !Running(grand) {
		t.Fatalf("grandchild %d is gone before the sweep", grand)
	}

	// A stale record that names a process that is not its child.
	decoy := exec.Command("sleep", "300")
	if err := decoy.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { decoy.Process.Kill(); decoy.Wait() }()
	st, _ := startTime(decoy.Process.Pid)
	dir, _ := own.StateDir()
	b, _ := json.Marshal(record{Pid: decoy.Process.Pid, Start: st - 1, Exe: "/usr/bin/sleep", Token: "0123"})
	if err := os.WriteFile(filepath.Join(dir, groupRecord+"decoy"), b, 0o600); err != nil {
		t.Fatal(err)
	}

	if n := Sweep(); n < 1 {
		t.Errorf("Sweep killed %d processes", n)
	}
	if !gone(grand) {
		t.Errorf("grandchild %d survived the sweep", grand)
	}
	if !Running(decoy.Process.Pid) {
		t.Errorf("the sweep killed a process a record named but did not start")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("records left: %v", ents)
	}
}
