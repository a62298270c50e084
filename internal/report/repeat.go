package report

import (
	"fmt"
	"strconv"

	"litebench/internal/results"
	"litebench/internal/stats"
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

// HeadlineName names Throughput's unit for rs.
func HeadlineName(rs []*results.Result) string {
	if IsLoad(rs) {
		return "ops/s"
	}
	return "rows/s"
}

// RepeatTable is one row per cell: the median of its repetitions with a
// 95% confidence interval, the spread, and a warning beside any cell whose
// repetitions disagree by more than the differences it might be used to
// claim.
func RepeatTable(rs []*results.Result) *Table {
	keys := results.VaryingKeys(rs, SettingOrder)
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
		var tp, p99 []float64
		errs := map[string]int64{}
		for _, r := range c.Runs {
			if r.Status != results.StatusOK {
				continue
			}
			tp = append(tp, r.Throughput())
			if op := MainOp(r); op != nil && op.Count > 0 {
				l := op.Service
				if op.Response != nil {
					l = op.Response
				}
				p99 = append(p99, l["p99"])
			}
			for k, v := range r.ErrorTotals() {
				errs[k] += v
			}
		}
		s := stats.Summarise(tp)
		warn := ""
		if len(s.Warnings) > 0 {
			warn = "⚠ " + s.Warnings[len(s.Warnings)-1]
		}
		if len(tp) < len(c.Runs) {
			warn = fmt.Sprintf("⚠ %d of %d runs did not finish ok", len(c.Runs)-len(tp), len(c.Runs)) + sep(warn) + warn
		}
		p99s := "-"
		if len(p99) > 0 {
			p99s = Num(stats.Summarise(p99).Median)
		}
		row = append(row, strconv.Itoa(len(tp)), Num(s.Median), s.CI(), fmt.Sprintf("%.0f%%", 100*s.Spread), p99s, ErrorCell(errs), warn)
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
