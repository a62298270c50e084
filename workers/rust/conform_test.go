// Package rustworker holds the end-to-end conformance of the rust-rusqlite
// worker (workers/rust): each job runs through 'litebench worker' (built
// from this tree) and through the Rust worker, and the two must agree on
// what they wrote and report what they measured the way the Go worker
// does (foreigntest). The Rust unit tests (cargo test) check the
// generators against the Go reference vectors.
package rustworker

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/engine/sqlite"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/worker/foreigntest"
)

func TestMain(m *testing.M) { foreigntest.Main(m) }

const target = "rust-rusqlite"

// rustWorker is the binary build.sh makes. Without it the tests skip,
// unless LITEBENCH_RUST_REQUIRED is set (as test.sh sets it) and they fail.
// Its intervals add up to the final counts: the last, partial one is sent
// however short, as the Go worker sends it, and a tick in the warm-up takes
// nothing (IntervalsLoadDone: an insert's intervals count rows in done).
func rustWorker(t *testing.T) foreigntest.Worker {
	t.Helper()
	bin := foreigntest.Abs(t, "target", "release", "litebench-worker-rust")
	if _, err := os.Stat(bin); err != nil {
		foreigntest.Require(t, "LITEBENCH_RUST_REQUIRED", "the Rust worker is not built: run workers/rust/build.sh")
	}
	return foreigntest.Worker{Target: target, Lang: "rust ", Argv: []string{bin}, Intervals: foreigntest.IntervalsLoadDone}
}

var jobCases = []foreigntest.Case{
	{Name: "insert-bench-wal", Workload: "insert", Same: true, Acks: true, Interval: 20 * time.Millisecond,
		Params:   map[string]string{"rows": "2000"},
		Settings: map[string]string{"batch": "100", "journal": "wal"}},
	{Name: "insert-two-workers-vacuum", Workload: "insert", Digest: true, RacyConns: true,
		Params:   map[string]string{"rows": "3000", "workers": "2", "vacuum": "true"},
		Settings: map[string]string{"batch": "50", "journal": "wal", "page-size": "8192", "cache-size": "-4000"}},
	{Name: "write-upsert-latest", Workload: "write", Same: true,
		Params:   map[string]string{"rows": "200", "count": "200", "schema": "foo", "write-kind": "upsert", "keys": "latest"},
		Settings: map[string]string{"journal": "truncate", "sync": "off"}},
	{Name: "write-single-writer-mutex", Workload: "write", Digest: true,
		Params:   map[string]string{"rows": "100", "count": "100", "workers": "2"},
		Settings: map[string]string{"writer": "single", "write-mutex": "true", "journal": "wal", "sync": "normal"}},
	{Name: "mixed-open-poisson-warmup", Workload: "mixed", RacyConns: true,
		Params: map[string]string{"rows": "300", "duration": "200ms", "warmup": "50ms", "rate": "1000",
			"arrivals": "poisson", "write-kind": "update"},
		Settings: map[string]string{"sync": "off"}},
	{Name: "mixed-closed", Workload: "mixed", Interval: 30 * time.Millisecond, RacyConns: true,
		Params:   map[string]string{"rows": "300", "count": "200"},
		Settings: map[string]string{"journal": "wal", "busy-retry": "until", "sync": "normal"}},
	{Name: "program-kv-batch", File: "internal/spec/testdata/program/kv.toml", Same: true,
		Params:   map[string]string{"keys": "1000", "count": "300"},
		Settings: map[string]string{"journal": "wal", "sync": "off", "batch": "3"}},
	{Name: "program-ledger-parts", File: "internal/spec/testdata/program/weighted.toml", Same: true,
		Interval: 30 * time.Millisecond, Params: map[string]string{"seed": "7", "count": "300"},
		Settings: map[string]string{"journal": "wal", "sync": "off", "batch": "3"}},
	// datetime('now') in its rows: the content differs, the checks pass.
	{Name: "program-bank-checks", File: "examples/bank.toml",
		Params:   map[string]string{"accounts": "500", "count": "300"},
		Settings: map[string]string{"sync": "off", "tx": "immediate"}},
	{Name: "program-kv-open-loop", File: "internal/spec/testdata/program/kv.toml", Same: true,
		Interval: 40 * time.Millisecond,
		Params:   map[string]string{"keys": "1000", "count": "200", "rate": "2000", "max-inflight": "1"},
		Settings: map[string]string{"sync": "off"}},
}

