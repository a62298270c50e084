package pyworker

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	_ "github.com/mattn/go-sqlite3"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/histcodec"
	"github.com/litebench/litebench/internal/metrics"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/settings"
	_ "github.com/litebench/litebench/internal/target/mattn" // the target a program is compiled for
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

// The end-to-end conformance of the Python worker: each job runs through
// 'litebench worker' (built from this tree) and through the Python worker
// with each client, and the two must agree on what they wrote and report
// what they measured the way the Go worker does.

var clients = []string{"sqlite3", "apsw"}

// pythonWorker is the launcher setup.sh makes runnable. Without its
// environment the tests skip, unless LITEBENCH_PYTHON_REQUIRED is set (as
// test.sh sets it) and they fail instead.
func pythonWorker(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".venv", "bin", "python")); err != nil {
		if os.Getenv("LITEBENCH_PYTHON_REQUIRED") != "" {
			t.Fatalf("the Python worker's environment is missing: run workers/python/setup.sh")
		}
		t.Skip("workers/python/.venv missing: run workers/python/setup.sh")
	}
	return filepath.Join(dir, "litebench-worker")
}

var (
	buildOnce sync.Once
	lbBinary  string
	buildErr  error
)

// litebench builds this tree's litebench once (LITEBENCH_BIN names one
// already built).
func litebench(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if b := os.Getenv("LITEBENCH_BIN"); b != "" {
			lbBinary = b
			return
		}
		dir, err := os.MkdirTemp("", "litebench-conform")
		if err != nil {
			buildErr = err
			return
		}
		buildDir = dir
		lbBinary = filepath.Join(dir, "litebench")
		out, err := exec.Command("go", "build", "-o", lbBinary, "github.com/litebench/litebench/cmd/litebench").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return lbBinary
}

// conversation is what one worker said about one job.
type conversation struct {
	job                 *worker.Job
	hello, setup, final worker.Event
	intervals, acks     []worker.Event
}

func converse(t *testing.T, job *worker.Job, name string, args ...string) (*conversation, error) {
	return converseWith(t, job, nil, name, args...)
}

