package worker

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/proc"
)

// A worker that floods its output, writes garbage, or leaves a process
// behind that holds its output open is failed with one line, promptly,
// and nothing of its process group is left running.
func TestMisbehavingWorkers(t *testing.T) {
	hello := `{"t":"hello","protocol":` + strconv.Itoa(Protocol) + `}`
	for _, c := range []struct {
		name, script string
		cancel       bool   // the worker is silent: the wait is cancelled
		want         string // in the error
	}{
		{"flood without a newline", `head -c 100000000 /dev/zero | tr '\0' x; sleep 300`, false, "more than 64 KiB before its hello"},
		{"flood of blank lines", `yes '' | head -c 100000000; sleep 300`, false, "more than 64 KiB before its hello"},
		{"garbage", `echo 'Picked up JAVA_TOOL_OPTIONS: -Xmx1g'; sleep 300`, false, "bad message"},
		{"garbage after hello", `echo '` + hello + `'; echo oops; sleep 300`, false, "bad message"},
		{"a long line after hello", `echo '` + hello + `'; head -c 100000000 /dev/zero | tr '\0' x; sleep 300`, false, "a line longer than 64 MiB"},
		{"a grandchild holding stderr, then exit", `sleep 300 & exit 0`, false, "worker exited"},
		{"a grandchild holding stderr, garbage", `sleep 300 & echo garbage; exec sleep 300`, false, "bad message"},
		{"a grandchild holding stderr, then silence", `sleep 300 & exec sleep 300`, true, "context canceled"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			p, err := StartCommand("sh", "-c", "echo $$ > "+pidFile+"; "+c.script)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if c.cancel {
				go func() { time.Sleep(300 * time.Millisecond); cancel() }()
				// A probe has nothing to wind down: cancelled, it is killed
				// (as external targets' Version does).
				stop := context.AfterFunc(ctx, func() { p.Kill() })
				defer stop()
			}
			t0 := time.Now()
			_, err = p.Hello(ctx)
			if err == nil {
				_, err = p.Setup(ctx, &Job{RunID: "x", Workload: "insert"})
			}
			p.Close()
			took := time.Since(t0)
			if c.cancel {
				took -= 300 * time.Millisecond
			}
			t.Logf("failed after %v: %v", took.Round(time.Millisecond), err)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q, want one line with %q", err, c.want)
			}
			// A generous bound for "it stops": the goal is well under a
			// second.
			if took > 5*time.Second {
				t.Errorf("took %v", took)
			}
			if c.cancel && !errors.Is(err, context.Canceled) {
				t.Errorf("error %v is not the cancel", err)
			}
			if left := groupLeft(p.Pid()); len(left) > 0 {
				t.Errorf("processes of the worker's group left: %v", left)
			}
			if b, _ := os.ReadFile(pidFile); strings.TrimSpace(string(b)) != strconv.Itoa(p.Pid()) {
				t.Errorf("the script ran as %q, the worker is %d", b, p.Pid())
			}
		})
	}
}

// groupLeft lists what runs of process group pgid, after giving a SIGKILL
// sent to it up to 2 s to take effect.
func groupLeft(pgid int) []int {
	var left []int
	for range 100 {
		if left = proc.Group(pgid); len(left) == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return left
}
