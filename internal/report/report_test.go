package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/perf/benchfmt"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/units"
)

func runs() []*results.Result {
	mk := func(id, target, journal string, rps float64) *results.Result {
		r := &results.Result{Schema: results.SchemaVersion, RunID: id, Workload: "insert", Target: target, Engine: "sqlite", Client: target,
			EngineVersion: map[string]string{"mattn": "3.51.0", "modernc": "3.50.4"}[target],
			Settings:      map[string]string{"journal": journal, "batch": "1000"}, Order: []string{"rows", "journal", "batch"},
			Params: map[string]string{"rows": "1000"}, Status: results.StatusOK,
			StartedAt: time.Unix(0, 0).UTC(), Rows: 1000, Elapsed: 1000 / rps,
			Ops: []results.Op{{Name: "insert", Count: 1000, Service: results.Latency{"p50": 2, "p99": 10, "max": 20, "mean": 3}}},
			Env: results.Env{OS: "linux", Arch: "amd64", CPUModel: "Test CPU"}}
		r.SetHeadline(results.Metric{Name: results.Throughput, Unit: units.RowsPerSecond, Value: rps, Better: units.Higher})
		return r
	}
	return []*results.Result{mk("a", "mattn", "delete", 1000), mk("b", "mattn", "wal", 4000), mk("c", "modernc", "wal", 3000)}
}

func TestSummaryShowsOnlyVaryingSettings(t *testing.T) {
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
// name part so it can pivot on it, the headline in its own unit, and each
// run's own SQLite version in its configuration.
func TestBenchfmtReadableByXPerf(t *testing.T) {
	var b bytes.Buffer
	if err := WriteBenchfmt(&b, runs()); err != nil {
		t.Fatal(err)
	}
	rs := readBenchfmt(t, b.Bytes())
	if len(rs) != 3 {
		t.Fatalf("read %d results, want 3", len(rs))
	}
	for _, res := range rs {
		name := string(res.Name)
		if !strings.HasPrefix(name, "Insert/target=") || !strings.Contains(name, "/journal=") {
			t.Errorf("name %q", name)
		}
		if res.Iters != 1000 {
			t.Errorf("iters %d", res.Iters)
		}
		if v, ok := res.Value("rows/s"); !ok || v <= 0 {
			t.Errorf("rows/s missing in %q", name)
		}
		if ns, ok := res.Value("sec/op"); !ok || ns <= 0 {
			t.Errorf("sec/op missing in %q", name)
		}
		want := "3.51.0"
		if strings.Contains(name, "modernc") {
			want = "3.50.4"
		}
		if got := res.GetConfig("sqlite"); got != want {
			t.Errorf("%s: sqlite %q, want %q", name, got, want)
		}
	}
}

// Every benchfmt golden file parses, and each result has its headline in
// the unit its workload counts and its own engine version.
func TestBenchfmtGoldensParse(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.bench"))
	if len(files) < 5 {
		t.Fatalf("%d golden benchfmt files", len(files))
	}
	wantUnit := map[string]string{"Insert": "rows/s", "Scan": "rows/s", "Mixed": "ops/s", "Http": "requests/s"}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range readBenchfmt(t, b) {
			name := string(res.Name)
			w, _, _ := strings.Cut(name, "/")
			n := 0
			for _, u := range []string{"rows/s", "ops/s", "requests/s"} {
				if _, ok := res.Value(u); ok {
					n++
					if u != wantUnit[w] {
						t.Errorf("%s: %s in %s, want %s", f, name, u, wantUnit[w])
					}
				}
			}
			if n != 1 || res.GetConfig("sqlite") == "" {
				t.Errorf("%s: %s has %d headlines, sqlite %q", f, name, n, res.GetConfig("sqlite"))
			}
		}
	}
	// The inserts of rows.bench ran on drivers of different SQLite versions.
	b, _ := os.ReadFile(filepath.Join("testdata", "rows.bench"))
	for _, res := range readBenchfmt(t, b) {
		want := "3.54.1"
		if strings.Contains(string(res.Name), "modernc") {
			want = "3.53.4"
		}
		if got := res.GetConfig("sqlite"); got != want {
			t.Errorf("rows.bench: %s: sqlite %q, want %q", res.Name, got, want)
		}
	}
}

