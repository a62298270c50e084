package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/units"
)

// twoProcesses is a run of two processes on one database.
func twoProcesses() *results.Result {
	r := synthetic(1)[0]
	r.RunID = "S.1"
	r.Rows, r.Elapsed = 300, 2
	r.Metrics = []results.Metric{{Name: results.Throughput, Unit: units.OpsPerSecond, Value: 150, Better: units.Higher}}
	op := results.Op{Name: "write", Count: 100, Errors: map[string]int64{"busy": 7}, Service: results.Latency{"count": 100, "p50": 10}}
	r.Processes = []results.Process{
		{Index: 0, InsertFrom: 100, InsertTo: 1_000_000_000, RowsInRange: 100, Status: "ok", Count: 100, Elapsed: 1, Rate: 100,
			Errors: map[string]int64{"busy": 7}, WALStart: 1 << 10, WALMax: 4 << 20, Ops: []results.Op{op}},
		{Index: 1, Attached: true, InsertFrom: 1_000_000_000, InsertTo: 2_000_000_000, RowsInRange: 200, Status: "ok", Count: 200, Elapsed: 2, Rate: 100,
			Errors: map[string]int64{"busy": 3, "locked": 1}, Retries: 5, WALStart: 1 << 10, WALMax: 8 << 20,
			Metrics: []results.Metric{{Name: "rows_in_range", Unit: units.Rows, Value: 200}}},
	}
	return r
}

// The processes table has a row per process and one with their sum.
func TestProcessesTable(t *testing.T) {
	tb := Processes([]*results.Result{twoProcesses()})
	var got []string
	for _, row := range tb.Rows {
		got = append(got, strings.Join(row, "|"))
	}
	want := []string{
		"S.1|0|ok|100|100|1.000|100.0 ops/s|100|7|busy=7|0|1.0KiB|4.0MiB",
		"S.1|1|ok|1000000000|200|2.000|100.0 ops/s|200|4|busy=3 locked=1|5|1.0KiB|8.0MiB",
		"S.1|sum|ok|-|300|2.000|150.0 ops/s|300|11|busy=10 locked=1|5|-|8.0MiB",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if Processes(synthetic(2)) != nil {
		t.Error("a table for runs of one process")
	}
	var buf bytes.Buffer
	if err := Write(&buf, []*results.Result{twoProcesses()}, "table"); err != nil || !strings.Contains(buf.String(), "\nprocesses\n") {
		t.Errorf("the table output lacks the processes table (%v):\n%s", err, buf.String())
	}
}

// A run's processes hold to the schema, and round-trip.
func TestProcessesFollowTheSchema(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "result.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	r := twoProcesses()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(buf.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	if _, ok := v["processes"]; !ok {
		t.Fatal("no processes in the JSON line")
	}
	for _, e := range validate(schema, schema, v, r.RunID) {
		t.Error(e)
	}
	back, err := results.UnmarshalJSONLine(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(r.Processes)
	c, _ := json.Marshal(back.Processes)
	if !bytes.Equal(a, c) {
		t.Errorf("processes after a round trip:\n%s\nwant\n%s", c, a)
	}
}
