package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/results"
)

// The set-up work that grows with a number the user gives is bounded,
// checked before anything runs, or stopped by Ctrl-C: each command runs as
// a real process (this test binary as litebench), is sent SIGINT, and must
// exit 130 within stopBound. Each is tried a few times, since a missed
// signal is often a race.

const signalTrials = 3

// startCmd runs this test binary as litebench with args in dir, stdout
// and stderr apart.
func startCmd(t *testing.T, dir string, args ...string) (cmd *exec.Cmd, stdout *bytes.Buffer, stderr *watchWriter) {
	t.Helper()
	cmd = exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), envTestMain+"=1")
	stdout, stderr = &bytes.Buffer{}, &watchWriter{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stdout, stderr
}

// waitMark waits (boundedly) until w shows mark.
func waitMark(t *testing.T, cmd *exec.Cmd, w *watchWriter, mark string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(w.String(), mark) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no %q within 60 s: %s", mark, w)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A zipfian over 10^11 rows is prepared at once (it summed every row's
// term for about an hour); the load that follows stops on Ctrl-C, and the
// partial run is saved as interrupted.
func TestInterruptHugeZipfianRead(t *testing.T) {
	for i := range signalTrials {
		dir := t.TempDir()
		store := filepath.Join(dir, "s.db")
		cmd, _, errw := startCmd(t, dir, "read", "--rows", "1e11", "--keys", "zipfian", "--in-memory", "--store", store, "--progress", "0")
		waitMark(t, cmd, errw, "read mattn ...")
		time.Sleep(time.Duration(i) * 300 * time.Millisecond)
		code, took := interrupt(t, cmd)
		t.Logf("trial %d: exit %d %v after SIGINT", i+1, code, took.Round(time.Millisecond))
		wantInterruptedRun(t, outcome{code: code, err: errw.String()}, store)
	}
}

// hugeFile is a workload file whose default table holds 10^15 rows, read
// with zipfian keys, with a zipf column over 10^15 values.
const hugeFile = `name = "huge"
summary = "a huge table"

[params]
rows = { default = "1000000000000000", help = "rows", type = "count" }

[[table]]
name = "kv"
rows = "${rows}"
columns = [
  { name = "id", type = "integer", primary_key = true, gen = "seq(1)" },
  { name = "v", type = "text", gen = "GEN" },
  { name = "z", type = "int", gen = "zipf(1000000000000000, 0.99)" },
]

[transaction.get]
steps = [{ op = "read", table = "kv", keys = "zipfian" }]

[mix]
get = 1
`

// 'workload check' of a 10^15-row file prepares nothing that grows with the
// rows: it finishes at once (it never ended).
func TestWorkloadCheckHugeTable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "huge.toml")
	os.WriteFile(file, []byte(strings.Replace(hugeFile, "GEN", "text(8, 16)", 1)), 0o644)
	for range signalTrials {
		cmd, out, errw := startCmd(t, dir, "workload", "check", file)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(stopBound):
			code, _ := interrupt(t, cmd)
			t.Fatalf("workload check still running after %v (exit %d after SIGINT): %s", stopBound, code, errw)
		}
		if code := cmd.ProcessState.ExitCode(); code != 0 || out.String() != "huge: ok (9 parameters, 1 op kinds)\n" {
			t.Errorf("exit %d, %q: %s", code, out, errw)
		}
	}
}

// wantRefused checks a one-line refusal naming want, with exit 2, and that
// dir holds nothing but what it held before.
func wantRefused(t *testing.T, dir string, before []string, o outcome, want string) {
	t.Helper()
	if o.code != ExitUsage || !strings.Contains(o.err, want) || strings.Count(strings.TrimSpace(o.err), "\n") != 0 {
		t.Errorf("exit %d, stderr %q; want exit 2 and one line with %q", o.code, o.err, want)
	}
	after, _ := filepath.Glob(filepath.Join(dir, "*"))
	if strings.Join(after, " ") != strings.Join(before, " ") {
		t.Errorf("files %v after the refusal, want %v", after, before)
	}
}

