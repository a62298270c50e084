package cli

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/units"
)

// A small stored sweep with repetitions, for the report commands.
func storedSweep(t *testing.T) (dir, store string) {
	t.Helper()
	dir = t.TempDir()
	store = filepath.Join(dir, "store.db")
	o := run(t, context.Background(), "insert", "--rows", "3000", "--batch", "100,1000", "--target", "mattn,modernc",
		"--repeat", "3", "--store", store, "--progress", "0")
	if o.code != 0 {
		t.Fatalf("insert exit %d: %s", o.code, o.err)
	}
	if !strings.Contains(o.out, "Medians of repeated runs") {
		t.Errorf("repeated sweep lacks the medians table:\n%s", o.out)
	}
	return dir, store
}

func TestExportImportRoundTrip(t *testing.T) {
	dir, store := storedSweep(t)
	a := run(t, context.Background(), "export", "--last", "--store", store)
	if a.code != 0 || strings.Count(a.out, "\n") != 12 {
		t.Fatalf("export exit %d, %d lines: %s", a.code, strings.Count(a.out, "\n"), a.err)
	}
	file := filepath.Join(dir, "runs.jsonl")
	os.WriteFile(file, []byte(a.out), 0o644)
	other := filepath.Join(dir, "other.db")
	if o := run(t, context.Background(), "import", "--store", other, file); o.code != 0 {
		t.Fatalf("import exit %d: %s", o.code, o.err)
	}
	b := run(t, context.Background(), "export", "--all", "--store", other)
	if b.out != a.out {
		t.Errorf("round trip changed the runs:\n%s\nvs\n%s", a.out, b.out)
	}
	// A malformed file is refused before anything is written.
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(strings.SplitN(a.out, "\n", 2)[0]+"\n{not json\n"), 0o644)
	fresh := filepath.Join(dir, "fresh.db")
	if o := run(t, context.Background(), "import", "--store", fresh, bad); o.code != 2 || !strings.Contains(o.err, "line 2") {
		t.Errorf("bad import: exit %d, %q", o.code, o.err)
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Error("a refused import created the store")
	}
}

func TestCompareWhereVs(t *testing.T) {
	_, store := storedSweep(t)
	o := run(t, context.Background(), "compare", "--where", "target=mattn", "--vs", "target=modernc", "--store", store, "--format", "csv")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	// Raw rows: the cell's label in its own column, one throughput row per
	// batch size, both sides' run counts.
	recs, err := csv.NewReader(strings.NewReader(o.out)).ReadAll()
	if err != nil || len(recs) < 3 {
		t.Fatalf("csv: %v\n%s", err, o.out)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	var batches []string
	for _, r := range recs[1:] {
		if r[col["metric"]] == "throughput" {
			batches = append(batches, r[col["batch"]])
			if r[col["unit"]] != "rows/s" || r[col["a_n"]] != "3" || r[col["b_n"]] != "3" {
				t.Errorf("row %q", r)
			}
		}
	}
	if strings.Join(batches, ",") != "100,1000" {
		t.Errorf("throughput of batches %v, want 100,1000:\n%s", batches, o.out)
	}
	// The table's notes: 3+3 runs can never be significant, and have no
	// interval.
	o = run(t, context.Background(), "compare", "--where", "target=mattn", "--vs", "target=modernc", "--store", store)
	if !strings.Contains(o.out, "With 3+3 runs no difference can be significant") || !strings.Contains(o.out, "needs 6 runs") {
		t.Errorf("notes for 3+3 runs missing:\n%s", o.out)
	}
	for _, args := range [][]string{
		{"compare", "--where", "target=mattn", "--store", store},
		{"compare", "onlyone", "--store", store},
		{"compare", "--where", "nonsense", "--vs", "target=x", "--store", store},
		{"compare", "--where", "target=nope", "--vs", "target=mattn", "--store", store},
	} {
		if o := run(t, context.Background(), args...); o.code != 2 {
			t.Errorf("%v: exit %d", args, o.code)
		}
	}
}

func TestReportRefusesForeignFile(t *testing.T) {
	dir, store := storedSweep(t)
	foreign := filepath.Join(dir, "notes.html")
	os.WriteFile(foreign, []byte("<html>mine</html>"), 0o644)
	o := run(t, context.Background(), "report", "--store", store, "-o", foreign)
	if o.code != 2 {
		t.Errorf("exit %d", o.code)
	}
	if b, _ := os.ReadFile(foreign); string(b) != "<html>mine</html>" {
		t.Error("foreign file touched")
	}
	ours := filepath.Join(dir, "r.html")
	for i := 0; i < 2; i++ { // writing over our own report is fine
		if o := run(t, context.Background(), "report", "--store", store, "-o", ours); o.code != 0 {
			t.Fatalf("report exit %d: %s", o.code, o.err)
		}
	}
}

func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("LITEBENCH_REQUIRE_BROWSER") != "" {
		t.Fatal("no chromium on PATH and LITEBENCH_REQUIRE_BROWSER is set")
	}
	t.Skip("no chromium on PATH")
	return ""
}