func TestConformance(t *testing.T) {
	rw := rustWorker(t)
	foreigntest.Conformance(t, foreigntest.Reference(t), slices.Concat(foreigntest.CommonCases, jobCases), rw)
}

// TestRunWorkloadFile: 'litebench run FILE --target rust-rusqlite' runs a
// workload file on this worker (it announces "program") with the counts,
// checks and rows of the Go worker's run.
func TestRunWorkloadFile(t *testing.T) {
	rustWorker(t)
	dir := t.TempDir()
	// The Rust worker's second run reuses the bench database its first
	// made, the workload file's own tables included.
	ref := foreigntest.RunFile(t, "examples/bank.toml", "--target", "mattn", "--accounts", "200", "--count", "200",
		"--no-store", "--db", filepath.Join(dir, "mattn.db"))
	var got []results.Result
	for range 2 {
		got = append(got, foreigntest.RunFile(t, "examples/bank.toml", "--target", target, "--accounts", "200", "--count", "200",
			"--no-store", "--db", filepath.Join(dir, target+".db"))...)
	}
	if len(got) != 2 || len(ref) != 1 || got[0].Status != "ok" || got[1].Status != "ok" {
		t.Fatalf("runs %+v, litebench worker's %+v", got, ref)
	}
	if a, b := foreigntest.OpCounts(got[0].Ops), foreigntest.OpCounts(ref[0].Ops); !reflect.DeepEqual(a, b) {
		t.Errorf("op counts %v, mattn %v", a, b)
	}
	checks := func(notes []string) (out []string) {
		for _, n := range notes {
			if strings.HasPrefix(n, "check ") {
				out = append(out, n)
			}
		}
		return out
	}
	if a, b := checks(got[0].Notes), checks(ref[0].Notes); len(a) == 0 || !reflect.DeepEqual(a, b) {
		t.Errorf("checks %q, mattn %q", a, b)
	}
}

// TestRefusals: a job the Rust worker cannot run gets a one-line error
// naming the problem, and a file litebench did not create is not touched.
func TestRefusals(t *testing.T) {
	rw := rustWorker(t)
	type c = foreigntest.Case
	foreigntest.Refusals(t, rw,
		foreigntest.Refusal{Case: c{Workload: "paginate"}, Want: `workload "paginate" is not supported by the rust-rusqlite worker`},
		foreigntest.Refusal{Case: c{Workload: "read", Params: map[string]string{"rows": "0"}}, Want: `--rows 0: reads and updates need rows to pick from`},
		foreigntest.Refusal{Case: c{Workload: "mixed", Params: map[string]string{"write-ratio": "120"}}, Want: `--write-ratio "120": want a number from 0 to 100`},
		foreigntest.Refusal{Case: c{Workload: "insert", Settings: map[string]string{"in-memory": "true", "journal": "wal"}}, Want: "--journal wal needs a file"})
	foreigntest.Refuse(t, rw, foreigntest.NewJob(t, c{Workload: "insert"}, "mattn"), `target "mattn": this worker runs rust-rusqlite`)
	foreigntest.ForeignFiles(t, rw, foreigntest.Foreign{NotSQLite: "is not a SQLite database",
		NotOurs: "litebench did not create (application_id 0x0)", Added: `holds table "mine" that litebench did not create`})
}

// TestDescribe: the Rust worker's workloads take the Go workloads'
// parameters with the same defaults.
func TestDescribe(t *testing.T) {
	foreigntest.Describe(t, rustWorker(t).Argv)
}

// TestPragmas: the Rust worker runs the pragmas the Go worker renders, in
// its order and form, on every connection.
func TestPragmas(t *testing.T) {
	rw := rustWorker(t)
	s := settings.Default()
	for k, v := range map[string]string{"journal": "wal", "sync": "1", "cache-size": "-8000", "mmap-size": "1MiB",
		"temp-store": "memory", "locking-mode": "normal", "page-size": "8192", "busy-timeout": "250"} {
		if err := s.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	settingsJSON, err := json.Marshal(s.WorkerMap(sqlite.Name))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(rw.Argv[0], "--pragmas", string(settingsJSON)).Output()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if want := sqlite.Pragmas(s, false); !reflect.DeepEqual(got, want) {
		t.Errorf("pragmas %q, Go %q", got, want)
	}
}

// TestCancel: a cancel during a run ends it promptly with an interrupted
// final event carrying what was measured.
func TestCancel(t *testing.T) {
	foreigntest.Cancel(t, rustWorker(t), foreigntest.CancelCases...)
}
