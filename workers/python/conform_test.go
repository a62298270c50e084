package pyworker

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/worker/foreigntest"
)

func TestMain(m *testing.M) { foreigntest.Main(m) }

// The end-to-end conformance of the Python worker: each job runs through
// 'litebench worker' (built from this tree) and through the Python worker
// with each client, and the two must agree on what they wrote and report
// what they measured the way the Go worker does (foreigntest).

var clients = []string{"sqlite3", "apsw"}

// pythonWorkers are the Python worker with each client, run by the
// launcher setup.sh makes runnable. Without its environment the tests
// skip, unless LITEBENCH_PYTHON_REQUIRED is set (as test.sh sets it) and
// they fail instead.
func pythonWorkers(t *testing.T) []foreigntest.Worker {
	t.Helper()
	dir := foreigntest.Abs(t, ".")
	if _, err := os.Stat(filepath.Join(dir, ".venv", "bin", "python")); err != nil {
		foreigntest.Require(t, "LITEBENCH_PYTHON_REQUIRED", "workers/python/.venv missing: run workers/python/setup.sh")
	}
	var ws []foreigntest.Worker
	for _, c := range clients {
		// Under load its intervals leave out a last stretch (173 of 181
		// operations counted in one run): IntervalsTail.
		ws = append(ws, foreigntest.Worker{Target: "python-" + c, Lang: "python ",
			Argv:      []string{filepath.Join(dir, "litebench-worker"), "--client", c},
			Intervals: foreigntest.IntervalsTail, OwnMetrics: []string{"record"}, OwnDDL: true})
	}
	return ws
}

// holdWriteLock keeps a write transaction open on the database, so that
// every write of the run meets SQLITE_BUSY.
func holdWriteLock(t *testing.T, path string) func() {
	db := foreigntest.OpenDB(t, path)
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
		foreigntest.Exec(t, path, q)
		return func() {}
	}
}

// The Python worker's own jobs (beside foreigntest.CommonCases): Same
// marks the deterministic ones; RacyConns the jobs of several workers (or
// open-loop executors) or of readers and writers, whose pools open
// connections as their operations overlap; Before the ones that fail
// operations on purpose (TestErrorKinds).
var jobCases = []foreigntest.Case{
	{Name: "insert-bench-wal", Workload: "insert", Same: true, Acks: true,
		Params:   map[string]string{"rows": "2000"},
		Settings: map[string]string{"batch": "100", "journal": "wal"}},
	{Name: "insert-two-workers", RacyConns: true, Workload: "insert",
		Params:   map[string]string{"rows": "1000", "workers": "2"},
		Settings: map[string]string{"batch": "50", "journal": "wal"}},
	{Name: "write-upsert-latest", Workload: "write", Same: true,
		Params: map[string]string{"rows": "200", "count": "200", "schema": "foo", "write-kind": "upsert", "keys": "latest"}},
	{Name: "write-single-writer-mutex", RacyConns: true, Workload: "write", Same: true,
		Params:   map[string]string{"rows": "100", "count": "100", "workers": "2"},
		Settings: map[string]string{"writer": "single", "write-mutex": "true", "journal": "wal"}},
	{Name: "mixed-open-poisson-warmup", RacyConns: true, Workload: "mixed",
		Params: map[string]string{"rows": "300", "duration": "200ms", "warmup": "50ms", "rate": "1000",
			"arrivals": "poisson", "write-kind": "update"}},
	{Name: "mixed-closed", RacyConns: true, Workload: "mixed", Interval: 30 * time.Millisecond,
		Params:   map[string]string{"rows": "300", "count": "200"},
		Settings: map[string]string{"journal": "wal", "busy-retry": "until"}},
	{Name: "write-busy-retries", Workload: "write", Same: true, Before: holdWriteLock,
		Params:   map[string]string{"rows": "100", "count": "20"},
		Settings: map[string]string{"journal": "wal", "busy-timeout": "0", "busy-retry": "2"}},
	{Name: "insert-constraint", Workload: "insert", Same: true, Before: runSQL("INSERT INTO bench(ID, rand, hash) VALUES (16, 'x', 'y')"),
		Params:   map[string]string{"rows": "30"},
		Settings: map[string]string{"batch": "10", "rows-per-stmt": "3"}},
	{Name: "read-missing", Workload: "read", Same: true, Before: runSQL("DELETE FROM bench"),
		Params: map[string]string{"rows": "100", "count": "30"}},
	{Name: "program-ledger-immediate", File: "internal/spec/testdata/program/weighted.toml", Same: true, Acks: true,
		Interval: 30 * time.Millisecond,
		Params:   map[string]string{"seed": "7", "count": "300"},
		Settings: map[string]string{"tx": "immediate", "batch": "2"}},
	{Name: "program-kv-open-loop", File: "internal/spec/testdata/program/kv.toml", Same: true, Interval: 40 * time.Millisecond,
		Params: map[string]string{"keys": "1000", "count": "200", "rate": "1000", "max-inflight": "1"}},
	{Name: "program-kv-open-loop-inflight", RacyConns: true, File: "internal/spec/testdata/program/kv.toml", Interval: 40 * time.Millisecond,
		Params: map[string]string{"keys": "1000", "duration": "300ms", "warmup": "50ms", "rate": "800", "max-inflight": "3",
			"arrivals": "poisson"}},
}

