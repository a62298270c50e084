package external_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/proc"
	"github.com/litebench/litebench/internal/proc/proctest"
	"github.com/litebench/litebench/internal/target/external"
)

func TestMain(m *testing.M) {
	code := m.Run()
	proctest.Cleanup()
	os.Exit(code)
}

// env is the test's environment without LITEBENCH_ROOT, plus extra.
func env(extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, external.EnvRoot+"=") {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}

// plant makes a tree at root whose rust-rusqlite worker is a shell script
// that writes its pid to root/pid, then runs body.
func plant(t *testing.T, root, body string) {
	t.Helper()
	exe := filepath.Join(root, "workers", "rust", "target", "release", "litebench-worker-rust")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho $$ > " + filepath.Join(root, "pid") + "\n" + body + "\n"
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module github.com/litebench/litebench\n\ngo 1.24\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// line is the line of target name in a 'list targets' table.
func line(out, name string) string {
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == name {
			return l
		}
	}
	return ""
}

// The workers of the test's own checkout are found, wherever the test
// binary was built.
func TestRootIsTheCheckout(t *testing.T) {
	if os.Getenv(external.EnvRoot) != "" {
		t.Skip(external.EnvRoot + " is set")
	}
	wd, _ := os.Getwd()
	want := filepath.Dir(filepath.Dir(filepath.Dir(wd)))
	if got := external.Root(); got != want {
		t.Errorf("Root() = %q, want the checkout %q", got, want)
	}
	// Not the working directory's, though it looks like a checkout.
	dir := t.TempDir()
	plant(t, dir, "exit 1")
	t.Chdir(dir)
	if got := external.Root(); got != want {
		t.Errorf("in %s, Root() = %q, want the checkout %q", dir, got, want)
	}
}

// A workers/ tree in (or above) the working directory is never run:
// litebench started inside a downloaded repository lists its targets from
// the checkout it was built from.
func TestWorkingDirectoryWorkersAreNotRun(t *testing.T) {
	lb := proctest.Litebench(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	plant(t, dir, "touch "+marker+"\necho '{\"t\":\"hello\",\"protocol\":1}'\nsleep 300")
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	for _, wd := range []string{dir, sub} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, lb, "list", "targets")
		cmd.Dir, cmd.Env, cmd.WaitDelay = wd, env(), time.Second
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("list targets in %s: %v\n%s", wd, err, out)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("the worker under %s ran", dir)
		}
		l := line(string(out), "rust-rusqlite")
		if l == "" || strings.Contains(l, "error") {
			t.Errorf("in %s: rust-rusqlite is %q, want it from the trusted checkout (built or not)", wd, l)
		}
	}
}

// A trusted worker that misbehaves (floods, writes garbage, leaves a
// grandchild holding its output, or hangs until Ctrl-C) is failed with
// one line; litebench exits promptly, and nothing of the worker's process
// group is left.
func TestMisbehavingWorkerCommand(t *testing.T) {
	lb := proctest.Litebench(t)
	for _, c := range []struct {
		name, body string
		interrupt  bool
		want       string
	}{
		{"flood", `head -c 100000000 /dev/zero | tr '\0' x; sleep 300`, false, "more than 64 KiB before its hello"},
		{"garbage", `echo 'WARNING: something'; sleep 300 & exec sleep 300`, false, "bad message"},
		{"grandchild then exit", `sleep 300 & exit 0`, false, "worker exited"},
		{"grandchild then silence", `sleep 300 & exec sleep 300`, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			plant(t, root, c.body)
			cmd := exec.Command(lb, "list", "targets")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			cmd.Env = env(external.EnvRoot + "=" + root)
			cmd.WaitDelay = time.Second // a worker left running holds the output
			t0 := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pidFile := filepath.Join(root, "pid")
			if c.interrupt {
				for i := 0; i < 500; i++ {
					if b, _ := os.ReadFile(pidFile); len(b) > 0 {
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
				t0 = time.Now()
				cmd.Process.Signal(syscall.SIGINT)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(5 * time.Second): // a generous bound: the goal is well under 2 s
				cmd.Process.Kill()
				<-done
				t.Fatalf("litebench still ran after 5 s:\n%s", out.String())
			}
			took := time.Since(t0)
			t.Logf("litebench exited %v after %s", took.Round(time.Millisecond), map[bool]string{true: "Ctrl-C", false: "it started"}[c.interrupt])
			l := line(out.String(), "rust-rusqlite")
			if c.want != "" && !strings.Contains(l, c.want) {
				t.Errorf("rust-rusqlite: %q, want %q", l, c.want)
			}
			b, _ := os.ReadFile(pidFile)
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			if pid == 0 {
				t.Fatalf("the worker did not run:\n%s", out.String())
			}
			var left []int
			for range 100 {
				if left = proc.Group(pid); len(left) == 0 {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if len(left) > 0 {
				t.Errorf("left of the worker's group: %v", left)
			}
		})
	}
}
