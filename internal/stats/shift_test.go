package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The exact critical values of the two-sided Mann-Whitney test at 5%, from
// the published tables (reject when U <= Ucrit; k = Ucrit + 1).
func TestMWCriticalMatchesTables(t *testing.T) {
	for _, c := range []struct{ m, n, k int }{
		{3, 3, 0}, {2, 5, 0}, {4, 4, 1}, {5, 5, 3}, {6, 6, 6}, {7, 7, 9}, {8, 8, 14}, {10, 10, 24}, {5, 8, 7}, {20, 20, 128},
	} {
		if got := mwCritical(c.m, c.n, 0.025); got != c.k {
			t.Errorf("mwCritical(%d, %d) = %d, want %d", c.m, c.n, got, c.k)
		}
	}
}

func TestMWCriticalNormalNearExact(t *testing.T) {
	exact := mwCritical(150, 150, 0.025)
	mu, sd := 150.0*150/2, math.Sqrt(150*150*301.0/12)
	approx := int(math.Floor(mu - normalQuantile(0.975)*sd + 0.5))
	if d := exact - approx; d < -3 || d > 3 {
		t.Errorf("exact %d, normal approximation %d", exact, approx)
	}
	if math.Abs(normalQuantile(0.975)-1.959963985) > 1e-8 {
		t.Errorf("normalQuantile(0.975) = %v", normalQuantile(0.975))
	}
}

func TestChangeCI(t *testing.T) {
	if _, _, ok := ChangeCI([]float64{1, 2, 3}, []float64{4, 5, 6}); ok {
		t.Error("3+3 runs gave an interval")
	}
	// Seeded samples with a true change of +10% and ±3% noise: the
	// interval holds +10% and is narrow; with no change it holds 0.
	r := rand.New(rand.NewPCG(1, 2))
	noisy := func(v float64, n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = v * (1 + 0.03*(2*r.Float64()-1))
		}
		return s
	}
	misses := 0
	for trial := 0; trial < 200; trial++ {
		a, b := noisy(1000, 8), noisy(1100, 8)
		lo, hi, ok := ChangeCI(a, b)
		if !ok || lo > hi {
			t.Fatalf("interval %v..%v ok=%v", lo, hi, ok)
		}
		if lo > 10 || hi < 10 {
			misses++
		}
		if hi-lo > 8 {
			t.Errorf("interval %.1f..%.1f is wider than the noise allows", lo, hi)
		}
	}
	// A 95% interval misses about 5% of the time; far more means it is
	// too narrow, none at all over 200 trials would be suspicious too.
	if misses > 25 {
		t.Errorf("the interval missed the true change in %d of 200 trials", misses)
	}
	lo, hi, _ := ChangeCI([]float64{-3, -2, -1, 0, 1, 2}, []float64{-3, -2, -1, 0, 1, 2, 3})
	if !(lo < 0 && hi > 0) {
		t.Errorf("same samples (with negatives): %v..%v does not hold 0", lo, hi)
	}
}
