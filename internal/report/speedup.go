package report

import (
	"math"
	"sort"

	"github.com/litebench/litebench/internal/stats"
)

// ratioCI bounds how many times b's values are a's with 95% confidence:
// Moses' distribution-free interval for a shift, taken on the logarithms
// (so that the shift is a ratio), read off the sorted m×n pairwise ratios.
// It needs no assumption about the distributions but their shapes being
// alike, and is the interval that goes with the Mann-Whitney U test
// compare uses. ok is false when the samples are too small for one (3+3
// runs, or a single run) or hold a value that is not positive.
func ratioCI(a, b []float64) (lo, hi float64, ok bool) {
	m, n := len(a), len(b)
	if m == 0 || n == 0 {
		return 0, 0, false
	}
	k := mosesK(m, n, stats.Alpha/2)
	if k < 1 {
		return 0, 0, false
	}
	ds := make([]float64, 0, m*n)
	for _, x := range a {
		for _, y := range b {
			if x <= 0 || y <= 0 {
				return 0, 0, false
			}
			ds = append(ds, math.Log(y/x))
		}
	}
	sort.Float64s(ds)
	return math.Exp(ds[k-1]), math.Exp(ds[m*n-k]), true
}

// mosesK is how many of the smallest (and of the largest) pairwise
// differences fall outside the interval: the largest k with
// P(U ≤ k-1) ≤ tail under the null hypothesis, exactly for samples of up
// to 20 and by the normal approximation beyond.
func mosesK(m, n int, tail float64) int {
	if m <= 20 && n <= 20 {
		cdf := uCDF(m, n)
		k := 0
		for k < len(cdf) && cdf[k] <= tail {
			k++
		}
		return k
	}
	mu := float64(m*n) / 2
	sd := math.Sqrt(float64(m*n*(m+n+1)) / 12)
	return max(int(math.Floor(mu-1.959964*sd)), 0)
}

// uCDF is the distribution of the Mann-Whitney U statistic for samples of
// m and n without ties: cdf[u] = P(U ≤ u). It counts the orderings of
// the two samples by the number of (a, b) pairs with a > b:
// c(i, j, u) = c(i-1, j, u-j) + c(i, j-1, u).
func uCDF(m, n int) []float64 {
	c := make([][][]float64, m+1)
	for i := range c {
		c[i] = make([][]float64, n+1)
		for j := range c[i] {
			c[i][j] = make([]float64, i*j+1)
			if i == 0 || j == 0 {
				c[i][j][0] = 1
				continue
			}
			for u := range c[i][j] {
				if u-j >= 0 && u-j < len(c[i-1][j]) {
					c[i][j][u] += c[i-1][j][u-j]
				}
				if u < len(c[i][j-1]) {
					c[i][j][u] += c[i][j-1][u]
				}
			}
		}
	}
	counts := c[m][n]
	total := 0.0
	for _, x := range counts {
		total += x
	}
	cdf := make([]float64, len(counts))
	acc := 0.0
	for u, x := range counts {
		acc += x
		cdf[u] = acc / total
	}
	return cdf
}
