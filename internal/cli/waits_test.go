package cli

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/limits"
	"github.com/litebench/litebench/internal/results"
	resultstore "github.com/litebench/litebench/internal/store"
)

// stopBound is how long a command may take to return after Ctrl-C in
// these tests. The goal is 1 s; the bound leaves room for a loaded machine.
const stopBound = 5 * time.Second

// cancelAfter runs litebench args and cancels its context delay after its
// stderr first shows mark. It returns the outcome and how long Main took to
// return after the cancel.
func cancelAfter(t *testing.T, mark string, delay time.Duration, args ...string) (outcome, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var at time.Time
	errw := &watchWriter{mark: mark, fire: func() {
		time.Sleep(delay)
		mu.Lock()
		at = time.Now()
		mu.Unlock()
		cancel()
	}}
	if mark == "" {
		go errw.Write(nil)
	}
	var out bytes.Buffer
	code := Main(ctx, args, &out, errw)
	end := time.Now()
	mu.Lock()
	defer mu.Unlock()
	if at.IsZero() {
		t.Fatalf("%v ended (exit %d) before it was interrupted:\n%s", args, code, errw)
	}
	took := end.Sub(at)
	t.Logf("%v: returned %v after the interrupt", args, took.Round(time.Millisecond))
	if took > stopBound {
		t.Errorf("%v took %v to stop after the interrupt, want well under %v", args, took, stopBound)
	}
	return outcome{code, out.String(), errw.String()}, took
}

// storedRuns returns every run in the store at path.
func storedRuns(t *testing.T, path string) []*results.Result {
	t.Helper()
	s, err := resultstore.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rs, err := s.List(0)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// wantInterruptedRun checks that an interrupted command saved its partial
// run as interrupted.
func wantInterruptedRun(t *testing.T, o outcome, store string) *results.Result {
	t.Helper()
	if o.code != ExitInterrupted {
		t.Fatalf("exit %d, want %d: %s", o.code, ExitInterrupted, o.err)
	}
	rs := storedRuns(t, store)
	if len(rs) == 0 || rs[0].Status != results.StatusInterrupted {
		t.Fatalf("stored runs %v, want the partial run as interrupted", rs)
	}
	return rs[0]
}

func TestInterruptWhileOpeningHandles(t *testing.T) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Skip(err)
	}
	// Thousands of handles take seconds to open (as many as the open-file
	// limit allows); the interrupt comes soon after the run starts.
	handles := min(6000, (int(rl.Cur)-300)/3)
	if handles < 1000 {
		t.Skipf("the open-file limit (%d) allows too few handles", rl.Cur)
	}
	dir := t.TempDir()
	store := filepath.Join(dir, "s.db")
	o, _ := cancelAfter(t, "[1/1]", 100*time.Millisecond, "run", "http", "--handles", strconv.Itoa(handles), "--concurrency", "2",
		"--duration", "30s", "--journal", "wal", "--store", store, "--dir", dir, "--progress", "0")
	r := wantInterruptedRun(t, o, store)
	if r.Workload != "http" || r.Rows != 0 {
		t.Errorf("stored %s with %d requests, want http interrupted before any request", r.Workload, r.Rows)
	}
}

// A server that accepts connections and never answers: Ctrl-C ends the
// requests in flight instead of waiting for the client's timeout.
func TestInterruptHTTPStalledServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var held []net.Conn
		for {
			c, err := ln.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	dir := t.TempDir()
	store := filepath.Join(dir, "s.db")
	o, _ := cancelAfter(t, "[1/1]", 500*time.Millisecond, "run", "http", "--url", "http://"+ln.Addr().String()+"/",
		"--concurrency", "3", "--duration", "20s", "--store", store, "--dir", dir, "--progress", "0")
	wantInterruptedRun(t, o, store)
}

func TestInterruptWhileLoading(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "s.db")
	// Loading 20M rows before the measured part takes minutes.
	o, _ := cancelAfter(t, "[1/1]", 300*time.Millisecond, "read", "--rows", "20m", "--duration", "1s",
		"--store", store, "--dir", dir, "--progress", "0")
	wantInterruptedRun(t, o, store)
	// serve's pages, on a direct-API target: the interrupt comes while
	// 2M pages are written.
	o, _ = cancelAfter(t, "", 500*time.Millisecond, "serve", "--rows", "2m", "--body-size", "100", "--addr", "127.0.0.1:0",
		"--target", "zombie", "--strategy", "direct", "--dir", dir)
	if o.code != ExitInterrupted || strings.Contains(o.out, "serving") {
		t.Errorf("serve interrupted while creating pages: exit %d: %s %s", o.code, o.out, o.err)
	}
}

