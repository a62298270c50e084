package results

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/units"
)

func sample(id string) *Result {
	r := &Result{
		Schema: SchemaVersion, RunID: id, SweepID: "sw1", Section: "ladder", Label: "+ WAL (mattn)",
		Workload: "insert", Target: "mattn", Engine: "sqlite", Client: "mattn", Placement: "in-process",
		Settings:      map[string]string{"journal": "wal", "batch": "1000"},
		Params:        map[string]string{"rows": "1000", "schema": "bench"},
		Order:         []string{"rows", "schema", "journal", "batch"},
		EngineVersion: "3.51.0", ClientVersion: "v1.14.32",
		Status: StatusOK, StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC),
		Rows: 1000, Elapsed: 0.5,
		Metrics: []Metric{{Name: "db_size", Unit: units.ByteSize, Value: 4096}},
		Ops: []Op{{Name: "insert", Count: 1000, Errors: map[string]int64{"busy": 2}, Retries: 3,
			Service: Latency{"p50": 1.5, "p99": 9, "max": 12, "count": 1000}, Hist: "HISTFAAAAA"}},
		Env: Env{Target: "mattn", OS: "linux", Cores: 2, GoVersion: "go1.26"},
	}
	r.SetHeadline(Metric{Name: Throughput, Unit: units.RowsPerSecond, Value: 2000, Better: units.Higher})
	return r
}

func TestJSONLineRoundTrip(t *testing.T) {
	r := sample("r1")
	b, err := MarshalJSONLine(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalJSONLine(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, r) {
		t.Errorf("round trip changed the result:\n%+v\n%+v", got, r)
	}
	b2, _ := MarshalJSONLine(got)
	if !bytes.Equal(b, b2) {
		t.Error("re-encoding differs")
	}
	// The schema, the labels, the unit-tagged headline first, and the flat
	// fields scripts use are present.
	for _, f := range []string{`"schema":2`, `"section":"ladder"`, `"engine":"sqlite"`, `"placement":"in-process"`,
		`"label_order":["rows","schema","journal","batch"]`, `"engine_version":"3.51.0"`, `"client_version":"v1.14.32"`,
		`"metrics":[{"name":"throughput","unit":"rows/s","value":2000,"better":"higher"},{"name":"db_size","unit":"bytes","value":4096}]`,
		`"count":1000`, `"elapsed_seconds"`, `"latency_us":{"insert":{`, `"errors":{"busy":2}`,
		`"rows":1000,"rows_per_second":2000,"sqlite_version":"3.51.0"`} {
		if !bytes.Contains(b, []byte(f)) {
			t.Errorf("JSON lacks %s: %s", f, b)
		}
	}
	for _, f := range []string{`"extra"`} {
		if bytes.Contains(b, []byte(f)) {
			t.Errorf("JSON still has %s", f)
		}
	}
	if _, err := UnmarshalJSONLine([]byte(`{"x":1}`)); err == nil {
		t.Error("foreign JSON accepted")
	}
	if _, err := UnmarshalJSONLine([]byte(`{"schema":3,"run_id":"r9"}`)); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("schema 3 accepted: %v", err)
	}
}

func TestLabels(t *testing.T) {
	r := sample("r1")
	var got []string
	for _, l := range r.Labels() {
		got = append(got, l.Key+"="+l.Value)
	}
	want := "workload=insert target=mattn engine=sqlite client=mattn placement=in-process rows=1000 schema=bench journal=wal batch=1000"
	if strings.Join(got, " ") != want {
		t.Errorf("labels %v\nwant %s", got, want)
	}
	for k, want := range map[string]string{"target": "mattn", "journal": "wal", "rows": "1000", "section": "ladder", "sqlite_version": "3.51.0"} {
		if v, ok := r.Get(k); !ok || v != want {
			t.Errorf("Get(%q) = %q, %v", k, v, ok)
		}
	}
	if _, ok := r.Get("nosuch"); ok {
		t.Error("unknown label found")
	}
}

// Display orders merge: each run's order is kept, keys no run orders
// relative to each other go by name, and unordered keys are placed by name.
func TestLabelOrder(t *testing.T) {
	a := &Result{Params: map[string]string{"rows": "1", "schema": "x"}, Settings: map[string]string{"sync": "", "journal": "", "pool": ""},
		Order: []string{"rows", "schema", "sync", "journal", "pool"}}
	b := &Result{Params: map[string]string{"concurrency": "1", "rows": "2"}, Settings: map[string]string{"journal": "", "batch": ""},
		Order: []string{"concurrency", "rows", "journal", "batch"}}
	c := &Result{Params: map[string]string{"zeta": "1", "alpha": "2"}, Settings: map[string]string{"aaa": ""}}
	params, sets := LabelOrder([]*Result{a, b, c})
	if got := strings.Join(params, " "); got != "alpha concurrency rows schema zeta" {
		t.Errorf("params %s", got)
	}
	if got := strings.Join(sets, " "); got != "aaa sync journal batch pool" {
		t.Errorf("settings %s", got)
	}
	// Orders that disagree still give every key once.
	d := &Result{Settings: map[string]string{"journal": "", "sync": ""}, Order: []string{"journal", "sync"}}
	if _, sets := LabelOrder([]*Result{a, d}); strings.Join(sets, " ") != "journal pool sync" {
		t.Errorf("cycle: %v", sets)
	}
	a2 := *a
	a2.Settings = map[string]string{"sync": "x", "journal": "", "pool": ""}
	if got := VaryingKeys([]*Result{a, &a2}); strings.Join(got, " ") != "sync" {
		t.Errorf("varying %v", got)
	}
}

