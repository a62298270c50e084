package stats

import (
	"math"
	"strings"
	"testing"
)

func TestSummariseKnownSample(t *testing.T) {
	s := Summarise([]float64{5, 1, 4, 2, 3})
	if s.Median != 3 || s.Min != 1 || s.Max != 5 || s.N != 5 {
		t.Errorf("%+v", s)
	}
	if s.Spread != 4.0/3 {
		t.Errorf("spread %v, want 4/3", s.Spread)
	}
	// Five values bound the median at about 94% only: the 95% interval is
	// the whole range or unbounded, never narrower than the data.
	if !(s.Lo <= 1 && s.Hi >= 5) {
		t.Errorf("interval %v..%v narrower than the sample", s.Lo, s.Hi)
	}
	if len(s.Warnings) == 0 {
		t.Error("a 133% spread carries no warning")
	}
	tight := Summarise([]float64{100, 101, 99, 100, 100, 101, 99, 100, 100, 100})
	if tight.Median != 100 || tight.Lo < 99 || tight.Hi > 101 {
		t.Errorf("tight sample: %+v", tight)
	}
	for _, w := range tight.Warnings {
		if strings.Contains(w, "spread") {
			t.Errorf("2%% spread warned: %s", w)
		}
	}
	if c := tight.CI(); c != "±1%" && c != "±0%" {
		t.Errorf("CI %s", c)
	}
}

func TestCompare(t *testing.T) {
	a := []float64{10, 11, 12, 10.5, 11.5, 10.8}
	b := []float64{20, 21, 22, 20.5, 21.5, 20.8}
	c := Compare(a, b)
	if !c.Significant || c.P > 0.05 {
		t.Errorf("disjoint samples of 6: p=%v", c.P)
	}
	// All 6 of b above all 6 of a: the exact two-sided U-test p is
	// 2/C(12,6) = 2/924.
	if math.Abs(c.P-2.0/924) > 1e-9 {
		t.Errorf("p = %v, want %v", c.P, 2.0/924)
	}
	if math.Abs(c.Pct-(20.9/10.9-1)*100) > 1e-6 || !strings.HasPrefix(c.Delta, "+") {
		t.Errorf("pct %v delta %s", c.Pct, c.Delta)
	}
	same := Compare([]float64{1, 2, 3, 4}, []float64{1.5, 2.5, 3.5, 4.5})
	if same.Significant || same.Delta != "~" {
		t.Errorf("overlapping samples called significant: %+v", same)
	}
	// Too few values can never be significant at 95%.
	if few := Compare([]float64{1, 2}, []float64{10, 11}); few.Significant {
		t.Errorf("2 vs 2 values significant: p=%v", few.P)
	}
}
