package workertest

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
)

// DirectTarget checks what every direct-API target of a Go worker of its
// own must do, whatever its driver: the SQLite it reports is the one its
// connections run, values go in and come back as bound, errors fall into
// their classes, a long statement stops on cancel, and unbound
// parameters are NULL.
func DirectTarget(t *testing.T, name string) {
	t.Run("VersionIsTheLinkedSQLite", func(t *testing.T) { testVersionIsTheLinkedSQLite(t, name) })
	t.Run("BindsAndScans", func(t *testing.T) { testBindsAndScans(t, name) })
	t.Run("ErrorClasses", func(t *testing.T) { testErrorClasses(t, name) })
	t.Run("LongStatementStopsOnCancel", func(t *testing.T) { testLongStatementStopsOnCancel(t, name) })
	t.Run("UnboundParametersAreNull", func(t *testing.T) { testUnboundParametersAreNull(t, name) })
	t.Run("ReadsByKey", func(t *testing.T) { testReadsByKey(t, name) })
	t.Run("RepeatsInTransaction", func(t *testing.T) { testRepeatsInTransaction(t, name) })
}

// OpenDB opens target name on a new file with the engine's
// settings (pragmas on every connection) and the given overrides.
func OpenDB(t *testing.T, name, path string, set map[string]string, p target.PoolOptions) (target.Target, target.DB) {
	t.Helper()
	tg, err := target.Get(name)
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

func testVersionIsTheLinkedSQLite(t *testing.T, name string) {
	tg, db := OpenDB(t, name, filepath.Join(t.TempDir(), "v.db"), nil, target.PoolOptions{})
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
func testBindsAndScans(t *testing.T, name string) {
	ctx := context.Background()
	_, db := OpenDB(t, name, filepath.Join(t.TempDir(), "b.db"), nil, target.PoolOptions{})
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

func testErrorClasses(t *testing.T, name string) {
	ctx := context.Background()
	tg, db := OpenDB(t, name, filepath.Join(t.TempDir(), "e.db"), map[string]string{"busy-timeout": "0", "journal": "wal"}, target.PoolOptions{TxImmediate: true})
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
func testLongStatementStopsOnCancel(t *testing.T, name string) {
	// About 10^10 steps: hours if nothing stops it.
	const slow = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM (SELECT x FROM c LIMIT 10000000000)"
	tg, db := OpenDB(t, name, filepath.Join(t.TempDir(), "i.db"), nil, target.PoolOptions{MaxOpen: 1})
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
func testUnboundParametersAreNull(t *testing.T, name string) {
	ctx := context.Background()
	_, db := OpenDB(t, name, filepath.Join(t.TempDir(), "n.db"), nil, target.PoolOptions{MaxOpen: 1})
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

// A prepared point read is a KeyReader whose ReadKey reads what Query
// reads: a key's row, none for a missing key, the statement usable again
// after a missing key, a failed scan or a cancelled context.
func testReadsByKey(t *testing.T, name string) {
	ctx := context.Background()
	_, db := OpenDB(t, name, filepath.Join(t.TempDir(), "k.db"), nil, target.PoolOptions{MaxOpen: 1})
	if err := db.Exec(ctx, "CREATE TABLE t(id INTEGER PRIMARY KEY, s TEXT, n INTEGER)", nil); err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= 3; i++ {
		if err := db.Exec(ctx, "INSERT INTO t VALUES (?, ?, ?)", target.A(i, strings.Repeat("é", int(i)), i<<40)); err != nil {
			t.Fatal(err)
		}
	}
	st, err := db.Prepare(ctx, "SELECT id, s, n FROM t WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	kr, ok := st.(target.KeyReader)
	if !ok {
		t.Fatalf("a prepared statement of %s is a %T, not a target.KeyReader", name, st)
	}
	var (
		id, n int64
		s     []byte
	)
	dest := []any{&id, &s, &n}
	for _, key := range []int64{2, 4, 1, 3, 0, 2} {
		var qid, qn int64
		var qs []byte
		qfound := false
		err := st.Query(ctx, target.A(key), func(r target.Row) error {
			qfound = true
			return r.Scan(&qid, &qs, &qn)
		})
		if err != nil {
			t.Fatal(err)
		}
		id, s, n = -1, s[:0], -1
		found, err := kr.ReadKey(ctx, key, dest)
		if err != nil || found != qfound {
			t.Fatalf("key %d: found %v (%v), Query found %v", key, found, err, qfound)
		}
		if found && (id != qid || string(s) != string(qs) || n != qn || id != key || n != key<<40) {
			t.Errorf("key %d: read (%d, %q, %d), Query read (%d, %q, %d)", key, id, s, n, qid, qs, qn)
		}
	}
	var b bool
	if found, err := kr.ReadKey(ctx, 1, []any{&b}); err == nil || !found {
		t.Errorf("scanning into a *bool: found %v, err %v", found, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := kr.ReadKey(cancelled, 1, dest); err == nil {
		t.Error("a read under a cancelled context ran")
	}
	if found, err := kr.ReadKey(ctx, 3, dest); err != nil || !found || id != 3 {
		t.Errorf("after the failures: found %v, id %d, %v", found, id, err)
	}
}

// A prepared statement bound to a transaction is a Repeater: it runs once
// per run of values, done called after each that succeeded; a run that
// fails (a duplicate key) ends it with the error, the rows before it
// kept, and the statement runs again afterwards.
func testRepeatsInTransaction(t *testing.T, name string) {
	ctx := context.Background()
	_, db := OpenDB(t, name, filepath.Join(t.TempDir(), "r.db"), nil, target.PoolOptions{MaxOpen: 1})
	if err := db.Exec(ctx, "CREATE TABLE t(id INTEGER PRIMARY KEY, s TEXT, n INTEGER)", nil); err != nil {
		t.Fatal(err)
	}
	st, err := db.Prepare(ctx, "INSERT INTO t VALUES (?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tx.Stmt(st)
	if err != nil {
		t.Fatal(err)
	}
	rep, ok := ts.(target.Repeater)
	if !ok {
		t.Fatalf("a statement of %s bound to a transaction is a %T, not a target.Repeater", name, ts)
	}
	var runs []int
	done := func(run int) { runs = append(runs, run) }
	vals := []any{int64(1), "é", int64(10), int64(2), "two", nil, int64(3), "three", 2.5}
	if err := rep.Repeat(ctx, vals, 3, done); err != nil || len(runs) != 3 || runs[2] != 2 {
		t.Fatalf("runs %v, %v", runs, err)
	}
	runs = nil
	dup := []any{int64(4), "four", int64(40), int64(1), "again", int64(0), int64(5), "five", int64(50)}
	if err := rep.Repeat(ctx, dup, 3, done); err == nil || len(runs) != 1 {
		t.Fatalf("a duplicate key: runs %v, %v", runs, err)
	}
	runs = nil
	if err := rep.Repeat(ctx, []any{int64(6), "six", int64(60)}, 3, done); err != nil || len(runs) != 1 {
		t.Fatalf("after the failure: runs %v, %v", runs, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var got string
	err = db.Query(ctx, "SELECT group_concat(id || ':' || s || ':' || quote(n), ' ') FROM (SELECT * FROM t ORDER BY id)", nil, func(r target.Row) error { return r.Scan(&got) })
	if want := "1:é:10 2:two:NULL 3:three:2.5 4:four:40 6:six:60"; err != nil || got != want {
		t.Errorf("rows %q (%v), want %q", got, err, want)
	}
}
