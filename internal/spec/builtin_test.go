package spec

import (
	"bytes"
	"reflect"
	"strconv"
	"testing"

	"github.com/litebench/litebench/internal/gen"
	"github.com/litebench/litebench/internal/loadgen"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/workload"
)

// buildWorkload builds a registered workload kind with its defaults, its
// setting defaults and the parameters and settings given.
func buildWorkload(t testing.TB, name string, params, set map[string]string) (workload.Workload, settings.Settings) {
	t.Helper()
	sp, err := workload.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	s := settings.Default()
	for k, v := range sp.SettingDefaults {
		s.Set(k, v)
	}
	for k, v := range set {
		if err := s.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	p := map[string]string{}
	for _, x := range sp.Params {
		p[x.Name] = x.Default
	}
	for k, v := range params {
		p[k] = v
	}
	w, err := sp.New(p, s)
	if err != nil {
		t.Fatalf("%s %v: %v", name, params, err)
	}
	return w, s
}

// resolveBuiltin is buildWorkload for a built-in written as a file.
func resolveBuiltin(t testing.TB, name string, params, set map[string]string) *Workload {
	t.Helper()
	w, _ := buildWorkload(t, name, params, set)
	return w.(*Workload)
}

// Conformance: the tables the embedded built-ins create are the Go
// schemas, column for column and byte for byte: the same definitions,
// keys and update columns, and the same rows for two seeds, near row 0
// and far from it.
func TestBuiltinTablesAreTheGoSchemas(t *testing.T) {
	rows := []int64{123456, 4294967303, 1 << 40}
	for i := range int64(3000) {
		rows = append(rows, i)
	}
	for _, wl := range []string{"insert", "read", "write", "mixed"} {
		for name, want := range workload.Schemas {
			w := resolveBuiltin(t, wl, map[string]string{"schema": name}, nil)
			if len(w.tables) != 1 {
				t.Fatalf("%s --schema %s: %d tables", wl, name, len(w.tables))
			}
			got := w.tables[0].schema
			if !reflect.DeepEqual(got.DDL, want.DDL) || !reflect.DeepEqual(got.Columns, want.Columns) ||
				!reflect.DeepEqual(got.UpdateCols, want.UpdateCols) || got.KeyCol != want.KeyCol {
				t.Fatalf("%s %s: schema\n%+v %v %v\nwant\n%+v %v %v", wl, name, got.DDL, got.Columns, got.UpdateCols, want.DDL, want.Columns, want.UpdateCols)
			}
			n := len(want.Columns)
			gv, wv := make([]gen.Value, n), make([]gen.Value, n)
			for _, seed := range []uint64{1, 18364758544493064720} {
				for _, i := range rows {
					got.Gen.Row(seed, i, nil, gv)
					want.Gen.Row(seed, i, nil, wv)
					for k := range gv {
						if got.Gen.IsText(k) != want.Gen.IsText(k) || gv[k].Int != wv[k].Int || !bytes.Equal(gv[k].Text, wv[k].Text) {
							t.Fatalf("%s %s seed %d row %d column %s: %q/%d, want %q/%d", wl, name, seed, i, want.Columns[k], gv[k].Text, gv[k].Int, wv[k].Text, wv[k].Int)
						}
					}
				}
			}
		}
	}
}

// The built-ins keep the parameters, op kinds and setting defaults they
// had as Go workloads, so that stored runs, suites and command lines mean
// what they meant.
func TestBuiltinsKeepTheirShape(t *testing.T) {
	load := []string{"rows", "schema", "keys", "zipf-theta", "duration", "count", "warmup", "rate", "arrivals", "max-inflight", "seed"}
	for _, c := range []struct {
		name   string
		params []string
		ops    []string
		unit   string
	}{
		{"insert", []string{"rows", "schema", "workers", "seed", "vacuum"}, []string{"insert", "begin", "commit"}, "row"},
		{"read", append([]string{"workers"}, load...), []string{"read", "write"}, "op"},
		{"write", append([]string{"workers", "write-kind"}, load...), []string{"read", "write"}, "op"},
		{"mixed", append([]string{"readers", "writers", "write-ratio", "write-kind"}, load...), []string{"read", "write"}, "op"},
	} {
		sp, err := workload.Get(c.name)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range sp.Params {
			names = append(names, p.Name)
			if p.Help == "" {
				t.Errorf("%s --%s has no help", c.name, p.Name)
			}
		}
		if !reflect.DeepEqual(names, c.params) {
			t.Errorf("%s parameters %v, want %v", c.name, names, c.params)
		}
		w := resolveBuiltin(t, c.name, nil, nil)
		if got := []string(w.Ops()); !reflect.DeepEqual(got, c.ops) || w.Unit() != c.unit {
			t.Errorf("%s: ops %v unit %s, want %v %s", c.name, got, w.Unit(), c.ops, c.unit)
		}
		if batch := sp.SettingDefaults["batch"]; (c.name == "insert") != (batch == "") {
			t.Errorf("%s: batch default %q", c.name, batch)
		}
	}
}

// Keys: an executor draws the keys the Go key generator of its worker
// draws, for every distribution.
func TestKeysAreTheKeyGenerators(t *testing.T) {
	for _, dist := range []string{gen.KeysUniform, gen.KeysZipfian, gen.KeysLatest} {
		for w := range 3 {
			z := gen.NewZipf(5000, 0.8)
			ref := gen.NewKeyGen(dist, z, 77, w)
			x := &ectx{rng: gen.SplitMix{State: gen.Draw(77, gen.StreamKeys, uint64(w)+1)}}
			for k := range 5000 {
				n := int64(5000 + k%7 - 3)
				if got, want := nextKey(x, dist, z, n), ref.Next(n); got != want {
					t.Fatalf("%s worker %d draw %d: key %d, want %d", dist, w, k, got, want)
				}
			}
		}
	}
}

// The open-loop choice between reads and writes is the Go workloads'
// (gen.WriteOp) for any write ratio.
func TestMixIsTheWriteRatio(t *testing.T) {
	ratios := []float64{0, 0.01, 10, 12.5, 33.3, 50, 66.7, 99.99, 100}
	rnd := gen.SplitMix{State: 3}
	for range 40 {
		ratios = append(ratios, float64(rnd.Next()%10001)/100)
	}
	for _, p := range ratios {
		ps := strconv.FormatFloat(p, 'g', -1, 64)
		w := resolveBuiltin(t, "mixed", map[string]string{"rate": "1000", "write-ratio": ps, "seed": "5"}, nil)
		for seq := range uint64(20000) {
			want := 0
			if gen.WriteOp(5, seq, p) {
				want = 1
			}
			if got := w.cfg.Choose(seq); got != want {
				t.Fatalf("--write-ratio %s: operation %d is %s, want %s", ps, seq, w.ops[got], w.ops[want])
			}
		}
	}
	// Closed loop: readers, then writers, one worker each.
	w := resolveBuiltin(t, "mixed", map[string]string{"readers": "3", "writers": "2"}, nil)
	if !reflect.DeepEqual(w.cfg.Roles, []int{0, 0, 0, 1, 1}) {
		t.Errorf("roles %v", w.cfg.Roles)
	}
	w = resolveBuiltin(t, "write", map[string]string{"workers": "4"}, nil)
	if !reflect.DeepEqual(w.cfg.Roles, []int{1, 1, 1, 1}) || w.cfg.Roles[0] == loadgen.AnyOp {
		t.Errorf("write roles %v", w.cfg.Roles)
	}
}