// A real browser loads the report from a file: the script ran, the table
// has one row per cell, and the charts were drawn.
func TestReportInBrowser(t *testing.T) {
	bin := chromium(t)
	dir, store := storedSweep(t)
	page := filepath.Join(dir, "report.html")
	if o := run(t, context.Background(), "report", "--store", store, "-o", page); o.code != 0 {
		t.Fatalf("report exit %d: %s", o.code, o.err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--no-first-run", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--virtual-time-budget=2000", "--dump-dom", "file://"+page)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	dom := string(out)
	if !strings.Contains(dom, `data-ready="1"`) {
		t.Error("the page's script did not run")
	}
	if n := len(regexp.MustCompile(`<tr class="cell`).FindAllString(dom, -1)); n != 4 {
		t.Errorf("%d table rows, want 4 cells", n)
	}
	if n := strings.Count(dom, `<g class="row" data-cell=`); n != 4 {
		t.Errorf("%d rows in the throughput chart, want 4", n)
	}
	if n := strings.Count(dom, `class="mark line`); n < 12 {
		t.Errorf("%d latency curves, want one per cell and op kind (insert, begin, commit)", n)
	}
	if n := strings.Count(dom, `class="mark ci"`); n != 4 {
		t.Errorf("%d intervals drawn, want 4 (3 repetitions per cell)", n)
	}
	// And a screenshot renders.
	shot := filepath.Join(dir, "shot.png")
	if err := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--no-first-run", "--user-data-dir="+filepath.Join(dir, "profile2"),
		"--window-size=1200,1600", "--screenshot="+shot, "file://"+page).Run(); err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if st, err := os.Stat(shot); err != nil || st.Size() < 10000 {
		t.Errorf("screenshot missing or empty: %v", err)
	}
}

// Exports written before results carried their meaning (schema 1) import
// upgraded: they export as schema 2, with the metrics, units and
// directions that the same runs made today have.
func TestImportUpgradesSchema1(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store.db")
	fixture := filepath.Join("..", "results", "testdata", "schema1.jsonl")
	if o := run(t, context.Background(), "import", "--store", store, fixture); o.code != 0 {
		t.Fatalf("import exit %d: %s", o.code, o.err)
	}
	o := run(t, context.Background(), "export", "--all", "--store", store)
	if o.code != 0 {
		t.Fatalf("export exit %d: %s", o.code, o.err)
	}
	old := map[string]map[string]any{}
	for _, j := range jsonLines(t, o.out) {
		if j["schema"].(float64) != 2 {
			t.Errorf("%v exported as schema %v", j["run_id"], j["schema"])
		}
		if _, ok := old[j["workload"].(string)]; !ok {
			old[j["workload"].(string)] = j
		}
	}
	for _, args := range [][]string{
		{"insert", "--rows", "2000", "--batch", "100"},
		{"scan", "--rows", "3000"},
		{"mixed", "--rows", "500", "--count", "400", "--rate", "2000"},
	} {
		o := run(t, context.Background(), append(args, "--dir", dir, "--no-store", "--progress", "0", "--format", "json")...)
		if o.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, o.code, o.err)
		}
		got, want := metricKinds(jsonLines(t, o.out)[0]), metricKinds(old[args[0]])
		if got != want {
			t.Errorf("%s: metrics today\n  %s\nupgraded from schema 1\n  %s", args[0], got, want)
		}
	}
}