// converseWith runs before(job's path) between set-up and run, and the
// function it returns after the run.
func converseWith(t *testing.T, job *worker.Job, before func(*testing.T, string) func(), name string, args ...string) (*conversation, error) {
	t.Helper()
	p, err := worker.StartCommand(name, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := &conversation{job: job}
	if c.hello, err = p.Hello(ctx); err != nil {
		return nil, err
	}
	if c.setup, err = p.Setup(ctx, job); err != nil {
		return nil, err
	}
	if before != nil {
		defer before(t, job.Path)()
	}
	c.final, err = p.Run(ctx, func(e worker.Event) {
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
	params   map[string]string
	settings map[string]string
	// same: the job is deterministic, so the final digest and the counts
	// per op must be the Go worker's.
	same     bool
	interval time.Duration
	acks     bool
	// before runs between set-up and run (see converseWith).
	before func(*testing.T, string) func()
	// file is a workload file (from the repository's root) the job runs:
	// the Go worker interprets it, the Python worker runs its program.
	file string
}

// holdWriteLock keeps a write transaction open on the database, so that
// every write of the run meets SQLITE_BUSY.
func holdWriteLock(t *testing.T, path string) func() {
	db := openDB(t, path)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	return func() {
		conn.ExecContext(ctx, "ROLLBACK")
		conn.Close()
		db.Close()
	}
}

// runSQL is a before hook that runs q on the database once it is set up:
// "DELETE FROM bench" makes every read miss; inserting a row ahead of the
// run makes the insert that reaches it fail with a constraint error.
func runSQL(q string) func(*testing.T, string) func() {
	return func(t *testing.T, path string) func() {
		db := openDB(t, path)
		defer db.Close()
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
		return func() {}
	}
}

func openDB(t *testing.T, path string) *sql.DB {
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	return db
}

var jobCases = []jobCase{
	{name: "insert-bench-wal", workload: "insert", same: true, acks: true,
		params:   map[string]string{"rows": "2000"},
		settings: map[string]string{"batch": "100", "journal": "wal"}},
	{name: "insert-users-multirow-immediate", workload: "insert", same: true,
		params:   map[string]string{"rows": "500", "schema": "users"},
		settings: map[string]string{"batch": "50", "rows-per-stmt": "7", "tx": "immediate"}},
	{name: "insert-account-autocommit-unprepared", workload: "insert", same: true,
		params:   map[string]string{"rows": "300", "schema": "account"},
		settings: map[string]string{"batch": "1", "prepared": "false", "sync": "off"}},
	{name: "insert-foo-one-tx", workload: "insert", same: true,
		params:   map[string]string{"rows": "5000", "schema": "foo"},
		settings: map[string]string{"batch": "5000", "rows-per-stmt": "3"}},
	{name: "insert-pages-memory", workload: "insert", same: true,
		params:   map[string]string{"rows": "100", "schema": "pages"},
		settings: map[string]string{"batch": "10", "in-memory": "true"}},
	{name: "insert-two-workers", workload: "insert",
		params:   map[string]string{"rows": "1000", "workers": "2"},
		settings: map[string]string{"batch": "50", "journal": "wal"}},
	{name: "scan", workload: "scan", same: true,
		params: map[string]string{"rows": "3000"}},
	{name: "read-zipfian", workload: "read", same: true,
		params: map[string]string{"rows": "1000", "count": "500", "keys": "zipfian"}},
	{name: "read-duration-intervals", workload: "read", interval: 50 * time.Millisecond,
		params: map[string]string{"rows": "500", "duration": "300ms", "schema": "users"}},
	{name: "read-pool1-two-workers", workload: "read",
		params:   map[string]string{"rows": "500", "count": "300", "workers": "2"},
		settings: map[string]string{"pool": "1"}},
	{name: "write-insert-users", workload: "write", same: true, acks: true,
		params: map[string]string{"rows": "100", "count": "300", "schema": "users"}},
	{name: "write-update-batch", workload: "write", same: true,
		params:   map[string]string{"rows": "200", "count": "100", "schema": "account", "write-kind": "update"},
		settings: map[string]string{"batch": "5"}},
	{name: "write-upsert-latest", workload: "write", same: true,
		params: map[string]string{"rows": "200", "count": "200", "schema": "foo", "write-kind": "upsert", "keys": "latest"}},
	{name: "write-single-writer-mutex", workload: "write", same: true,
		params:   map[string]string{"rows": "100", "count": "100", "workers": "2"},
		settings: map[string]string{"writer": "single", "write-mutex": "true", "journal": "wal"}},
	{name: "mixed-open-loop", workload: "mixed", same: true, interval: 40 * time.Millisecond,
		params: map[string]string{"rows": "300", "count": "200", "rate": "2000", "max-inflight": "1", "write-ratio": "30"}},
	{name: "mixed-open-poisson-warmup", workload: "mixed",
		params: map[string]string{"rows": "300", "duration": "200ms", "warmup": "50ms", "rate": "1000",
			"arrivals": "poisson", "write-kind": "update"}},
	{name: "mixed-closed", workload: "mixed", interval: 30 * time.Millisecond,
		params:   map[string]string{"rows": "300", "count": "200"},
		settings: map[string]string{"journal": "wal", "busy-retry": "until"}},
	{name: "write-busy-retries", workload: "write", same: true, before: holdWriteLock,
		params:   map[string]string{"rows": "100", "count": "20"},
		settings: map[string]string{"journal": "wal", "busy-timeout": "0", "busy-retry": "2"}},
	{name: "insert-constraint", workload: "insert", same: true, before: runSQL("INSERT INTO bench(ID, rand, hash) VALUES (16, 'x', 'y')"),
		params:   map[string]string{"rows": "30"},
		settings: map[string]string{"batch": "10", "rows-per-stmt": "3"}},
	{name: "read-missing", workload: "read", same: true, before: runSQL("DELETE FROM bench"),
		params: map[string]string{"rows": "100", "count": "30"}},
	{name: "read-conn-per-op", workload: "read", same: true,
		params:   map[string]string{"rows": "100", "count": "50"},
		settings: map[string]string{"conn-per-op": "true"}},
	{name: "program-kv", file: "internal/spec/testdata/program/kv.toml", same: true, interval: 30 * time.Millisecond,
		params:   map[string]string{"keys": "1000", "count": "300"},
		settings: map[string]string{"journal": "wal"}},
	{name: "program-pagination", file: "examples/pagination.toml", same: true,
		params: map[string]string{"rows": "2000", "depth": "500", "count": "20"}},
	{name: "program-ledger-immediate", file: "internal/spec/testdata/program/weighted.toml", same: true, acks: true,
		interval: 30 * time.Millisecond,
		params:   map[string]string{"seed": "7", "count": "300"},
		settings: map[string]string{"tx": "immediate", "batch": "2"}},
	{name: "program-kv-open-loop", file: "internal/spec/testdata/program/kv.toml", same: true, interval: 40 * time.Millisecond,
		params: map[string]string{"keys": "1000", "count": "200", "rate": "1000", "max-inflight": "1"}},
	{name: "program-kv-open-loop-inflight", file: "internal/spec/testdata/program/kv.toml", interval: 40 * time.Millisecond,
		params: map[string]string{"keys": "1000", "duration": "300ms", "warmup": "50ms", "rate": "800", "max-inflight": "3",
			"arrivals": "poisson"}},
}

func newJob(t *testing.T, c jobCase, target string) *worker.Job {
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
	path := filepath.Join(t.TempDir(), "bench.db")
	if s.Bool("in-memory") {
		path = "conform-" + c.name
	}
	j := &worker.Job{RunID: c.name, Workload: c.workload, Params: p, Settings: s.Map(), Target: target,
		Path: path, Digest: true, Acks: c.acks, IntervalNS: int64(c.interval)}
	if c.file != "" {
		programJob(t, c.file, j)
	}
	return j
}

// programJob makes j run a workload file: its text as the spec, and the
// program litebench compiles from it for SQLite, as the controller sends
// them to a worker that announces the program capability.
func programJob(t *testing.T, file string, j *worker.Job) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", file))
	if err != nil {
		t.Fatal(err)
	}
	j.Workload = strings.TrimSuffix(filepath.Base(file), ".toml")
	j.Spec = &workload.Definition{Kind: "file", Sources: []workload.DefSource{{Name: filepath.Base(file), Text: string(b)}}}
	ref := *j
	ref.Target = "mattn"
	wl, _, err := worker.Resolve(&ref)
	if err != nil {
		t.Fatal(err)
	}
	pg, ok := wl.(worker.Programmed)
	if !ok {
		t.Fatalf("%s is a %T: no program", file, wl)
	}
	if j.Program, err = pg.ProgramJSON(dialect.SQLite); err != nil {
		t.Fatal(err)
	}
}

func TestConformance(t *testing.T) {
	py := pythonWorker(t)
	lb := litebench(t)
	for _, c := range jobCases {
		t.Run(c.name, func(t *testing.T) {
			ref, err := converseWith(t, newJob(t, c, "mattn"), c.before, lb, "worker")
			if err != nil {
				t.Fatalf("litebench worker: %v", err)
			}
			checkEvents(t, "litebench worker", c, ref)
			for _, client := range clients {
				got, err := converseWith(t, newJob(t, c, "python-"+client), c.before, py, "--client", client)
				if err != nil {
					t.Fatalf("%s: %v", client, err)
				}
				checkEvents(t, client, c, got)
				compare(t, client, c, ref, got)
			}
		})
	}
}

// compare checks a Python worker's conversation against the Go worker's.
func compare(t *testing.T, client string, c jobCase, ref, got *conversation) {
	t.Helper()
	if got.setup.Digest != ref.setup.Digest {
		t.Errorf("%s: digest after set-up %s, litebench worker %s", client, got.setup.Digest, ref.setup.Digest)
	}
	if got.setup.JournalMode != ref.setup.JournalMode {
		t.Errorf("%s: journal mode %q, litebench worker %q", client, got.setup.JournalMode, ref.setup.JournalMode)
	}
	if got.final.Status != "ok" {
		t.Fatalf("%s: status %s (%s)", client, got.final.Status, got.final.Error)
	}
	// One connection for a single worker. With several, how many the Go
	// worker's pool opens depends on how its goroutines overlap; open-loop
	// executors start as the load needs them; conn-per-op opens one per call.
	if single(c) && c.settings["conn-per-op"] != "true" && got.final.Conns != ref.final.Conns {
		t.Errorf("%s: %d connections opened, litebench worker %d", client, got.final.Conns, ref.final.Conns)
	}
	keys := []string{"table_rows_before", "wanted_rate"}
	if c.same {
		keys = append(keys, "table_rows_after", "rows_inserted")
	}
	for _, k := range keys {
		if g, r := figure(got.final, k), figure(ref.final, k); g != r {
			t.Errorf("%s: metric %s = %v, litebench worker %v", client, k, g, r)
		}
	}
	if c.workload == "insert" || c.workload == "scan" || c.params["count"] != "" {
		if got.final.Done != ref.final.Done {
			t.Errorf("%s: done %d, litebench worker %d", client, got.final.Done, ref.final.Done)
		}
	}
	if c.file != "" {
		checkParts(t, client, got)
	}
	if !c.same {
		return
	}
	if got.final.Digest != ref.final.Digest {
		t.Errorf("%s: digest after the run %s, litebench worker %s", client, got.final.Digest, ref.final.Digest)
	}
	if a, b := opCounts(got.final.FinalOps), opCounts(ref.final.FinalOps); !reflect.DeepEqual(a, b) {
		t.Errorf("%s: op counts %v, litebench worker %v", client, a, b)
	}
	if !reflect.DeepEqual(got.acks, ref.acks) {
		t.Errorf("%s: acks differ from the litebench worker's:\n%v\n%v", client, got.acks, ref.acks)
	}
}

// checkParts: a program's statements with results of their own name their
// transaction in the final event (the program's "of"), the transactions
// name none.
func checkParts(t *testing.T, client string, cv *conversation) {
	t.Helper()
	of := partsOf(t, cv.job)
	parts := 0
	for _, o := range cv.final.FinalOps {
		if o.Of != of[o.Name] {
			t.Errorf("%s: op %s of %q, the program says %q", client, o.Name, o.Of, of[o.Name])
		}
		if o.Of != "" {
			parts++
		}
	}
	for _, iv := range cv.intervals {
		for _, o := range iv.Ops {
			if of[o.Name] != "" {
				t.Errorf("%s: interval with statement %s of %s", client, o.Name, of[o.Name])
			}
		}
	}
	t.Logf("%s: %d ops, %d of them statements with results of their own", client, len(cv.final.FinalOps), parts)
}

// partsOf is the transaction each op of the job's program is a statement
// of ("" for a transaction); empty without a program.
func partsOf(t *testing.T, j *worker.Job) map[string]string {
	t.Helper()
	of := map[string]string{}
	if j.Program == nil {
		return of
	}
	var p struct {
		Ops []string `json:"ops"`
		Of  []string `json:"of"`
	}
	if err := json.Unmarshal(j.Program, &p); err != nil {
		t.Fatal(err)
	}
	for k, name := range p.Ops {
		of[name] = p.Of[k]
	}
	return of
}

// single: the job runs one worker.
func single(c jobCase) bool {
	if c.params["rate"] != "" {
		return c.params["max-inflight"] == "1"
	}
	if c.workload == "mixed" {
		return false // a reader and a writer by default
	}
	return c.params["workers"] == "" || c.params["workers"] == "1"
}

func opCounts(ops []results.Op) map[string]string {
	m := map[string]string{}
	for _, o := range ops {
		m[o.Name] = fmt.Sprintf("count %d errors %v retries %d", o.Count, o.Errors, o.Retries)
	}
	return m
}

// checkEvents checks one conversation on its own: histograms decode, their
// summaries are the ones hdrhistogram-go computes, counts add up.
func checkEvents(t *testing.T, who string, c jobCase, cv *conversation) {
	t.Helper()
	if cv.final.Status != "ok" {
		t.Fatalf("%s: status %s (%s)", who, cv.final.Status, cv.final.Error)
	}
	if cv.setup.Engine != "sqlite" || cv.setup.EngineVersion == "" || len(cv.setup.CompileOptions) == 0 {
		t.Errorf("%s: setup_done without engine, version or compile options: %+v", who, cv.setup)
	}
	if cv.final.ElapsedS <= 0 {
		t.Errorf("%s: elapsed %v", who, cv.final.ElapsedS)
	}
	felt := map[string]int64{}
	of := partsOf(t, cv.job)
	for _, o := range cv.final.FinalOps {
		svc := decode(t, who, o.Hist)
		want := worker.ToOps([]metrics.Op{{Name: o.Name, Service: svc}})[0].Service
		if !reflect.DeepEqual(o.Service, want) {
			t.Errorf("%s: %s: service summary %v, hdrhistogram-go says %v", who, o.Name, o.Service, want)
		}
		samples := svc.TotalCount()
		if o.Name == "insert" || o.Name == "scan" {
			samples = 0 // one sample for several rows
		}
		if samples > 0 && samples != o.Count+o.Overrun {
			t.Errorf("%s: %s: %d samples for %d operations and %d overruns", who, o.Name, samples, o.Count, o.Overrun)
		}
		if of[o.Name] == "" {
			felt[o.Name] = o.Count // statements' own results are in the final event only
		}
		if o.RespHist != "" {
			resp := decode(t, who, o.RespHist)
			want := worker.ToOps([]metrics.Op{{Name: o.Name, Service: resp}})[0].Service
			if !reflect.DeepEqual(o.Response, want) {
				t.Errorf("%s: %s: response summary %v, hdrhistogram-go says %v", who, o.Name, o.Response, want)
			}
			for _, q := range []float64{50, 99, 100} {
				if resp.ValueAtQuantile(q) < svc.ValueAtQuantile(q) {
					t.Errorf("%s: %s: response p%v below service", who, o.Name, q)
				}
			}
		} else if c.params["rate"] != "" {
			t.Errorf("%s: %s: open loop without a response histogram", who, o.Name)
		}
	}
	if c.interval > 0 {
		if len(cv.intervals) == 0 {
			t.Fatalf("%s: no interval events", who)
		}
		seen := map[string]int64{}
		for _, iv := range cv.intervals {
			for _, o := range iv.Ops {
				h := decode(t, who, o.Hist)
				if h.TotalCount() != o.Count {
					t.Errorf("%s: interval %s: %d samples for %d operations", who, o.Name, h.TotalCount(), o.Count)
				}
				seen[o.Name] += o.Count
			}
		}
		// The intervals cover the whole measured part: they add up.
		for name, n := range felt {
			if seen[name] != n {
				t.Errorf("%s: %s: intervals count %d operations, final %d", who, name, seen[name], n)
			}
		}
	}
	// Upserts insert rows beyond the table without counting them, and
	// rows_inserted counts the rows inserts claimed, failed or not.
	x := func(name string) float64 { return figure(cv.final, name) }
	if c.params["write-kind"] != "upsert" && c.before == nil &&
		x("table_rows_after") != x("table_rows_before")+x("rows_inserted") {
		t.Errorf("%s: %v rows after the run, %v before and %v inserted", who, x("table_rows_after"),
			x("table_rows_before"), x("rows_inserted"))
	}
	if c.workload == "scan" {
		if !(x("query_returned") > 0 && x("first_row") >= x("query_returned") && x("per_row") > 0) {
			t.Errorf("%s: scan figures %v", who, cv.final.Metrics)
		}
	}
}

func decode(t *testing.T, who, s string) *hdr.Histogram {
	t.Helper()
	if s == "" {
		return metrics.NewHistogram() // an op kind that only failed has none
	}
	h, err := histcodec.Decode(s)
	if err != nil {
		t.Fatalf("%s: histogram does not decode: %v", who, err)
	}
	return h
}

// TestRefusals: a job the Python worker cannot run gets a one-line error
// naming the problem.
func TestRefusals(t *testing.T) {
	py := pythonWorker(t)
	for _, c := range []struct {
		job  jobCase
		want string
	}{
		{jobCase{workload: "paginate", params: map[string]string{}}, `workload "paginate" is not supported`},
		{jobCase{workload: "insert", params: map[string]string{"rows": "0"}}, `--rows "0": want a whole number of at least 1`},
		{jobCase{workload: "insert", params: map[string]string{"colour": "red"}}, `workload insert has no parameter "colour"`},
		{jobCase{workload: "read", params: map[string]string{"keys": "hot"}}, `--keys "hot": want uniform, zipfian or latest`},
		{jobCase{workload: "insert", params: map[string]string{}, settings: map[string]string{"rows-per-stmt": "20000"}},
			"--rows-per-stmt 20000 × 3 columns of bench = 60000 bound variables"},
	} {
		job := newJob(t, c.job, "python-sqlite3")
		_, err := converse(t, job, py, "--client", "sqlite3")
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %v: error %v, want one line with %q", c.job.workload, c.job.params, err, c.want)
		}
	}
	// A file litebench did not create is not touched.
	path := filepath.Join(t.TempDir(), "mine.db")
	if err := os.WriteFile(path, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	job := newJob(t, jobCase{workload: "insert", params: map[string]string{}}, "python-apsw")
	job.Path = path
	if _, err := converse(t, job, py, "--client", "apsw"); err == nil || !strings.Contains(err.Error(), "not created by litebench") {
		t.Errorf("foreign file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "precious" {
		t.Errorf("foreign file changed: %q", b)
	}
}

// TestDescribe: the Python worker's workloads take the Go workloads'
// parameters with the same defaults.
func TestDescribe(t *testing.T) {
	py := pythonWorker(t)
	out, err := exec.Command(py, "--client", "sqlite3", "--describe").Output()
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]struct {
		Params   map[string]string `json:"params"`
		Settings map[string]string `json:"settings"`
	}
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	var names []string
	for name, w := range d {
		names = append(names, name)
		spec, err := workload.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, p := range spec.Params {
			want[p.Name] = p.Default
		}
		if !reflect.DeepEqual(w.Params, want) {
			t.Errorf("%s: parameters %v, Go %v", name, w.Params, want)
		}
		if len(w.Settings)+len(spec.SettingDefaults) > 0 && !reflect.DeepEqual(w.Settings, spec.SettingDefaults) {
			t.Errorf("%s: setting defaults %v, Go %v", name, w.Settings, spec.SettingDefaults)
		}
	}
	sort.Strings(names)
	if strings.Join(names, " ") != "insert mixed read scan write" {
		t.Errorf("workloads %v", names)
	}
}

// TestCancel: a cancel during a run ends it promptly with an interrupted
// final event carrying what was measured.
func TestCancel(t *testing.T) {
	py := pythonWorker(t)
	for _, client := range clients {
		for _, c := range []jobCase{
			{name: "closed", workload: "read", interval: 50 * time.Millisecond,
				params: map[string]string{"rows": "100", "duration": "1m"}},
			{name: "open", workload: "mixed", interval: 50 * time.Millisecond,
				params: map[string]string{"rows": "100", "duration": "1m", "rate": "500"}},
			{name: "insert", workload: "insert", interval: 50 * time.Millisecond,
				params: map[string]string{"rows": "100m"}, settings: map[string]string{"batch": "100"}},
		} {
			p, err := worker.StartCommand(py, "--client", client)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if _, err := p.Hello(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := p.Setup(ctx, newJob(t, c, "python-"+client)); err != nil {
				t.Fatal(err)
			}
			runCtx, cancel := context.WithCancel(ctx)
			t0 := time.Now()
			fin, err := p.Run(runCtx, func(e worker.Event) {
				if e.T == worker.TInterval && e.Done > 0 {
					cancel()
				}
			})
			cancel()
			if err != nil {
				t.Fatalf("%s %s: %v", client, c.name, err)
			}
			if fin.Status != "interrupted" || fin.Done == 0 || len(fin.FinalOps) == 0 {
				t.Errorf("%s %s: final %s with %d done, %d ops", client, c.name, fin.Status, fin.Done, len(fin.FinalOps))
			}
			if d := time.Since(t0); d > 20*time.Second {
				t.Errorf("%s %s: the run took %v to stop", client, c.name, d)
			}
			p.Close()
		}
	}
}

// TestErrorKinds: the jobs meant to fail operations fail them, by kind, as
// the Go worker counts them.
func TestErrorKinds(t *testing.T) {
	want := map[string]string{
		"write-busy-retries": "count 0 errors map[busy:20] retries 40",
		"read-missing":       "count 0 errors map[missing:30] retries 0",
		// Rows 10-15 were inserted before the statement with row 16 failed.
		"insert-constraint": "count 26 errors map[constraint:1] retries 0",
	}
	py := pythonWorker(t)
	for _, c := range jobCases {
		if want[c.name] == "" {
			continue
		}
		for _, client := range clients {
			got, err := converseWith(t, newJob(t, c, "python-"+client), c.before, py, "--client", client)
			if err != nil {
				t.Fatal(err)
			}
			// The op kinds are named as these workloads are.
			if s := opCounts(got.final.FinalOps)[c.workload]; s != want[c.name] {
				t.Errorf("%s %s: %s, want %s", client, c.name, s, want[c.name])
			}
		}
	}
}

// figure is the final event's metric called name (0 when it has none).
func figure(ev worker.Event, name string) float64 {
	for _, m := range ev.Metrics {
		if m.Name == name {
			return m.Value
		}
	}
	return 0
}

// TestWorkloadFile: 'litebench run FILE' on the Python targets runs the
// file's program in the Python worker, and each client does what the Go
// target does (the same operations, for the same seed and count).
func TestWorkloadFile(t *testing.T) {
	pythonWorker(t)
	lb := litebench(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(lb, "run", filepath.Join(root, "internal/spec/testdata/program/kv.toml"),
		"--target", "mattn,python-sqlite3,python-apsw", "--keys", "1000", "--count", "120", "--format", "json", "--quiet")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "LITEBENCH_ROOT="+root)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("litebench run: %v\n%s", err, out)
	}
	counts := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r struct {
			Target string `json:"target"`
			Status string `json:"status"`
			Ops    []struct {
				Name  string `json:"name"`
				Count int64  `json:"count"`
			} `json:"ops"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if r.Status != "ok" {
			t.Errorf("%s: status %s", r.Target, r.Status)
		}
		counts[r.Target] = fmt.Sprint(r.Ops)
	}
	if len(counts) != 3 || counts["python-sqlite3"] != counts["mattn"] || counts["python-apsw"] != counts["mattn"] {
		t.Errorf("op counts per target differ: %v", counts)
	}
}
