package report

import (
	"strings"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/units"
)

// cellOf makes one run of a cell for the ranking rule's tests.
func cellOf(n int, section, label, workload string, set map[string]string, rate, wanted float64, ops []string, med ...time.Duration) *results.Result {
	unit := units.RowsPerSecond
	if workload == "mixed" || workload == "read" {
		unit = units.OpsPerSecond
	}
	return fake{id: "rule." + itoa(n), sweep: "rule", section: section, label: label + " (mattn)", workload: workload, target: "mattn",
		params: map[string]string{"rows": "1000"}, set: set, order: []string{"rows"}, unit: unit, rate: rate, wanted: wanted,
		ops: ops, medians: med, seconds: 2, seed: uint64(n)}.result()
}

func sentences(d HTMLData) string {
	var s []string
	for _, g := range d.Groups {
		s = append(s, g.Sentence)
	}
	return strings.Join(s, "\n")
}

// Unlike workloads in one section are ranked in panels of their own: a
// scan is never "fastest" over an insert.
func TestRuleRanksOneWorkloadAndOp(t *testing.T) {
	rs := []*results.Result{
		cellOf(1, "languages", "+ 1000-row transactions", "insert", nil, 100000, 0, []string{"insert"}, 9*time.Microsecond),
		cellOf(2, "languages", "verified scan", "scan", nil, 9000000, 0, []string{"scan"}, 300*time.Millisecond),
		cellOf(3, "languages", "+ 100-row transactions", "insert", map[string]string{"batch": "100"}, 90000, 0, []string{"insert"}, 9*time.Microsecond),
	}
	d := BuildHTMLData(rs, Options{Defaults: testDefaults})
	if len(d.Groups) != 2 || d.Groups[0].Name != "languages · insert" || d.Groups[1].Name != "languages · scan" {
		t.Fatalf("groups %+v", d.Groups)
	}
	if got := d.Groups[0].Cells; len(got) != 2 || d.Cells[d.Groups[0].Best].Workload != "insert" {
		t.Errorf("insert panel: cells %v, best #%d", got, d.Groups[0].Best+1)
	}
	if s := sentences(d); strings.Contains(s, "×90") || !strings.Contains(s, "languages · scan: one cell") {
		t.Errorf("summary ranks the scan with the inserts:\n%s", s)
	}
}

// Cells that ran at a fixed rate are ranked by their p99 response time,
// never by throughput; a load of reads and writes is said op by op.
func TestRuleRanksFixedRateByLatency(t *testing.T) {
	rw := []string{"read", "write"}
	rs := []*results.Result{
		// More ops/s, but a worse tail.
		cellOf(1, "", "a", "mixed", map[string]string{"pool": "1"}, 1000, 1000, rw, 900*time.Microsecond, 2*time.Millisecond),
		cellOf(2, "", "b", "mixed", map[string]string{"pool": "4"}, 990, 1000, rw, 100*time.Microsecond, 300*time.Microsecond),
	}
	d := BuildHTMLData(rs, Options{Defaults: testDefaults})
	if len(d.Groups) != 1 {
		t.Fatalf("%d groups", len(d.Groups))
	}
	g := d.Groups[0]
	if g.Best != 1 {
		t.Errorf("best is #%d, want #2 (the lower p99): %s", g.Best+1, g.Sentence)
	}
	for _, want := range []string{"(read p99 response time): best is #2", "(write p99 response time): best is #2", "better than"} {
		if !strings.Contains(g.Sentence, want) {
			t.Errorf("summary lacks %q: %s", want, g.Sentence)
		}
	}
	if strings.Contains(g.Sentence, "fastest") || strings.Contains(g.Sentence, "ops/s") {
		t.Errorf("fixed-rate cells ranked by throughput: %s", g.Sentence)
	}

	// At another rate: a panel of its own, named by its rate.
	rs = append(rs, cellOf(5, "", "c", "mixed", map[string]string{"pool": "8"}, 20, 20, rw, 50*time.Microsecond, 90*time.Microsecond))
	d = BuildHTMLData(rs, Options{Defaults: testDefaults})
	if len(d.Groups) != 2 || d.Groups[0].Name != "mixed · at 1k ops/s" || d.Groups[1].Name != "mixed · at 20 ops/s" || d.Groups[0].Best != 1 {
		t.Errorf("cells at two rates: %d groups %q, %q", len(d.Groups), d.Groups[0].Name, d.Groups[len(d.Groups)-1].Name)
	}

	// Closed loop: reads and writes apart, each with its own best.
	rs = []*results.Result{
		cellOf(3, "", "a", "mixed", map[string]string{"pool": "1"}, 10000, 0, rw, 90*time.Microsecond, 200*time.Microsecond),
		cellOf(4, "", "b", "mixed", map[string]string{"pool": "4"}, 8000, 0, rw, 90*time.Microsecond, 200*time.Microsecond),
	}
	rs[1].Ops[0].Count, rs[1].Ops[1].Count = 1000, 14000 // fewer ops, far more writes
	d = BuildHTMLData(rs, Options{Defaults: testDefaults})
	s := d.Groups[0].Sentence
	if !strings.Contains(s, "mixed (reads): fastest is #1") || !strings.Contains(s, "reads/s") ||
		!strings.Contains(s, "mixed (writes): fastest is #2") || !strings.Contains(s, "writes/s") {
		t.Errorf("reads and writes not ranked apart: %s", s)
	}
}

