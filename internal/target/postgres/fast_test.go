package postgres

import (
	"bytes"
	"context"
	"math"
	"testing"

	"github.com/litebench/litebench/internal/target"
)

// A prepared statement of plain types runs on pgconn (fast) and reads back
// what it wrote, the same values an ad hoc statement (pgx.Conn's path)
// reads: integers, floats (with infinities), text with backslashes and
// quotes, blobs with every byte value, booleans as 1/0, numeric whole
// numbers as integers, and NULL as zero values.
func TestFastStatementRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := open(t, target.PoolOptions{MaxOpen: 1})
	if err := db.Exec(ctx, `CREATE TABLE f(id int8 PRIMARY KEY, i4 int4, r float8, s text, b bytea, ok bool, n numeric, v varchar(20))`, nil); err != nil {
		t.Fatal(err)
	}
	ins, err := db.Prepare(ctx, "INSERT INTO f VALUES ($1, $2, $3, $4, $5, $6, $7, $8)")
	if err != nil {
		t.Fatal(err)
	}
	if p := ins.(*stmt).p; p == nil {
		t.Fatal("no pool")
	}
	blob := make([]byte, 256)
	for i := range blob {
		blob[i] = byte(i)
	}
	type rowv struct {
		id, i4 int64
		r      float64
		s      string
		b      []byte
		ok     int64
		n      int64
		v      string
	}
	want := []rowv{
		{1, -7, 2.5, `back\slash 'q' "dq"`, blob, 1, 42, "x"},
		{2, math.MaxInt32, math.Inf(1), "", []byte{}, 0, -3, ""},
		{3, 0, -1e-300, "héllo", []byte{0}, 1, 0, "ü"},
	}
	for _, w := range want {
		a := &target.Args{}
		a.Int(w.id)
		a.Int(w.i4)
		a.Float(w.r)
		a.Text(w.s)
		a.Blob(w.b)
		a.Int(w.ok)
		a.Int(w.n)
		a.Text(w.v)
		if err := ins.Exec(ctx, a); err != nil {
			t.Fatalf("insert %d: %v", w.id, err)
		}
	}
	// a row of NULLs
	nulls := &target.Args{}
	nulls.Int(4)
	for range 7 {
		nulls.Null()
	}
	if err := ins.Exec(ctx, nulls); err != nil {
		t.Fatal(err)
	}
	want = append(want, rowv{id: 4})

	sel, err := db.Prepare(ctx, "SELECT id, i4, r, s, b, ok, n, v FROM f WHERE id = $1")
	if err != nil {
		t.Fatal(err)
	}
	c, err := db.(*pool).get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := c.prep(ctx, sel.(*stmt)); !p.fast {
		t.Error("a statement of plain types does not take the fast path")
	}
	db.(*pool).put(c)
	read := func(run func(a *target.Args, fn func(target.Row) error) error, id int64) (g rowv) {
		t.Helper()
		a := &target.Args{}
		a.Int(id)
		rows := 0
		if err := run(a, func(r target.Row) error {
			rows++
			return r.Scan(&g.id, &g.i4, &g.r, &g.s, &g.b, &g.ok, &g.n, &g.v)
		}); err != nil {
			t.Fatalf("read %d: %v", id, err)
		}
		if rows != 1 {
			t.Fatalf("read %d: %d rows", id, rows)
		}
		return g
	}
	for _, w := range want {
		fast := read(func(a *target.Args, fn func(target.Row) error) error { return sel.Query(ctx, a, fn) }, w.id)
		got := map[string]rowv{"fast": fast}
		if w.id != 4 { // pgx refuses to scan NULL into an integer
			got["ad hoc"] = read(func(a *target.Args, fn func(target.Row) error) error {
				return db.Query(ctx, "SELECT id, i4, r, s, b, ok::int, n, v FROM f WHERE id = $1", a, fn)
			}, w.id)
		}
		for name, g := range got {
			if g.id != w.id || g.i4 != w.i4 || g.r != w.r || g.s != w.s || !bytes.Equal(g.b, w.b) || g.ok != w.ok || g.n != w.n || g.v != w.v {
				t.Errorf("%s path read %+v, want %+v", name, g, w)
			}
		}
	}
}

// A statement with a type outside the plain ones (a date) takes pgx's
// path, and a wrong argument count is an error, not a panic.
func TestFastStatementFallsBack(t *testing.T) {
	ctx := context.Background()
	db := open(t, target.PoolOptions{MaxOpen: 1})
	s, err := db.Prepare(ctx, "SELECT $1::date::text")
	if err != nil {
		t.Fatal(err)
	}
	c, err := db.(*pool).get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := c.prep(ctx, s.(*stmt)); p.fast {
		t.Error("a date parameter takes the fast path")
	}
	db.(*pool).put(c)
	var got string
	if err := s.Query(ctx, target.A("2024-02-29"), func(r target.Row) error { return r.Scan(&got) }); err != nil {
		t.Fatal(err)
	}
	if got != "2024-02-29" {
		t.Errorf("read %q", got)
	}
	f, err := db.Prepare(ctx, "SELECT $1::int8 + $2::int8")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Query(ctx, target.A(int64(1)), func(target.Row) error { return nil }); err == nil {
		t.Error("one argument for two parameters: no error")
	}
	var sum int64
	if err := f.Query(ctx, target.A(int64(40), int64(2)), func(r target.Row) error { return r.Scan(&sum) }); err != nil || sum != 42 {
		t.Errorf("after the error: sum %d, %v", sum, err)
	}
}
