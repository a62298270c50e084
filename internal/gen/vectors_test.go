package gen

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/vectors.json from this package")

// The layout of testdata/vectors.json (docs/data-generation.md describes
// it for other languages). 64-bit integers that may pass 2^53 are decimal
// strings; floats are given by their IEEE-754 bits as 16 hex digits.
type vectors struct {
	About   string      `json:"about"`
	Version int         `json:"version"`
	Columns []columnDef `json:"columns"`
	Zipf    []zipfVec   `json:"zipf"`
	Math    []mathVec   `json:"math"`
	Seeds   []seedVecs  `json:"seeds"`
}

type columnDef struct {
	Name string         `json:"name"`
	Kind string         `json:"kind"`
	Type string         `json:"type"`
	Args map[string]any `json:"args"`
}

type seedVecs struct {
	Seed     string              `json:"seed"`
	Draw     []string            `json:"draw"`
	SplitMix []string            `json:"splitmix"`
	Columns  map[string][]string `json:"columns"`
	Keys     []keysVec           `json:"keys"`
	Ops      []opsVec            `json:"ops"`
	Arrivals []arrVec            `json:"arrivals"`
}

type keysVec struct {
	Dist   string  `json:"dist"`
	N      int64   `json:"n"`
	Theta  float64 `json:"theta,omitempty"`
	Worker int     `json:"worker"`
	Keys   []int64 `json:"keys"`
}

type opsVec struct {
	WritePercent float64 `json:"write_percent"`
	Ops          string  `json:"ops"`
}

type arrVec struct {
	Rate  float64 `json:"rate"`
	DueNs []int64 `json:"due_ns"`
}

type zipfVec struct {
	N     int64   `json:"n"`
	Theta float64 `json:"theta"`
	Zetan string  `json:"zetan"`
	Half  string  `json:"half"`
	Alpha string  `json:"alpha"`
	Eta   string  `json:"eta"`
}

type mathVec struct {
	Fn  string      `json:"fn"`
	Ins [][2]string `json:"in_out"`
}

const (
	vecDraws    = 1000
	vecRows     = 100
	vecKeys     = 1000
	vecOps      = 1000
	vecArrivals = 1000
)

var (
	vecSeeds  = []uint64{1, 0xFEDCBA9876543210}
	vecKeyCfg = []keysVec{
		{Dist: KeysUniform, N: 1000},
		{Dist: KeysUniform, N: 1000000, Worker: 3},
		{Dist: KeysZipfian, N: 1000, Theta: 0.99},
		{Dist: KeysZipfian, N: 1000000, Theta: 0.99, Worker: 1},
		{Dist: KeysZipfian, N: 1000, Theta: 0.5, Worker: 2},
		{Dist: KeysLatest, N: 1000, Theta: 0.99},
		{Dist: KeysLatest, N: 100000, Theta: 0.8, Worker: 2},
		{Dist: KeysZipfian, N: ZetaExactMax + 1, Theta: 0.5, Worker: 4},
		{Dist: KeysZipfian, N: 1000000000000, Theta: 0.99, Worker: 5},
	}
	vecPercents = []float64{10, 33.3, 50}
	vecRates    = []float64{1000, 50000, 3.7}
)

func bits(f float64) string { return fmt.Sprintf("%016x", math.Float64bits(f)) }

func u64s(n int, f func(k int) uint64) []string {
	out := make([]string, n)
	for k := range out {
		out[k] = strconv.FormatUint(f(k), 10)
	}
	return out
}

