package target

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// RawConn is the little a direct API must provide: one connection that
// prepares statements and runs plain SQL. It is used by one goroutine at a
// time (the pool guarantees it).
type RawConn interface {
	Prepare(query string) (RawStmt, error)
	ExecScript(query string) error
	Close() error
}

// RawStmt is a prepared statement on one RawConn.
type RawStmt interface {
	// Bind binds args to parameters 1..len(args).
	Bind(args []any) error
	// Step advances; it returns false at the end or on error.
	Step() (bool, error)
	// Scan reads the current row into dest (see Row.Scan).
	Scan(dest []any) error
	// Reset readies the statement for the next execution.
	Reset() error
	Close() error
}

// Interrupter is a RawConn that can stop a statement in progress once ctx
// is done (sqlite3_interrupt); context.Background() turns that off.
type Interrupter interface {
	SetInterrupt(ctx context.Context)
}

// watch makes c's statements stop once ctx is cancelled, until the
// returned function is called. Contexts that cannot be cancelled (the
// measured paths) cost nothing.
func (c *directConn) watch(ctx context.Context) func() {
	in, ok := c.raw.(Interrupter)
	if !ok || ctx.Done() == nil {
		return func() {}
	}
	in.SetInterrupt(ctx)
	return func() { in.SetInterrupt(context.Background()) }
}

// DirectTarget is a Target over a direct API, pooled like database/sql.
type DirectTarget struct {
	TName    string
	TModule  string
	Version  func() string
	OpenConn func(o Options) (RawConn, error)
	ErrCode  func(err error) int
}

func (t *DirectTarget) Name() string                   { return t.TName }
func (t *DirectTarget) API() string                    { return "direct" }
func (t *DirectTarget) Module() string                 { return t.TModule }
func (t *DirectTarget) Code(err error) int             { return t.ErrCode(err) }
func (t *DirectTarget) SQLiteVersion() (string, error) { return t.Version(), nil }

func (t *DirectTarget) Open(ctx context.Context, o Options) (DB, error) {
	d := &directDB{t: t, o: o}
	if o.MaxOpen > 0 {
		d.sem = make(chan struct{}, o.MaxOpen)
	}
	// Open one connection now: it surfaces open errors early and, for an
	// in-memory database, keeps the database alive for the run.
	c, err := d.open()
	if err != nil {
		return nil, err
	}
	if o.Memory {
		d.keep = c
	} else {
		d.idle = append(d.idle, c)
		d.openCount.Add(1)
	}
	return d, nil
}

type directConn struct {
	raw   RawConn
	cache map[string]RawStmt // prepared statements by SQL
}

type directDB struct {
	t         *DirectTarget
	o         Options
	sem       chan struct{} // nil when unlimited
	mu        sync.Mutex
	idle      []*directConn
	keep      *directConn
	closed    bool
	openCount atomic.Int64
	opened    atomic.Int64
}

var errClosed = errors.New("database is closed")

func (d *directDB) open() (*directConn, error) {
	raw, err := d.t.OpenConn(d.o)
	if err != nil {
		return nil, err
	}
	for _, p := range d.o.Pragmas {
		if err := raw.ExecScript(p); err != nil {
			raw.Close()
			return nil, err
		}
	}
	d.opened.Add(1)
	return &directConn{raw: raw, cache: map[string]RawStmt{}}, nil
}

func (d *directDB) OpenedConns() int64 { return d.opened.Load() }

