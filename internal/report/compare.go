package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/stats"
	"github.com/litebench/litebench/internal/units"
)

// Field reads a run's value of a field: a label (target, workload,
// engine, client, placement, a setting or a parameter), section or a
// version (see results.Result.Get).
func Field(r *results.Result, k string) (string, bool) { return r.Get(k) }

// Cond is one "key=value" of --where / --vs.
type Cond struct{ Key, Value string }

// ParseConds parses "k=v,k2=v2".
func ParseConds(s string) ([]Cond, error) {
	var out []Cond
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%q: want key=value[,key=value] (keys: target, workload, any setting or parameter)", s)
		}
		out = append(out, Cond{strings.TrimSpace(k), strings.TrimSpace(v)})
	}
	return out, nil
}

// Match reports whether r satisfies every condition.
func Match(r *results.Result, conds []Cond) bool {
	for _, c := range conds {
		if v, ok := Field(r, c.Key); !ok || v != c.Value {
			return false
		}
	}
	return true
}

func fields(rs []*results.Result) []string {
	seen := map[string]bool{"target": true, "workload": true}
	out := []string{"workload", "target"}
	for _, r := range rs {
		for _, m := range []map[string]string{r.Settings, r.Params} {
			for k := range m {
				if !seen[k] {
					seen[k] = true
					out = append(out, k)
				}
			}
		}
	}
	sort.Strings(out[2:])
	return out
}

// metric is one figure compared per cell.
type metric struct {
	name   string // "throughput", "read p99"
	unit   string
	higher bool // higher is better
	get    func(*results.Result) (float64, bool)
}

// title is how tables name a metric: "rows/s", "read p99 µs".
func (m metric) title() string {
	if m.name == results.Throughput && m.unit != "" {
		return m.unit
	}
	return strings.TrimSpace(m.name + " " + m.unit)
}

// metricsOf is the metrics compared: the headline, p50 and p99 of every
// op, and the extra ones asked for: percentiles ("p999", "read p999") or
// the result's named figures ("wal_max_bytes").
func metricsOf(rs []*results.Result, extra []string) []metric {
	higher := len(rs) == 0 || rs[0].Headline().Better != units.Lower
	ms := []metric{{results.Throughput, headlineUnit(rs), higher, func(r *results.Result) (float64, bool) {
		return r.Headline().Value, r.Status == results.StatusOK
	}}}
	seen := map[string]bool{}
	for _, r := range rs {
		for _, o := range r.Ops {
			if seen[o.Name] || o.Count == 0 {
				continue
			}
			seen[o.Name] = true
			name := o.Name
			pcts := []string{"p50", "p99"}
			for _, e := range extra {
				if isLatencyKey(e) && !slices.Contains(pcts, e) {
					pcts = append(pcts, e)
				}
			}
			for _, p := range pcts {
				ms = append(ms, metric{name + " " + p, units.Microseconds, false, func(r *results.Result) (float64, bool) {
					op := r.Op(name)
					if op == nil || op.Count == 0 || r.Status != results.StatusOK {
						return 0, false
					}
					l := op.Felt()
					v, ok := l[p]
					return v, ok
				}})
			}
		}
	}
	for _, e := range extra {
		if isLatencyKey(e) || e == results.Throughput {
			continue
		}
		name := e
		var unit string
		better := units.Lower
		found := false
		for _, r := range rs {
			for _, m := range r.Metrics {
				if m.Name == name {
					unit, better, found = string(m.Unit), m.Better, true
				}
			}
		}
		if found {
			ms = append(ms, metric{name, unit, better == units.Higher, func(r *results.Result) (float64, bool) {
				v, ok := r.Metric(name)
				return v, ok && r.Status == results.StatusOK
			}})
		}
	}
	return ms
}