// Limits on what grows with a number the user gives are checked before
// anything runs: one line naming the limit, exit 2, no file created (the
// store included).
func TestLimitChecks(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "s.db")
	text := filepath.Join(dir, "text.toml")
	letters := filepath.Join(dir, "letters.toml")
	os.WriteFile(text, []byte(strings.Replace(hugeFile, "GEN", "text(1000000000, 1000000000)", 1)), 0o644)
	os.WriteFile(letters, []byte(strings.Replace(hugeFile, "GEN", "letters(2000000000)", 1)), 0o644)
	before, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"read", "--repeat", "1e8", "--rows", "10"}, "--repeat 100000000: 1 cell(s) × 100000000 is more than the limit of 10000 runs per sweep; use --repeat 10000 or less"},
		{[]string{"read", "--repeat", "5001", "--target", "mattn,modernc", "--rows", "10"}, "use --repeat 5000 or less"},
		{[]string{"workload", "check", text}, "text wants max ≤ 16777216 (the limit of a value's bytes), not 1000000000"},
		{[]string{"workload", "check", letters}, "letters wants len from 0 to 16777216 (the limit of a value's bytes), not 2000000000"},
		{[]string{"run", text, "--rows", "10"}, "text wants max ≤ 16777216"},
		{[]string{"run", letters, "--rows", "10"}, "letters wants len from 0 to 16777216"},
		{[]string{"read", "--rows", "1e11", "--keys", "zipfian", "--dir", dir}, "on disk, more than the"},
		{[]string{"read", "--rows", "10", "--memory", "4096TiB"}, "more than this machine's"},
	} {
		args := append(c.args, "--store", store)
		if c.args[0] == "workload" {
			args = c.args
		}
		wantRefused(t, dir, before, run(t, context.Background(), args...), c.want)
	}
}

// --repeat 1e8 is refused at once, as a process too: it built the whole
// plan first (6.7 GB in 17 s) and did not hear SIGINT meanwhile.
func TestRepeatHugeRefusedAtOnce(t *testing.T) {
	dir := t.TempDir()
	cmd, _, errw := startCmd(t, dir, "read", "--repeat", "100000000", "--rows", "10", "--store", filepath.Join(dir, "s.db"))
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(stopBound):
		code, _ := interrupt(t, cmd)
		t.Fatalf("still running after %v (exit %d after SIGINT)", stopBound, code)
	}
	if code := cmd.ProcessState.ExitCode(); code != ExitUsage || !strings.Contains(errw.String(), "limit of 10000 runs") {
		t.Errorf("exit %d: %s", code, errw)
	}
}

// Ctrl-C stops 'export --all' between two runs: exit 130, and what it
// wrote is whole runs, each a line 'import' takes.
func TestExportInterrupted(t *testing.T) {
	dir := t.TempDir()
	store := bigStore(t, dir, 3000)
	for i := range signalTrials {
		// The first trial stops it while it reads the store, the others
		// once it writes.
		cmd := exec.Command(os.Args[0], "export", "--all", "--store", store)
		cmd.Env = append(os.Environ(), envTestMain+"=1")
		out, errw := &watchWriter{}, &watchWriter{}
		cmd.Stdout, cmd.Stderr = out, errw
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			time.Sleep(200 * time.Millisecond)
		} else {
			waitMark(t, cmd, out, "\n")
		}
		code, took := interrupt(t, cmd)
		lines := strings.Split(out.String(), "\n")
		t.Logf("trial %d: exit %d %v after SIGINT, %d lines", i+1, code, took.Round(time.Millisecond), len(lines)-1)
		if last := lines[len(lines)-1]; len(last) != 0 {
			t.Errorf("the output ends in a partial line of %d bytes", len(last))
		}
		for k, l := range lines[:len(lines)-1] {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil || m["run_id"] == nil {
				t.Fatalf("line %d is not a run: %v", k+1, err)
			}
		}
		switch {
		case code == ExitInterrupted && strings.Contains(errw.String(), "interrupted; exported "):
		case code == ExitInterrupted && strings.Contains(errw.String(), "interrupted; nothing was written") && len(lines) == 1:
		case code == 0 && len(lines)-1 == 3001:
			t.Log("the export finished before the interrupt")
		default:
			t.Errorf("exit %d with %d lines: %s", code, len(lines)-1, errw)
		}
	}
	// runs and show read the same store: Ctrl-C stops them as well.
	for _, args := range [][]string{{"runs", "--limit", "0"}, {"show", "--last"}} {
		cmd, _, errw := startCmd(t, dir, append(args, "--store", store)...)
		time.Sleep(200 * time.Millisecond)
		code, took := interrupt(t, cmd)
		t.Logf("%v: exit %d %v after SIGINT", args, code, took.Round(time.Millisecond))
		if code != ExitInterrupted && code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, errw)
		}
	}
}

