package gen

import (
	"math"
	"testing"
)

func TestKeyDistributions(t *testing.T) {
	const n, draws = 10000, 200000
	z := NewZipf(n, 0.99)
	count := func(kind string) map[int64]int {
		g := NewKeyGen(kind, z, 1, 0)
		c := map[int64]int{}
		for i := 0; i < draws; i++ {
			k := g.Next(n)
			if k < 0 || k >= n {
				t.Fatalf("%s: key %d out of [0, %d)", kind, k, n)
			}
			c[k]++
		}
		return c
	}
	top := func(c map[int64]int) (int64, int) {
		var bk int64
		bn := 0
		for k, v := range c {
			if v > bn {
				bk, bn = k, v
			}
		}
		return bk, bn
	}
	u := count(KeysUniform)
	if _, m := top(u); m > draws/n*3 {
		t.Errorf("uniform: hottest key drawn %d times, expected about %d", m, draws/n)
	}
	if len(u) < n*9/10 {
		t.Errorf("uniform touched only %d of %d keys", len(u), n)
	}
	zc := count(KeysZipfian)
	if _, m := top(zc); m < draws/20 {
		t.Errorf("zipfian: hottest key drawn %d times of %d; theta 0.99 puts ~10%% on it", m, draws)
	}
	lc := count(KeysLatest)
	if k, _ := top(lc); k != n-1 {
		t.Errorf("latest: hottest key %d, want the newest %d", k, n-1)
	}
	// Seeded: the same worker and seed give the same keys; another worker
	// other keys.
	a, b, c := NewKeyGen(KeysZipfian, z, 7, 3), NewKeyGen(KeysZipfian, z, 7, 3), NewKeyGen(KeysZipfian, z, 7, 4)
	same := 0
	for i := 0; i < 100; i++ {
		ka := a.Next(n)
		if ka != b.Next(n) {
			t.Fatal("same seed, different keys")
		}
		if ka == c.Next(n) {
			same++
		}
	}
	if same > 50 {
		t.Errorf("workers 3 and 4 drew the same key %d times of 100", same)
	}
}

// Zipf's ranks follow 1/(k+1)^theta: the most popular rank's share is
// 1/zeta(n), and rank 1's is 2^-theta of it.
func TestZipfShares(t *testing.T) {
	const n, draws = 1000, 400000
	for _, theta := range []float64{0.5, 0.99} {
		z := NewZipf(n, theta)
		var zeta float64
		for i := 1; i <= n; i++ {
			zeta += math.Pow(float64(i), -theta)
		}
		if math.Abs(z.zetan-zeta)/zeta > 1e-12 {
			t.Errorf("theta %v: zeta %v, want %v", theta, z.zetan, zeta)
		}
		rnd := SplitMix{State: 9}
		var c [n]int
		for range draws {
			c[z.Rank(Unit(rnd.Next()))]++
		}
		for k, want := range []float64{1 / zeta, math.Pow(2, -theta) / zeta} {
			if got := float64(c[k]) / draws; math.Abs(got-want) > 0.01 {
				t.Errorf("theta %v: rank %d drawn %.4f of the time, want %.4f", theta, k, got, want)
			}
		}
	}
}

// Small spaces: one row is always row 0 and draws nothing; ranks stay in
// range.
func TestKeysSmall(t *testing.T) {
	z1, z2 := NewZipf(0, 0.99), NewZipf(2, 0.99)
	for _, u := range []float64{0, 0.5, 0.999999} {
		if r := z1.Rank(u); r != 0 {
			t.Errorf("n 1: rank %d at u %v", r, u)
		}
		if r := z2.Rank(u); r < 0 || r > 1 {
			t.Errorf("n 2: rank %d at u %v", r, u)
		}
	}
	g := NewKeyGen(KeysZipfian, z2, 1, 0)
	before := g.rnd
	if k := g.Next(1); k != 0 || g.rnd != before {
		t.Errorf("Next(1) = %d and drew", k)
	}
	for range 1000 {
		if k := g.Next(2); k < 0 || k > 1 {
			t.Fatalf("Next(2) = %d", k)
		}
	}
}

func TestWriteOp(t *testing.T) {
	for _, pct := range []float64{0, 10, 33.3, 100} {
		w := 0
		for seq := range uint64(100000) {
			if WriteOp(3, seq, pct) {
				w++
			}
		}
		if got := float64(w) / 1000; math.Abs(got-pct) > 0.5 {
			t.Errorf("%v%% writes asked, %v%% drawn", pct, got)
		}
	}
}

func TestPoissonGap(t *testing.T) {
	// u = 1 - 1/e gives a gap of the mean.
	if g := PoissonGap(1000, 1-1/math.E); g < 999_999 || g > 1_000_001 {
		t.Errorf("gap at u=1-1/e: %dns, want 1ms", g)
	}
	if g := PoissonGap(1000, 0); g != 0 {
		t.Errorf("gap at u=0: %dns", g)
	}
	var sum float64
	const n = 100000
	for seq := int64(1); seq <= n; seq++ {
		sum += float64(PoissonGap(50000, ArrivalU(1, seq)))
	}
	if mean := sum / n; math.Abs(mean-20000)/20000 > 0.01 {
		t.Errorf("mean gap %.0fns, want 20000ns", mean)
	}
}

func TestKeyGenAllocs(t *testing.T) {
	z := NewZipf(1000, 0.99)
	for _, kind := range []string{KeysUniform, KeysZipfian, KeysLatest} {
		g := NewKeyGen(kind, z, 1, 0)
		if n := testing.AllocsPerRun(100, func() { g.Next(1000) }); n != 0 {
			t.Errorf("%s: %v allocations per key", kind, n)
		}
	}
}