// isLatencyKey says whether k names a figure of an op's latency.
func isLatencyKey(k string) bool {
	switch k {
	case "min", "mean", "max":
		return true
	}
	if len(k) < 3 || k[0] != 'p' {
		return false
	}
	for _, c := range k[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Comparison is what Compare found: for every pair of cells and every
// metric, both sides' medians and the test between them.
type Comparison struct {
	// A and B name the sides by what sets them apart ("target=mattn").
	A, B string
	// Fields are the labels that tell the cells apart.
	Fields []string
	Rows   []ComparisonRow
	// Notes say what the samples are too small to show.
	Notes []string
}

// ComparisonRow is one metric of one pair of cells.
type ComparisonRow struct {
	Cell   []string // values of Comparison.Fields
	Metric string
	Unit   string
	Better string // higher or lower
	A, B   stats.Summary
	// P is the Mann-Whitney U test's p-value; Pct the change of B's median
	// over A's in percent; Delta the change as shown ("~" when not
	// significant).
	P           float64
	Pct         float64
	Significant bool
	Delta       string
	// ChangeLo..ChangeHi is the 95% interval of the change in percent
	// (stats.ChangeCI); Bounded is false when the samples are too small
	// to give one.
	ChangeLo, ChangeHi float64
	Bounded            bool
}

// Compare pairs the cells of a and b and tests every metric. Fields that
// take one value on each side, different between the sides, are what is
// compared; cells are matched on every other field.
func Compare(a, b []*results.Result) (*Comparison, error) {
	return compare(a, b, nil)
}

// compare is Compare with more metrics than the defaults: the
// percentiles and named figures a gate asks for.
func compare(a, b []*results.Result, extra []string) (*Comparison, error) {
	if len(a) == 0 || len(b) == 0 {
		return nil, fmt.Errorf("nothing to compare: side A has %d runs, side B %d", len(a), len(b))
	}
	all := append(append([]*results.Result(nil), a...), b...)
	var compared, match, vary []string
	for _, f := range fields(all) {
		va, vb := values(a, f), values(b, f)
		switch {
		case len(va) == 1 && len(vb) == 1 && va[0] != vb[0]:
			compared = append(compared, f)
		default:
			match = append(match, f)
			if len(union(va, vb)) > 1 {
				vary = append(vary, f)
			}
		}
	}
	key := func(r *results.Result) string {
		var sb strings.Builder
		for _, f := range match {
			v, _ := Field(r, f)
			sb.WriteString(f + "=" + v + ";")
		}
		return sb.String()
	}
	type cell struct {
		vals []string
		a, b []*results.Result
	}
	var cells []*cell
	idx := map[string]*cell{}
	for side, rs := range [][]*results.Result{a, b} {
		for _, r := range rs {
			k := key(r)
			c, ok := idx[k]
			if !ok {
				c = &cell{}
				for _, f := range vary {
					v, _ := Field(r, f)
					c.vals = append(c.vals, v)
				}
				idx[k] = c
				cells = append(cells, c)
			}
			if side == 0 {
				c.a = append(c.a, r)
			} else {
				c.b = append(c.b, r)
			}
		}
	}
	sideName := func(rs []*results.Result) string {
		var parts []string
		for _, f := range compared {
			v, _ := Field(rs[0], f)
			parts = append(parts, f+"="+v)
		}
		if len(parts) == 0 {
			return rs[0].SweepID
		}
		return strings.Join(parts, " ")
	}
	out := &Comparison{A: sideName(a), B: sideName(b), Fields: vary}
	ms := metricsOf(all, extra)
	paired := 0
	minA, minB := -1, -1 // the smallest pair of samples
	fewest := -1
	for _, c := range cells {
		if len(c.a) == 0 || len(c.b) == 0 {
			continue
		}
		paired++
		for _, m := range ms {
			va, vb := collect(c.a, m), collect(c.b, m)
			if len(va) == 0 || len(vb) == 0 {
				continue
			}
			if minA < 0 || len(va)+len(vb) < minA+minB {
				minA, minB = len(va), len(vb)
			}
			if fewest < 0 || min(len(va), len(vb)) < fewest {
				fewest = min(len(va), len(vb))
			}
			cmp := stats.Compare(va, vb)
			lo, hi, bounded := stats.ChangeCI(va, vb)
			better := string(units.Lower)
			if m.higher {
				better = string(units.Higher)
			}
			out.Rows = append(out.Rows, ComparisonRow{Cell: c.vals, Metric: m.name, Unit: m.unit, Better: better,
				A: cmp.A, B: cmp.B, P: cmp.P, Pct: cmp.Pct, Significant: cmp.Significant, Delta: cmp.Delta,
				ChangeLo: lo, ChangeHi: hi, Bounded: bounded})
		}
	}
	if paired == 0 {
		return nil, fmt.Errorf("no cell of A matches a cell of B (they differ in more than one field); narrow them with --where/--vs")
	}
	// What the samples are too small for: a significant difference, with
	// fewer than C(m+n, m) = 40 orderings (3+3, 2+5, …), and an interval
	// of the median, with fewer than minCIRuns runs.
	if p := 2 / binomial(minA+minB, minA); p > stats.Alpha {
		out.Notes = append(out.Notes, fmt.Sprintf("With %d+%d runs no difference can be significant at %.0f%%: the smallest p-value such samples can give is %.3f. Use --repeat %d or more for claims.",
			minA, minB, 100*stats.Confidence, p, minCIRuns))
	}
	if fewest < minCIRuns {
		out.Notes = append(out.Notes, fmt.Sprintf("A median's %.0f%% interval needs %d runs; medians of fewer (here %d) are shown without one. Use --repeat %d or more.",
			100*stats.Confidence, minCIRuns, fewest, minCIRuns))
	}
	return out, nil
}

// binomial is n choose k.
func binomial(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

// Table is the comparison for people: one line per cell and metric, both
// medians with their intervals, the change, its p-value and the sample
// sizes.
func (c *Comparison) Table() *Table {
	t := &Table{Title: fmt.Sprintf("A: %s  vs  B: %s (Mann-Whitney U, %.0f%% confidence; ~ = no significant difference)", c.A, c.B, 100*stats.Confidence),
		Headers: []string{"cell", "metric", "A", "B", "change", "p", "n"},
		Right:   []bool{false, false, true, true, true, true, true}, Notes: c.Notes}
	last := ""
	for _, r := range c.Rows {
		label := c.cellLabel(r)
		shown := label
		if label == last {
			shown = ""
		}
		last = label
		delta := r.Delta
		if delta != "~" && delta != "?" {
			if (r.Pct > 0) == (r.Better == string(units.Higher)) {
				delta += " better"
			} else {
				delta += " worse"
			}
		}
		p := "-"
		if r.P > 0 {
			p = strconv.FormatFloat(r.P, 'f', 3, 64)
		}
		m := metric{name: r.Metric, unit: r.Unit}
		t.Rows = append(t.Rows, []string{shown, m.title(), Num(r.A.Median) + ciSuffix(r.A), Num(r.B.Median) + ciSuffix(r.B),
			delta, p, fmt.Sprintf("%d+%d", r.A.N, r.B.N)})
	}
	return t
}

// WriteCSV writes the comparison raw, one row per cell and metric: the
// cell's labels, then for each side its run count, median and the bounds
// of the median's 95% interval (empty when unbounded), then the change in
// percent, the p-value and whether it is significant; numbers unrounded.
func (c *Comparison) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := append(append([]string(nil), c.Fields...), "metric", "unit", "better",
		"a_n", "a_median", "a_ci_lo", "a_ci_hi", "b_n", "b_median", "b_ci_lo", "b_ci_hi", "change (%)", "p", "significant")
	if err := cw.Write(head); err != nil {
		return err
	}
	bound := func(v float64) string {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return ""
		}
		return raw(v)
	}
	for _, r := range c.Rows {
		row := append([]string(nil), r.Cell...)
		row = append(row, r.Metric, r.Unit, r.Better,
			strconv.Itoa(r.A.N), raw(r.A.Median), bound(r.A.Lo), bound(r.A.Hi),
			strconv.Itoa(r.B.N), raw(r.B.Median), bound(r.B.Lo), bound(r.B.Hi),
			raw(r.Pct), raw(r.P), strconv.FormatBool(r.Significant))
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func collect(rs []*results.Result, m metric) []float64 {
	var out []float64
	for _, r := range rs {
		if v, ok := m.get(r); ok {
			out = append(out, v)
		}
	}
	return out
}

func values(rs []*results.Result, f string) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range rs {
		v, _ := Field(r, f)
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func union(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range append(append([]string(nil), a...), b...) {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// ciSuffix is " ±x%", or nothing when too few runs bound the median.
func ciSuffix(s stats.Summary) string {
	c := s.CI()
	if c == "" || c == "±∞" {
		return ""
	}
	return " " + c
}
