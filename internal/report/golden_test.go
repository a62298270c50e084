package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/metrics"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/runner"
	"github.com/litebench/litebench/internal/units"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// Synthetic runs: a sweep of target × journal × pool, each cell repeated,
// with histograms, open-loop response times, errors and time series, all
// derived from the run's index (no clock, no randomness).
func synthetic(n int) []*results.Result {
	var rs []*results.Result
	targets := []string{"mattn", "modernc"}
	journals := []string{"delete", "wal"}
	pools := []string{"0", "1"}
	cells := len(targets) * len(journals) * len(pools)
	for i := 0; i < n; i++ {
		c := i % cells
		rep := i/cells + 1
		t, j, p := targets[c%2], journals[(c/2)%2], pools[(c/4)%2]
		base := float64(1000*(c+1)) * (1 + 0.01*float64(rep%3))
		rec := metrics.NewRecorder(metrics.Ops{"read", "write"})
		for k := 0; k < 200; k++ {
			d := time.Duration(1000*(c+1)+37*k*k) * time.Nanosecond
			rec.ObserveScheduled(0, d, d+time.Duration(k)*time.Microsecond, k > 190)
			if k%4 == 0 {
				rec.Observe(1, 3*d)
			}
		}
		if c%3 == 0 {
			rec.Error(1, "busy")
		}
		ops := runner.ToOps(metrics.Merge(metrics.Ops{"read", "write"}, []*metrics.Recorder{rec}))
		var done int64
		for _, o := range ops {
			done += o.Count
		}
		r := &results.Result{
			Schema: results.SchemaVersion, RunID: fmt.Sprintf("sweep1.%d", i+1), SweepID: "sweep1", Repeat: rep,
			Workload: "mixed", Target: t, Engine: "sqlite", Client: t, Placement: "in-process",
			Settings:      map[string]string{"journal": j, "pool": p, "sync": "normal"},
			Params:        map[string]string{"readers": "4", "writers": "1", "rate": "1000"},
			Order:         []string{"rate", "readers", "writers", "journal", "sync", "pool"},
			EngineVersion: "3.50.4", ClientVersion: "v1.0." + fmt.Sprint(c%2),
			Status:    results.StatusOK,
			StartedAt: time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC),
			Rows:      done, Elapsed: 2,
			Metrics: []results.Metric{{Name: results.WantedRate, Unit: units.OpsPerSecond, Value: 1000},
				{Name: results.WALSize, Unit: units.ByteSize, Value: float64(5 * (c + 1) * 4096)}},
			Ops:     ops,
			Command: fmt.Sprintf("litebench mixed --target %s --journal %s --pool %s", t, j, p),
			Env:     results.Env{Target: t, API: "database/sql", OS: "linux", Arch: "amd64", CPUModel: "Synthetic CPU", Cores: 2, GOMAXPROCS: 2, GoVersion: "go1.26", Litebench: "test"},
		}
		r.SetHeadline(results.Metric{Name: results.Throughput, Unit: units.OpsPerSecond, Value: float64(done) / r.Elapsed, Better: units.Higher})
		for s := 0; s < 5; s++ {
			r.Series = append(r.Series, results.Point{T: float64(s + 1), Rows: int64(s * 100),
				OpsPerS: map[string]float64{"read": base * 0.9, "write": base * 0.1}, P99us: map[string]float64{"read": float64(10 + s)},
				WALBytes: int64((s + 1) * (c + 1) * 4096)})
		}
		rs = append(rs, r)
	}
	return rs
}

// synthetic1000 is synthetic(1000), made once for the tests and the
// benchmark that read it.
var synthetic1000 = sync.OnceValue(func() []*results.Result { return synthetic(1000) })

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run 'go test ./internal/report -update' to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; if the change is intended, run 'go test ./internal/report -update'\n--- got ---\n%s", name, got)
	}
}

func TestGoldenFormats(t *testing.T) {
	rs := synthetic(16)
	for _, f := range []string{"markdown", "csv", "json"} {
		var b bytes.Buffer
		if err := Write(&b, rs, f); err != nil {
			t.Fatal(err)
		}
		golden(t, "sweep."+map[string]string{"markdown": "md", "csv": "csv", "json": "jsonl"}[f], b.Bytes())
	}
	d := BuildHTMLData(rs, Options{Title: "synthetic", Defaults: testDefaults})
	b, _ := json.MarshalIndent(d, "", " ")
	golden(t, "html-data.json", append(b, '\n'))
}