// metricKinds lists a JSON line's metrics as name:unit:better, sorted.
// Measurements added since schema 1 (litebench's own CPU) are left out:
// an upgrade cannot make up a value nobody measured.
func metricKinds(j map[string]any) string {
	var out []string
	for _, x := range j["metrics"].([]any) {
		m := x.(map[string]any)
		if m["name"] == "process_cpu" {
			continue
		}
		better, _ := m["better"].(string)
		out = append(out, m["name"].(string)+":"+m["unit"].(string)+":"+better)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// Six runs a side: intervals and significance are possible, and compare
// says nothing of runs being too few (it used to for any count).
func TestCompareSixAndSix(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for i := 0; i < 12; i++ {
		target := []string{"mattn", "modernc"}[i%2]
		r := &results.Result{Schema: results.SchemaVersion, RunID: fmt.Sprintf("six.%d", i+1), SweepID: "six", Repeat: i/2 + 1,
			Workload: "insert", Target: target, Engine: "sqlite", Client: target, Placement: "in-process",
			Settings: map[string]string{"batch": "1000"}, Params: map[string]string{"rows": "1000"}, Status: results.StatusOK,
			StartedAt: time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC), Rows: 1000, Elapsed: 0.01,
			Ops: []results.Op{{Name: "insert", Count: 1000, Service: results.Latency{"p50": 2 + float64(i), "p99": 10}}},
			Env: results.Env{Target: target, OS: "linux", Arch: "amd64"}}
		r.SetHeadline(results.Metric{Name: results.Throughput, Unit: units.RowsPerSecond, Value: float64(10000 + 100*i + 5000*(i%2)), Better: units.Higher})
		b, err := results.MarshalJSONLine(r)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	file := filepath.Join(dir, "six.jsonl")
	os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	store := filepath.Join(dir, "store.db")
	if o := run(t, context.Background(), "import", "--store", store, file); o.code != 0 {
		t.Fatalf("import: %s", o.err)
	}
	o := run(t, context.Background(), "compare", "--where", "target=mattn", "--vs", "target=modernc", "--store", store, "--all")
	if o.code != 0 {
		t.Fatalf("compare exit %d: %s", o.code, o.err)
	}
	if strings.Contains(o.out, "can be significant") || strings.Contains(o.out, "needs 6 runs") || strings.Contains(o.out, "fewer than") {
		t.Errorf("6+6 runs are not too few:\n%s", o.out)
	}
	if !strings.Contains(o.out, "6+6") || !strings.Contains(o.out, "better") || !strings.Contains(o.out, "±") {
		t.Errorf("the throughput change, its interval and sample sizes missing:\n%s", o.out)
	}
}

// --format csv is one raw row per run for a suite too: every step of every
// section, with its section and labels in columns of their own.
func TestSuiteCSV(t *testing.T) {
	dir := t.TempDir()
	o := run(t, context.Background(), "suite", "quick", "--scale", "0.01", "--dir", dir, "--no-store", "--report", "none",
		"--progress", "0", "--format", "csv")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	recs, err := csv.NewReader(strings.NewReader(o.out)).ReadAll()
	if err != nil {
		t.Fatalf("not one CSV: %v\n%s", err, o.out)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	sections := map[string]int{}
	for _, r := range recs[1:] {
		sections[r[col["section"]]]++
		if r[col["throughput (rows/s)"]] == "" || r[col["status"]] != "ok" {
			t.Errorf("row %q", r)
		}
	}
	// The languages section runs two steps on the suite's target and on
	// every worker built here.
	ws, _ := workerTargets(nil)
	langs := 2 * (1 + len(ws))
	if len(recs) != 13+langs || sections["ladder"] != 5 || sections["scan"] != 1 || sections["languages"] != langs {
		t.Errorf("%d rows, sections %v; want the 12 steps and %d in languages", len(recs)-1, sections, langs)
	}
}
