// Package javaworker holds the end-to-end conformance test of the Java
// worker (java-sqlite-jdbc): the same small jobs run through 'litebench
// worker' (built from this tree) and through the Java worker, which must
// agree on the data they wrote and report what they measured the way the Go
// worker does (foreigntest). workers/java/test.sh runs it; without the
// built jar it skips unless LITEBENCH_JAVA_REQUIRED is set.
package javaworker

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/worker/foreigntest"
)

func TestMain(m *testing.M) { foreigntest.Main(m) }

const target = "java-sqlite-jdbc"

// javaWorker is the built worker, run by java.
func javaWorker(t *testing.T) foreigntest.Worker {
	t.Helper()
	jar := foreigntest.Abs(t, "target", "litebench-worker.jar")
	_, jarErr := os.Stat(jar)
	_, javaErr := exec.LookPath("java")
	if jarErr != nil || javaErr != nil {
		foreigntest.Require(t, "LITEBENCH_JAVA_REQUIRED",
			fmt.Sprintf("the Java worker is not built (%v, %v): run workers/java/build.sh", jarErr, javaErr))
	}
	return foreigntest.Worker{Target: target, Lang: "java ", Argv: []string{"java", "-jar", jar}}
}

// The jobs: Same says the job is deterministic, so the final digest, the
// counts per op and the acks must be the Go worker's. Workload files
// (File): the Go worker interprets the file, the Java worker runs the
// program litebench compiles from it (job.program). RacyConns marks the
// jobs of several threads, whose pools open connections as they overlap.
var jobs = []foreigntest.Case{
	{Name: "insert-bench-wal-acks", Workload: "insert", Same: true, Acks: true,
		Params: map[string]string{"rows": "3000"}, Settings: map[string]string{"batch": "250", "journal": "wal"}},
	{Name: "insert-foo-immediate-single-rows", Workload: "insert", Same: true,
		Params: map[string]string{"rows": "60", "schema": "foo"}, Settings: map[string]string{"batch": "1", "tx": "immediate"}},
	{Name: "insert-foo-vacuum", Workload: "insert", Same: true,
		Params:   map[string]string{"rows": "4000", "schema": "foo", "vacuum": "true"},
		Settings: map[string]string{"batch": "4000", "rows-per-stmt": "9"}},
	{Name: "insert-three-workers", RacyConns: true, Workload: "insert",
		Params: map[string]string{"rows": "3000", "workers": "3"}, Settings: map[string]string{"batch": "100", "rows-per-stmt": "3", "journal": "wal"}},
	{Name: "read-latest-users-intervals", Workload: "read", Interval: 40 * time.Millisecond,
		Params: map[string]string{"rows": "400", "duration": "250ms", "schema": "users", "keys": "latest"}},
	{Name: "write-upsert-foo", Workload: "write", Same: true,
		Params: map[string]string{"rows": "150", "count": "150", "schema": "foo", "write-kind": "upsert", "keys": "zipfian"}},
	{Name: "write-single-writer-mutex", RacyConns: true, Workload: "write", Same: true,
		Params:   map[string]string{"rows": "100", "count": "120", "workers": "2"},
		Settings: map[string]string{"writer": "single", "write-mutex": "true", "journal": "wal"}},
	{Name: "mixed-open-poisson-warmup", RacyConns: true, Workload: "mixed", Interval: 50 * time.Millisecond,
		Params: map[string]string{"rows": "200", "duration": "300ms", "warmup": "100ms", "rate": "800",
			"arrivals": "poisson", "write-kind": "update"}},
	{Name: "mixed-closed-wal-retry", RacyConns: true, Workload: "mixed", Interval: 30 * time.Millisecond,
		Params:   map[string]string{"rows": "200", "count": "300", "readers": "2", "writers": "2"},
		Settings: map[string]string{"journal": "wal", "busy-retry": "until"}},
	{Name: "read-warmup-closed", RacyConns: true, Workload: "read", Interval: 30 * time.Millisecond,
		Params: map[string]string{"rows": "300", "duration": "250ms", "warmup": "150ms", "workers": "2"}},
	{Name: "write-busy-counted", RacyConns: true, MayFail: true, Workload: "write",
		Params:   map[string]string{"rows": "100", "count": "400", "workers": "3"},
		Settings: map[string]string{"busy-timeout": "0", "batch": "5", "sync": "off"}},
	{Name: "program-ledger-batch", File: "internal/spec/testdata/program/weighted.toml", Same: true, Interval: 30 * time.Millisecond,
		Params: map[string]string{"seed": "7", "count": "300"}, Settings: map[string]string{"batch": "3", "tx": "immediate"}},
	{Name: "program-kv-open-loop", RacyConns: true, File: "internal/spec/testdata/program/kv.toml", Interval: 30 * time.Millisecond,
		Params: map[string]string{"keys": "500", "count": "200", "rate": "1000", "max-inflight": "2"}},
}

func TestConformance(t *testing.T) {
	java := javaWorker(t)
	foreigntest.Conformance(t, foreigntest.Reference(t), slices.Concat(foreigntest.CommonCases, jobs), java)
}

// TestRefusals: a job the Java worker cannot run gets a one-line error
// naming the problem, and nothing is touched.
func TestRefusals(t *testing.T) {
	java := javaWorker(t)
	type c = foreigntest.Case
	foreigntest.Refusals(t, java,
		foreigntest.Refusal{Case: c{Workload: "paginate"}, Want: `workload "paginate" is not supported by java-sqlite-jdbc`},
		foreigntest.Refusal{Case: c{Workload: "mixed", Params: map[string]string{"rate": "-1"}}, Want: `--rate "-1": want a number from 0 to 1e+09`},
		foreigntest.Refusal{Case: c{Workload: "write", Params: map[string]string{"duration": "soon"}}, Want: `--duration "soon": want a duration such as 500ms, 10s or 2m`},
		foreigntest.Refusal{Case: c{Workload: "insert", Settings: map[string]string{"rows-per-stmt": "20000"}},
			Want: "--rows-per-stmt 20000 × 3 columns of bench = 60000 bound variables, past SQLite's limit of 32766; use --rows-per-stmt 10922 or less"},
		foreigntest.Refusal{Case: c{Workload: "insert"}, Set: map[string]string{"tx": "exclusive"}, Want: `job: --tx "exclusive": want one of deferred, immediate`})
	// A program this worker cannot run is refused before anything runs.
	j := foreigntest.NewJob(t, c{Workload: "x"}, target)
	j.Program = []byte(`{"version":2,"name":"x"}`)
	foreigntest.Refuse(t, java, j, "program version 2: this worker runs version 1")
	foreigntest.ForeignFiles(t, java, foreigntest.Foreign{NotSQLite: " is not a SQLite database; name a new file",
		NotOurs: "is a SQLite database litebench did not create (application_id 0x0)", Added: `holds table "mine" that litebench did not create`})
}

// TestCancel: a cancel during a run ends it promptly with an interrupted
// final event carrying what was measured.
func TestCancel(t *testing.T) {
	foreigntest.Cancel(t, javaWorker(t), foreigntest.CancelCases...)
}