func readFixture(t *testing.T) [][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "schema1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSpace(b), []byte("\n"))
}

// Lines written before results carried their meaning (schema 1, taken from
// real runs) are upgraded by the rules their readers used.
func TestUpgradeSchema1(t *testing.T) {
	for _, line := range readFixture(t) {
		var old map[string]any
		if err := json.Unmarshal(line, &old); err != nil {
			t.Fatal(err)
		}
		if _, ok := old["schema"]; ok {
			t.Fatal("fixture is not schema 1")
		}
		r, err := UnmarshalJSONLine(line)
		if err != nil {
			t.Fatal(err)
		}
		id := r.RunID
		if r.Schema != SchemaVersion || r.Engine != "sqlite" || r.Client != r.Target || r.Placement != "in-process" ||
			r.EngineVersion != old["sqlite_version"] || r.Workload != old["workload"] || r.Rows != int64(old["rows"].(float64)) {
			t.Errorf("%s: upgraded as %+v", id, r)
		}
		h := r.Headline()
		var ops float64
		for _, o := range r.Ops {
			ops += float64(o.Count)
		}
		switch r.Workload {
		case "insert", "scan":
			if h.Unit != units.RowsPerSecond || h.Value != old["rows_per_second"] {
				t.Errorf("%s: headline %+v, want rows_per_second %v", id, h, old["rows_per_second"])
			}
		case "mixed":
			if h.Unit != units.OpsPerSecond || h.Value != ops/r.Elapsed {
				t.Errorf("%s: headline %+v, want %v ops/s", id, h, ops/r.Elapsed)
			}
			if v, ok := r.Metric(WantedRate); !ok || v != 2000 {
				t.Errorf("%s: wanted rate %v %v", id, v, ok)
			}
		case "http":
			if h.Unit != units.RequestsPerSecond || h.Value != ops/r.Elapsed || r.Control == nil || r.Control.Key != "strategy" {
				t.Errorf("%s: headline %+v, control %+v", id, h, r.Control)
			}
		}
		if h.Name != Throughput || h.Better != units.Higher || r.RowsPerSecond != h.Value {
			t.Errorf("%s: headline %+v (rows_per_second %v)", id, h, r.RowsPerSecond)
		}
		// Every extra figure became a metric with a unit.
		extra, _ := old["extra"].(map[string]any)
		if len(r.Metrics) != len(extra)+1 {
			t.Errorf("%s: %d metrics from %d extras", id, len(r.Metrics), len(extra))
		}
		for _, m := range r.Metrics {
			if m.Unit == "" {
				t.Errorf("%s: metric %s has no unit", id, m.Name)
			}
		}
		// Suite steps get their section back; others keep their label.
		label := old["label"].(string)
		if strings.Contains(r.Command, "litebench suite") {
			if r.Section == "" || r.Section+": "+r.Label != label {
				t.Errorf("%s: section %q label %q from %q", id, r.Section, r.Label, label)
			}
		} else if r.Section != "" || r.Label != label {
			t.Errorf("%s: section %q label %q from %q", id, r.Section, r.Label, label)
		}
		// Settings keep schema 1's display order, after the parameters.
		if r.Order[0] != sortedKeys(r.Params)[0] || r.Order[len(r.Params)] != "journal" || len(r.Order) != len(r.Params)+len(r.Settings) {
			t.Errorf("%s: order %v", id, r.Order)
		}
		// Written again, it is schema 2 and reads back the same.
		b, err := MarshalJSONLine(r)
		if err != nil {
			t.Fatal(err)
		}
		again, err := UnmarshalJSONLine(b)
		if err != nil || !reflect.DeepEqual(again, r) {
			t.Errorf("%s: schema 2 round trip: %v", id, err)
		}
	}
}

func TestUpgradeSchema1Figures(t *testing.T) {
	for _, line := range readFixture(t) {
		r, _ := UnmarshalJSONLine(line)
		if r.Workload != "scan" {
			continue
		}
		for _, name := range []string{"query_returned", "first_row", "per_row"} {
			found := false
			for _, m := range r.Metrics {
				if m.Name == name {
					found = m.Unit == units.Microseconds && m.Better == units.Lower && m.Value > 0
				}
			}
			if !found {
				t.Errorf("%s: no %s in µs, lower better: %+v", r.RunID, name, r.Metrics)
			}
		}
		return
	}
	t.Fatal("no scan in the fixture")
}
