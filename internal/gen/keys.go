package gen

// Key distributions, as YCSB defines them: uniform over the rows; zipfian
// (a few rows are hot, scattered over the key space like YCSB's scrambled
// zipfian); latest (the most recently inserted rows are hot, YCSB's
// skewed-latest).
const (
	KeysUniform = "uniform"
	KeysZipfian = "zipfian"
	KeysLatest  = "latest"
)

// Zipf draws ranks 0..n-1 with P(rank k) ∝ 1/(k+1)^theta, by Gray et al.'s
// method (the one YCSB uses). Preparing it costs at most ZetaExactMax
// powers, whatever n; a draw is O(1). It is read-only after construction,
// so workers can share it.
type Zipf struct {
	n                 int64
	alpha, zetan, eta float64
	half              float64 // 1 + 0.5^theta
}

// NewZipf prepares ranks over n items (at least 1), 0 < theta < 1.
func NewZipf(n int64, theta float64) *Zipf {
	n = max(n, 1)
	zn := Zeta(n, theta)
	z := &Zipf{n: n, zetan: zn}
	z.half = 1 + pow(0.5, theta)
	z.alpha = 1 / (1 - theta)
	z.eta = (1 - pow(2/float64(n), 1-theta)) / (1 - z.half/zn)
	return z
}

// ZetaExactMax is the largest n whose zeta is summed term by term; above
// it Zeta uses the Euler–Maclaurin expansion (docs/data-generation.md §5).
// It covers every n of the test vectors below 2^20.
const ZetaExactMax = 1 << 20

// zetaHead is where the Euler–Maclaurin expansion starts: the terms below
// it are summed.
const zetaHead = 10

// Zeta returns the generalized harmonic number H(n, theta) = Σ 1/k^theta
// for k = 1 … n (n ≥ 1): summed in order up to ZetaExactMax, and above it
// the sum of the first zetaHead−1 terms plus the Euler–Maclaurin expansion
// of the rest to the B6 term, within 2e-11 of the exact value, relatively
// (the error is of the order of B8/8!·f⁽⁷⁾(10), below 5e-11 in absolute
// terms, while the sum exceeds 10).
func Zeta(n int64, theta float64) float64 {
	var zn float64
	if n <= ZetaExactMax {
		for i := int64(1); i <= n; i++ {
			zn += 1 / pow(float64(i), theta)
		}
		return zn
	}
	return zetaEM(n, theta)
}

// zetaEM is Zeta's expansion, for n ≥ zetaHead.
func zetaEM(n int64, theta float64) float64 {
	var zn float64
	for i := int64(1); i < zetaHead; i++ {
		zn += 1 / pow(float64(i), theta)
	}
	a, b := float64(zetaHead), float64(n)
	// f(x) = x^-θ; f′ = −θ·x^-(θ+1); f‴ = −θ(θ+1)(θ+2)·x^-(θ+3);
	// f⁽⁵⁾ = −θ(θ+1)(θ+2)(θ+3)(θ+4)·x^-(θ+5).
	c1 := theta
	c3 := float64(float64(c1*(theta+1)) * (theta + 2))
	c5 := float64(float64(c3*(theta+3)) * (theta + 4))
	integral := (pow(b, 1-theta) - pow(a, 1-theta)) / (1 - theta)
	ends := (1/pow(a, theta) + 1/pow(b, theta)) / 2
	d1 := (c1/pow(a, theta+1) - c1/pow(b, theta+1)) / 12
	d3 := (c3/pow(a, theta+3) - c3/pow(b, theta+3)) / 720
	d5 := (c5/pow(a, theta+5) - c5/pow(b, theta+5)) / 30240
	return zn + ((((integral + ends) + d1) - d3) + d5)
}

// Rank maps a uniform u in [0, 1) to a rank (0 is the most popular).
func (z *Zipf) Rank(u float64) int64 {
	uz := u * z.zetan
	if uz < 1 {
		return 0
	}
	if uz < z.half {
		return min(1, z.n-1)
	}
	f := float64(z.n) * pow(float64(z.eta*u)-z.eta+1, z.alpha)
	if !(f >= 0) { // NaN
		return 0
	}
	return min(int64(min(f, float64(z.n))), z.n-1)
}

// Scatter maps a rank to a row index in [0, n): the hot ranks land all over
// the key space, not at its start.
func Scatter(rank, n int64) int64 {
	return int64(Draw(0, StreamScatter, uint64(rank)) % uint64(n))
}

// KeyGen picks row indexes for one worker from its own seeded sequence, so
// a run's sequence of keys is reproducible.
type KeyGen struct {
	kind string
	zipf *Zipf
	rnd  SplitMix
}

// NewKeyGen returns worker w's generator of kind (KeysUniform, KeysZipfian
// or KeysLatest). zipf is shared (nil for uniform).
func NewKeyGen(kind string, zipf *Zipf, seed uint64, w int) *KeyGen {
	return &KeyGen{kind: kind, zipf: zipf, rnd: SplitMix{Draw(seed, StreamKeys, uint64(w)+1)}}
}

// Next returns a row index in [0, n): n is how many rows exist now. With
// n ≤ 1 it returns 0 without drawing.
func (g *KeyGen) Next(n int64) int64 {
	if n <= 1 {
		return 0
	}
	u := Unit(g.rnd.Next())
	switch g.kind {
	case KeysZipfian:
		return Scatter(g.zipf.Rank(u), n)
	case KeysLatest:
		return max(n-1-g.zipf.Rank(u), 0)
	}
	return int64(u * float64(n))
}

// WriteOp says whether open-loop operation seq is a write, for
// writePercent percent of writes (0 to 100): the same seed gives the same
// sequence of reads and writes.
func WriteOp(seed, seq uint64, writePercent float64) bool {
	return float64(Draw(seed, StreamOps, seq)%10000) < writePercent*100
}

// ArrivalU is the uniform number in [0, 1) that spaces open-loop operation
// seq from the one before it.
func ArrivalU(seed uint64, seq int64) float64 {
	return Unit(SplitMix64(seed ^ uint64(seq)))
}

// PoissonGap is the gap in nanoseconds before an operation of a Poisson
// process of rate per second, for a uniform u in [0, 1): an exponential
// with mean 1e9/rate, truncated toward zero.
func PoissonGap(rate, u float64) int64 {
	return int64(-log1p(-u) * (1e9 / rate))
}
