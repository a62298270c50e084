package workload

import "testing"

func TestCheckKeys(t *testing.T) {
	for _, k := range []string{KeysUniform, KeysZipfian, KeysLatest} {
		if err := CheckKeys(k, 0.99); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	if err := CheckKeys("hot", 0.9); err == nil {
		t.Error("unknown distribution accepted")
	}
	if err := CheckKeys(KeysZipfian, 1); err == nil {
		t.Error("theta 1 accepted")
	}
}

// Key must name the key Row writes, for every schema, and so must the
// typed KeyInt and AppendKey.
func TestKeyOfMatchesRow(t *testing.T) {
	for name, sc := range Schemas {
		row := make([]any, len(sc.Columns))
		for _, i := range []int64{0, 1, 77, 123456} {
			sc.Row(5, i, row, nil)
			if k := sc.Key(5, i, nil); k != row[0] {
				t.Errorf("%s: Key(5, %d, nil) = %v, Row writes %v", name, i, k, row[0])
			}
			var typed any
			if sc.IntKey() {
				typed = sc.KeyInt(5, i)
			} else {
				typed = string(sc.AppendKey([]byte("x"), 5, i)[1:])
			}
			if typed != row[0] {
				t.Errorf("%s: typed key of row %d = %v, Row writes %v", name, i, typed, row[0])
			}
		}
	}
}

// Keys are generated without allocating.
func TestKeyAllocs(t *testing.T) {
	buf := make([]byte, 0, 64)
	for name, sc := range Schemas {
		n := testing.AllocsPerRun(100, func() {
			if sc.IntKey() {
				sc.KeyInt(5, 123)
			} else {
				buf = sc.AppendKey(buf[:0], 5, 123)
			}
		})
		if n != 0 {
			t.Errorf("%s: %v allocations per key", name, n)
		}
	}
}
