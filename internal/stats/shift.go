package stats

import (
	"math"
	"sort"
)

// ChangeCI is the Confidence interval of the relative change from sample a
// to sample b, in percent (b/a - 1): the Hodges–Lehmann interval that goes
// with the Mann-Whitney U test (Moses' construction). The change is taken
// on a log scale when every value is positive, so the interval is of the
// ratio b/a; otherwise it is the shift b - a over a's median. ok is false
// when the samples are too small for any interval at this level (3+3 runs,
// for example): then no change can be claimed beyond noise.
func ChangeCI(a, b []float64) (lo, hi float64, ok bool) {
	m, n := len(a), len(b)
	if m == 0 || n == 0 {
		return 0, 0, false
	}
	k := mwCritical(m, n, Alpha/2)
	if k < 1 {
		return 0, 0, false
	}
	positive := true
	for _, v := range append(append([]float64(nil), a...), b...) {
		if !(v > 0) {
			positive = false
			break
		}
	}
	d := make([]float64, 0, m*n)
	for _, x := range a {
		for _, y := range b {
			if positive {
				d = append(d, math.Log(y)-math.Log(x))
			} else {
				d = append(d, y-x)
			}
		}
	}
	sort.Float64s(d)
	l, h := d[k-1], d[m*n-k]
	if positive {
		return 100 * (math.Exp(l) - 1), 100 * (math.Exp(h) - 1), true
	}
	med := Summarise(a).Median
	if med == 0 {
		return 0, 0, false
	}
	return 100 * l / math.Abs(med), 100 * h / math.Abs(med), true
}

// mwCritical is the largest k such that P(U < k) <= tail under the null
// hypothesis, U being the Mann-Whitney statistic of samples of sizes m and
// n without ties: the k-th smallest and k-th largest of the m·n pairwise
// differences bound a 1-2·tail interval of the shift. It is 0 when no
// interval at that level exists. Exact for m·n up to 40,000, from the
// normal approximation (with continuity correction) above.
func mwCritical(m, n int, tail float64) int {
	mn := m * n
	if mn > 40000 {
		mu := float64(mn) / 2
		sd := math.Sqrt(float64(mn) * float64(m+n+1) / 12)
		k := int(math.Floor(mu - normalQuantile(1-tail)*sd + 0.5))
		return max(k, 0)
	}
	// The counts of orderings by U are the coefficients of the Gaussian
	// binomial [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i).
	c := make([]float64, mn+1)
	c[0] = 1
	for i := 1; i <= m; i++ {
		for u := mn; u >= n+i; u-- { // times (1 - q^(n+i))
			c[u] -= c[u-n-i]
		}
		for u := i; u <= mn; u++ { // divided by (1 - q^i)
			c[u] += c[u-i]
		}
	}
	total := 0.0
	for _, v := range c {
		total += v
	}
	cum, k := 0.0, 0
	for u := 0; u <= mn; u++ {
		cum += c[u]
		if cum/total > tail {
			break
		}
		k = u + 1 // P(U <= u) <= tail, so P(U < u+1) <= tail
	}
	return k
}

// normalQuantile is the standard normal distribution's quantile function
// (Acklam's rational approximation, relative error below 1.2e-9).
func normalQuantile(p float64) float64 {
	a := [...]float64{-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00}
	b := [...]float64{-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01}
	c := [...]float64{-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00}
	d := [...]float64{7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00}
	const plow = 0.02425
	switch {
	case p < plow:
		q := math.Sqrt(-2 * math.Log(p))
		return (((((c[0]*q+c[1])*q+c[2])*q+c[3])*q+c[4])*q + c[5]) / ((((d[0]*q+d[1])*q+d[2])*q+d[3])*q + 1)
	case p <= 1-plow:
		q := p - 0.5
		r := q * q
		return (((((a[0]*r+a[1])*r+a[2])*r+a[3])*r+a[4])*r + a[5]) * q / (((((b[0]*r+b[1])*r+b[2])*r+b[3])*r+b[4])*r + 1)
	default:
		q := math.Sqrt(-2 * math.Log(1-p))
		return -(((((c[0]*q+c[1])*q+c[2])*q+c[3])*q+c[4])*q + c[5]) / ((((d[0]*q+d[1])*q+d[2])*q+d[3])*q + 1)
	}
}
