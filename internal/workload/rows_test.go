package workload

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/rows.json from the current generators")

// pinnedSeeds and pinnedRows are the rows testdata/rows.json pins for every
// schema: the first rows, and rows far enough out to exercise the wide
// arithmetic of the generators.
var (
	pinnedSeeds = []uint64{1, 0xFEDCBA9876543210}
	pinnedRows  = []int64{0, 1, 2, 3, 4, 1000, 123456, 1<<32 + 7}
)

// canonical encodes a generated value type-tagged: "i:<decimal>" for an
// integer, "t:<text>" for text, or "t#<bytes>:<sha256 hex>" for text longer
// than 256 bytes.
func canonical(v any) string {
	switch x := v.(type) {
	case int64:
		return "i:" + strconv.FormatInt(x, 10)
	case string:
		if len(x) > 256 {
			sum := sha256.Sum256([]byte(x))
			return "t#" + strconv.Itoa(len(x)) + ":" + hex.EncodeToString(sum[:])
		}
		return "t:" + x
	}
	return fmt.Sprintf("?%T:%v", v, v)
}

// pinned is testdata/rows.json: schema → seed → one line of values per
// pinned row.
type pinned map[string]map[string][][]string

func currentRows(a *Arena) pinned {
	p := pinned{}
	for name, sc := range Schemas {
		p[name] = map[string][][]string{}
		row := make([]any, len(sc.Columns))
		for _, seed := range pinnedSeeds {
			var rows [][]string
			for _, i := range pinnedRows {
				sc.Row(seed, i, row, a)
				var line []string
				for _, v := range row {
					line = append(line, canonical(v))
				}
				rows = append(rows, line)
			}
			p[name][strconv.FormatUint(seed, 10)] = rows
		}
	}
	return p
}

// The rows of every schema are pinned: the bytes a seed generates never
// change, whatever the generators' code becomes.
func TestPinnedRows(t *testing.T) {
	file := filepath.Join("testdata", "rows.json")
	if *update {
		b, err := json.MarshalIndent(currentRows(nil), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var want pinned
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	names := slices.Sorted(maps.Keys(Schemas))
	if got := slices.Sorted(maps.Keys(want)); !reflect.DeepEqual(got, names) {
		t.Fatalf("pinned schemas %v, built-in schemas %v", got, names)
	}
	// With and without an arena.
	for _, a := range []*Arena{nil, new(Arena)} {
		got := currentRows(a)
		for _, name := range names {
			for seed, rows := range want[name] {
				for k, line := range rows {
					if g := got[name][seed][k]; !reflect.DeepEqual(g, line) {
						t.Errorf("%s seed %s row %d (arena %v):\n got %q\nwant %q", name, seed, pinnedRows[k], a != nil, g, line)
					}
				}
			}
		}
	}
}
