package workload

import (
	"fmt"
	"math"
)

// Key distributions, as YCSB defines them: uniform over the rows; zipfian
// (a few rows are hot; hot rows are scattered over the key space, like
// YCSB's scrambled zipfian); latest (the most recently inserted rows are
// hot, YCSB's skewed-latest).
const (
	KeysUniform = "uniform"
	KeysZipfian = "zipfian"
	KeysLatest  = "latest"
)

// CheckKeys validates a --keys value and its theta.
func CheckKeys(kind string, theta float64) error {
	switch kind {
	case KeysUniform, KeysZipfian, KeysLatest:
	default:
		return fmt.Errorf("--keys %q: want uniform, zipfian or latest", kind)
	}
	if !(theta > 0 && theta < 1) {
		return fmt.Errorf("--zipf-theta %v: want a number between 0 and 1 (exclusive; YCSB uses 0.99)", theta)
	}
	return nil
}

// Zipf draws ranks 0..n-1 with P(rank k) ∝ 1/(k+1)^theta, by Gray et
// al.'s method (the one YCSB uses). The constants cost O(n) once; a draw
// is O(1). It is read-only after construction, so workers can share it.
type Zipf struct {
	n                        int64
	theta, alpha, zetan, eta float64
	half                     float64 // 1 + 0.5^theta
}

// NewZipf prepares a generator over n items.
func NewZipf(n int64, theta float64) *Zipf {
	if n < 1 {
		n = 1
	}
	z := &Zipf{n: n, theta: theta}
	zeta2 := 1 + math.Pow(0.5, theta)
	var zn float64
	for i := int64(1); i <= n; i++ {
		zn += 1 / math.Pow(float64(i), theta)
	}
	z.zetan = zn
	z.alpha = 1 / (1 - theta)
	z.eta = (1 - math.Pow(2/float64(n), 1-theta)) / (1 - zeta2/zn)
	z.half = 1 + math.Pow(0.5, theta)
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
	r := int64(float64(z.n) * math.Pow(z.eta*u-z.eta+1, z.alpha))
	return min(max(r, 0), z.n-1)
}

// KeyGen picks row indexes for one worker. Its random stream is seeded, so
// a run's sequence of keys is reproducible.
type KeyGen struct {
	kind  string
	zipf  *Zipf
	state uint64
}

// NewKeyGen returns worker w's generator. zipf is shared (nil for uniform).
func NewKeyGen(kind string, zipf *Zipf, seed uint64, w int) *KeyGen {
	return &KeyGen{kind: kind, zipf: zipf, state: mix(seed^0x6b6579, uint64(w)+1)}
}

func (g *KeyGen) u() float64 {
	g.state += 0x9E3779B97F4A7C15
	z := g.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return float64((z^(z>>31))>>11) / (1 << 53)
}

// Next returns a row index in [0, n): n is how many rows exist now.
func (g *KeyGen) Next(n int64) int64 {
	if n <= 1 {
		return 0
	}
	switch g.kind {
	case KeysZipfian:
		r := g.zipf.Rank(g.u())
		// Scatter the hot ranks over the key space.
		return int64(mix(0x7a697066, uint64(r)) % uint64(n))
	case KeysLatest:
		r := g.zipf.Rank(g.u())
		return max(n-1-r, 0)
	}
	return int64(g.u() * float64(n))
}
