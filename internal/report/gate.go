package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/stats"
)

// Threshold is one --fail-if rule: "throughput < -5%" fails when the
// metric's change from A to B is below -5%; "read p99 > +10%" when above
// +10%.
type Threshold struct {
	Text   string  // as given
	Op     string  // the op a latency figure is of; "" for every op
	Metric string  // "throughput", "p99", "mean", or a named figure
	Less   bool    // '<': fails below Pct; '>': above
	Pct    float64 // the change in percent
}

// ParseThreshold reads "METRIC < CHANGE%" or "METRIC > CHANGE%", where
// METRIC is throughput, a latency figure (p50, p99, p999, mean, max, ...)
// of every op or of one ("read p99"), or a figure the results name.
func ParseThreshold(s string) (Threshold, error) {
	t := Threshold{Text: s}
	i := strings.IndexAny(s, "<>")
	if i < 0 {
		return t, fmt.Errorf("%q: write METRIC < CHANGE%% or METRIC > CHANGE%%, e.g. 'throughput < -5%%' or 'p99 > +10%%'", s)
	}
	t.Less = s[i] == '<'
	lhs := strings.Fields(s[:i])
	rhs := strings.TrimSpace(s[i+1:])
	if strings.HasPrefix(rhs, "=") {
		return t, fmt.Errorf("%q: use < or > (a change exactly at the threshold passes)", s)
	}
	if !strings.HasSuffix(rhs, "%") {
		return t, fmt.Errorf("%q: give the change in percent, e.g. '%s %c %s%%'", s, strings.Join(lhs, " "), s[i], strings.TrimSpace(strings.TrimSuffix(rhs, "%")))
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(rhs, "%")), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return t, fmt.Errorf("%q: %q is not a percentage", s, rhs)
	}
	t.Pct = v
	switch len(lhs) {
	case 1:
		t.Metric = lhs[0]
	case 2:
		t.Op, t.Metric = lhs[0], lhs[1]
		if !isLatencyKey(t.Metric) {
			return t, fmt.Errorf("%q: %q is not a latency figure of op %q (p50, p99, p999, mean, max, ...)", s, t.Metric, t.Op)
		}
	default:
		return t, fmt.Errorf("%q: name one metric before %c: throughput, p99, 'OP p99' or a figure of the results", s, s[i])
	}
	return t, nil
}

// matches says whether a comparison row is one the threshold judges.
func (t Threshold) matches(r ComparisonRow) bool {
	if t.Metric == results.Throughput || !isLatencyKey(t.Metric) {
		return r.Metric == t.Metric
	}
	op, key, ok := strings.Cut(r.Metric, " ")
	return ok && key == t.Metric && (t.Op == "" || t.Op == op)
}

// Verdict is what a gate found for one threshold and one cell.
type Verdict struct {
	Threshold Threshold
	Row       ComparisonRow
	Cell      string
	// Fail: the change crossed the threshold beyond doubt. Undecided:
	// the median crossed it but the runs are too few to tell.
	Fail, Undecided bool
	Why             string
}

// Gate is the outcome of a comparison judged against thresholds.
type Gate struct {
	Verdicts []Verdict // every verdict that failed or could not be decided
	// Judged counts the (threshold, cell) pairs judged; Unmatched names
	// thresholds no metric matched.
	Judged    int
	Unmatched []string
}

// Failed says whether any threshold failed (undecided ones count when
// strict).
func (g *Gate) Failed(strict bool) bool {
	for _, v := range g.Verdicts {
		if v.Fail || (strict && v.Undecided) {
			return true
		}
	}
	return false
}

// CompareGate compares a with b like Compare, with the metrics the
// thresholds name, and judges every matching row. A row fails only when
// all three hold: the change is significant (Mann-Whitney), its median
// crossed the threshold, and its 95% interval lies wholly beyond the
// threshold. A crossing the runs are too few to bound is undecided.
func CompareGate(a, b []*results.Result, ts []Threshold) (*Comparison, *Gate, error) {
	var extra []string
	for _, t := range ts {
		extra = append(extra, t.Metric)
	}
	c, err := compare(a, b, extra)
	if err != nil {
		return nil, nil, err
	}
	g := &Gate{}
	for _, t := range ts {
		matched := false
		for _, r := range c.Rows {
			if !t.matches(r) {
				continue
			}
			matched = true
			g.Judged++
			crossed := (t.Less && r.Pct < t.Pct) || (!t.Less && r.Pct > t.Pct)
			if !crossed {
				continue
			}
			v := Verdict{Threshold: t, Row: r, Cell: c.cellLabel(r)}
			switch {
			case !r.Bounded:
				v.Undecided = true
				v.Why = fmt.Sprintf("median changed %+.1f%%, but %d+%d runs cannot bound the change at %.0f%%", r.Pct, r.A.N, r.B.N, 100*stats.Confidence)
			case !r.Significant:
				continue // noise: not significant
			case t.Less && r.ChangeHi < t.Pct, !t.Less && r.ChangeLo > t.Pct:
				v.Fail = true
				v.Why = fmt.Sprintf("changed %+.1f%% (95%% interval %+.1f%% to %+.1f%%, p=%.3f)", r.Pct, r.ChangeLo, r.ChangeHi, r.P)
			default:
				continue // significant, but the interval reaches the threshold
			}
			g.Verdicts = append(g.Verdicts, v)
		}
		if !matched {
			g.Unmatched = append(g.Unmatched, t.Text)
		}
	}
	return c, g, nil
}

// cellLabel names a row's cell as the table does.
func (c *Comparison) cellLabel(r ComparisonRow) string {
	var parts []string
	for i, f := range c.Fields {
		parts = append(parts, f+"="+r.Cell[i])
	}
	if len(parts) == 0 {
		return "(all)"
	}
	return strings.Join(parts, " ")
}

// RunsToDecide is the --repeat that gives every cell an interval of its
// median and of the change.
const RunsToDecide = minCIRuns
