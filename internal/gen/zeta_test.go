package gen

import (
	"math"
	"testing"
)

// zetaExact sums 1/k^theta for k = 1 … n with Neumaier's compensation, so
// that its own rounding error stays near one ulp.
func zetaExact(n int64, theta float64, at []int64) []float64 {
	var sum, c float64
	out := make([]float64, 0, len(at))
	j := 0
	for k := int64(1); k <= n && j < len(at); k++ {
		x := 1 / pow(float64(k), theta)
		t := sum + x
		if math.Abs(sum) >= math.Abs(x) {
			c += (sum - t) + x
		} else {
			c += (x - t) + sum
		}
		sum = t
		if k == at[j] {
			out = append(out, sum+c)
			j++
		}
	}
	return out
}

// The expansion Zeta uses above ZetaExactMax stays within 2e-11 of the
// exact sum, relatively, for every n from 10 to 10^7 (checked here at
// points spread over that range) and θ over (0, 1); the bound is the one
// docs/data-generation.md states.
func TestZetaExpansionError(t *testing.T) {
	at := []int64{10, 11, 17, 100, 999, 12345, 100000, 1 << 20, 1<<20 + 1, 3000000, 10000000}
	if testing.Short() {
		at = at[:8]
	}
	worst := 0.0
	for _, theta := range []float64{0.01, 0.5, 0.99} {
		exact := zetaExact(at[len(at)-1], theta, at)
		for i, n := range at {
			got := zetaEM(n, theta)
			rel := math.Abs(got-exact[i]) / exact[i]
			worst = max(worst, rel)
			if rel > 2e-11 {
				t.Errorf("zeta(%d, %v): expansion %v, exact %v, relative error %.3g > 2e-11", n, theta, got, exact[i], rel)
			}
		}
	}
	t.Logf("worst relative error %.3g", worst)
}

// Zeta sums term by term up to ZetaExactMax (so every test vector keeps its
// bits) and expands above it, without a jump at the seam.
func TestZetaSeam(t *testing.T) {
	for _, theta := range []float64{0.5, 0.99} {
		var sum float64
		for k := int64(1); k <= ZetaExactMax; k++ {
			sum += 1 / pow(float64(k), theta)
		}
		if got := Zeta(ZetaExactMax, theta); got != sum {
			t.Errorf("Zeta(ZetaExactMax, %v) = %v, want the sum %v", theta, got, sum)
		}
		next := Zeta(ZetaExactMax+1, theta)
		step := 1 / pow(float64(ZetaExactMax+1), theta)
		if rel := math.Abs(next-(sum+step)) / sum; rel > 1e-11 {
			t.Errorf("theta %v: Zeta jumps at the seam: %v after %v (relative %.3g)", theta, next, sum, rel)
		}
	}
}

// Preparing a zipfian for 10^15 rows costs a few powers, as for 10^7.
func TestZipfHugeN(t *testing.T) {
	z := NewZipf(1e15, 0.99)
	// H(n, θ) ≈ n^(1−θ)/(1−θ) + ζ(θ) with ζ(0.99) = −99.4228…; the
	// expansion must agree to the digits that formula carries.
	want := pow(1e15, 0.01)/0.01 - 99.42351
	if math.Abs(z.zetan-want)/want > 1e-6 {
		t.Errorf("zeta(1e15, 0.99) = %v, want about %v", z.zetan, want)
	}
	if r := z.Rank(0.999999); r < 0 || r >= 1e15 {
		t.Errorf("rank %d out of range", r)
	}
}