func TestInterruptSuiteKeepsReport(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "s.db")
	page := filepath.Join(dir, "quick.html")
	// The interrupt lands in the ladder's second step.
	o, _ := cancelAfter(t, "[2/5]", 200*time.Millisecond, "suite", "quick", "--store", store,
		"--dir", dir, "--report", page, "--progress", "0")
	r := wantInterruptedRun(t, o, store)
	if r.Section != "ladder" {
		t.Errorf("interrupted run %q in section %q", r.Label, r.Section)
	}
	b, err := os.ReadFile(page)
	if err != nil || !bytes.Contains(b, []byte("</html>")) {
		t.Errorf("the suite's report of the runs that finished: %v, %d bytes", err, len(b))
	}
}

func TestInterruptSelfcheck(t *testing.T) {
	o, _ := cancelAfter(t, "", 500*time.Millisecond, "selfcheck", "--rows", "5m", "--repeat", "1")
	if o.code != ExitInterrupted {
		t.Errorf("exit %d: %s", o.code, o.err)
	}
}

// bigStore is a store of n copies of one run, for slow reports.
func bigStore(t *testing.T, dir string, n int) string {
	t.Helper()
	store := filepath.Join(dir, "big.db")
	o := run(t, context.Background(), "mixed", "--readers", "1", "--writers", "1", "--count", "2000", "--rows", "1000",
		"--store", store, "--dir", dir, "--progress", "0", "--format", "json")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	rs := storedRuns(t, store)
	s, err := resultstore.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := 0; i < n; i++ {
		r := *rs[0]
		r.RunID = rs[0].RunID + "-" + strconv.Itoa(i)
		if err := s.Save(&r); err != nil {
			t.Fatal(err)
		}
	}
	return store
}

// startMain runs this test binary as the litebench command with args.
func startMain(t *testing.T, dir string, args ...string) (*exec.Cmd, *watchWriter) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), envTestMain+"=1")
	errw := &watchWriter{}
	cmd.Stderr = errw
	cmd.Stdout = errw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, errw
}

// interrupt sends SIGINT to cmd and returns its exit code and how long it
// took to exit.
func interrupt(t *testing.T, cmd *exec.Cmd) (int, time.Duration) {
	t.Helper()
	at := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("did not stop within 30 s of SIGINT")
	}
	took := time.Since(at)
	if took > stopBound {
		t.Errorf("took %v to stop after SIGINT, want well under %v", took, stopBound)
	}
	return cmd.ProcessState.ExitCode(), took
}

func TestReportInterruptedBySIGINT(t *testing.T) {
	dir := t.TempDir()
	store := bigStore(t, dir, 12000)
	page := filepath.Join(dir, "r.html")
	cmd, errw := startMain(t, dir, "report", "--all", "--store", store, "-o", page)
	time.Sleep(300 * time.Millisecond)
	code, took := interrupt(t, cmd)
	t.Logf("report: exit %d %v after SIGINT", code, took.Round(time.Millisecond))
	// The report is complete or absent, never half-written, and no
	// temporary file is left.
	b, err := os.ReadFile(page)
	switch {
	case code == ExitInterrupted && os.IsNotExist(err) && strings.Contains(errw.String(), "interrupted; nothing was written"):
	case code == 0 && err == nil && bytes.HasSuffix(bytes.TrimSpace(b), []byte("</html>")):
		t.Log("the report finished before the interrupt")
	default:
		t.Errorf("exit %d, report %d bytes (%v): %s", code, len(b), err, errw)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".litebench-report-*"))
	if len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestServeInterruptedWithIdleClients(t *testing.T) {
	// Ctrl-C with a keep-alive connection open and a client that connected
	// and sent nothing: serve stops at once all the same.
	addr, stop := startServe(t, "--strategy", "prepared", "--addr", "127.0.0.1:0", "--rows", "5", "--body-size", "100")
	idle := keepAliveClient(t, addr)
	defer idle.Close()
	silent := dialRaw(t, addr)
	defer silent.Close()
	at := time.Now()
	if code := stop(); code != ExitInterrupted {
		t.Errorf("exit %d", code)
	}
	if took := time.Since(at); took > stopBound {
		t.Errorf("serve took %v to stop", took)
	}
}