func readBenchfmt(t *testing.T, b []byte) []*benchfmt.Result {
	t.Helper()
	rd := benchfmt.NewReader(bytes.NewReader(b), "litebench.txt")
	var out []*benchfmt.Result
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.Result:
			out = append(out, rec.Clone())
		case *benchfmt.SyntaxError:
			t.Errorf("syntax error: %v", rec)
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// The CSV is one raw row per run: every label and figure its own column,
// units in the names, numbers as measured.
func TestCSVRaw(t *testing.T) {
	rs := runs()
	rs[0].Elapsed = 1.0 / 3
	var b bytes.Buffer
	if err := WriteCSV(&b, rs); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(recs) != 4 {
		t.Fatalf("%v, %d records", err, len(recs))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, h := range []string{"run_id", "workload", "target", "rows", "journal", "batch", "count (rows)", "elapsed (s)",
		"throughput (rows/s)", "insert count", "insert service p99 (µs)"} {
		if _, ok := col[h]; !ok {
			t.Errorf("no column %q in %q", h, recs[0])
		}
	}
	if got := recs[1][col["elapsed (s)"]]; got != "0.3333333333333333" {
		t.Errorf("elapsed %q: want the number unrounded", got)
	}
	if got := recs[2][col["journal"]]; got != "wal" {
		t.Errorf("journal %q", got)
	}
	if got := recs[3][col["throughput (rows/s)"]]; got != "3000" {
		t.Errorf("throughput %q", got)
	}
}

// A table wider than the terminal splits its headers, drops the columns
// every row shares (naming them once) and cuts long text, never numbers.
func TestFitNarrowsToWidth(t *testing.T) {
	tb := &Table{Headers: []string{"workload", "target", "journal", "insert p99 µs", "rows/s", "warning"},
		Right: []bool{false, false, false, true, true, false}}
	for i, j := range []string{"delete", "wal", "wal"} {
		tb.Rows = append(tb.Rows, []string{"insert", "mattn", j, "12.5", strconv.Itoa(1000 * (i + 1)),
			fmt.Sprintf("repetitions spread %d%% (min 950, max 1100): differences smaller than that are noise", 11+i)})
	}
	wide := tb.lineWidth()
	if got := tb.Fit(wide); got != tb {
		t.Error("a table that fits was changed")
	}
	var b bytes.Buffer
	tb.Width = 60
	if err := tb.Render(&b, "table"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if n := utf8.RuneCountInString(l); n > 60 {
			t.Errorf("line of %d characters: %q", n, l)
		}
	}
	if !strings.Contains(out, "every row: ") || !strings.Contains(out, "workload=insert,") || !strings.Contains(out, "target=mattn") {
		t.Errorf("constant columns not named:\n%s", out)
	}
	for _, want := range []string{"delete", "12.5", "3000", "insert", "p99 µs", "…"} {
		if !strings.Contains(out, want) {
			t.Errorf("%q missing:\n%s", want, out)
		}
	}
	// Too many numbers for the width: blocks of columns, each led by the
	// row numbers, every line within the width, every figure shown.
	nums := &Table{Title: "figures"}
	for c := 0; c < 12; c++ {
		nums.Headers = append(nums.Headers, fmt.Sprintf("p%d µs", c))
		nums.Right = append(nums.Right, true)
	}
	for r := 0; r < 3; r++ {
		var row []string
		for c := 0; c < 12; c++ {
			row = append(row, strconv.Itoa(100000*r+c))
		}
		nums.Rows = append(nums.Rows, row)
	}
	nums.Width = 40
	b.Reset()
	nums.Render(&b, "table")
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		if n := utf8.RuneCountInString(l); n > 40 {
			t.Errorf("line of %d characters: %q", n, l)
		}
	}
	if blocks := len(regexp.MustCompile(`(?m)^ *# `).FindAllString(b.String(), -1)); blocks < 3 || !strings.Contains(b.String(), "200011") {
		t.Errorf("%d blocks:\n%s", blocks, b.String())
	}
	// Markdown and CSV are never narrowed.
	b.Reset()
	tb.Render(&b, "markdown")
	if !strings.Contains(b.String(), "noise") {
		t.Error("markdown was narrowed")
	}
}

// compare's notes say what the samples are too small for, and only then:
// 3+3 runs can never be significant and have no interval; 5+5 can be
// significant but have no interval; 6+6 have both.
func TestCompareNotes(t *testing.T) {
	side := func(target string, n int) []*results.Result {
		var out []*results.Result
		for i := 0; i < n; i++ {
			r := runs()[0]
			r.RunID, r.Target = target+strconv.Itoa(i), target
			r.Metrics[0].Value = 1000 + float64(10*i)
			if target == "modernc" {
				r.Metrics[0].Value *= 2
			}
			out = append(out, r)
		}
		return out
	}
	for _, c := range []struct {
		n          int
		never, ci  bool
		significan bool
	}{{3, true, true, false}, {5, false, true, true}, {6, false, false, true}} {
		cmp, err := Compare(side("mattn", c.n), side("modernc", c.n))
		if err != nil {
			t.Fatal(err)
		}
		notes := strings.Join(cmp.Notes, "\n")
		if got := strings.Contains(notes, "can be significant"); got != c.never {
			t.Errorf("%d+%d: 'never significant' note %v, want %v: %q", c.n, c.n, got, c.never, notes)
		}
		if got := strings.Contains(notes, "needs 6 runs"); got != c.ci {
			t.Errorf("%d+%d: interval note %v, want %v: %q", c.n, c.n, got, c.ci, notes)
		}
		if strings.Contains(notes, "--repeat 5") {
			t.Errorf("advises --repeat 5: %q", notes)
		}
		if cmp.Rows[0].Significant != c.significan {
			t.Errorf("%d+%d: significant %v", c.n, c.n, cmp.Rows[0].Significant)
		}
		var b bytes.Buffer
		if err := cmp.WriteCSV(&b); err != nil {
			t.Fatal(err)
		}
		recs, _ := csv.NewReader(&b).ReadAll()
		if recs[0][0] != "metric" || recs[1][0] != "throughput" || recs[1][1] != "rows/s" || recs[1][3] != strconv.Itoa(c.n) {
			t.Errorf("csv %q", recs[:2])
		}
	}
}
