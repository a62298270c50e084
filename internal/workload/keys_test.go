package workload

import "testing"

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
	// Seeded: the same worker and seed give the same keys.
	a, b := NewKeyGen(KeysZipfian, z, 7, 3), NewKeyGen(KeysZipfian, z, 7, 3)
	for i := 0; i < 100; i++ {
		if a.Next(n) != b.Next(n) {
			t.Fatal("same seed, different keys")
		}
	}
	if err := CheckKeys("hot", 0.9); err == nil {
		t.Error("unknown distribution accepted")
	}
}

// KeyOf must name the key Row writes, for every schema.
func TestKeyOfMatchesRow(t *testing.T) {
	for name, sc := range Schemas {
		row := make([]any, len(sc.Columns))
		for _, i := range []int64{0, 1, 77, 123456} {
			sc.Row(5, i, row, nil)
			if k := sc.Key(5, i, nil); k != row[0] {
				t.Errorf("%s: Key(5, %d, nil) = %v, Row writes %v", name, i, k, row[0])
			}
		}
	}
}
