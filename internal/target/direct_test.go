package target

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/engine"
)

// rawFake is a direct API that records what it is asked.
type rawFake struct {
	opened, closed int
	failCommit     bool
	scripts        []string // "conn#: SQL"
	prepares       int
	finalized      int // statements closed
	bound          []Value
	quiet          bool // record nothing
}

func (f *rawFake) bind(v Value) error {
	if !f.quiet {
		f.bound = append(f.bound, v)
	}
	return nil
}

func (f *rawFake) open(engine.Endpoint) (RawConn, error) {
	f.opened++
	return &fakeConn{f: f, id: f.opened}, nil
}

type fakeConn struct {
	f  *rawFake
	id int
}

func (c *fakeConn) Prepare(q string) (RawStmt, error) {
	c.f.prepares++
	return &fakeStmt{f: c.f}, nil
}

func (c *fakeConn) ExecScript(q string) error {
	if !c.f.quiet {
		c.f.scripts = append(c.f.scripts, string(rune('0'+c.id))+": "+q)
	}
	if q == "COMMIT" && c.f.failCommit {
		return errors.New("database is locked")
	}
	return nil
}

func (c *fakeConn) Close() error { c.f.closed++; return nil }

// fakeStmt returns two rows, (7, "seven") and (8, "eight").
type fakeStmt struct {
	f    *rawFake
	step int
}

func (s *fakeStmt) BindNull(i int) error {
	return s.f.bind(Value{Kind: Null})
}
func (s *fakeStmt) BindInt64(i int, v int64) error {
	return s.f.bind(Value{Kind: Int, I: v})
}
func (s *fakeStmt) BindFloat(i int, v float64) error {
	return s.f.bind(Value{Kind: Float, F: v})
}
func (s *fakeStmt) BindText(i int, v string) error {
	return s.f.bind(Value{Kind: Text, S: v})
}
func (s *fakeStmt) BindBlob(i int, v []byte) error {
	return s.f.bind(Value{Kind: Blob, B: v})
}
func (s *fakeStmt) ColumnInt64(i int) int64   { return int64(6 + s.step) }
func (s *fakeStmt) ColumnFloat(i int) float64 { return 0.5 }
func (s *fakeStmt) ColumnText(i int) string   { return [...]string{"", "seven", "eight"}[s.step] }
func (s *fakeStmt) AppendColumn(i int, dst []byte) []byte {
	return append(dst, s.ColumnText(i)...)
}
func (s *fakeStmt) Step() (bool, error) { s.step++; return s.step <= 2, nil }
func (s *fakeStmt) Reset() error        { s.step = 0; return nil }
func (s *fakeStmt) Close() error        { s.f.finalized++; return nil }

func openFake(t *testing.T, f *rawFake, p PoolOptions) *directDB {
	t.Helper()
	d, err := openDirect(f.open, engine.Endpoint{DSN: "file:x", Init: []string{"PRAGMA a = 1"}}, p)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The pool never has more than MaxOpen connections out: a borrow beyond
// waits (and gives up with its context), and a returned one is reused.
func TestDirectPoolSemaphore(t *testing.T) {
	f := &rawFake{}
	d := openFake(t, f, PoolOptions{MaxOpen: 2})
	ctx := context.Background()
	tx1, err := d.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx2, err := d.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := d.Begin(cancelled); !errors.Is(err, context.Canceled) {
		t.Fatalf("third borrow of a pool of 2: %v", err)
	}
	if err := d.Exec(cancelled, "SELECT 1", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("exec past the pool size: %v", err)
	}
	if err := tx1.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := d.Exec(ctx, "SELECT 1", nil); err != nil {
		t.Fatal(err)
	}
	tx2.Rollback()
	if d.OpenedConns() != 2 || f.opened != 2 {
		t.Errorf("opened %d connections (%d), want 2", d.OpenedConns(), f.opened)
	}
	// Every new connection ran the endpoint's init first.
	if f.scripts[0] != "1: PRAGMA a = 1" || f.scripts[2] != "2: PRAGMA a = 1" {
		t.Errorf("scripts %q", f.scripts)
	}
	d.Close()
	if f.closed != 2 {
		t.Errorf("closed %d of 2 connections", f.closed)
	}
	if err := d.Exec(ctx, "SELECT 1", nil); err == nil {
		t.Error("exec on a closed pool")
	}
}

// Under conn-per-op no connection outlives its operation.
func TestDirectPoolConnPerOp(t *testing.T) {
	f := &rawFake{}
	d := openFake(t, f, PoolOptions{ConnPerOp: true})
	ctx := context.Background()
	st, err := d.Prepare(ctx, "INSERT INTO t VALUES (?)")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := st.Exec(ctx, A(int64(i))); err != nil {
			t.Fatal(err)
		}
	}
	if f.opened != 4 || f.closed != 4 || len(d.idle) != 0 {
		t.Errorf("opened %d, closed %d, idle %d: want 4, 4, 0", f.opened, f.closed, len(d.idle))
	}
	if f.prepares != 4 {
		t.Errorf("prepared %d times, want once per connection (4)", f.prepares)
	}
}