// Durable and relaxed cells in one panel are ranked class by class, each
// named; the relaxed cell is not the durable cells' "fastest".
func TestRuleKeepsDurabilityApart(t *testing.T) {
	ins := []string{"insert"}
	rs := []*results.Result{
		cellOf(1, "", "full", "insert", map[string]string{"sync": "full", "batch": "1"}, 1000, 0, ins, 900*time.Microsecond),
		cellOf(2, "", "full 100", "insert", map[string]string{"sync": "full", "batch": "100"}, 30000, 0, ins, 30*time.Microsecond),
		cellOf(3, "", "normal", "insert", map[string]string{"sync": "normal", "batch": "1"}, 90000, 0, ins, 10*time.Microsecond),
	}
	d := BuildHTMLData(rs, Options{Defaults: testDefaults})
	if len(d.Groups) != 1 {
		t.Fatalf("%d groups: the sweep's panel is one", len(d.Groups))
	}
	g := d.Groups[0]
	if g.Best != 1 {
		t.Errorf("best #%d, want #2 (the fastest durable cell): %s", g.Best+1, g.Sentence)
	}
	for _, want := range []string{"insert (durable: sync=full): fastest is #2", "insert (relaxed: sync=normal): one cell, #3"} {
		if !strings.Contains(g.Sentence, want) {
			t.Errorf("summary lacks %q: %s", want, g.Sentence)
		}
	}
	if strings.Contains(g.Sentence, "×90") || strings.Contains(g.Sentence, "×3.0") {
		t.Errorf("relaxed cell ranked against durable ones: %s", g.Sentence)
	}
}

// A last sample that covers part of an interval is drawn but never the
// headline of a time-series panel.
func TestRulePartialLastInterval(t *testing.T) {
	r := cellOf(1, "", "a", "read", nil, 1000, 0, []string{"read"}, 100*time.Microsecond)
	r.Series = nil
	for s := 1; s <= 5; s++ {
		r.Series = append(r.Series, results.Point{T: float64(s), Rows: int64(1000 * s),
			OpsPerS: map[string]float64{"read": 1000}, P99us: map[string]float64{"read": 400}})
	}
	// The run ended 10 ms into a sixth interval: almost nothing done, and
	// a p99 from a handful of operations.
	r.Series = append(r.Series, results.Point{T: 5.01, Rows: 5001, OpsPerS: map[string]float64{"read": 100}, P99us: map[string]float64{"read": 9000}})
	d := BuildHTMLData([]*results.Result{r}, Options{Defaults: testDefaults})
	var titles []string
	partial := false
	for _, p := range d.Series {
		titles = append(titles, p.Title)
		for _, l := range p.Lines {
			partial = partial || l.Partial
		}
	}
	all := strings.Join(titles, "\n")
	if !partial || strings.Contains(all, "5.01") || !strings.Contains(all, "steady") || !strings.Contains(all, "peaks at 400 µs") {
		t.Errorf("partial last interval headlined (partial %v):\n%s", partial, all)
	}
	if !partialLast(r.Series) || partialLast(r.Series[:5]) {
		t.Error("partialLast: want true with the 10 ms interval, false without")
	}
}

// A passing check is listed under passed, not under warnings.
func TestRulePassedChecks(t *testing.T) {
	r := cellOf(1, "", "a", "insert", nil, 1000, 0, []string{"insert"}, 100*time.Microsecond)
	r.Notes = []string{`check "balance" passed: 0`, `check "rows" failed: got 9, want 10`}
	d := BuildHTMLData([]*results.Result{r}, Options{Defaults: testDefaults})
	if len(d.Passed) != 1 || d.Passed[0] != `#1: check "balance" passed: 0` {
		t.Errorf("passed %q", d.Passed)
	}
	w := strings.Join(d.Warnings, "\n")
	if strings.Contains(w, "balance") || !strings.Contains(w, `check "rows" failed`) {
		t.Errorf("warnings %q", d.Warnings)
	}
	var b strings.Builder
	if err := WriteHTML(&b, []*results.Result{r}, Options{Defaults: testDefaults}); err != nil {
		t.Fatal(err)
	}
	if page := b.String(); !strings.Contains(page, "<h3>Checks passed</h3>") || strings.Index(page, "balance") < strings.Index(page, "Checks passed") {
		t.Error("the page does not list the passing check under Checks passed")
	}
}
