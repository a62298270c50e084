// Package pyworker holds the Go side of the Python worker's tests: reference
// values of litebench's data generators for the Python unit tests, and the
// end-to-end conformance of the Python worker against 'litebench worker'.
package pyworker

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/gen"
	"github.com/litebench/litebench/internal/loadgen"
	"github.com/litebench/litebench/internal/workload"
)

var update = flag.Bool("update", false, "rewrite tests/vectors.json")

// vectorsFile is what the Python generators are checked against.
const vectorsFile = "tests/vectors.json"

var seeds = []uint64{0, 1, 42, 1<<64 - 1}

// mix is the generators' splitmix64 finaliser, read back from the bench
// schema: rand is the hex of mix(seed, i)'s little-endian bytes.
func mix(seed uint64, i int64) uint64 {
	r, _ := workload.BenchValues(seed, i)
	b, _ := hex.DecodeString(r)
	return binary.LittleEndian.Uint64(b)
}

// splitmix64 and uniform01 as internal/loadgen draws Poisson gaps: gap seq
// uses uniform01(splitmix64(seed ^ seq)).
func splitmix64(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

func uniform01(x uint64) float64 { return float64(x>>11) / (1 << 53) }

type vectors struct {
	Mix      [][3]uint64            `json:"mix"`
	Rows     map[string][]rowVector `json:"rows"`
	Text     []textVector           `json:"text"`
	KeyGen   []keyGenVector         `json:"keygen"`
	Choose   []chooseVector         `json:"choose"`
	Schedule []scheduleVector       `json:"schedule"`
}

type rowVector struct {
	Seed uint64 `json:"seed"`
	I    int64  `json:"i"`
	Row  []any  `json:"row"`
	Key  any    `json:"key"`
}

type textVector struct {
	Seed uint64 `json:"seed"`
	I    int64  `json:"i"`
	N    int    `json:"n"`
	Text string `json:"text"`
}

type keyGenVector struct {
	Kind   string  `json:"kind"`
	Theta  float64 `json:"theta"`
	Rows   int64   `json:"rows"`
	Seed   uint64  `json:"seed"`
	Worker int     `json:"worker"`
	// N[k] is how many rows exist at draw k; Keys[k] the row drawn.
	N    []int64 `json:"n"`
	Keys []int64 `json:"keys"`
}

type chooseVector struct {
	Seed  uint64  `json:"seed"`
	Ratio float64 `json:"ratio"`
	// Writes[seq] is whether open-loop operation seq writes.
	Writes []bool `json:"writes"`
}

type scheduleVector struct {
	Arrivals string  `json:"arrivals"`
	Rate     float64 `json:"rate"`
	Seed     uint64  `json:"seed"`
	// Due[seq] is operation seq's offset in nanoseconds.
	Due []int64 `json:"due"`
}

func build() vectors {
	v := vectors{Rows: map[string][]rowVector{}}
	for _, s := range seeds {
		for _, i := range []int64{0, 1, 7, 1 << 20, 1<<40 + 3} {
			v.Mix = append(v.Mix, [3]uint64{s, uint64(i), mix(s, i)})
		}
	}
	for name, sc := range workload.Schemas {
		for _, s := range seeds {
			for _, i := range []int64{0, 1, 999, 86_400_000, 1 << 33} {
				row := make([]any, len(sc.Columns))
				sc.Row(s, i, row, nil)
				v.Rows[name] = append(v.Rows[name], rowVector{s, i, row, sc.Key(s, i, nil)})
			}
		}
	}
	for _, s := range seeds {
		for _, n := range []int{0, 1, 5, 64, 300} {
			v.Text = append(v.Text, textVector{s, 12345, n, workload.Text(s, 12345, n)})
		}
	}
	for _, kind := range []string{gen.KeysUniform, gen.KeysZipfian, gen.KeysLatest} {
		for _, c := range []struct {
			theta float64
			rows  int64
		}{{0.99, 1000}, {0.5, 100000}, {0.9, 1}} {
			var z *gen.Zipf
			if kind != gen.KeysUniform {
				z = gen.NewZipf(c.rows, c.theta)
			}
			for _, w := range []int{0, 3} {
				g := gen.NewKeyGen(kind, z, 42, w)
				kv := keyGenVector{Kind: kind, Theta: c.theta, Rows: c.rows, Seed: 42, Worker: w}
				for k := int64(0); k < 200; k++ {
					n := c.rows + k/10 // rows grow as inserts commit
					kv.N = append(kv.N, n)
					kv.Keys = append(kv.Keys, g.Next(n))
				}
				v.KeyGen = append(v.KeyGen, kv)
			}
		}
	}
	for _, s := range seeds {
		for _, ratio := range []float64{0, 10, 33.3, 100} {
			cv := chooseVector{Seed: s, Ratio: ratio}
			for seq := int64(0); seq < 200; seq++ {
				cv.Writes = append(cv.Writes, float64(mix(s^0x726174, seq)%10000) < ratio*100)
			}
			v.Choose = append(v.Choose, cv)
		}
	}
	for _, a := range []loadgen.Arrivals{loadgen.Uniform, loadgen.Poisson} {
		for _, rate := range []float64{3, 1000, 123456.7} {
			sv := scheduleVector{Arrivals: string(a), Rate: rate, Seed: 42}
			var prev time.Duration
			for seq := int64(0); seq < 500; seq++ {
				due := loadgen.Schedule(a, rate, seq, prev, uniform01(splitmix64(sv.Seed^uint64(seq))))
				prev = due
				sv.Due = append(sv.Due, int64(due))
			}
			v.Schedule = append(v.Schedule, sv)
		}
	}
	return v
}

// TestVectors keeps tests/vectors.json equal to what the Go generators
// produce; -update rewrites it.
func TestVectors(t *testing.T) {
	b, err := json.MarshalIndent(build(), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if *update {
		if err := os.WriteFile(filepath.FromSlash(vectorsFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile(filepath.FromSlash(vectorsFile))
	if err != nil {
		t.Fatalf("%v (go test ./workers/python -run TestVectors -update writes it)", err)
	}
	if !bytes.Equal(old, b) {
		t.Errorf("%s is not what the Go generators produce now; rerun with -update and check the Python worker's tests", vectorsFile)
	}
}
