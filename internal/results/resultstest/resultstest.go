// Package resultstest holds a sample result for the tests of the packages
// that store, encode and render results.
package resultstest

import (
	"time"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/units"
)

// Sample is a finished insert run with every kind of field set (the same
// as the results package's own tests use).
func Sample(id string) *results.Result {
	r := &results.Result{
		Schema: results.SchemaVersion, RunID: id, SweepID: "sw1", Section: "ladder", Label: "+ WAL (mattn)",
		Workload: "insert", Target: "mattn", Engine: "sqlite", Client: "mattn", Placement: "in-process",
		Settings:      map[string]string{"journal": "wal", "batch": "1000"},
		Params:        map[string]string{"rows": "1000", "schema": "bench"},
		Order:         []string{"rows", "schema", "journal", "batch"},
		EngineVersion: "3.51.0", ClientVersion: "v1.14.32",
		Status: results.StatusOK, StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC),
		Rows: 1000, Elapsed: 0.5,
		Metrics: []results.Metric{{Name: "db_size", Unit: units.ByteSize, Value: 4096}},
		Ops: []results.Op{{Name: "insert", Count: 1000, Errors: map[string]int64{"busy": 2}, Retries: 3,
			Service: results.Latency{"p50": 1.5, "p99": 9, "max": 12, "count": 1000}, Hist: "HISTFAAAAA"}},
		Env: results.Env{Target: "mattn", OS: "linux", Cores: 2, GoVersion: "go1.26"},
	}
	r.SetHeadline(results.Metric{Name: results.Throughput, Unit: units.RowsPerSecond, Value: 2000, Better: units.Higher})
	return r
}