func TestConformance(t *testing.T) {
	ws := pythonWorkers(t)
	// The Go worker's intervals add up exactly in these jobs too.
	ref := foreigntest.Reference(t)
	ref.Intervals = foreigntest.IntervalsExact
	foreigntest.Conformance(t, ref, slices.Concat(foreigntest.CommonCases, jobCases), ws...)
}

// TestRefusals: a job the Python worker cannot run gets a one-line error
// naming the problem, and a file litebench did not create is not touched.
func TestRefusals(t *testing.T) {
	for _, w := range pythonWorkers(t) {
		foreigntest.Refusals(t, w, foreigntest.Refusal{Case: foreigntest.Case{Workload: "paginate"},
			Want: `workload "paginate" is not supported`})
		foreigntest.ForeignFiles(t, w, foreigntest.Foreign{NotSQLite: "not created by litebench (not a SQLite database)",
			NotOurs: "not created by litebench (application_id 0x0)", Added: `holds table "mine" that litebench did not create`})
	}
}

// TestDescribe: the Python worker's workloads take the Go workloads'
// parameters with the same defaults.
func TestDescribe(t *testing.T) {
	foreigntest.Describe(t, pythonWorkers(t)[0].Argv)
}

// TestCancel: a cancel during a run ends it promptly with an interrupted
// final event carrying what was measured.
func TestCancel(t *testing.T) {
	for _, w := range pythonWorkers(t) {
		foreigntest.Cancel(t, w, foreigntest.CancelCases...)
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
	ws := pythonWorkers(t)
	for _, c := range jobCases {
		if want[c.Name] == "" {
			continue
		}
		for _, w := range ws {
			got, err := foreigntest.Converse(t, w.Argv, foreigntest.NewJob(t, c, w.Target), foreigntest.Options{Before: c.Before})
			if err != nil {
				t.Fatal(err)
			}
			// The op kinds are named as these workloads are.
			if s := foreigntest.OpCounts(got.Final.FinalOps)[c.Workload]; s != want[c.Name] {
				t.Errorf("%s %s: %s, want %s", w.Target, c.Name, s, want[c.Name])
			}
		}
	}
}

// TestWorkloadFile: 'litebench run FILE' on the Python targets runs the
// file's program in the Python worker, and each client does what the Go
// target does (the same operations, for the same seed and count).
func TestWorkloadFile(t *testing.T) {
	pythonWorkers(t)
	counts := map[string]string{}
	for _, r := range foreigntest.RunFile(t, "internal/spec/testdata/program/kv.toml",
		"--target", "mattn,python-sqlite3,python-apsw", "--keys", "1000", "--count", "120", "--quiet") {
		if r.Status != "ok" {
			t.Errorf("%s: status %s", r.Target, r.Status)
		}
		counts[r.Target] = fmt.Sprint(foreigntest.OpCounts(r.Ops))
	}
	if len(counts) != 3 || counts["python-sqlite3"] != counts["mattn"] || counts["python-apsw"] != counts["mattn"] {
		t.Errorf("op counts per target differ: %v", counts)
	}
}
