package report

import (
	"fmt"
	"strconv"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/stats"
)

// Repeated reports whether some cell of rs was run more than once.
func Repeated(rs []*results.Result) bool {
	for _, c := range results.Cells(rs) {
		if len(c.Runs) > 1 {
			return true
		}
	}
	return false
}

// RepeatTable is one row per cell: the median of its repetitions with a
// 95% confidence interval, the spread, and a warning beside any cell whose
// repetitions disagree by more than the differences it might be used to
// claim.
func RepeatTable(rs []*results.Result) *Table {
	keys := results.VaryingKeys(rs)
	params := results.VaryingParams(rs)
	unit := HeadlineName(rs)
	t := &Table{Title: "Medians of repeated runs (95% confidence interval of the median; spread = (max-min)/median)"}
	t.Headers = append(t.Headers, "workload", "target")
	t.Right = append(t.Right, false, false)
	t.identHeaders(params, keys)
	t.Headers = append(t.Headers, "n", unit, "CI", "spread", "p99 µs", "errors", "warning")
	t.Right = append(t.Right, true, true, true, true, true, false, false)
	for _, c := range results.Cells(rs) {
		r0 := c.Runs[0]
		row := []string{r0.Workload, r0.Target}
		row = identValues(row, r0, params, keys)
		f := summariseCell(c)
		s := f.tp
		warn := ""
		if len(s.Warnings) > 0 {
			warn = "⚠ " + s.Warnings[len(s.Warnings)-1]
		}
		if s.N < len(c.Runs) {
			warn = fmt.Sprintf("⚠ %d of %d runs did not finish ok", len(c.Runs)-s.N, len(c.Runs)) + sep(warn) + warn
		}
		p99s := "-"
		if f.op != "" {
			p99s = Num(f.p99)
		}
		row = append(row, strconv.Itoa(s.N), Num(s.Median), s.CI(), fmt.Sprintf("%.0f%%", 100*s.Spread), p99s, ErrorCell(f.errs), warn)
		t.Rows = append(t.Rows, row)
	}
	return t
}

func sep(s string) string {
	if s == "" {
		return ""
	}
	return "; "
}

// cellFigures summarise the runs of one cell that finished ok.
type cellFigures struct {
	tp       stats.Summary // headline
	op       string        // the main op kind ("" if none ran)
	p50, p99 float64       // medians of its felt latency, µs
	errs     map[string]int64
	values   []float64 // the headlines
}

func summariseCell(c results.Cell) cellFigures {
	f := cellFigures{errs: map[string]int64{}}
	var tp, p50, p99 []float64
	for _, r := range c.Runs {
		if r.Status != results.StatusOK {
			continue
		}
		tp = append(tp, r.Headline().Value)
		if op := MainOp(r); op != nil && op.Count > 0 {
			f.op = op.Name
			l := op.Felt()
			p50, p99 = append(p50, l["p50"]), append(p99, l["p99"])
		}
		for k, v := range r.ErrorTotals() {
			f.errs[k] += v
		}
	}
	f.tp, f.values = stats.Summarise(tp), tp
	if len(p50) > 0 {
		f.p50, f.p99 = stats.Summarise(p50).Median, stats.Summarise(p99).Median
	}
	return f
}