func makeVectors(t *testing.T) vectors {
	v := vectors{
		About:   "litebench deterministic data: the first values of every generator for two seeds; docs/data-generation.md specifies them and describes this file",
		Version: 1,
	}
	tb := MustCompile(every...)
	for k, c := range every {
		b, err := json.Marshal(c.Gen)
		if err != nil {
			t.Fatal(err)
		}
		var args map[string]any
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if err := d.Decode(&args); err != nil {
			t.Fatal(err)
		}
		typ := "int"
		if tb.IsText(k) {
			typ = "text"
		}
		v.Columns = append(v.Columns, columnDef{Name: c.Name, Kind: c.Gen.Kind(), Type: typ, Args: args})
	}
	zipfs := map[[2]float64]*Zipf{}
	for _, c := range vecKeyCfg {
		k := [2]float64{float64(c.N), c.Theta}
		if zipfs[k] == nil && c.Dist != KeysUniform {
			z := NewZipf(c.N, c.Theta)
			zipfs[k] = z
			v.Zipf = append(v.Zipf, zipfVec{N: c.N, Theta: c.Theta, Zetan: bits(z.zetan), Half: bits(z.half), Alpha: bits(z.alpha), Eta: bits(z.eta)})
		}
	}
	for _, seed := range vecSeeds {
		s := seedVecs{Seed: strconv.FormatUint(seed, 10), Columns: map[string][]string{}}
		s.Draw = u64s(vecDraws, func(k int) uint64 { return Draw(seed, 0, uint64(k)) })
		sm := SplitMix{State: seed}
		s.SplitMix = u64s(vecDraws, func(int) uint64 { return sm.Next() })
		vals := make([]Value, len(every))
		for i := range int64(vecRows) {
			tb.Row(seed, i, nil, vals)
			for k, val := range vals {
				name := every[k].Name
				if tb.IsText(k) {
					s.Columns[name] = append(s.Columns[name], string(val.Text))
				} else {
					s.Columns[name] = append(s.Columns[name], strconv.FormatInt(val.Int, 10))
				}
			}
		}
		for _, c := range vecKeyCfg {
			g := NewKeyGen(c.Dist, zipfs[[2]float64{float64(c.N), c.Theta}], seed, c.Worker)
			c.Keys = make([]int64, vecKeys)
			for k := range c.Keys {
				c.Keys[k] = g.Next(c.N)
			}
			s.Keys = append(s.Keys, c)
		}
		for _, p := range vecPercents {
			var b strings.Builder
			for seq := range uint64(vecOps) {
				if WriteOp(seed, seq, p) {
					b.WriteByte('w')
				} else {
					b.WriteByte('r')
				}
			}
			s.Ops = append(s.Ops, opsVec{WritePercent: p, Ops: b.String()})
		}
		for _, rate := range vecRates {
			a := arrVec{Rate: rate, DueNs: make([]int64, vecArrivals)}
			for seq := 1; seq < vecArrivals; seq++ {
				a.DueNs[seq] = a.DueNs[seq-1] + PoissonGap(rate, ArrivalU(seed, int64(seq)))
			}
			s.Arrivals = append(s.Arrivals, a)
		}
		v.Seeds = append(v.Seeds, s)
	}
	// The float functions, on inputs where the key distributions and the
	// arrival gaps use them.
	rnd := SplitMix{State: 2024}
	fns := []struct {
		name string
		in   func(u float64) (float64, float64)
		fn   func(x, y float64) float64
	}{
		{"exp", func(u float64) (float64, float64) { return (u - 0.5) * 20, 0 }, func(x, _ float64) float64 { return exp(x) }},
		{"log", func(u float64) (float64, float64) { return u * 2e6, 0 }, func(x, _ float64) float64 { return log(x) }},
		{"log1p", func(u float64) (float64, float64) { return -u, 0 }, func(x, _ float64) float64 { return log1p(x) }},
		{"pow", func(u float64) (float64, float64) { return u * 1e6, 0.99 }, pow},
		{"pow", func(u float64) (float64, float64) { return u, 100 }, pow},
		{"pow", func(u float64) (float64, float64) { return 1 - u/2, 1 / (1 - u*0.999) }, pow},
	}
	for _, f := range fns {
		m := mathVec{Fn: f.name}
		for range 50 {
			x, y := f.in(Unit(rnd.Next()))
			in := bits(x)
			if f.name == "pow" {
				in += " " + bits(y)
			}
			m.Ins = append(m.Ins, [2]string{in, bits(f.fn(x, y))})
		}
		v.Math = append(v.Math, m)
	}
	return v
}

// encode writes v as indented JSON with each array of plain values on one
// line.
func encode(v vectors) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	for k := 0; k < len(b); k++ {
		if b[k] == '[' {
			if end := plainArray(b[k:]); end > 0 {
				if err := json.Compact(&out, b[k:k+end]); err != nil {
					return nil, err
				}
				k += end - 1
				continue
			}
		}
		out.WriteByte(b[k])
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// plainArray returns the length of the array b starts with if it holds no
// array or object, else 0.
func plainArray(b []byte) int {
	inStr := false
	for k := 1; k < len(b); k++ {
		switch c := b[k]; {
		case inStr && c == '\\':
			k++
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '[' || c == '{':
			return 0
		case c == ']':
			return k + 1
		}
	}
	return 0
}

func TestVectors(t *testing.T) {
	file := filepath.Join("testdata", "vectors.json")
	got, err := encode(makeVectors(t))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for k := range min(len(g), len(w)) {
			if g[k] != w[k] {
				t.Fatalf("%s line %d differs (go test ./internal/gen -update rewrites it):\n got %.300s\nwant %.300s", file, k+1, g[k], w[k])
			}
		}
		t.Fatalf("%s: %d lines, generated %d", file, len(w), len(g))
	}
	// The file decodes to what generated it.
	var back vectors
	if err := json.Unmarshal(want, &back); err != nil {
		t.Fatal(err)
	}
	if v := makeVectors(t); !reflect.DeepEqual(back.Seeds, v.Seeds) {
		t.Error("vectors.json does not decode to its values")
	}
}
