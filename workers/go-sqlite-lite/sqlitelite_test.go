package main

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
)

// openDB opens the go-sqlite-lite target on a new file with the engine's
// settings (pragmas on every connection) and the given overrides.
func openDB(t *testing.T, path string, set map[string]string, p target.PoolOptions) (target.Target, target.DB) {
	t.Helper()
	tg, err := target.Get(Name)
	if err != nil {
		t.Fatal(err)
	}
	s := settings.Default()
	for k, v := range set {
		if err := s.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	inst, err := tg.Engine().Provision(context.Background(), engine.Request{Settings: s, Path: path, Reuse: true, Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	db, err := tg.Open(context.Background(), inst.Endpoint(), p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return tg, db
}

func TestVersionIsTheLinkedSQLite(t *testing.T) {
	tg, db := openDB(t, filepath.Join(t.TempDir(), "v.db"), nil, target.PoolOptions{})
	v, err := tg.Version()
	if err != nil || !regexp.MustCompile(`^3\.\d+\.\d+$`).MatchString(v) {
		t.Fatalf("version %q, %v", v, err)
	}
	var got string
	if err := db.Query(context.Background(), "SELECT sqlite_version()", nil, func(r target.Row) error { return r.Scan(&got) }); err != nil || got != v {
		t.Errorf("connection runs %q (%v), client reports %q", got, err, v)
	}
}

// Values of every kind go in through a prepared statement and come back
// through Scan as they were bound.
func TestBindsAndScans(t *testing.T) {
	ctx := context.Background()
	_, db := openDB(t, filepath.Join(t.TempDir(), "b.db"), nil, target.PoolOptions{})
	if err := db.Exec(ctx, "CREATE TABLE t(i INTEGER, f REAL, s TEXT, n TEXT)", nil); err != nil {
		t.Fatal(err)
	}
	st, err := db.Prepare(ctx, "INSERT INTO t VALUES (?, ?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	var a target.Args
	for i := int64(1); i <= 3; i++ {
		a.Reset()
		a.Int(i << 40)
		a.Float(float64(i) / 4)
		a.Text(strings.Repeat("é", int(i)))
		a.Null()
		if err := st.Exec(ctx, &a); err != nil {
			t.Fatal(err)
		}
	}
	var (
		i, rows int64
		f       float64
		s       string
		b       []byte
		types   string
	)
	err = db.Query(ctx, "SELECT i, f, s, s, typeof(n) FROM t ORDER BY i", nil, func(r target.Row) error {
		rows++
		if err := r.Scan(&i, &f, &s, &b, &types); err != nil {
			return err
		}
		want := strings.Repeat("é", int(rows))
		if i != rows<<40 || f != float64(rows)/4 || s != want || string(b) != want || types != "null" {
			t.Errorf("row %d: %d %v %q %q %s", rows, i, f, s, b, types)
		}
		return nil
	})
	if err != nil || rows != 3 {
		t.Fatalf("%d rows, %v", rows, err)
	}
}

// A BLOB argument is stored as a BLOB and read back as it was bound, an
// empty one included.
func TestBlobRoundTrip(t *testing.T) {
	ctx := context.Background()
	_, db := openDB(t, filepath.Join(t.TempDir(), "blob.db"), nil, target.PoolOptions{})
	if err := db.Exec(ctx, "CREATE TABLE t(id INTEGER, b BLOB)", nil); err != nil {
		t.Fatal(err)
	}
	for i, v := range [][]byte{{0, 1, 2, 0xff}, {}} {
		if err := db.Exec(ctx, "INSERT INTO t VALUES (?, ?)", target.A(int64(i), v)); err != nil {
			t.Fatal(err)
		}
	}
	var (
		types string
		got   []byte
		rows  int
	)
	err := db.Query(ctx, "SELECT typeof(b), b FROM t ORDER BY id", nil, func(r target.Row) error {
		if err := r.Scan(&types, &got); err != nil {
			return err
		}
		if want := [][]byte{{0, 1, 2, 0xff}, {}}[rows]; types != "blob" || string(got) != string(want) {
			t.Errorf("row %d: %s %x, want blob %x", rows, types, got, want)
		}
		rows++
		return nil
	})
	if err != nil || rows != 2 {
		t.Fatalf("%d rows, %v", rows, err)
	}
}

// SQL holding no statement is refused, not run as nothing.
func TestEmptyStatementIsRefused(t *testing.T) {
	_, db := openDB(t, filepath.Join(t.TempDir(), "empty.db"), nil, target.PoolOptions{})
	if err := db.Exec(context.Background(), "-- nothing", target.A(int64(1))); !errors.Is(err, errEmpty) {
		t.Errorf("err = %v, want the refusal", err)
	}
}

// SQLite's result codes reach the runner's error classes: a constraint
// violation, and SQLITE_BUSY under busy-timeout 0.
func TestErrorClasses(t *testing.T) {
	ctx := context.Background()
	tg, db := openDB(t, filepath.Join(t.TempDir(), "e.db"), map[string]string{"busy-timeout": "0", "journal": "wal"}, target.PoolOptions{TxImmediate: true})
	if err := db.Exec(ctx, "CREATE TABLE t(id INTEGER PRIMARY KEY)", nil); err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(ctx, "INSERT INTO t VALUES (1)", nil); err != nil {
		t.Fatal(err)
	}
	err := db.Exec(ctx, "INSERT INTO t VALUES (?)", target.A(int64(1)))
	if c := tg.Classify(err); c != engine.Constraint {
		t.Errorf("duplicate key: %v classified %v", err, c)
	}
	tx, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	start := time.Now()
	_, err = db.Begin(ctx) // a second connection, the write lock held
	if c := tg.Classify(err); c != engine.Busy {
		t.Errorf("second writer: %v classified %v", err, c)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the busy transaction waited %v under busy_timeout 0", took)
	}
}

// A long statement stops once its context is cancelled, and the
// connection is usable afterwards.
func TestLongStatementStopsOnCancel(t *testing.T) {
	// About 10^10 steps: hours if nothing stops it.
	const slow = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM (SELECT x FROM c LIMIT 10000000000)"
	tg, db := openDB(t, filepath.Join(t.TempDir(), "i.db"), nil, target.PoolOptions{MaxOpen: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := db.Query(ctx, slow, nil, func(target.Row) error { return nil })
	if c := tg.Classify(err); c != engine.Interrupted {
		t.Fatalf("err = %v (%v), want an interruption", err, c)
	}
	var n int64
	if err := db.Query(context.Background(), "SELECT 41+1", nil, func(r target.Row) error { return r.Scan(&n) }); err != nil || n != 42 {
		t.Errorf("after the cancel: %d, %v", n, err)
	}
}

// A statement run again with fewer arguments than parameters gets NULL
// for the rest, as if its bindings had been cleared, not the values of
// its previous execution.
func TestUnboundParametersAreNull(t *testing.T) {
	ctx := context.Background()
	_, db := openDB(t, filepath.Join(t.TempDir(), "n.db"), nil, target.PoolOptions{MaxOpen: 1})
	st, err := db.Prepare(ctx, "SELECT typeof(?1) || typeof(?2)")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args *target.Args
		want string
	}{{target.A(int64(1), "x"), "integertext"}, {target.A(int64(1)), "integernull"}, {nil, "nullnull"}, {target.A(nil, 2.5), "nullreal"}} {
		var got string
		if err := st.Query(ctx, c.args, func(r target.Row) error { return r.Scan(&got) }); err != nil || got != c.want {
			t.Errorf("%d arguments: %q (%v), want %q", c.args.Len(), got, err, c.want)
		}
	}
}

// The driver's SQLite is built with the UPDATE/DELETE ... LIMIT grammar
// (SQLITE_ENABLE_UPDATE_DELETE_LIMIT in its parser), as upstream's is.
func TestDeleteLimitParses(t *testing.T) {
	ctx := context.Background()
	_, db := openDB(t, filepath.Join(t.TempDir(), "l.db"), nil, target.PoolOptions{MaxOpen: 1})
	for _, q := range []string{"CREATE TABLE t(x)", "INSERT INTO t VALUES (1), (2), (3)", "DELETE FROM t ORDER BY x LIMIT 2", "UPDATE t SET x = 0 LIMIT 1"} {
		if err := db.Exec(ctx, q, nil); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var n, sum int64
	if err := db.Query(ctx, "SELECT count(*), sum(x) FROM t", nil, func(r target.Row) error { return r.Scan(&n, &sum) }); err != nil || n != 1 || sum != 0 {
		t.Errorf("left %d rows summing to %d (%v), want one, updated to 0", n, sum, err)
	}
}
