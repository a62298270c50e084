// Package nodeworker holds the end-to-end conformance test of the Node
// worker (target node-better-sqlite3): the same small jobs run through
// 'litebench worker' (built from this tree) and through 'node worker.js',
// and the two must agree on what they wrote, count what they did alike and
// report histograms litebench decodes to the summaries the worker sent.
package nodeworker

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/histcodec"
	"github.com/litebench/litebench/internal/metrics"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/settings"
	_ "github.com/litebench/litebench/internal/target/external"
	"github.com/litebench/litebench/internal/worker"
	"github.com/litebench/litebench/internal/workload"
)

// buildDir holds the litebench the tests built; TestMain removes it.
var buildDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

const target = "node-better-sqlite3"

// nodeWorker returns the command line of the Node worker, or skips the
// test when its build is missing (fails instead when
// LITEBENCH_NODE_REQUIRED is set, as test.sh sets it).
func nodeWorker(t *testing.T) []string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not on PATH"
	} else if _, err := os.Stat(filepath.Join(dir, "node_modules", "better-sqlite3", "build", "Release", "better_sqlite3.node")); err != nil {
		missing = "workers/node/node_modules is not built: run workers/node/build.sh"
	}
	if missing != "" {
		if os.Getenv("LITEBENCH_NODE_REQUIRED") != "" {
			t.Fatal(missing)
		}
		t.Skip(missing)
	}
	return []string{"node", filepath.Join(dir, "worker.js")}
}

var (
	buildOnce sync.Once
	lbPath    string
	buildErr  error
)

