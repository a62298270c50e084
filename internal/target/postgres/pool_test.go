package postgres

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/engine"
	pg "github.com/litebench/litebench/internal/engine/postgres"
	"github.com/litebench/litebench/internal/target"
)

func open(t *testing.T, p target.PoolOptions) target.DB {
	t.Helper()
	if err := pg.Engine.(engine.Served).Available(); err != nil {
		if os.Getenv("LITEBENCH_REQUIRE_ENGINES") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	srv, err := pg.Start(context.Background(), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	db, err := client{}.Open(context.Background(), engine.Endpoint{DSN: srv.URL()}, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func count(t *testing.T, db target.Execer) (n int64) {
	t.Helper()
	if err := db.Query(context.Background(), "SELECT count(*) FROM t", nil, func(r target.Row) error { return r.Scan(&n) }); err != nil {
		t.Fatal(err)
	}
	return n
}

// The pool keeps target.DB's promises: a transaction pins its connection
// (its writes unseen by the pool until it commits), a prepared statement
// runs inside it, integers read as text into bytes, a deadlock is one,
// and a connection per operation opens one each time.
func TestPool(t *testing.T) {
	ctx := context.Background()
	db := open(t, target.PoolOptions{MaxOpen: 2})
	if err := db.Exec(ctx, "CREATE TABLE t(id bigint PRIMARY KEY, v text)", nil); err != nil {
		t.Fatal(err)
	}
	ins, err := db.Prepare(ctx, "INSERT INTO t VALUES ($1, $2)")
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st, err := tx.Stmt(ins)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= 2; i++ {
		if err := st.Exec(ctx, target.A(i, "x")); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, db); n != 0 {
		t.Errorf("the pool sees %d uncommitted rows", n)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db); n != 2 {
		t.Errorf("%d rows after commit, want 2", n)
	}
	var b []byte
	if err := db.Query(ctx, "SELECT id FROM t WHERE id = $1", target.A(int64(2)), func(r target.Row) error { return r.Scan(&b) }); err != nil || string(b) != "2" {
		t.Errorf("an integer scanned into bytes: %q, %v", b, err)
	}
	if n := db.OpenedConns(); n != 2 {
		t.Errorf("%d connections opened, want 2", n)
	}

	// A deadlock between two transactions is classified as one.
	t1, _ := db.Begin(ctx)
	t2, _ := db.Begin(ctx)
	upd := func(tx target.Tx, id int64) error {
		return tx.Exec(ctx, "UPDATE t SET v = 'y' WHERE id = $1", target.A(id))
	}
	if err := upd(t1, 1); err != nil {
		t.Fatal(err)
	}
	if err := upd(t2, 2); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- upd(t1, 2) }()
	e2 := upd(t2, 1)
	e1 := <-errc
	var dead error
	for _, e := range []error{e1, e2} {
		if e != nil {
			dead = e
		}
	}
	if c := pg.Classify(dead); c != engine.Deadlock || !c.Retryable() {
		t.Errorf("opposite updates: %v (%s), want a retryable deadlock", dead, c)
	}
	t1.Rollback()
	t2.Rollback()

	per, err := client{}.Open(ctx, engine.Endpoint{DSN: db.(*pool).cfg.ConnString()}, target.PoolOptions{ConnPerOp: true})
	if err != nil {
		t.Fatal(err)
	}
	defer per.Close()
	before := per.OpenedConns()
	for range 3 {
		count(t, per)
	}
	if n := per.OpenedConns() - before; n != 3 {
		t.Errorf("--conn-per-op: %d connections for 3 statements", n)
	}
}

// A statement in progress ends when its context does, though pgx runs it
// under a context that never ends: the pool's one hook on the caller's
// context shuts the connection down, and the pool then drops it.
func TestPoolInterruptsStatement(t *testing.T) {
	db := open(t, target.PoolOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- db.Exec(ctx, "SELECT pg_sleep(30)", nil) }()
	time.Sleep(200 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("an interrupted statement succeeded")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the statement was not interrupted")
	}
	t.Logf("interrupted after %v", time.Since(start))
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("interrupted after %v", d)
	}
	// The pool goes on with a new connection.
	var n int64
	if err := db.Query(context.Background(), "SELECT 7", nil, func(r target.Row) error { return r.Scan(&n) }); err != nil || n != 7 {
		t.Fatalf("after the interrupt: %d, %v", n, err)
	}
	if o := db.(interface{ OpenedConns() int64 }).OpenedConns(); o != 2 {
		t.Errorf("%d connections opened, want 2 (the interrupted one dropped)", o)
	}
}