// get borrows a connection, opening one when none is idle.
func (d *directDB) get(ctx context.Context) (*directConn, error) {
	if d.sem != nil {
		select {
		case d.sem <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		d.release()
		return nil, errClosed
	}
	if n := len(d.idle); n > 0 {
		c := d.idle[n-1]
		d.idle = d.idle[:n-1]
		d.mu.Unlock()
		return c, nil
	}
	d.mu.Unlock()
	c, err := d.open()
	if err != nil {
		d.release()
		return nil, err
	}
	d.openCount.Add(1)
	return c, nil
}

func (d *directDB) release() {
	if d.sem != nil {
		<-d.sem
	}
}

// put returns c to the pool, or closes it under conn-per-op.
func (d *directDB) put(c *directConn) {
	d.mu.Lock()
	if d.o.ConnPerOp || d.closed {
		d.mu.Unlock()
		closeConn(c)
		d.openCount.Add(-1)
	} else {
		d.idle = append(d.idle, c)
		d.mu.Unlock()
	}
	d.release()
}

func closeConn(c *directConn) {
	for _, s := range c.cache {
		s.Close()
	}
	c.raw.Close()
}

func (c *directConn) exec(q string, args []any) error {
	if len(args) == 0 {
		return c.raw.ExecScript(q)
	}
	st, err := c.raw.Prepare(q)
	if err != nil {
		return err
	}
	err = runStmt(st, args)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	return err
}

func (c *directConn) query(ctx context.Context, q string, args []any, fn func(Row) error) error {
	st, err := c.raw.Prepare(q)
	if err != nil {
		return err
	}
	err = queryStmt(ctx, st, args, fn)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	return err
}

func (c *directConn) cached(q string) (RawStmt, error) {
	if st, ok := c.cache[q]; ok {
		return st, nil
	}
	st, err := c.raw.Prepare(q)
	if err != nil {
		return nil, err
	}
	c.cache[q] = st
	return st, nil
}

func runStmt(st RawStmt, args []any) error {
	if err := st.Bind(args); err != nil {
		st.Reset()
		return err
	}
	for {
		more, err := st.Step()
		if err != nil {
			st.Reset()
			return err
		}
		if !more {
			break
		}
	}
	return st.Reset()
}

type rawRow struct {
	st RawStmt
}

func (r rawRow) Scan(dest ...any) error { return r.st.Scan(dest) }

func queryStmt(ctx context.Context, st RawStmt, args []any, fn func(Row) error) error {
	if err := st.Bind(args); err != nil {
		st.Reset()
		return err
	}
	queryReturned(ctx)
	row := rawRow{st}
	for {
		more, err := st.Step()
		if err != nil {
			st.Reset()
			return err
		}
		if !more {
			break
		}
		if err := fn(row); err != nil {
			st.Reset()
			return err
		}
	}
	return st.Reset()
}

func (d *directDB) Exec(ctx context.Context, q string, args ...any) error {
	c, err := d.get(ctx)
	if err != nil {
		return err
	}
	unwatch := c.watch(ctx)
	err = c.exec(q, args)
	unwatch()
	d.put(c)
	return err
}

func (d *directDB) Query(ctx context.Context, q string, args []any, fn func(Row) error) error {
	c, err := d.get(ctx)
	if err != nil {
		return err
	}
	unwatch := c.watch(ctx)
	err = c.query(ctx, q, args, fn)
	unwatch()
	d.put(c)
	return err
}

func (d *directDB) Prepare(ctx context.Context, q string) (Stmt, error) {
	// Prepare once now to report syntax errors; the statement is then
	// prepared lazily on each connection that runs it and cached there.
	c, err := d.get(ctx)
	if err != nil {
		return nil, err
	}
	_, err = c.cached(q)
	d.put(c)
	if err != nil {
		return nil, err
	}
	return &directStmt{d: d, q: q}, nil
}

type directStmt struct {
	d *directDB
	q string
}

func (s *directStmt) Exec(ctx context.Context, args ...any) error {
	c, err := s.d.get(ctx)
	if err != nil {
		return err
	}
	st, err := c.cached(s.q)
	if err == nil {
		err = runStmt(st, args)
	}
	s.d.put(c)
	return err
}

func (s *directStmt) Query(ctx context.Context, args []any, fn func(Row) error) error {
	c, err := s.d.get(ctx)
	if err != nil {
		return err
	}
	st, err := c.cached(s.q)
	if err == nil {
		err = queryStmt(ctx, st, args, fn)
	}
	s.d.put(c)
	return err
}

func (s *directStmt) Close() error { return nil } // cached per connection until the DB closes

func (d *directDB) Begin(ctx context.Context) (Tx, error) {
	c, err := d.get(ctx)
	if err != nil {
		return nil, err
	}
	begin := "BEGIN"
	if d.o.TxImmediate {
		begin = "BEGIN IMMEDIATE"
	}
	if err := c.raw.ExecScript(begin); err != nil {
		d.put(c)
		return nil, err
	}
	return &directTx{d: d, c: c}, nil
}

type directTx struct {
	d    *directDB
	c    *directConn
	done bool
}

func (t *directTx) Exec(ctx context.Context, q string, args ...any) error {
	return t.c.exec(q, args)
}

func (t *directTx) Query(ctx context.Context, q string, args []any, fn func(Row) error) error {
	return t.c.query(ctx, q, args, fn)
}

func (t *directTx) Stmt(s Stmt) Stmt { return &directTxStmt{t: t, q: s.(*directStmt).q} }

func (t *directTx) end(q string) error {
	if t.done {
		return errors.New("transaction already ended")
	}
	err := t.c.raw.ExecScript(q)
	if err != nil && q == "COMMIT" {
		// A failed COMMIT (e.g. SQLITE_BUSY) leaves the transaction open;
		// roll back so the connection goes back to the pool clean.
		t.c.raw.ExecScript("ROLLBACK")
	}
	t.done = true
	t.d.put(t.c)
	return err
}

func (t *directTx) Commit() error   { return t.end("COMMIT") }
func (t *directTx) Rollback() error { return t.end("ROLLBACK") }

type directTxStmt struct {
	t *directTx
	q string
}

func (s *directTxStmt) Exec(ctx context.Context, args ...any) error {
	st, err := s.t.c.cached(s.q)
	if err != nil {
		return err
	}
	return runStmt(st, args)
}

func (s *directTxStmt) Query(ctx context.Context, args []any, fn func(Row) error) error {
	st, err := s.t.c.cached(s.q)
	if err != nil {
		return err
	}
	return queryStmt(ctx, st, args, fn)
}

func (s *directTxStmt) Close() error { return nil }

func (d *directDB) Close() error {
	d.mu.Lock()
	d.closed = true
	idle := d.idle
	d.idle = nil
	d.mu.Unlock()
	for _, c := range idle {
		closeConn(c)
	}
	if d.keep != nil {
		closeConn(d.keep)
	}
	return nil
}
