package gen

import (
	"math"
	"testing"
)

// ulps is how many float64s lie between a and b.
func ulps(a, b float64) int64 {
	d := int64(math.Float64bits(a)) - int64(math.Float64bits(b))
	if d < 0 {
		d = -d
	}
	return d
}

// The portable functions agree with Go's math package within two units in
// the last place (each may be a unit off; math's assembly takes other
// paths), or a little more for a large integer power, which both compute
// by repeated squaring: a wrong constant or step would be far off. Their
// exact bits are pinned by testdata/vectors.json.
func TestFmathNearMath(t *testing.T) {
	rnd := SplitMix{State: 5}
	for range 200000 {
		u := Unit(rnd.Next())
		for _, c := range []struct {
			name      string
			got, want float64
			tol       int64
		}{
			{"exp", exp((u - 0.5) * 1400), math.Exp((u - 0.5) * 1400), 2},
			{"exp small", exp((u - 0.5) * 2), math.Exp((u - 0.5) * 2), 2},
			{"log", log(u * 1e7), math.Log(u * 1e7), 2},
			{"log small", log(u), math.Log(u), 2},
			{"log1p", log1p(-u), math.Log1p(-u), 2},
			{"log1p wide", log1p((u - 0.2) * 1e3), math.Log1p((u - 0.2) * 1e3), 2},
			{"pow", pow(u*1e6, 0.99), math.Pow(u*1e6, 0.99), 2},
			{"pow 1-theta", pow(2/(u*1e6+3), 0.01), math.Pow(2/(u*1e6+3), 0.01), 2},
			{"pow alpha", pow(u, 100), math.Pow(u, 100), 2},
			{"pow big", pow(1+u, 1000.3), math.Pow(1+u, 1000.3), 64},
		} {
			if ulps(c.got, c.want) > c.tol {
				t.Fatalf("%s at u %v: %v, math says %v", c.name, u, c.got, c.want)
			}
		}
	}
	for _, c := range []struct{ x, y, want float64 }{
		{1, 123.4, 1}, {5, 0, 1}, {5, 1, 5}, {0, 3, 0}, {0, -3, math.Inf(1)},
		{9, 0.5, 3}, {4, -0.5, 0.5}, {-8, 1.0 / 3, math.NaN()}, {1e-300, 100, 0}, {1e300, 100, math.Inf(1)},
		{0.5, 1074, 0x1p-1074}, {2, 10, 1024}, {2, -2, 0.25},
	} {
		if got := pow(c.x, c.y); got != c.want && !(math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("pow(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
	for _, c := range []struct{ x, want float64 }{{0, 0}, {-1, math.Inf(-1)}, {-2, math.NaN()}, {1e-60, 1e-60}} {
		if got := log1p(c.x); got != c.want && !(math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("log1p(%v) = %v, want %v", c.x, got, c.want)
		}
	}
}
