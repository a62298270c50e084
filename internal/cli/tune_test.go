package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/litebench/litebench/internal/audit"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/store"
	"github.com/litebench/litebench/internal/tune"
)

// tuneArgs is a small tune of insert on mattn: WAL or DELETE, NORMAL or
// FULL and two cache sizes (8 cells), everything else fixed.
func tuneArgs(dir string, extra ...string) []string {
	a := []string{"tune", "insert", "--target", "mattn", "--rows", "2000", "--batch", "100",
		"--space", "journal=wal,delete;sync=normal,full;cache-size=default,64MiB;mmap-size=default;temp-store=default;page-size=default;locking-mode=default;busy-timeout=5000;tx=deferred;pool=0;writer=pool;prepared=true",
		"--durability", audit.MayLoseAcknowledged, "--store", filepath.Join(dir, "lb.db"), "--dir", dir, "--progress", "0"}
	return append(a, extra...)
}

var sweepRE = regexp.MustCompile(`sweep (\S+) \(continue it with --resume`)
var runsRE = regexp.MustCompile(`; (\d+) runs \((\d+) reused from the store\)`)

// tuneStoredRuns are the sweep's runs of the search (not its audit's), by
// status.
func tuneStoredRuns(t *testing.T, path, id string) []*results.Result {
	t.Helper()
	st, err := store.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rs, err := st.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	var out []*results.Result
	for _, r := range rs {
		if r.Audit == nil {
			out = append(out, r)
		}
	}
	return out
}

// A tune on real SQLite recommends a cell of the class asked for, never
// runs a cell below it but to say what the requirement costs, audits the
// winner and prints the settings as code.
func TestTuneEndToEnd(t *testing.T) {
	dir := t.TempDir()
	o := run(t, context.Background(), tuneArgs(dir, "--budget", "40", "--audit-trials", "1")...)
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.out, o.err)
	}
	for _, want := range []string{"recommended: journal=", "the defaults (journal=delete sync=normal", "are below the requirement", "gain over the start", "durability: ", "process-kill audit, 1 trials",
		"--- Go, github.com/mattn/go-sqlite3", "--- Go, modernc.org/sqlite", "--- Python, sqlite3", "what may-lose-acknowledged costs: "} {
		if !strings.Contains(o.out, want) {
			t.Errorf("output lacks %q:\n%s", want, o.out)
		}
	}
	rec := regexp.MustCompile(`recommended: journal=(\S+) sync=(\S+)`).FindStringSubmatch(o.out)
	if rec == nil {
		t.Fatalf("no recommendation:\n%s", o.out)
	}
	if e, _ := audit.Lookup(rec[1], rec[2]); !tune.Meets(e.Class(), audit.MayLoseAcknowledged) {
		t.Errorf("recommended journal=%s sync=%s, of class %s", rec[1], rec[2], e.Class())
	}
	m := sweepRE.FindStringSubmatch(o.err)
	n := runsRE.FindStringSubmatch(o.out)
	if m == nil || n == nil {
		t.Fatalf("no sweep id or run count:\n%s\n%s", o.out, o.err)
	}
	runs, _ := strconv.Atoi(n[1])
	search, probes := 0, 0
	for _, r := range tuneStoredRuns(t, filepath.Join(dir, "lb.db"), m[1]) {
		j, s := r.Settings["journal"], r.Settings["sync"]
		e, _ := audit.Lookup(j, s)
		switch {
		case tune.Meets(e.Class(), audit.MayLoseAcknowledged):
			search++
		case s == "off" && strings.Contains(r.Label, "cost of durability"):
			probes++
		default:
			t.Errorf("run %s of journal=%s sync=%s (%s) is below the requirement", r.RunID, j, s, e.Class())
		}
	}
	if search != runs || probes == 0 {
		t.Errorf("stored %d runs of the search and %d of the cost probes; the tune says %d runs", search, probes, runs)
	}
}

// tuneCancelAfter is a writer that cancels a context once it has seen n
// runs end.
type tuneCancelAfter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	n      int
	cancel func()
}

func (w *tuneCancelAfter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Count(w.buf.String(), " ok: ") >= w.n {
		w.cancel()
	}
	return len(p), nil
}