// confinedTest skips where --memory cannot work, and returns a directory,
// a store in it and the temporary directory confined commands use (empty
// unless something is left behind).
func confinedTest(t *testing.T) (dir, store, tmp string) {
	t.Helper()
	if err := limits.CanConfine(); err != nil {
		t.Skipf("memory cgroups are not writable here, so --memory is refused: %v", err)
	}
	dir, tmp = t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	store = filepath.Join(dir, "s.db")
	// The store exists beforehand: these tests are about runs, not about
	// a store's own creation.
	if o := run(t, context.Background(), "insert", "--rows", "10", "--store", store, "--progress", "0"); o.code != 0 {
		t.Fatal(o.err)
	}
	return dir, store, tmp
}

func TestMemoryOutOfMemorySavesFailedRun(t *testing.T) {
	_, store, tmp := confinedTest(t)
	// 5M rows of an in-memory database need about 700MB.
	o := run(t, context.Background(), "insert", "--rows", "5m", "--in-memory", "--memory", "32MiB", "--store", store,
		"--progress", "0", "--format", "json")
	if o.code != ExitFailed || !strings.Contains(o.err, "out of memory") || strings.Contains(o.err, "Killed") {
		t.Fatalf("exit %d, want 1 with the reason: %s", o.code, o.err)
	}
	rs := storedRuns(t, store)
	if len(rs) != 2 || rs[0].Status != results.StatusFailed || !strings.Contains(rs[0].Error, "out of memory: the workload needed more than --memory 32MiB") {
		t.Fatalf("stored: %+v", rs[0])
	}
	r := rs[0]
	if r.Workload != "insert" || r.Settings["in-memory"] != "true" || r.Env.Limits["memory_bytes"] != "33554432" {
		t.Errorf("failed run: workload %s settings %v limits %v", r.Workload, r.Settings, r.Env.Limits)
	}
	if j := jsonLines(t, o.out); len(j) != 1 || j[0]["status"] != "failed" {
		t.Errorf("JSON output: %s", o.out)
	}
	cg := r.Env.Limits["cgroup"]
	if _, err := os.Stat(cg); cg == "" || !os.IsNotExist(err) {
		t.Errorf("cgroup %q left behind (%v)", cg, err)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestMemoryConfinedRunAndInterrupt(t *testing.T) {
	dir, store, tmp := confinedTest(t)
	o := run(t, context.Background(), "insert", "--rows", "2000", "--memory", "256MiB", "--store", store, "--progress", "0")
	if o.code != 0 || !strings.Contains(o.out, "insert") {
		t.Fatalf("exit %d: %s %s", o.code, o.out, o.err)
	}
	rs := storedRuns(t, store)
	if len(rs) != 2 || rs[0].Status != results.StatusOK || rs[0].Rows != 2000 || rs[0].Env.Limits["memory_bytes"] != "268435456" {
		t.Fatalf("stored %+v", rs)
	}
	// Ctrl-C reaches the confined child, which saves its partial run.
	o, _ = cancelAfter(t, "[1/1]", 500*time.Millisecond, "insert", "--rows", "100m", "--memory", "256MiB", "--store", store,
		"--progress", "0", "--dir", dir)
	wantInterruptedRun(t, o, store)
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestResourceChecks(t *testing.T) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	handles := strconv.FormatUint(rl.Cur/3+10, 10)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "http", "--handles", handles, "--strategy", "stmt-pool"}, "ulimit -n"},
		{[]string{"serve", "--handles", handles}, "ulimit -n"},
		{[]string{"insert", "--workers", handles}, "ulimit -n"},
		{[]string{"read", "--workers", handles}, "ulimit -n"},
		{[]string{"mixed", "--readers", handles, "--writers", "1"}, "ulimit -n"},
		// Memory: a million open-loop executors' histograms.
		{[]string{"mixed", "--rate", "1000", "--max-inflight", "1000000", "--in-memory"}, "of memory"},
		{[]string{"read", "--workers", "64", "--memory", "32MiB"}, "--memory 32MiB"},
	} {
		store := filepath.Join(dir, "s.db")
		o := run(t, context.Background(), append(c.args, "--store", store, "--dir", dir)...)
		if o.code != ExitUsage || !strings.Contains(o.err, c.want) || strings.Count(strings.TrimSpace(o.err), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q", c.args, o.code, o.err)
		}
		if _, err := os.Stat(store); !os.IsNotExist(err) {
			t.Errorf("%v: the store was created", c.args)
		}
	}
	// The same settings within bounds run.
	if o := run(t, context.Background(), "read", "--workers", "4", "--count", "100", "--rows", "100", "--no-store", "--progress", "0"); o.code != 0 {
		t.Errorf("4 workers: exit %d: %s", o.code, o.err)
	}
}
