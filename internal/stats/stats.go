// Package stats turns repeated measurements into claims that hold: a
// median with a distribution-free confidence interval, and a Mann-Whitney U
// test between two samples, as benchstat does (golang.org/x/perf/benchmath).
package stats

import (
	"fmt"
	"math"
	"sort"

	"golang.org/x/perf/benchmath"
)

// Confidence is the level of every interval and test.
const Confidence = 0.95

// Alpha is the significance level of Compare.
const Alpha = 1 - Confidence

// Summary of one cell's repeated values.
type Summary struct {
	N              int
	Median, Lo, Hi float64 // Lo..Hi: the confidence interval of the median
	Min, Max       float64
	// Spread is (max-min)/median: how far apart the repetitions landed.
	Spread float64
	// Warnings say why the figure should not be trusted to the precision
	// it is printed with.
	Warnings []string
}

// SpreadWarn is the relative spread above which a cell gets a warning.
const SpreadWarn = 0.10

// Summarise summarises values (at least one).
func Summarise(values []float64) Summary {
	vs := append([]float64(nil), values...)
	sort.Float64s(vs)
	s := Summary{N: len(vs)}
	if len(vs) == 0 {
		return s
	}
	sm := benchmath.AssumeNothing.Summary(benchmath.NewSample(vs, &benchmath.DefaultThresholds), Confidence)
	s.Median, s.Lo, s.Hi = sm.Center, sm.Lo, sm.Hi
	s.Min, s.Max = vs[0], vs[len(vs)-1]
	if s.Median != 0 {
		s.Spread = (s.Max - s.Min) / math.Abs(s.Median)
	}
	for _, w := range sm.Warnings {
		s.Warnings = append(s.Warnings, w.Error())
	}
	if s.N > 1 && s.Spread > SpreadWarn {
		s.Warnings = append(s.Warnings, fmt.Sprintf("repetitions spread %.0f%% (min %s, max %s): differences smaller than that are noise", 100*s.Spread, num(s.Min), num(s.Max)))
	}
	return s
}

// CI renders the interval as ±percent of the median ("±3%"), "∞" when too
// few values bound it.
func (s Summary) CI() string {
	if s.N < 2 {
		return ""
	}
	if math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) {
		return "±∞"
	}
	if s.Median == 0 {
		return "±0%"
	}
	v := math.Max(s.Hi/s.Median-1, 1-s.Lo/s.Median)
	return fmt.Sprintf("±%.0f%%", 100*v)
}

// Comparison of two samples.
type Comparison struct {
	A, B        Summary
	P           float64
	Significant bool
	// Delta is the change of B's median over A's, "~" when not
	// significant.
	Delta string
	// Pct is the change in percent (even when not significant).
	Pct float64
}

// Compare tests whether b differs from a (Mann-Whitney U, two-sided).
func Compare(a, b []float64) Comparison {
	sa := benchmath.NewSample(append([]float64(nil), a...), &benchmath.DefaultThresholds)
	sb := benchmath.NewSample(append([]float64(nil), b...), &benchmath.DefaultThresholds)
	c := benchmath.AssumeNothing.Compare(sa, sb)
	out := Comparison{A: Summarise(a), B: Summarise(b), P: c.P}
	out.Significant = c.P <= c.Alpha
	if out.A.Median != 0 {
		out.Pct = 100 * (out.B.Median/out.A.Median - 1)
	}
	out.Delta = c.FormatDelta(out.A.Median, out.B.Median)
	return out
}

func num(v float64) string {
	if math.Abs(v) >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}