// An interrupted tune prints the best so far; --resume continues it and
// runs none of the stored runs again.
func TestTuneResume(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &tuneCancelAfter{n: 7, cancel: cancel}
	var out bytes.Buffer
	code := Main(ctx, tuneArgs(dir, "--audit-trials", "0"), &out, w)
	if code != ExitInterrupted {
		t.Fatalf("interrupted tune: exit %d\n%s\n%s", code, out.String(), w.buf.String())
	}
	if !strings.Contains(out.String(), "interrupted: the best so far") || !strings.Contains(out.String(), "recommended: ") {
		t.Errorf("interrupted tune printed no best so far:\n%s", out.String())
	}
	m := sweepRE.FindStringSubmatch(w.buf.String())
	if m == nil {
		t.Fatalf("no sweep id:\n%s", w.buf.String())
	}
	id := m[1]
	ok := 0
	for _, r := range tuneStoredRuns(t, filepath.Join(dir, "lb.db"), id) {
		if r.Status == results.StatusOK {
			ok++
		}
	}
	if ok < 7 {
		t.Fatalf("%d runs stored before the interruption, want 7 or more", ok)
	}
	o := run(t, context.Background(), tuneArgs(dir, "--audit-trials", "0", "--resume", id)...)
	if o.code != ExitOK {
		t.Fatalf("resumed tune: exit %d\n%s\n%s", o.code, o.out, o.err)
	}
	n := runsRE.FindStringSubmatch(o.out)
	if n == nil {
		t.Fatalf("no run count:\n%s", o.out)
	}
	total, _ := strconv.Atoi(n[1])
	reused, _ := strconv.Atoi(n[2])
	if reused != ok {
		t.Errorf("resumed tune reused %d runs, the store held %d", reused, ok)
	}
	// Every run of the search is stored once: the runs before the
	// interruption and the new ones.
	search := 0
	for _, r := range tuneStoredRuns(t, filepath.Join(dir, "lb.db"), id) {
		if r.Status == results.StatusOK && r.Settings["sync"] != "off" {
			search++
		}
	}
	if search != total {
		t.Errorf("the sweep holds %d runs of the search, the resumed tune made %d (%d reused)", search, total, reused)
	}
	// Resuming a sweep of another workload is refused.
	o = run(t, context.Background(), "tune", "read", "--target", "mattn", "--store", filepath.Join(dir, "lb.db"), "--resume", id, "--explain=false")
	if o.code != ExitUsage || !strings.Contains(o.err, "resume it with the same workload") {
		t.Errorf("resume of another workload: exit %d: %s", o.code, o.err)
	}
}

func TestTuneExplainAndBadInput(t *testing.T) {
	dir := t.TempDir()
	o := run(t, context.Background(), "tune", "insert", "--target", "mattn", "--space", "journal=wal,delete;sync=off,normal,full", "--durability", "survives-power-loss", "--explain", "--store", filepath.Join(dir, "lb.db"))
	if o.code != ExitOK {
		t.Fatalf("explain: exit %d: %s", o.code, o.err)
	}
	// wal/full is the one pair of the six that survives a power loss
	// (delete/full may lose its last commit).
	size := regexp.MustCompile(`size: (\d+) cells; durability survives-power-loss prunes (\d+), leaving (\d+)`).FindStringSubmatch(o.out)
	if size == nil {
		t.Fatalf("explain:\n%s", o.out)
	}
	all, _ := strconv.Atoi(size[1])
	left, _ := strconv.Atoi(size[3])
	if all != 6*left {
		t.Errorf("explain: %s cells leaving %s, want a sixth left\n%s", size[1], size[3], o.out)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 0 {
		t.Errorf("explain wrote %v", files)
	}
	for _, bad := range [][]string{
		{"--durability", "sometimes"},
		{"--objective", "speed"},
		{"--slo", "p99>5ms"},
		{"--budget", "2"},
		{"--space", "nope=1"},
		{"--journal", "wal,delete"},
		{"--repeat", "3"},
		{"--space", "batch=1,10"},
		{"--vary", "pool"},
		{"--target", "mattn,modernc"},
	} {
		args := append([]string{"tune", "insert", "--target", "mattn", "--store", filepath.Join(dir, "lb.db"), "--dir", dir}, bad...)
		o := run(t, context.Background(), args...)
		if o.code != ExitUsage || strings.Count(strings.TrimSpace(o.err), "\n") != 0 {
			t.Errorf("%v: exit %d, want 2 and one line: %q", bad, o.code, o.err)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 0 {
		t.Errorf("bad input wrote %v", files)
	}
}