// goWorker returns the command line of 'litebench worker' built from this
// tree (or LITEBENCH_BIN).
func goWorker(t *testing.T) []string {
	t.Helper()
	buildOnce.Do(func() {
		if b := os.Getenv("LITEBENCH_BIN"); b != "" {
			lbPath = b
			return
		}
		dir, err := os.MkdirTemp("", "litebench-node-conform")
		if err != nil {
			buildErr = err
			return
		}
		buildDir = dir
		lbPath = filepath.Join(dir, "litebench")
		if out, err := exec.Command("go", "build", "-o", lbPath, "github.com/litebench/litebench/cmd/litebench").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return []string{lbPath, "worker"}
}

// talk is one worker's conversation about one job.
type talk struct {
	hello, setup, final worker.Event
	intervals, acks     []worker.Event
}

func converse(t *testing.T, argv []string, job *worker.Job, cancelAfter time.Duration) (*talk, error) {
	t.Helper()
	p, err := worker.StartCommand(argv[0], argv[1:]...)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := &talk{}
	if c.hello, err = p.Hello(ctx); err != nil {
		return c, err
	}
	if c.setup, err = p.Setup(ctx, job); err != nil {
		return c, err
	}
	runCtx := ctx
	if cancelAfter > 0 {
		var stop context.CancelFunc
		runCtx, stop = context.WithCancel(ctx)
		timer := time.AfterFunc(cancelAfter, stop)
		defer timer.Stop()
	}
	c.final, err = p.Run(runCtx, func(e worker.Event) {
		switch e.T {
		case worker.TInterval:
			c.intervals = append(c.intervals, e)
		case worker.TAck:
			c.acks = append(c.acks, e)
		}
	})
	return c, err
}

type jobCase struct {
	name     string
	workload string
	// file, for workload "program": a workload file, which the Go worker
	// interprets and the Node worker runs compiled (the job's program).
	file     string
	params   map[string]string
	settings map[string]string
	// same: one writer and a fixed count, so the final digest and every
	// op's count and errors must be the Go worker's.
	same     bool
	interval time.Duration
	acks     bool
}

var jobCases = []jobCase{
	{name: "insert-bench-wal", workload: "insert", same: true, acks: true, interval: 20 * time.Millisecond,
		params:   map[string]string{"rows": "3000"},
		settings: map[string]string{"batch": "100", "journal": "wal", "sync": "off"}},
	{name: "insert-users-multirow-immediate", workload: "insert", same: true,
		params:   map[string]string{"rows": "700", "schema": "users"},
		settings: map[string]string{"batch": "60", "rows-per-stmt": "7", "tx": "immediate"}},
	{name: "insert-account-autocommit-adhoc", workload: "insert", same: true,
		params:   map[string]string{"rows": "200", "schema": "account"},
		settings: map[string]string{"batch": "1", "prepared": "false", "sync": "off"}},
	{name: "insert-foo-vacuum", workload: "insert", same: true,
		params:   map[string]string{"rows": "2500", "schema": "foo", "vacuum": "true"},
		settings: map[string]string{"batch": "2500", "rows-per-stmt": "3"}},
	{name: "insert-pages-memory", workload: "insert", same: true,
		params:   map[string]string{"rows": "60", "schema": "pages"},
		settings: map[string]string{"batch": "10", "in-memory": "true"}},
	{name: "insert-two-workers-mutex", workload: "insert",
		params:   map[string]string{"rows": "1200", "workers": "2"},
		settings: map[string]string{"batch": "50", "journal": "wal", "write-mutex": "true", "busy-retry": "until"}},
	{name: "scan", workload: "scan", same: true,
		params: map[string]string{"rows": "3000"}},
	{name: "read-zipfian", workload: "read", same: true,
		params: map[string]string{"rows": "1000", "count": "500", "keys": "zipfian"}},
	{name: "read-users-duration", workload: "read", interval: 50 * time.Millisecond,
		params: map[string]string{"rows": "500", "duration": "300ms", "schema": "users"}},
	{name: "read-two-workers-conn-per-op", workload: "read",
		params:   map[string]string{"rows": "400", "count": "300", "workers": "2"},
		settings: map[string]string{"conn-per-op": "true", "journal": "wal"}},
	{name: "write-insert-users", workload: "write", same: true, acks: true,
		params: map[string]string{"rows": "100", "count": "300", "schema": "users"}},
	{name: "write-update-batch", workload: "write", same: true,
		params:   map[string]string{"rows": "200", "count": "100", "schema": "account", "write-kind": "update"},
		settings: map[string]string{"batch": "5", "sync": "off"}},
	{name: "write-upsert-latest-adhoc", workload: "write", same: true,
		params:   map[string]string{"rows": "200", "count": "200", "schema": "foo", "write-kind": "upsert", "keys": "latest"},
		settings: map[string]string{"prepared": "false"}},
	{name: "write-single-writer", workload: "write", same: true,
		params:   map[string]string{"rows": "100", "count": "150"},
		settings: map[string]string{"writer": "single", "journal": "wal"}},
	{name: "mixed-open-loop", workload: "mixed", same: true, interval: 40 * time.Millisecond,
		params: map[string]string{"rows": "300", "count": "200", "rate": "2000", "max-inflight": "1", "write-ratio": "30"}},
	{name: "mixed-open-poisson-warmup", workload: "mixed", interval: 50 * time.Millisecond,
		params: map[string]string{"rows": "300", "duration": "300ms", "warmup": "100ms", "rate": "1000",
			"arrivals": "poisson", "write-kind": "update", "max-inflight": "4"},
		settings: map[string]string{"journal": "wal"}},
	{name: "mixed-closed", workload: "mixed", interval: 30 * time.Millisecond,
		params:   map[string]string{"rows": "300", "count": "400"},
		settings: map[string]string{"journal": "wal", "busy-retry": "until"}},
	{name: "program-kv", workload: "program", file: "../../internal/spec/testdata/program/kv.toml", same: true, interval: 20 * time.Millisecond,
		params:   map[string]string{"keys": "1000", "count": "300"},
		settings: map[string]string{"journal": "wal", "sync": "off"}},
	{name: "program-ledger", workload: "program", file: "../../internal/spec/testdata/program/weighted.toml", same: true, acks: true,
		params: map[string]string{"seed": "7", "count": "300"}},
	{name: "program-pagination", workload: "program", file: "../../examples/pagination.toml", same: true,
		params: map[string]string{"rows": "2000", "depth": "500", "count": "20"}},
	{name: "program-kv-open-loop", workload: "program", file: "../../internal/spec/testdata/program/kv.toml", same: true, interval: 40 * time.Millisecond,
		params: map[string]string{"keys": "1000", "count": "200", "rate": "2000", "max-inflight": "1"}},
	{name: "program-ledger-open-poisson", workload: "program", file: "../../internal/spec/testdata/program/weighted.toml", interval: 50 * time.Millisecond,
		params:   map[string]string{"duration": "300ms", "warmup": "100ms", "rate": "1000", "arrivals": "poisson", "max-inflight": "3"},
		settings: map[string]string{"journal": "wal", "busy-retry": "until"}},
	{name: "program-ledger-closed-workers", workload: "program", file: "../../internal/spec/testdata/program/weighted.toml", interval: 30 * time.Millisecond,
		params:   map[string]string{"count": "400", "workers": "3"},
		settings: map[string]string{"journal": "wal", "busy-retry": "until"}},
}

func newJob(t *testing.T, c jobCase, target, dir string) *worker.Job {
	s := settings.Default()
	for k, v := range c.settings {
		if err := s.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	p := map[string]string{}
	for k, v := range c.params {
		p[k] = v
	}
	path := filepath.Join(dir, "bench.db")
	if s.Bool("in-memory") {
		path = "conform-" + c.name
	}
	j := &worker.Job{RunID: c.name, Workload: c.workload, Params: p, Settings: s.WorkerMap("sqlite"), Target: target,
		Path: path, Digest: true, Acks: c.acks, IntervalNS: int64(c.interval)}
	if c.file != "" {
		addProgram(t, j, c.file)
	}
	return j
}

// addProgram makes j a job of a workload file, with (for the Node worker)
// its program compiled for SQLite as the runner sends it to a worker of
// another language.
func addProgram(t *testing.T, j *worker.Job, file string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	j.Spec = &workload.Definition{Kind: "file", Sources: []workload.DefSource{{Name: filepath.Base(file), Text: string(b)}}}
	if j.Target != target {
		return
	}
	// Resolve completes the job it is given: resolve a copy.
	cp := *j
	cp.Settings, cp.Params = map[string]string{}, map[string]string{}
	for k, v := range j.Settings {
		cp.Settings[k] = v
	}
	for k, v := range j.Params {
		cp.Params[k] = v
	}
	wl, _, err := worker.Resolve(&cp)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	pg, ok := wl.(worker.Programmed)
	if !ok {
		t.Fatalf("%s: a %T has no program", file, wl)
	}
	if j.Program, err = pg.ProgramJSON(dialect.SQLite); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

func TestConformance(t *testing.T) {
	node := nodeWorker(t)
	lb := goWorker(t)
	for _, c := range jobCases {
		t.Run(c.name, func(t *testing.T) {
			goTalk, err := converse(t, lb, newJob(t, c, "mattn", t.TempDir()), 0)
			if err != nil {
				t.Fatalf("litebench worker: %v", err)
			}
			nodeTalk, err := converse(t, node, newJob(t, c, target, t.TempDir()), 0)
			if err != nil {
				t.Fatalf("node worker: %v", err)
			}
			compare(t, c, goTalk, nodeTalk)
			checkReport(t, c, nodeTalk)
			if c.file != "" {
				checkProgramCounts(t, nodeTalk)
			}
		})
	}
}

// compare checks the Node worker against the Go worker.
func compare(t *testing.T, c jobCase, g, n *talk) {
	t.Helper()
	if !strings.HasPrefix(n.hello.Lang, "node ") || n.setup.Client != target || n.setup.Engine != "sqlite" || n.setup.EngineVersion == "" {
		t.Errorf("hello/setup_done: lang %q client %q engine %q version %q", n.hello.Lang, n.setup.Client, n.setup.Engine, n.setup.EngineVersion)
	}
	if n.setup.Digest == "" || n.setup.Digest != g.setup.Digest {
		t.Errorf("setup digest %q, the Go worker's %q", n.setup.Digest, g.setup.Digest)
	}
	if n.setup.JournalMode != g.setup.JournalMode {
		t.Errorf("journal_mode %q, the Go worker's %q", n.setup.JournalMode, g.setup.JournalMode)
	}
	if g.final.Status != results.StatusOK || n.final.Status != results.StatusOK {
		t.Fatalf("status: Go %s %s, Node %s %s", g.final.Status, g.final.Error, n.final.Status, n.final.Error)
	}
	if fixedWork(c) && n.final.Done != g.final.Done {
		t.Errorf("done %d, the Go worker's %d", n.final.Done, g.final.Done)
	}
	// Rows written are fixed unless readers and writers share a count.
	if rows := metric(n.final, "table_rows_after"); fixedWork(c) && c.workload != "mixed" && rows != metric(g.final, "table_rows_after") {
		t.Errorf("table_rows_after %v, the Go worker's %v", rows, metric(g.final, "table_rows_after"))
	}
	if c.acks && ackedRows(n) != ackedRows(g) {
		t.Errorf("acknowledged %d rows, the Go worker %d", ackedRows(n), ackedRows(g))
	}
	if !c.same {
		return
	}
	if n.final.Digest == "" || n.final.Digest != g.final.Digest {
		t.Errorf("final digest %q, the Go worker's %q", n.final.Digest, g.final.Digest)
	}
	if got, want := opCounts(n.final), opCounts(g.final); !reflect.DeepEqual(got, want) {
		t.Errorf("op counts %v, the Go worker's %v", got, want)
	}
}

// fixedWork says whether the job's amount of work is fixed (rows or a
// count, not a duration).
func fixedWork(c jobCase) bool {
	return c.workload == "insert" || c.workload == "scan" || c.params["count"] != ""
}

func metric(ev worker.Event, name string) float64 {
	for _, m := range ev.Metrics {
		if m.Name == name {
			return m.Value
		}
	}
	return -1
}

func ackedRows(c *talk) int64 {
	var n int64
	for _, a := range c.acks {
		for _, r := range a.Rows {
			n += r
		}
	}
	return n
}

func opCounts(ev worker.Event) map[string]string {
	m := map[string]string{}
	for _, o := range ev.FinalOps {
		m[o.Name] = fmt.Sprintf("count %d errors %v", o.Count, o.Errors)
	}
	return m
}

// checkReport checks what the Node worker measured the way litebench reads
// it: every histogram decodes, its count is the op's, the summaries are
// the ones litebench computes from it, response time is not below service
// time, and the intervals add up.
func checkReport(t *testing.T, c jobCase, n *talk) {
	t.Helper()
	if n.final.ElapsedS <= 0 || n.final.Conns < 1 {
		t.Errorf("elapsed_s %v connections_opened %d", n.final.ElapsedS, n.final.Conns)
	}
	intervalN := map[string]int64{}
	for _, iv := range n.intervals {
		for _, o := range iv.Ops {
			intervalN[o.Name] += o.Count
			if o.Hist != "" {
				if _, err := histcodec.Decode(o.Hist); err != nil {
					t.Errorf("interval %s histogram: %v", o.Name, err)
				}
			}
		}
	}
	if c.interval > 0 && len(n.intervals) == 0 {
		t.Errorf("no interval event every %v", c.interval)
	}
	for _, o := range n.final.FinalOps {
		h, err := histcodec.Decode(o.Hist)
		if err != nil {
			t.Errorf("%s: service histogram: %v", o.Name, err)
			continue
		}
		if h.SignificantFigures() != 3 || h.LowestTrackableValue() != 1 || h.HighestTrackableValue() != int64(10*time.Minute) {
			t.Errorf("%s: histogram of %d figures over [%d, %d]", o.Name, h.SignificantFigures(), h.LowestTrackableValue(), h.HighestTrackableValue())
		}
		if want := summary(metrics.Summarise(h)); !reflect.DeepEqual(o.Service, want) {
			t.Errorf("%s: service summary %v, litebench reads %v", o.Name, o.Service, want)
		}
		if c.workload != "insert" && c.workload != "scan" && h.TotalCount() != o.Count+o.Overrun {
			t.Errorf("%s: histogram holds %d values for %d operations and %d overruns", o.Name, h.TotalCount(), o.Count, o.Overrun)
		}
		if c.interval > 0 && c.workload != "insert" && intervalN[o.Name] > o.Count {
			t.Errorf("%s: intervals counted %d, the run %d", o.Name, intervalN[o.Name], o.Count)
		}
		// A statement with a result of its own (of a transaction) has a
		// service time only, in either loop.
		if c.params["rate"] == "" || o.Of != "" {
			if o.RespHist != "" {
				t.Errorf("%s: a response histogram in closed loop or of a statement", o.Name)
			}
			continue
		}
		r, err := histcodec.Decode(o.RespHist)
		if err != nil {
			t.Errorf("%s: response histogram: %v", o.Name, err)
			continue
		}
		if r.TotalCount() != o.Count || !reflect.DeepEqual(o.Response, summary(metrics.Summarise(r))) {
			t.Errorf("%s: response histogram of %d values (count %d), summary %v", o.Name, r.TotalCount(), o.Count, o.Response)
		}
		if r.Mean() < h.Mean()*0.99 || r.Max() < h.Max() {
			t.Errorf("%s: response time (mean %v max %v) below service time (mean %v max %v)", o.Name, r.Mean(), r.Max(), h.Mean(), h.Max())
		}
	}
}

// Counts add up: the transactions' counts (the ops of no transaction)
// are the operations done, the parts' counts each at most their
// transaction's.
func checkProgramCounts(t *testing.T, n *talk) {
	t.Helper()
	var done int64
	counts := map[string]int64{}
	for _, o := range n.final.FinalOps {
		counts[o.Name] = o.Count
		if o.Of == "" {
			done += o.Count
		}
	}
	if done != n.final.Done || done == 0 {
		t.Errorf("transactions counted %d, done %d", done, n.final.Done)
	}
	for _, o := range n.final.FinalOps {
		if o.Of != "" && o.Count > counts[o.Of]+1 {
			t.Errorf("%s counted %d, its transaction %s %d", o.Name, o.Count, o.Of, counts[o.Of])
		}
	}
}

func summary(d metrics.Dist) results.Latency {
	l := results.Latency{"count": float64(d.Count), "min": d.Min, "mean": d.Mean, "max": d.Max}
	for k, v := range d.P {
		l[k] = v
	}
	return l
}

// Settings better-sqlite3 cannot honour are refused at setup, in one line
// naming the setting, and nothing is created.
func TestRefusals(t *testing.T) {
	node := nodeWorker(t)
	for _, c := range []struct {
		workload string
		params   map[string]string
		settings map[string]string
		want     string
	}{
		{"read", map[string]string{"workers": "3", "count": "10"}, map[string]string{"pool": "2"}, "--pool 2"},
		{"insert", nil, map[string]string{"shared-cache": "true"}, "--shared-cache"},
		{"read", map[string]string{"workers": "2", "count": "10"}, map[string]string{"in-memory": "true"}, "--in-memory"},
		{"write", map[string]string{"workers": "2", "count": "10"}, map[string]string{"writer": "single"}, "--writer single"},
		{"mixed", map[string]string{"rate": "100", "count": "10"}, map[string]string{"writer": "single"}, "--writer single"},
		{"paginate", nil, nil, "paginate"},
		{"insert", nil, map[string]string{"no-such": "1"}, "no-such"},
		{"insert", map[string]string{"rows": "0"}, nil, "--rows"},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "bench.db")
		j := &worker.Job{Workload: c.workload, Params: c.params, Settings: c.settings, Target: target, Path: path}
		_, err := converse(t, node, j, 0)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %v %v: %v, want a one-line refusal naming %s", c.workload, c.params, c.settings, err, c.want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Errorf("%s %v: the refused job created %s", c.workload, c.settings, entries[0].Name())
		}
	}
}

// A database litebench did not create is left alone.
func TestForeignFile(t *testing.T) {
	node := nodeWorker(t)
	path := filepath.Join(t.TempDir(), "mine.db")
	if err := os.WriteFile(path, []byte("not a database, someone's notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := converse(t, node, &worker.Job{Workload: "insert", Target: target, Path: path}, 0)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("setup on a file litebench did not create: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "not a database, someone's notes" {
		t.Errorf("the file was changed")
	}
}

// A cancel ends a run within the controller's grace, as interrupted, with
// what was measured.
func TestCancel(t *testing.T) {
	node := nodeWorker(t)
	for _, p := range []map[string]string{
		{"rows": "200", "duration": "60s", "workers": "2"},
		{"rows": "200", "duration": "60s", "rate": "500", "max-inflight": "2"},
	} {
		j := &worker.Job{Workload: "read", Params: p, Target: target, Path: filepath.Join(t.TempDir(), "bench.db"), IntervalNS: int64(100 * time.Millisecond)}
		start := time.Now()
		c, err := converse(t, node, j, 2*time.Second)
		if err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		if c.final.Status != results.StatusInterrupted || time.Since(start) > 30*time.Second {
			t.Errorf("%v: status %q after %v", p, c.final.Status, time.Since(start))
		}
		if len(c.final.FinalOps) == 0 || c.final.FinalOps[0].Count == 0 {
			t.Errorf("%v: nothing measured before the cancel: %+v", p, c.final.FinalOps)
		}
	}
}