// The page embeds the same data the golden file holds, and draws a bar per
// cell and a curve per cell and op kind.
func TestHTMLEmbedsDataAndCharts(t *testing.T) {
	rs := synthetic(16)
	var b bytes.Buffer
	if err := WriteHTML(&b, rs, Options{Title: "synthetic", Defaults: testDefaults}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if !strings.HasPrefix(page, HTMLMarker) {
		t.Error("page lacks the marker")
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="litebench-data">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no embedded data")
	}
	var d HTMLData
	if err := json.Unmarshal([]byte(strings.ReplaceAll(m[1], `<\/`, "</")), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Cells) != 8 || d.Cells[0].N != 2 {
		t.Errorf("%d cells, first has n=%d; want 8 cells of 2 runs", len(d.Cells), d.Cells[0].N)
	}
	if got := strings.Count(page, `<g class="row" data-cell=`); got != 8 {
		t.Errorf("%d rows in the throughput chart, want 8", got)
	}
	if got := strings.Count(page, `class="mark bar"`) + strings.Count(page, `class="mark dot"`); got != 8 {
		t.Errorf("%d bars or dots, want 8", got)
	}
	if got := strings.Count(page, `class="mark ci"`); got != 8 {
		t.Errorf("%d intervals, want 8 (every cell is repeated)", got)
	}
	// Both op kinds of every cell have a curve, and reads (timed from
	// their schedule) a response-time curve besides.
	curves := 0
	for _, p := range d.Latency {
		curves += len(p.Lines)
	}
	if resp := strings.Count(page, `class="mark line response"`); curves != 16 || resp != 8 {
		t.Errorf("%d cells' curves, %d of response time; want 16 and 8", curves, resp)
	}
	if got := strings.Count(page, `<tr class="cell`); got != 8 {
		t.Errorf("%d table rows, want 8", got)
	}
	for _, bad := range []string{"http://", "https://", "src=", "<link"} {
		if strings.Contains(page, bad) {
			t.Errorf("page refers to something outside itself: %q", bad)
		}
	}
}

func TestLTTB(t *testing.T) {
	var pts [][2]float64
	for i := 0; i < 1000; i++ {
		y := 0.0
		if i == 500 {
			y = 100 // a spike must survive
		}
		pts = append(pts, [2]float64{float64(i), y})
	}
	out := LTTB(pts, 50)
	if len(out) != 50 || out[0] != pts[0] || out[49] != pts[999] {
		t.Fatalf("%d points, ends %v %v", len(out), out[0], out[len(out)-1])
	}
	spike := false
	for _, p := range out {
		if p[1] == 100 {
			spike = true
		}
	}
	if !spike {
		t.Error("the spike was dropped")
	}
}

// 1,000 stored runs make a page under 2 MB (time is checked by
// BenchmarkHTMLReport1000).
func TestHTMLSize1000Runs(t *testing.T) {
	rs := synthetic1000()
	var b bytes.Buffer
	if err := WriteHTML(&b, rs, Options{Title: "big", Defaults: testDefaults}); err != nil {
		t.Fatal(err)
	}
	if b.Len() > 2e6 {
		t.Errorf("report of 1000 runs is %d bytes, over 2 MB", b.Len())
	}
}

func BenchmarkHTMLReport1000(b *testing.B) {
	rs := synthetic1000()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var buf bytes.Buffer
		if err := WriteHTML(&buf, rs, Options{Title: "big", Defaults: testDefaults}); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(buf.Len())/1e6, "MB")
	}
}

// BenchmarkHTMLReport1000In36Cells is 1,000 runs of a wider sweep: 36
// cells of 28 runs, three op kinds each (108 latency curves).
func BenchmarkHTMLReport1000In36Cells(b *testing.B) {
	rs := sweep36(28)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var buf bytes.Buffer
		if err := WriteHTML(&buf, rs, Options{Title: "big", Defaults: testDefaults}); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(buf.Len())/1e6, "MB")
	}
}

// fixture reads runs litebench wrote in schema 1 (taken from real runs: two
// inserts on drivers of different SQLite versions, a scan, an open-loop
// mixed run, two HTTP strategies and three steps of the quick suite),
// upgraded as they are read.
func fixture(t *testing.T) []*results.Result {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "results", "testdata", "schema1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var rs []*results.Result
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		r, err := results.UnmarshalJSONLine(l)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	return rs
}

// The text table, benchfmt and the HTML page of each kind of sweep, byte
// for byte.
func TestGoldenPages(t *testing.T) {
	fx := fixture(t)
	sets := []struct {
		name string
		rs   []*results.Result
	}{
		{"sweep", synthetic(16)}, // repeated cells: medians
		{"load", synthetic(8)},   // single runs of an operation workload
		{"rows", fx[0:3]},        // row workloads with their own figures
		{"open", fx[3:4]},        // an open-loop run
		{"control", fx[4:6]},     // strategies against their control
		{"suite", fx[6:9]},       // suite steps in sections
		{"fixture", fx},          // everything at once
	}
	for _, s := range sets {
		var tb, bf, page bytes.Buffer
		if err := Write(&tb, s.rs, "table"); err != nil {
			t.Fatal(err)
		}
		golden(t, s.name+".txt", tb.Bytes())
		if err := WriteBenchfmt(&bf, s.rs); err != nil {
			t.Fatal(err)
		}
		golden(t, s.name+".bench", bf.Bytes())
		if err := WriteHTML(&page, s.rs, Options{Title: "litebench: " + s.name, Defaults: testDefaults}); err != nil {
			t.Fatal(err)
		}
		golden(t, s.name+".html", page.Bytes())
	}
}
