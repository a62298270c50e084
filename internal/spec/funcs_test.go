package spec

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/gen"
)

// evalIn evaluates one expression the way a \set does, on the executor
// state x.
func evalIn(t *testing.T, x *ectx, sc *scope, src string) value {
	t.Helper()
	a, err := parseExpr(src, func(int) Pos { return Pos{File: "test"} }, false)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	e, err := compileExpr(a, sc)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	for len(x.vars) < len(sc.names) {
		x.vars = append(x.vars, slot{})
	}
	for len(x.bufs) < sc.bufs {
		x.bufs = append(x.bufs, nil)
	}
	v, err := e.eval(x)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return v
}

// The language: pgbench's operators, precedence, integer and double
// arithmetic, CASE and the functions that compute rather than draw.
func TestExpressions(t *testing.T) {
	sc := newScope()
	x := &ectx{}
	x.vars = make([]slot, 0)
	i := sc.slot("ten")
	x.vars = append(x.vars, slot{})
	x.vars[i].assign(ival(10))
	j := sc.slot("half")
	x.vars = append(x.vars, slot{})
	x.vars[j].assign(textValue([]byte("0.5")))
	for _, c := range []struct{ src, want string }{
		{"1 + 2 * 3", "7"},
		{"(1 + 2) * 3", "9"},
		{"7 / 2", "3"},
		{"-7 / 2", "-3"},
		{"7 % 3", "1"},
		{"-7 % 3", "-1"},
		{"7.0 / 2", "3.5"},
		{"1e3 + 1", "1001"},
		{":ten * :half", "5"},
		{":ten - -1", "11"},
		{"2 < 3 AND 3 < 2", "false"},
		{"2 < 3 OR 3 < 2", "true"},
		{"NOT 1 = 1", "false"},
		{"NULL IS NULL", "true"},
		{"1 IS NOT NULL", "true"},
		{"NULL AND false", "false"},
		{"NULL OR true", "true"},
		{"5 & 3", "1"},
		{"5 | 3", "7"},
		{"5 # 3", "6"},
		{"1 << 10", "1024"},
		{"-1024 >> 3", "-128"},
		{"~0", "-1"},
		{"CASE WHEN :ten > 5 THEN 'big' ELSE 'small' END", "big"},
		{"CASE WHEN :ten < 5 THEN 1 END", "NULL"},
		{"abs(-3)", "3"},
		{"abs(-2.5)", "2.5"},
		{"int(5.9)", "5"},
		{"int(-5.9)", "-5"},
		{"double(3)", "3"},
		{"greatest(3, 7.5, 2)", "7.5"},
		{"least(3, 7, 2)", "2"},
		{"mod(-7, 3)", "-1"},
		{"sqrt(16)", "4"},
		{"pow(2, 10)", "1024"},
		{"power(2, 0.5)", "1.4142135623730951"},
		{"exp(0)", "1"},
		{"ln(1)", "0"},
		{"pi()", "3.141592653589793"},
		{"-9223372036854775808", "-9223372036854775808"},
	} {
		if got := evalIn(t, x, sc, c.src).str(); got != c.want {
			t.Errorf("%s = %s, want %s", c.src, got, c.want)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"1 / 0", "division by zero"},
		{"9223372036854775807 + 1", "bigint out of range"},
		{"-9223372036854775808 * -1", "bigint out of range"},
		{"random(5, 1)", "empty range"},
		{"random_gaussian(1, 10, 1.5)", "at least 2"},
		{"random_exponential(1, 10, 0)", "greater than 0"},
		{"random_zipfian(1, 10, 1)", "from 1.001 to 1000"},
		{"'x' + 1", "not a number"},
	} {
		a, err := parseExpr(c.src, func(int) Pos { return Pos{File: "f", Line: 1, Col: 1} }, false)
		if err != nil {
			t.Fatal(err)
		}
		e, err := compileExpr(a, sc)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.eval(x); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.src, err, c.want)
		}
	}
}