// A failed COMMIT rolls back, so the connection goes back to the pool
// clean and is reused.
func TestDirectFailedCommitRollsBack(t *testing.T) {
	f := &rawFake{failCommit: true}
	d := openFake(t, f, PoolOptions{TxImmediate: true})
	ctx := context.Background()
	tx, err := d.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Exec(ctx, "INSERT INTO t VALUES (1)", nil); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err == nil {
		t.Fatal("commit succeeded")
	}
	if err := tx.Exec(ctx, "INSERT INTO t VALUES (2)", nil); !errors.Is(err, errTxDone) {
		t.Errorf("exec after the end: %v", err)
	}
	f.failCommit = false
	tx, err = d.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	want := []string{"1: PRAGMA a = 1", "1: BEGIN IMMEDIATE", "1: INSERT INTO t VALUES (1)", "1: COMMIT", "1: ROLLBACK", "1: BEGIN IMMEDIATE", "1: COMMIT"}
	if !reflect.DeepEqual(f.scripts, want) {
		t.Errorf("scripts\n%q\nwant\n%q", f.scripts, want)
	}
	if f.opened != 1 {
		t.Errorf("opened %d connections, want 1", f.opened)
	}
}

func TestDirectBindsAndScans(t *testing.T) {
	f := &rawFake{}
	d := openFake(t, f, PoolOptions{})
	ctx := context.Background()
	st, _ := d.Prepare(ctx, "SELECT ?")
	var n int64
	var s string
	var b []byte
	var got []string
	err := st.Query(ctx, A(int64(1), "x", []byte("y"), 2.5, nil), func(r Row) error {
		if err := r.Scan(&n, &s, &b); err != nil {
			return err
		}
		got = append(got, s+"/"+string(b)+"/"+string(rune('0'+n)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "seven/seven/7,eight/eight/8" {
		t.Errorf("rows %q", got)
	}
	want := []Value{{Kind: Int, I: 1}, {Kind: Text, S: "x"}, {Kind: Blob, B: []byte("y")}, {Kind: Float, F: 2.5}, {Kind: Null}}
	if !reflect.DeepEqual(f.bound, want) {
		t.Errorf("bound %+v", f.bound)
	}
	if err := st.Exec(ctx, A(struct{}{})); err == nil || !strings.Contains(err.Error(), "cannot bind a struct {}") {
		t.Errorf("binding a struct: %v", err)
	}
	if err := d.Query(ctx, "SELECT 1", nil, func(r Row) error { var c chan int; return r.Scan(&c) }); err == nil {
		t.Error("scan into a channel")
	}
}

// A transaction's statement must come from its own pool; one from another
// is an error, not a panic.
func TestTxStmtRejectsForeignStatements(t *testing.T) {
	ctx := context.Background()
	a, b := openFake(t, &rawFake{}, PoolOptions{}), openFake(t, &rawFake{}, PoolOptions{})
	st, _ := b.Prepare(ctx, "SELECT 1")
	tx, _ := a.Begin(ctx)
	defer tx.Rollback()
	if _, err := tx.Stmt(st); !errors.Is(err, errForeign) {
		t.Errorf("foreign statement: %v", err)
	}
	if _, err := (sqlTx{}).Stmt(st); !errors.Is(err, errForeign) {
		t.Errorf("foreign statement in a database/sql transaction: %v", err)
	}
	own, _ := a.Prepare(ctx, "SELECT 1")
	s1, err := tx.Stmt(own)
	s2, _ := tx.Stmt(own)
	if err != nil || s1 != s2 {
		t.Errorf("own statement: %v, bound twice as %p and %p", err, s1, s2)
	}
}

// Binding and running a prepared statement, alone or in a transaction,
// allocates nothing once the connection has prepared it.
func TestDirectHotPathAllocatesNothing(t *testing.T) {
	d := openFake(t, &rawFake{quiet: true}, PoolOptions{MaxOpen: 4})
	ctx := context.Background()
	st, _ := d.Prepare(ctx, "INSERT INTO t VALUES (?, ?)")
	var a Args
	var n int64
	buf := make([]byte, 0, 16)
	dest := []any{&n, &buf} // a reused row sink
	scan := func(r Row) error { return r.Scan(dest...) }
	vals := []any{int64(1), "one", int64(2), "two"}
	done := func(int) {}
	allocs := testing.AllocsPerRun(200, func() {
		a.Reset()
		a.Int(42)
		a.Text("forty-two")
		if err := st.Exec(ctx, &a); err != nil {
			t.Fatal(err)
		}
		if err := st.Query(ctx, &a, scan); err != nil {
			t.Fatal(err)
		}
		tx, err := d.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ts, err := tx.Stmt(st)
		if err != nil {
			t.Fatal(err)
		}
		ts.Exec(ctx, &a)
		ts.(Repeater).Repeat(ctx, vals, 2, done)
		tx.Commit()
		if found, err := st.(KeyReader).ReadKey(ctx, 42, dest); err != nil || !found {
			t.Fatal(found, err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per operation, want 0", allocs)
	}
}

// Values points into the Args: database/sql gets the values without
// boxing them on the heap.
func TestArgsValues(t *testing.T) {
	a := A(int64(1<<40), "text", []byte("blob"), 1.5, nil, 7)
	want := []any{int64(1 << 40), "text", []byte("blob"), 1.5, nil, int64(7)}
	if got := a.Values(); !reflect.DeepEqual(got, want) {
		t.Errorf("Values %#v", got)
	}
	var b Args
	allocs := testing.AllocsPerRun(100, func() {
		b.Reset()
		b.Int(1 << 40)
		b.Text("text")
		if v := b.Values(); len(v) != 2 {
			t.Fatal(v)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations, want 0", allocs)
	}
	if (*Args)(nil).Values() != nil || (*Args)(nil).Len() != 0 {
		t.Error("nil Args are not empty")
	}
}

// valuesStmt is a fakeStmt whose driver binds all values in one call.
type valuesStmt struct {
	fakeStmt
	got [][]any
}

func (s *valuesStmt) BindValues(vals []any) error {
	s.got = append(s.got, append([]any(nil), vals...))
	return nil
}

// stmtConn prepares every statement as st.
type stmtConn struct {
	fakeConn
	st RawStmt
}

// openStmtConn is a pool whose connections prepare every statement as st.
func openStmtConn(t *testing.T, f *rawFake, st RawStmt) *directDB {
	t.Helper()
	open := func(engine.Endpoint) (RawConn, error) { return &stmtConn{fakeConn{f: f, id: 1}, st}, nil }
	d, err := openDirect(open, engine.Endpoint{DSN: "file:x"}, PoolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (c *stmtConn) Prepare(q string) (RawStmt, error) {
	c.f.prepares++
	return c.st, nil
}

// A ValuesBinder gets a statement's values in one call, as generated when
// they come boxed and as Add typed them otherwise; a value Add refuses
// is still an error, and the one-by-one binds are not used.
func TestDirectValuesBinder(t *testing.T) {
	f := &rawFake{}
	vs := &valuesStmt{fakeStmt: fakeStmt{f: f}}
	d := openStmtConn(t, f, vs)
	defer d.Close()
	ctx := context.Background()
	st, _ := d.Prepare(ctx, "INSERT INTO t VALUES (?, ?, ?)")
	var a Args
	a.Boxed([]any{int64(1), "one", nil})
	if err := st.Exec(ctx, &a); err != nil {
		t.Fatal(err)
	}
	if err := st.Exec(ctx, A(7, 2.5)); err != nil {
		t.Fatal(err)
	}
	if err := st.Exec(ctx, A(struct{}{})); err == nil || !strings.Contains(err.Error(), "cannot bind a struct {}") {
		t.Errorf("binding a struct: %v", err)
	}
	want := [][]any{{int64(1), "one", nil}, {int64(7), 2.5}}
	if !reflect.DeepEqual(vs.got, want) {
		t.Errorf("values bound %#v, want %#v", vs.got, want)
	}
	if len(f.bound) != 0 {
		t.Errorf("bound one by one too: %+v", f.bound)
	}
}

type rawValuesStmt struct{ valuesStmt }

func (*rawValuesStmt) RawValuesOnly() {}

// A RawValuesBinder gets in one call only the values as generated; typed
// values (a point read's key) are bound one by one, as they are.
func TestDirectRawValuesBinder(t *testing.T) {
	f := &rawFake{}
	vs := &rawValuesStmt{valuesStmt{fakeStmt: fakeStmt{f: f}}}
	d := openStmtConn(t, f, vs)
	defer d.Close()
	ctx := context.Background()
	st, _ := d.Prepare(ctx, "INSERT INTO t VALUES (?, ?, ?)")
	var a Args
	a.Boxed([]any{int64(1), "one", nil})
	if err := st.Exec(ctx, &a); err != nil {
		t.Fatal(err)
	}
	a.Reset()
	a.Int(7)
	a.Text("seven")
	if err := st.Exec(ctx, &a); err != nil {
		t.Fatal(err)
	}
	if err := st.Exec(ctx, A(struct{}{})); err == nil || !strings.Contains(err.Error(), "cannot bind a struct {}") {
		t.Errorf("binding a struct: %v", err)
	}
	if want := [][]any{{int64(1), "one", nil}}; !reflect.DeepEqual(vs.got, want) {
		t.Errorf("values bound in one call %#v, want %#v", vs.got, want)
	}
	if want := []Value{{Kind: Int, I: 7}, {Kind: Text, S: "seven"}}; !reflect.DeepEqual(f.bound, want) {
		t.Errorf("bound one by one %+v, want %+v", f.bound, want)
	}
}

// Statements of the same SQL prepared apart each run, and a connection
// prepares each statement once however often it runs.
func TestDirectStatementsPreparedOncePerConnection(t *testing.T) {
	f := &rawFake{quiet: true}
	d := openFake(t, f, PoolOptions{})
	defer d.Close()
	ctx := context.Background()
	s1, _ := d.Prepare(ctx, "SELECT ?")
	s2, _ := d.Prepare(ctx, "SELECT ?")
	s3, _ := d.Prepare(ctx, "SELECT 2")
	for range 3 {
		for _, st := range []Stmt{s1, s2, s3} {
			if err := st.Exec(ctx, A(int64(1))); err != nil {
				t.Fatal(err)
			}
		}
		tx, _ := d.Begin(ctx)
		ts, _ := tx.Stmt(s3)
		if err := ts.Exec(ctx, nil); err != nil {
			t.Fatal(err)
		}
		tx.Commit()
	}
	if f.prepares != 2 {
		t.Errorf("%d statements prepared for 2 SQL texts on one connection", f.prepares)
	}
}

// Closing a statement finalizes it on the idle connections (a prepared
// statement keeps its memory), unless another statement of the same SQL
// shares it; a closed statement used again is prepared again.
func TestDirectStmtCloseFinalizes(t *testing.T) {
	f := &rawFake{quiet: true}
	d := openFake(t, f, PoolOptions{})
	ctx := context.Background()
	s1, _ := d.Prepare(ctx, "SELECT ?")
	s2, _ := d.Prepare(ctx, "SELECT ?")
	s3, _ := d.Prepare(ctx, "INSERT 1")
	for _, st := range []Stmt{s1, s2, s3} {
		if err := st.Exec(ctx, A(int64(1))); err != nil {
			t.Fatal(err)
		}
	}
	if f.prepares != 2 || f.finalized != 0 {
		t.Fatalf("prepared %d, finalized %d; want 2 and 0", f.prepares, f.finalized)
	}
	s3.Close()
	if f.finalized != 1 {
		t.Errorf("closed INSERT: %d statements finalized, want 1", f.finalized)
	}
	s1.Close() // s2 still runs the same statement
	if f.finalized != 1 {
		t.Errorf("closed one of two statements sharing SQL: %d finalized, want still 1", f.finalized)
	}
	if err := s2.Exec(ctx, A(int64(2))); err != nil || f.prepares != 2 {
		t.Errorf("the statement that shares it: %v, %d prepared (want it kept)", err, f.prepares)
	}
	s2.Close()
	if f.finalized != 2 {
		t.Errorf("closed the last sharer: %d finalized, want 2", f.finalized)
	}
	if err := s3.Exec(ctx, A(int64(3))); err != nil || f.prepares != 3 {
		t.Errorf("closed statement run again: %v, %d prepared, want 3", err, f.prepares)
	}
	d.Close()
	if f.finalized != 3 {
		t.Errorf("after the pool closed: %d finalized, want 3", f.finalized)
	}
}

// A query under WithQueryReturned calls its hook once, before the first
// row; while no such context is live (none yet, or all released), a query
// under a context that cannot be cancelled (as the workloads' statements
// run) looks nothing up and allocates nothing.
func TestQueryReturnedHook(t *testing.T) {
	d := openFake(t, &rawFake{quiet: true}, PoolOptions{})
	defer d.Close()
	ctx := context.WithoutCancel(context.Background())
	st, _ := d.Prepare(ctx, "SELECT ?")
	var a Args
	var n int64
	dest := []any{&n} // a reused row sink
	scan := func(r Row) error { return r.Scan(dest...) }
	allocs := func() float64 {
		return testing.AllocsPerRun(100, func() {
			a.Reset()
			a.Int(1)
			if err := st.Query(ctx, &a, scan); err != nil {
				t.Fatal(err)
			}
		})
	}
	if n := allocs(); n != 0 {
		t.Errorf("%v allocations per query, want 0", n)
	}
	calls, rows := 0, 0
	hooked, release := WithQueryReturned(ctx, func() {
		if rows != 0 {
			t.Error("hook called after a row was read")
		}
		calls++
	})
	err := st.Query(hooked, A(int64(1)), func(Row) error { rows++; return nil })
	if err != nil || calls != 1 || rows != 2 {
		t.Errorf("hook called %d times, %d rows (%v), want 1 and 2", calls, rows, err)
	}
	release()
	release() // a second release changes nothing
	if n := allocs(); n != 0 {
		t.Errorf("after the hook's release: %v allocations per query, want 0", n)
	}
}

// countingConn is a fakeConn of its own whose Close is counted across
// goroutines.
type countingConn struct {
	fakeConn
	closed *atomic.Int64
}

func (c *countingConn) Close() error { c.closed.Add(1); return nil }

// A pool closed while goroutines borrow and return its connections closes
// every connection it opened (the last one returned included, kept apart
// for the next borrow), hands none out afterwards, and never has more
// than its size out at once.
func TestDirectPoolCloseUnderLoad(t *testing.T) {
	for _, p := range []PoolOptions{{}, {MaxOpen: 2}, {ConnPerOp: true}} {
		var opened, closed, out, most atomic.Int64
		open := func(engine.Endpoint) (RawConn, error) {
			opened.Add(1)
			return &countingConn{fakeConn{f: &rawFake{quiet: true}, id: 1}, &closed}, nil
		}
		d, err := openDirect(open, engine.Endpoint{DSN: "file:x"}, p)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		st, _ := d.Prepare(ctx, "SELECT 1")
		count := func(Row) error {
			n := out.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			out.Add(-1)
			return Stop
		}
		var wg sync.WaitGroup
		var shut atomic.Bool // set once Close has returned
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for after := 0; ; {
					if err := st.Query(ctx, nil, count); err != nil {
						if !errors.Is(err, errClosed) {
							t.Error(err)
						}
						return
					}
					// A borrow racing Close may still succeed, not many.
					if shut.Load() {
						if after++; after > 100 {
							t.Errorf("%+v: connections still handed out after Close", p)
							return
						}
					}
				}
			}()
		}
		time.Sleep(20 * time.Millisecond)
		d.Close()
		shut.Store(true)
		wg.Wait()
		if o, c := opened.Load(), closed.Load(); o != c {
			t.Errorf("%+v: opened %d connections, closed %d", p, o, c)
		}
		if p.MaxOpen > 0 && most.Load() > int64(p.MaxOpen) {
			t.Errorf("%+v: %d connections out at once", p, most.Load())
		}
	}
}

// failingStmt is a valuesStmt whose execution number failAt (from 0)
// fails at its first step.
type failingStmt struct {
	valuesStmt
	failAt, runs int
}

func (s *failingStmt) Step() (bool, error) {
	if s.step == 0 {
		s.runs++
		if s.runs-1 == s.failAt {
			s.step = 1
			return false, errors.New("constraint failed")
		}
	}
	return s.fakeStmt.Step()
}

// A transaction's statement repeats itself over runs of values: each run
// bound in one call (one by one without a ValuesBinder), stepped to its
// end and reset, done called after each that succeeded; a failing run
// ends it with the error, done not called for it.
func TestDirectTxRepeat(t *testing.T) {
	ctx := context.Background()
	vals := []any{int64(1), "one", int64(2), "two", int64(3), "three"}
	for _, tc := range []struct {
		name   string
		failAt int
	}{{"all", -1}, {"second fails", 1}} {
		f := &rawFake{}
		fs := &failingStmt{valuesStmt: valuesStmt{fakeStmt: fakeStmt{f: f}}, failAt: tc.failAt}
		d := openStmtConn(t, f, fs)
		st, _ := d.Prepare(ctx, "INSERT INTO t VALUES (?, ?)")
		tx, err := d.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ts, err := tx.Stmt(st)
		if err != nil {
			t.Fatal(err)
		}
		rep, ok := ts.(Repeater)
		if !ok {
			t.Fatalf("%T is not a Repeater", ts)
		}
		var done []int
		err = rep.Repeat(ctx, vals, 2, func(run int) { done = append(done, run) })
		wantDone, wantGot := []int{0, 1, 2}, [][]any{{int64(1), "one"}, {int64(2), "two"}, {int64(3), "three"}}
		if tc.failAt >= 0 {
			if err == nil || !strings.Contains(err.Error(), "constraint failed") {
				t.Errorf("%s: err %v", tc.name, err)
			}
			wantDone, wantGot = wantDone[:tc.failAt], wantGot[:tc.failAt+1]
		} else if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(done, wantDone) {
			t.Errorf("%s: done for runs %v, want %v", tc.name, done, wantDone)
		}
		if !reflect.DeepEqual(fs.got, wantGot) {
			t.Errorf("%s: bound %v, want %v", tc.name, fs.got, wantGot)
		}
		if fs.step != 0 {
			t.Errorf("%s: statement left unreset (step %d)", tc.name, fs.step)
		}
		if err := rep.Repeat(ctx, vals[:3], 2, func(int) {}); err == nil {
			t.Errorf("%s: 3 values in runs of 2 accepted", tc.name)
		}
		tx.Rollback()
		if err := rep.Repeat(ctx, vals, 2, func(int) {}); !errors.Is(err, errTxDone) {
			t.Errorf("%s: after the transaction: %v", tc.name, err)
		}
		d.Close()
	}
}

// Without a ValuesBinder, Repeat binds each run's values one by one.
func TestDirectTxRepeatBindsOneByOne(t *testing.T) {
	ctx := context.Background()
	f := &rawFake{}
	d := openFake(t, f, PoolOptions{})
	defer d.Close()
	st, _ := d.Prepare(ctx, "INSERT INTO t VALUES (?, ?)")
	tx, err := d.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	ts, _ := tx.Stmt(st)
	n := 0
	if err := ts.(Repeater).Repeat(ctx, []any{int64(1), "one", int64(2), nil}, 2, func(int) { n++ }); err != nil {
		t.Fatal(err)
	}
	want := []Value{{Kind: Int, I: 1}, {Kind: Text, S: "one"}, {Kind: Int, I: 2}, {Kind: Null}}
	if n != 2 || !reflect.DeepEqual(f.bound, want) {
		t.Errorf("%d runs, bound %+v, want 2 and %+v", n, f.bound, want)
	}
}