// pragma with --pool 1 answers: the connection that keeps its in-memory
// database alive does not take the pool's only place.
func TestPragmaPoolOne(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tg := range []string{"mattn", "modernc", "zombie"} {
		o := run(t, ctx, "pragma", "--pool", "1", "--target", tg, "busy_timeout")
		if o.code != 0 || o.out != "busy_timeout = 5000\n" {
			t.Errorf("%s: exit %d, %q: %s", tg, o.code, o.out, o.err)
		}
	}
}

// Ctrl-C stops a 3-node dqlite run within the bound whenever it comes:
// while the cluster forms (a node then waited out its 10 s grace), while
// it loads, while it runs. Nothing of the cluster is left.
func TestInterruptDqliteCluster(t *testing.T) {
	needDqlite(t)
	dir := t.TempDir()
	for i, delay := range []time.Duration{100 * time.Millisecond, 600 * time.Millisecond, 3 * time.Second} {
		store := filepath.Join(dir, "s.db")
		// In this directory, inside the checkout, so that the worker is found.
		cmd := exec.Command(os.Args[0], "mixed", "--target", "dqlite", "--nodes", "3", "--rows", "500", "--duration", "60s",
			"--dir", dir, "--store", store, "--progress", "0")
		cmd.Env = append(os.Environ(), envTestMain+"=1")
		errw := &watchWriter{}
		cmd.Stdout, cmd.Stderr = errw, errw
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitMark(t, cmd, errw, "mixed dqlite ...")
		time.Sleep(delay)
		code, took := interrupt(t, cmd)
		t.Logf("trial %d (SIGINT %v after the start): exit %d %v after SIGINT", i+1, delay, code, took.Round(time.Millisecond))
		wantInterruptedRun(t, outcome{code: code, err: errw.String()}, store)
		if left := leftovers(t, dir); len(left) > 0 {
			t.Errorf("left behind: %v", left)
		}
		os.Remove(store)
	}
}

// The largest plan, 10000 runs, is built for seconds: Ctrl-C stops its
// building, and nothing is written.
func TestInterruptLargePlan(t *testing.T) {
	for i := range signalTrials {
		dir := t.TempDir()
		store := filepath.Join(dir, "s.db")
		cmd, _, errw := startCmd(t, dir, "read", "--repeat", "10000", "--rows", "10", "--count", "1", "--dir", dir, "--store", store, "--progress", "0")
		time.Sleep(time.Duration(300+200*i) * time.Millisecond)
		code, took := interrupt(t, cmd)
		t.Logf("trial %d: exit %d %v after SIGINT", i+1, code, took.Round(time.Millisecond))
		switch {
		case code == ExitInterrupted && strings.Contains(errw.String(), "interrupted; nothing was written"):
			if _, err := os.Stat(store); err == nil {
				t.Errorf("the store was created")
			}
		case code == ExitInterrupted:
			// It had started running: the newest run is the partial one,
			// saved as interrupted, unless the interrupt fell between two
			// runs (each is one read); no run is left running or lost.
			rs := storedRuns(t, store)
			for _, r := range rs {
				if r.Status != results.StatusOK && r.Status != results.StatusInterrupted {
					t.Errorf("trial %d: run %s is %s", i+1, r.RunID, r.Status)
				}
			}
		default:
			t.Errorf("exit %d: %s", code, errw)
		}
	}
}