// hash_fnv1a with seed 0 is FNV-1a of the integer's 8 bytes, least
// significant first (Go's hash/fnv computes it independently);
// hash_murmur2 is MurmurHash64A of those bytes (written out below from
// Austin Appleby's description).
func TestHashes(t *testing.T) {
	murmur64A := func(data []byte, seed uint64) uint64 {
		const m, r = 0xc6a4a7935bd1e995, 47
		h := seed ^ uint64(len(data))*m
		for len(data) >= 8 {
			k := binary.LittleEndian.Uint64(data)
			k *= m
			k ^= k >> r
			k *= m
			h ^= k
			h *= m
			data = data[8:]
		}
		h ^= h >> r
		h *= m
		h ^= h >> r
		return h
	}
	rnd := gen.SplitMix{State: 7}
	for range 1000 {
		v := int64(rnd.Next())
		seed := rnd.Next()
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		h := fnv.New64a()
		h.Write(b[:])
		if got := HashFNV1a(v, 0); uint64(got) != h.Sum64() {
			t.Fatalf("hash_fnv1a(%d, 0) = %d, FNV-1a says %d", v, got, h.Sum64())
		}
		if got := HashMurmur2(v, seed); uint64(got) != murmur64A(b[:], seed) {
			t.Fatalf("hash_murmur2(%d, %d) = %d, MurmurHash64A says %d", v, seed, got, murmur64A(b[:], seed))
		}
	}
}

// next draws uniforms in [0, 1) from worker 0's sequence of seed 1, as an
// executor's random functions do.
func firstWorker() *gen.SplitMix {
	return &gen.SplitMix{State: gen.Draw(1, gen.StreamKeys, 1)}
}

// Each random function computed again here from its definition in
// docs/workload-files.md, with the standard library's math (not the
// portable functions the executor uses): the same integers come out.
func TestRandomFunctionsByDefinition(t *testing.T) {
	x := &ectx{rng: *firstWorker()}
	ref := firstWorker()
	u := func() float64 { return float64(ref.Next()>>11) / (1 << 53) }
	sc := newScope()
	for k := range 2000 {
		got := evalIn(t, x, sc, "random(-50, 49)").i
		if want := -50 + int64(math.Floor(u()*100)); got != want {
			t.Fatalf("draw %d: random(-50, 49) = %d, want %d", k, got, want)
		}
		got = evalIn(t, x, sc, "random_exponential(1, 1000, 3.5)").i
		cut := math.Exp(-3.5)
		r := -math.Log(cut+(1-cut)*(1-u())) / 3.5
		if want := 1 + int64(1000*r); got != want {
			t.Fatalf("draw %d: random_exponential = %d, want %d", k, got, want)
		}
		got = evalIn(t, x, sc, "random_zipfian(1, 500, 1.2)").i
		var want int64
		for {
			a, b := u(), u()
			xx := math.Floor(math.Pow(a, -1/0.2))
			tt := math.Pow(1+1/xx, 0.2)
			bb := math.Pow(2, 0.2)
			if b*xx*(tt-1)/(bb-1) <= tt/bb && xx <= 500 {
				want = int64(xx)
				break
			}
		}
		if got != want {
			t.Fatalf("draw %d: random_zipfian = %d, want %d", k, got, want)
		}
		got = evalIn(t, x, sc, "random_gaussian(0, 99, 2.5)").i
		var z float64
		for {
			v1, v2 := 2*u()-1, 2*u()-1
			s := v1*v1 + v2*v2
			if s <= 0 || s >= 1 {
				continue
			}
			z = v1 * math.Sqrt(-2*math.Log(s)/s)
			if z >= -2.5 && z < 2.5 {
				break
			}
		}
		if want := int64(100 * (z + 2.5) / 5); got != want {
			t.Fatalf("draw %d: random_gaussian = %d, want %d", k, got, want)
		}
	}
}

// chiSquare is Pearson's statistic of counts against probabilities.
func chiSquare(counts []int, p []float64, n int) float64 {
	var s float64
	for k, c := range counts {
		e := p[k] * float64(n)
		s += (float64(c) - e) * (float64(c) - e) / e
	}
	return s
}

