package workload

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestRowsAreDeterministic(t *testing.T) {
	for name, sc := range Schemas {
		a := make([]any, len(sc.Columns))
		b := make([]any, len(sc.Columns))
		for _, i := range []int64{0, 1, 999, 123456} {
			sc.Row(7, i, a, nil)
			sc.Row(7, i, b, nil)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s row %d differs between calls", name, i)
			}
			sc.Row(8, i, b, nil)
			if reflect.DeepEqual(a, b) && name != "pages" {
				t.Errorf("%s row %d identical for seeds 7 and 8", name, i)
			}
		}
	}
}

func TestBenchValuesVerify(t *testing.T) {
	r, h := BenchValues(1, 42)
	if len(r) != 16 || len(h) != 64 {
		t.Fatalf("rand %q hash %q", r, h)
	}
	if !CheckBench(r, h) {
		t.Error("generated row does not verify")
	}
	if CheckBench(r, h[:63]+"0") && h[63] != '0' {
		t.Error("corrupted hash verifies")
	}
	r2, _ := BenchValues(1, 43)
	if r == r2 {
		t.Error("neighbouring rows equal")
	}
}

func TestPagesBodySize(t *testing.T) {
	row := make([]any, 2)
	Schemas["pages"].Row(1, 0, row, nil)
	if n := len(row[1].(string)); n != PageBodySize {
		t.Errorf("body %d bytes, want %d", n, PageBodySize)
	}
}

// The source must hand out exactly what Row generates, for sequential,
// straddling and out-of-order (retried) ranges alike.
func TestSourceMatchesRow(t *testing.T) {
	sc := Schemas["bench"]
	w := len(sc.Columns)
	want := func(i int64, n int) []any {
		out := make([]any, n*w)
		for k := 0; k < n; k++ {
			sc.Row(3, i+int64(k), out[k*w:(k+1)*w], nil)
		}
		return out
	}
	src := NewSource(context.Background(), sc, 3, 100, 5000)
	defer src.Close()
	steps := []struct {
		i int64
		n int
	}{{100, 10}, {110, 1000}, {1110, 300}, {1410, 7}, {200, 50}, {1417, 2000}, {3417, 1583}}
	for k, s := range steps {
		got := append([]any(nil), src.Args(s.i, s.n)...)
		if !reflect.DeepEqual(got, want(s.i, s.n)) {
			t.Fatalf("Args(%d, %d) differs from Row", s.i, s.n)
		}
		if k == 5 {
			// A straddling range's values must survive the generator
			// reusing the chunks they came from.
			src.Args(s.i+int64(s.n), 1000)
			time.Sleep(10 * time.Millisecond)
			if !reflect.DeepEqual(got, want(s.i, s.n)) {
				t.Fatalf("Args(%d, %d) changed after the source moved on", s.i, s.n)
			}
		}
	}
}

func TestCheckRowsPerStmt(t *testing.T) {
	if err := CheckRowsPerStmt(Schemas["bench"], 10922); err != nil {
		t.Errorf("10922 × 3 fits: %v", err)
	}
	err := CheckRowsPerStmt(Schemas["bench"], 10923)
	if err == nil || !strings.Contains(err.Error(), "use --rows-per-stmt 10922") {
		t.Errorf("got %v", err)
	}
}

func BenchmarkBenchRow(b *testing.B) {
	row := make([]any, 3)
	var a Arena
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if i%chunkRows == 0 {
			a.Reset()
		}
		Schemas["bench"].Row(1, int64(i), row, &a)
	}
}

// With an arena, a row of any schema costs no allocation once the arena has
// grown to a chunk's size.
func TestRowAllocs(t *testing.T) {
	for name, sc := range Schemas {
		row := make([]any, len(sc.Columns))
		var a Arena
		i := int64(0)
		n := testing.AllocsPerRun(100, func() {
			if i%16 == 0 {
				a.Reset()
			}
			sc.Row(1, i, row, &a)
			i++
		})
		if n != 0 {
			t.Errorf("%s: %v allocations per row", name, n)
		}
	}
}

// A value that outgrows its reservation moves to the heap; what was written
// into the reservation before stays valid and is not handed out again.
func TestArenaReserve(t *testing.T) {
	var a Arena
	b := a.Reserve(4)
	b = append(b, "abc"...)
	first := a.Str(b[:3])
	b = append(b, "defgh"...)
	a.Commit(b)
	next := a.Reserve(4)
	next = append(next, "zzzz"...)
	a.Commit(next)
	if first != "abc" || string(b) != "abcdefgh" || a.Str(next) != "zzzz" {
		t.Errorf("got %q %q %q", first, b, next)
	}
}

// TestReadyKeepsGenerationOutOfStatements: after Ready(i, n), asking for
// any part of rows [i, i+n) generates nothing more, so an inserter that
// times its statements after Ready leaves generation out of them, at a
// chunk's start and across a chunk's end alike.
func TestReadyKeepsGenerationOutOfStatements(t *testing.T) {
	s := NewInlineSource(Schemas["bench"], 1, 0, 10*chunkRows)
	for _, tx := range []struct{ start, n int64 }{{0, 1000}, {chunkRows - 10, 20}, {3 * chunkRows, 3000}} {
		s.Ready(tx.start, int(tx.n))
		g := s.Generated()
		if g == 0 {
			t.Fatalf("Ready(%d, %d) generated nothing", tx.start, tx.n)
		}
		for off := int64(0); off < tx.n; off += 7 {
			s.Args(tx.start+off, int(min(7, tx.n-off)))
		}
		if s.Generated() != g {
			t.Errorf("rows %d+%d: Args generated after Ready", tx.start, tx.n)
		}
	}
}

// TestReadyGeneratesEachRowOnce: consecutive transactions made ready one
// after another generate every row once, whatever the batch, not a chunk
// from each transaction's start (which generated a chunk's excess of a
// batch twice).
func TestReadyGeneratesEachRowOnce(t *testing.T) {
	const total = 20_000
	for _, batch := range []int{1, 7, 100, 1000, chunkRows, 3000, total} {
		s := NewInlineSource(Schemas["bench"], 1, 0, total)
		for start := 0; start < total; start += batch {
			n := min(batch, total-start)
			s.Ready(int64(start), n)
			s.Args(int64(start), n)
		}
		if s.genRows != total {
			t.Errorf("batch %d: %d rows generated for %d", batch, s.genRows, total)
		}
	}
}
