// Package nodeworker holds the end-to-end conformance test of the Node
// worker (target node-better-sqlite3): the same small jobs run through
// 'litebench worker' (built from this tree) and through 'node worker.js',
// and the two must agree on what they wrote, count what they did alike and
// report histograms litebench decodes to the summaries the worker sent
// (foreigntest).
package nodeworker

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/worker/foreigntest"
)

func TestMain(m *testing.M) { foreigntest.Main(m) }

const target = "node-better-sqlite3"

// nodeWorker is the Node worker, or skips the test when its build is
// missing (fails instead when LITEBENCH_NODE_REQUIRED is set, as test.sh
// sets it).
func nodeWorker(t *testing.T) foreigntest.Worker {
	t.Helper()
	dir := foreigntest.Abs(t, ".")
	if _, err := exec.LookPath("node"); err != nil {
		foreigntest.Require(t, "LITEBENCH_NODE_REQUIRED", "node is not on PATH")
	} else if _, err := os.Stat(filepath.Join(dir, "node_modules", "better-sqlite3", "build", "Release", "better_sqlite3.node")); err != nil {
		foreigntest.Require(t, "LITEBENCH_NODE_REQUIRED", "workers/node/node_modules is not built: run workers/node/build.sh")
	}
	// Its intervals of an insert count rows in done only; an in-memory
	// database is one connection.
	return foreigntest.Worker{Target: target, Lang: "node ", Argv: []string{"node", filepath.Join(dir, "worker.js")},
		Intervals: foreigntest.IntervalsLoadDone, OwnConns: []string{"insert-pages-memory"}}
}

// The jobs. Same: one writer and a fixed count, so the final digest and
// every op's count and errors must be the Go worker's. File: a workload
// file, which the Go worker interprets and the Node worker runs compiled
// (the job's program). RacyConns marks the jobs of several workers or
// executors, or of readers and writers, whose connections open as their
// operations overlap.
var jobCases = []foreigntest.Case{
	{Name: "insert-bench-wal", Workload: "insert", Same: true, Acks: true, Interval: 20 * time.Millisecond,
		Params:   map[string]string{"rows": "3000"},
		Settings: map[string]string{"batch": "100", "journal": "wal", "sync": "off"}},
	{Name: "insert-foo-vacuum", Workload: "insert", Same: true,
		Params:   map[string]string{"rows": "2500", "schema": "foo", "vacuum": "true"},
		Settings: map[string]string{"batch": "2500", "rows-per-stmt": "3"}},
	{Name: "insert-two-workers-mutex", RacyConns: true, Workload: "insert",
		Params:   map[string]string{"rows": "1200", "workers": "2"},
		Settings: map[string]string{"batch": "50", "journal": "wal", "write-mutex": "true", "busy-retry": "until"}},
	{Name: "read-two-workers-conn-per-op", RacyConns: true, Workload: "read",
		Params:   map[string]string{"rows": "400", "count": "300", "workers": "2"},
		Settings: map[string]string{"conn-per-op": "true", "journal": "wal"}},
	{Name: "write-upsert-latest-adhoc", Workload: "write", Same: true,
		Params:   map[string]string{"rows": "200", "count": "200", "schema": "foo", "write-kind": "upsert", "keys": "latest"},
		Settings: map[string]string{"prepared": "false"}},
	{Name: "write-single-writer", Workload: "write", Same: true,
		Params:   map[string]string{"rows": "100", "count": "150"},
		Settings: map[string]string{"writer": "single", "journal": "wal"}},
	{Name: "mixed-open-poisson-warmup", RacyConns: true, Workload: "mixed", Interval: 50 * time.Millisecond,
		Params: map[string]string{"rows": "300", "duration": "300ms", "warmup": "100ms", "rate": "1000",
			"arrivals": "poisson", "write-kind": "update", "max-inflight": "4"},
		Settings: map[string]string{"journal": "wal"}},
	{Name: "mixed-closed", RacyConns: true, Workload: "mixed", Interval: 30 * time.Millisecond,
		Params:   map[string]string{"rows": "300", "count": "400"},
		Settings: map[string]string{"journal": "wal", "busy-retry": "until"}},
	{Name: "program-ledger", File: "internal/spec/testdata/program/weighted.toml", Same: true, Acks: true,
		Params: map[string]string{"seed": "7", "count": "300"}},
	{Name: "program-kv-open-loop", File: "internal/spec/testdata/program/kv.toml", Same: true, Interval: 40 * time.Millisecond,
		Params: map[string]string{"keys": "1000", "count": "200", "rate": "2000", "max-inflight": "1"}},
	{Name: "program-ledger-open-poisson", RacyConns: true, File: "internal/spec/testdata/program/weighted.toml", Interval: 50 * time.Millisecond,
		Params:   map[string]string{"duration": "300ms", "warmup": "100ms", "rate": "1000", "arrivals": "poisson", "max-inflight": "3"},
		Settings: map[string]string{"journal": "wal", "busy-retry": "until"}},
	{Name: "program-ledger-closed-workers", RacyConns: true, File: "internal/spec/testdata/program/weighted.toml", Interval: 30 * time.Millisecond,
		Params:   map[string]string{"count": "400", "workers": "3"},
		Settings: map[string]string{"journal": "wal", "busy-retry": "until"}},
}

func TestConformance(t *testing.T) {
	node := nodeWorker(t)
	// better-sqlite3's connections cannot move between threads: --pool 1
	// with two workers is refused (TestRefusals).
	common := foreigntest.Without(foreigntest.CommonCases, "read-pool1-two-workers")
	foreigntest.Conformance(t, foreigntest.Reference(t), slices.Concat(common, jobCases), node)
}

// Settings better-sqlite3 cannot honour are refused at setup, in one line
// naming the setting, and nothing is created; so are the jobs every
// worker refuses.
func TestRefusals(t *testing.T) {
	node := nodeWorker(t)
	var rs []foreigntest.Refusal
	for _, c := range []struct {
		workload string
		params   map[string]string
		settings map[string]string
		want     string
	}{
		{"read", map[string]string{"workers": "3", "count": "10"}, map[string]string{"pool": "2"}, "--pool 2"},
		{"read", map[string]string{"workers": "2", "count": "10"}, map[string]string{"pool": "1"}, "--pool 1"},
		{"insert", nil, map[string]string{"shared-cache": "true"}, "--shared-cache"},
		{"read", map[string]string{"workers": "2", "count": "10"}, map[string]string{"in-memory": "true"}, "--in-memory"},
		{"write", map[string]string{"workers": "2", "count": "10"}, map[string]string{"writer": "single"}, "--writer single"},
		{"mixed", map[string]string{"rate": "100", "count": "10"}, map[string]string{"writer": "single"}, "--writer single"},
		{"paginate", nil, nil, `workload "paginate": the node-better-sqlite3 worker runs`},
	} {
		rs = append(rs, foreigntest.Refusal{Case: foreigntest.Case{Workload: c.workload, Params: c.params, Settings: c.settings}, Want: c.want})
	}
	foreigntest.Refusals(t, node, rs...)
}

// A database litebench did not create is left alone.
func TestForeignFile(t *testing.T) {
	foreigntest.ForeignFiles(t, nodeWorker(t), foreigntest.Foreign{NotSQLite: "is not a SQLite database",
		NotOurs: "is a SQLite database litebench did not create (application_id 0x0)", Added: `holds table "mine" that litebench did not create`})
}

// A cancel ends a run promptly, as interrupted, with what was measured.
func TestCancel(t *testing.T) {
	foreigntest.Cancel(t, nodeWorker(t), foreigntest.CancelCases...)
}