// The distributions' shapes over many draws: each matches the
// probabilities of its definition (a chi-square test at 0.1%, with a fixed
// seed, so deterministic), and the means their analytic values.
func TestRandomDistributions(t *testing.T) {
	const n = 200000
	x := &ectx{rng: gen.SplitMix{State: 42}}
	next := x.uniform
	// Critical values of chi-square at p = 0.001.
	crit := map[int]float64{9: 27.88, 19: 43.82, 99: 148.2}
	phi := func(z float64) float64 { return 0.5 * (1 + math.Erf(z/math.Sqrt2)) }
	cases := []struct {
		name string
		k    int
		draw func() int64
		p    func(k int) float64 // probability of value k (from 1)
	}{
		{"random(1, 10)", 10, func() int64 { return RandomUniform(1, 10, next()) }, func(int) float64 { return 0.1 }},
		{"random_exponential(1, 20, 2)", 20, func() int64 { return RandomExponential(1, 20, 2, next()) },
			func(k int) float64 {
				return (math.Exp(-2*float64(k-1)/20) - math.Exp(-2*float64(k)/20)) / (1 - math.Exp(-2))
			}},
		{"random_gaussian(1, 100, 2.5)", 100, func() int64 { return RandomGaussian(1, 100, 2.5, next) },
			func(k int) float64 {
				lo, hi := -2.5+5*float64(k-1)/100, -2.5+5*float64(k)/100
				return (phi(hi) - phi(lo)) / (phi(2.5) - phi(-2.5))
			}},
		{"random_zipfian(1, 10, 1.5)", 10, func() int64 { return RandomZipfian(1, 10, 1.5, next) },
			func(k int) float64 {
				var h float64
				for i := 1; i <= 10; i++ {
					h += 1 / math.Pow(float64(i), 1.5)
				}
				return 1 / math.Pow(float64(k), 1.5) / h
			}},
	}
	for _, c := range cases {
		counts := make([]int, c.k)
		p := make([]float64, c.k)
		var mean, want float64
		for k := range p {
			p[k] = c.p(k + 1)
			want += p[k] * float64(k+1)
		}
		for range n {
			v := c.draw()
			if v < 1 || v > int64(c.k) {
				t.Fatalf("%s: %d out of range", c.name, v)
			}
			counts[v-1]++
			mean += float64(v)
		}
		mean /= n
		if s := chiSquare(counts, p, n); s > crit[c.k-1] {
			t.Errorf("%s: chi-square %.1f over %d classes, above %.1f: not the distribution", c.name, s, c.k, crit[c.k-1])
		}
		var sd float64
		for k := range p {
			sd += p[k] * (float64(k+1) - want) * (float64(k+1) - want)
		}
		if se := math.Sqrt(sd / n); math.Abs(mean-want) > 4*se {
			t.Errorf("%s: mean %.4f, want %.4f ± %.4f", c.name, mean, want, 4*se)
		}
	}
}

// The exact values docs/workload-files.md lists: worker 0 of a run with
// seed 1, each function called 5 times in a row on a fresh executor.
func TestRandomFunctionsDocumented(t *testing.T) {
	for _, c := range []struct {
		src  string
		want []int64
	}{
		{"random(1, 100)", []int64{75, 12, 29, 63, 27}},
		{"random_exponential(1, 100, 5)", []int64{27, 3, 7, 20, 7}},
		{"random_gaussian(1, 100, 2.5)", []int64{57, 22, 16, 12, 39}},
		{"random_zipfian(1, 100, 1.5)", []int64{1, 14, 1, 10, 4}},
		{"hash_fnv1a(42, 0)", []int64{-55488592825689361}},
		{"hash_murmur2(42, 0)", []int64{-3251795447530343920}},
	} {
		x := &ectx{rng: *firstWorker()}
		var got []int64
		for range len(c.want) {
			got = append(got, evalIn(t, x, newScope(), c.src).i)
		}
		for k := range got {
			if got[k] != c.want[k] {
				t.Errorf("%s: %v, want %v", c.src, got, c.want)
				break
			}
		}
	}
}
