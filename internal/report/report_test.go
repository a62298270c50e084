package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"litebench/internal/results"
)

func runs() []*results.Result {
	mk := func(id, target, journal string, rps float64) *results.Result {
		return &results.Result{RunID: id, Workload: "insert", Target: target, SQLite: "3.51.0",
			Settings: map[string]string{"journal": journal, "batch": "1000"},
			Params:   map[string]string{"rows": "1000"}, Status: results.StatusOK,
			StartedAt: time.Unix(0, 0).UTC(), Rows: 1000, Elapsed: 1000 / rps, RowsPerSecond: rps,
			Ops: []results.Op{{Name: "insert", Count: 1000, Service: results.Latency{"p50": 2, "p99": 10, "max": 20, "mean": 3}}},
			Env: results.Env{OS: "linux", Arch: "amd64", CPUModel: "Test CPU"}}
	}
	return []*results.Result{mk("a", "mattn", "delete", 1000), mk("b", "mattn", "wal", 4000), mk("c", "modernc", "wal", 3000)}
}

func TestSummaryShowsOnlyVaryingSettings(t *testing.T) {
	SettingOrder = []string{"journal", "batch"}
	tb := Summary(runs())
	h := strings.Join(tb.Headers, "|")
	if !strings.Contains(h, "journal") || strings.Contains(h, "batch") {
		t.Errorf("headers %s", h)
	}
	if len(tb.Rows) != 3 {
		t.Errorf("%d rows", len(tb.Rows))
	}
}

func TestCSVAndMarkdown(t *testing.T) {
	SettingOrder = []string{"journal", "batch"}
	var b bytes.Buffer
	if err := Write(&b, runs(), "csv"); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(recs) != 4 {
		t.Fatalf("csv: %v, %d records", err, len(recs))
	}
	b.Reset()
	Write(&b, runs(), "markdown")
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if !strings.HasPrefix(lines[0], "| workload |") || !strings.Contains(lines[1], "---:") || len(lines) != 5 {
		t.Errorf("markdown:\n%s", b.String())
	}
}

// benchstat's reader must accept what we write, with every varying key as a
// name part so it can pivot on it.
func TestBenchfmtReadableByXPerf(t *testing.T) {
	SettingOrder = []string{"journal", "batch"}
	var b bytes.Buffer
	if err := WriteBenchfmt(&b, runs()); err != nil {
		t.Fatal(err)
	}
	rd := benchfmt.NewReader(&b, "litebench.txt")
	n := 0
	for rd.Scan() {
		res, ok := rd.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		n++
		name := string(res.Name)
		if !strings.HasPrefix(name, "Insert/target=") || !strings.Contains(name, "/journal=") {
			t.Errorf("name %q", name)
		}
		if res.Iters != 1000 {
			t.Errorf("iters %d", res.Iters)
		}
		v, ok := res.Value("rows/s")
		if !ok || v <= 0 {
			t.Errorf("rows/s missing in %q", name)
		}
		if ns, ok := res.Value("sec/op"); !ok || ns <= 0 {
			t.Errorf("sec/op missing in %q", name)
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("read %d results, want 3", n)
	}
}
