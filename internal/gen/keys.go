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
// method (the one YCSB uses). The constants cost O(n) once; a draw is O(1).
// It is read-only after construction, so workers can share it.
type Zipf struct {
	n                 int64
	alpha, zetan, eta float64
	half              float64 // 1 + 0.5^theta
}

// NewZipf prepares ranks over n items (at least 1), 0 < theta < 1.
func NewZipf(n int64, theta float64) *Zipf {
	n = max(n, 1)
	var zn float64
	for i := int64(1); i <= n; i++ {
		zn += 1 / pow(float64(i), theta)
	}
	z := &Zipf{n: n, zetan: zn}
	z.half = 1 + pow(0.5, theta)
	z.alpha = 1 / (1 - theta)
	z.eta = (1 - pow(2/float64(n), 1-theta)) / (1 - z.half/zn)
	return z
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
