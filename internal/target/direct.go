package target

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/litebench/litebench/internal/engine"
)

// RawConn is the little a direct API must provide: one connection that
// prepares statements and runs plain SQL. It is used by one goroutine at a
// time (the pool guarantees it).
type RawConn interface {
	Prepare(query string) (RawStmt, error)
	ExecScript(query string) error
	Close() error
}

// RawStmt is a prepared statement on one RawConn: parameters are bound
// with Bind and the current row read with Scan, so drivers only adapt
// their method names.
type RawStmt interface {
	Binder
	Columns
	// Step advances; it returns false at the end or on error.
	Step() (bool, error)
	// Reset readies the statement for the next execution and clears its
	// bindings.
	Reset() error
	Close() error
}

// RawRepeater is a RawStmt whose driver runs Repeat's loop itself (see
// Repeater): for each run of per values of vals, bind them as BindValues
// binds (parameters 1..per, the values as generated), step to the end,
// reset, and call done with the run's number; on an error, reset and
// return it, done not called for that run. In the driver's own code the
// calls to its library are direct, where through RawStmt each is an
// interface call into an adapter's method.
type RawRepeater interface {
	RepeatValues(vals []any, per int, done func(run int)) error
}

// RawKeyReader is a RawStmt whose driver reads a row by key itself (see
// KeyReader): bind key to parameter 1, step once, scan the row into dest
// as Scan does, reset. A failed step or bind resets and returns the error.
type RawKeyReader interface {
	ReadKey(key int64, dest []any) (found bool, err error)
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

// DirectClient is a client over a direct API, pooled like database/sql.
type DirectClient struct {
	ClientName string
	ModulePath string
	EngineName string
	// LibVersion is the version of the engine the client links.
	LibVersion func() string
	OpenConn   func(ep engine.Endpoint) (RawConn, error)
	// Native classifies the engine's error codes in err.
	Native func(err error) engine.ErrClass
	// VFS, when set, reports whether a VFS of that name is registered in
	// Go in this process, through which the client can open a database
	// (nil: the client cannot use a Go VFS).
	VFS func(name string) bool
}

// VFSLookup is the client's VFS (nil when it cannot use a Go VFS).
func (c *DirectClient) VFSLookup() func(string) bool { return c.VFS }

func (c *DirectClient) Name() string                       { return c.ClientName }
func (c *DirectClient) Engine() string                     { return c.EngineName }
func (c *DirectClient) API() string                        { return "direct" }
func (c *DirectClient) Module() string                     { return c.ModulePath }
func (c *DirectClient) Version() (string, error)           { return c.LibVersion(), nil }
func (c *DirectClient) Classify(err error) engine.ErrClass { return c.Native(err) }

func (c *DirectClient) Open(ctx context.Context, ep engine.Endpoint, p PoolOptions) (DB, error) {
	return openDirect(c.OpenConn, ep, p)
}

func openDirect(open func(engine.Endpoint) (RawConn, error), ep engine.Endpoint, p PoolOptions) (*directDB, error) {
	d := &directDB{open: open, ep: ep, p: p, begin: "BEGIN"}
	switch {
	case p.TxImmediate:
		d.begin = "BEGIN IMMEDIATE"
	case p.TxExclusive:
		d.begin = "BEGIN EXCLUSIVE"
	}
	if p.MaxOpen > 0 {
		d.sem = make(chan struct{}, p.MaxOpen)
	}
	// Open one connection now: it surfaces open errors early and, for an
	// in-memory database, keeps the database alive for the run.
	c, err := d.connect()
	if err != nil {
		return nil, err
	}
	if ep.InMemory {
		d.keep = c
	} else {
		d.idle = append(d.idle, c)
	}
	return d, nil
}

type directDB struct {
	open  func(engine.Endpoint) (RawConn, error)
	ep    engine.Endpoint
	p     PoolOptions
	begin string
	sem   chan struct{} // nil when unlimited
	mu    sync.Mutex
	idle  []*directConn
	// hot is the connection returned last, kept out of idle: a borrow
	// that finds it there (a worker taking back the connection it has
	// just returned, the usual case) costs one atomic swap, not the lock
	// twice. hot and idle together are the idle connections.
	hot    atomic.Pointer[directConn]
	keep   *directConn
	closed atomic.Bool // set under mu
	opened atomic.Int64
	stmts  atomic.Int64 // statements prepared: the next one's id
}

// directConn is one connection with its statement cache and its
// transaction (reused: a connection runs one transaction at a time).
type directConn struct {
	d     *directDB
	raw   RawConn
	cache map[string]prepared // prepared statements by SQL
	// byID holds the cache's statements by the id of the directStmt that
	// runs them: an operation finds its statement by index, not by
	// hashing its SQL.
	byID    []prepared
	tx      directTx
	txStmts map[*directStmt]*directTxStmt
	row     rawRow // the current row handed to a query's fn
}

// prepared is a statement of a connection and, when its driver binds a
// statement's values in one call, the same statement as a ValuesBinder:
// found once, when it is prepared, instead of by a type assertion on
// every execution.
type prepared struct {
	st      RawStmt
	vb      ValuesBinder // nil: the driver binds one value at a time
	rawOnly bool         // vb is a RawValuesBinder
	rep     RawRepeater  // nil: Repeat runs its loop over st
	kr      RawKeyReader // nil: ReadKey runs over st
}

func newPrepared(st RawStmt) prepared {
	vb, _ := st.(ValuesBinder)
	_, rawOnly := st.(RawValuesBinder)
	rep, _ := st.(RawRepeater)
	kr, _ := st.(RawKeyReader)
	return prepared{st, vb, rawOnly, rep, kr}
}

var (
	errClosed = errors.New("database is closed")
	errTxDone = errors.New("transaction already ended")
)

func (d *directDB) connect() (*directConn, error) {
	raw, err := d.open(d.ep)
	if err != nil {
		return nil, err
	}
	for _, p := range d.ep.Init {
		if err := raw.ExecScript(p); err != nil {
			raw.Close()
			return nil, err
		}
	}
	d.opened.Add(1)
	c := &directConn{d: d, raw: raw, cache: map[string]prepared{}, txStmts: map[*directStmt]*directTxStmt{}}
	c.tx.c = c
	return c, nil
}

func (d *directDB) OpenedConns() int64 { return d.opened.Load() }

// get borrows a connection, opening one when none is idle; with a pool
// size, it waits for a free slot first.
func (d *directDB) get(ctx context.Context) (*directConn, error) {
	if d.sem != nil {
		select {
		case d.sem <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if c := d.hot.Swap(nil); c != nil {
		return c, nil
	}
	d.mu.Lock()
	if d.closed.Load() {
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
	c, err := d.connect()
	if err != nil {
		d.release()
		return nil, err
	}
	return c, nil
}

func (d *directDB) release() {
	if d.sem != nil {
		<-d.sem
	}
}

// put returns c to the pool, or closes it under conn-per-op.
func (d *directDB) put(c *directConn) {
	if !d.p.ConnPerOp && d.hot.CompareAndSwap(nil, c) {
		// Close may have emptied hot before c went in: whichever of the
		// two sees the other's write takes c out and closes it.
		if d.closed.Load() {
			if c := d.hot.Swap(nil); c != nil {
				c.close()
			}
		}
		d.release()
		return
	}
	d.mu.Lock()
	if d.p.ConnPerOp || d.closed.Load() {
		d.mu.Unlock()
		c.close()
	} else {
		d.idle = append(d.idle, c)
		d.mu.Unlock()
	}
	d.release()
}

func (c *directConn) close() {
	for _, s := range c.cache {
		s.st.Close()
	}
	c.raw.Close()
}

func (c *directConn) exec(ctx context.Context, q string, a *Args) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if a.Len() == 0 {
		return c.raw.ExecScript(q)
	}
	st, err := c.raw.Prepare(q)
	if err != nil {
		return err
	}
	p := newPrepared(st)
	err = c.run(ctx, &p, a, nil)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	return err
}

func (c *directConn) query(ctx context.Context, q string, a *Args, fn func(Row) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	st, err := c.raw.Prepare(q)
	if err != nil {
		return err
	}
	p := newPrepared(st)
	err = c.run(ctx, &p, a, fn)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	return err
}

func (c *directConn) cached(q string) (prepared, error) {
	if p, ok := c.cache[q]; ok {
		return p, nil
	}
	st, err := c.raw.Prepare(q)
	if err != nil {
		return prepared{}, err
	}
	p := newPrepared(st)
	c.cache[q] = p
	return p, nil
}

// stmt is s's statement on c, prepared on first use. The pointer is into
// c's byID: valid until c prepares another statement.
func (c *directConn) stmt(s *directStmt) (*prepared, error) {
	if s.id < len(c.byID) {
		if p := &c.byID[s.id]; p.st != nil {
			return p, nil
		}
	}
	p, err := c.cached(s.q)
	if err != nil {
		return nil, err
	}
	if s.id >= len(c.byID) {
		c.byID = append(c.byID, make([]prepared, s.id+1-len(c.byID))...)
	}
	c.byID[s.id] = p
	return &c.byID[s.id], nil
}

// rawRow is the current row of a statement.
type rawRow struct{ st RawStmt }

func (r *rawRow) Scan(dest ...any) error { return Scan(r.st, dest) }

// run binds a to p (a statement of c), steps it to the end handing each
// row to fn (nil for a statement whose rows are not wanted), and resets it.
func (c *directConn) run(ctx context.Context, p *prepared, a *Args, fn func(Row) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	st := p.st
	if err := bind(st, p.vb, p.rawOnly, a); err != nil {
		st.Reset()
		return err
	}
	if fn == nil {
		return stepToEnd(st)
	}
	row := &c.row
	queryReturned(ctx)
	row.st = st
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
			if isStop(err) {
				return nil
			}
			return err
		}
	}
	return st.Reset()
}

// stepToEnd steps st to its end, leaving its rows unread, and resets it.
func stepToEnd(st RawStmt) error {
	for {
		more, err := st.Step()
		if err != nil {
			st.Reset()
			return err
		}
		if !more {
			return st.Reset()
		}
	}
}

func (d *directDB) Exec(ctx context.Context, q string, a *Args) error {
	c, err := d.get(ctx)
	if err != nil {
		return err
	}
	unwatch := c.watch(ctx)
	err = c.exec(ctx, q, a)
	unwatch()
	d.put(c)
	return err
}

func (d *directDB) Query(ctx context.Context, q string, a *Args, fn func(Row) error) error {
	c, err := d.get(ctx)
	if err != nil {
		return err
	}
	unwatch := c.watch(ctx)
	err = c.query(ctx, q, a, fn)
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
	return &directStmt{d: d, q: q, id: int(d.stmts.Add(1) - 1)}, nil
}

type directStmt struct {
	d  *directDB
	q  string
	id int // index in each connection's byID
}

func (s *directStmt) Exec(ctx context.Context, a *Args) error {
	return s.Query(ctx, a, nil)
}

func (s *directStmt) Query(ctx context.Context, a *Args, fn func(Row) error) error {
	c, err := s.d.get(ctx)
	if err != nil {
		return err
	}
	p, err := c.stmt(s)
	if err == nil {
		err = c.run(ctx, p, a, fn)
	}
	s.d.put(c)
	return err
}

// ReadKey is a KeyReader's: the statement bound to key, stepped once, its
// row scanned into dest, reset, by the driver itself when it can
// (RawKeyReader). It is one function, the borrow and the
// return included: on a point read every further function whose code and
// data the read's own work has pushed out of the caches costs tens of
// nanoseconds.
func (s *directStmt) ReadKey(ctx context.Context, key int64, dest []any) (found bool, err error) {
	d := s.d
	c, err := d.get(ctx)
	if err != nil {
		return false, err
	}
	defer d.put(c)
	p, err := c.stmt(s)
	if err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if p.kr != nil {
		return p.kr.ReadKey(key, dest)
	}
	st := p.st
	if err := st.BindInt64(1, key); err != nil {
		st.Reset()
		return false, err
	}
	more, err := st.Step()
	if err != nil {
		st.Reset()
		return false, err
	}
	if !more {
		return false, st.Reset()
	}
	err = Scan(st, dest)
	st.Reset()
	return true, err
}

// Close finalizes the statement on the pool's idle connections, where
// nothing runs it now; a connection lent out keeps it until the pool
// closes. A statement left prepared keeps its memory, SQLite's lookaside
// slots among it: a load's INSERT kept on the connection that then reads
// made every read fall back to malloc (and its mutex) for its small
// allocations.
func (s *directStmt) Close() error {
	d := s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range d.idle {
		c.forget(s)
	}
	if c := d.hot.Swap(nil); c != nil {
		c.forget(s)
		if !d.hot.CompareAndSwap(nil, c) {
			d.idle = append(d.idle, c) // put filled the slot meanwhile
		}
	}
	return nil
}

// forget finalizes s's statement on c unless another statement of the
// pool with the same SQL shares it.
func (c *directConn) forget(s *directStmt) {
	delete(c.txStmts, s)
	if s.id >= len(c.byID) || c.byID[s.id].st == nil {
		return
	}
	st := c.byID[s.id].st
	c.byID[s.id] = prepared{}
	for _, p := range c.byID {
		if p.st == st {
			return
		}
	}
	delete(c.cache, s.q)
	st.Close()
}

func (d *directDB) Begin(ctx context.Context) (Tx, error) {
	c, err := d.get(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.raw.ExecScript(d.begin); err != nil {
		d.put(c)
		return nil, err
	}
	c.tx.done = false
	return &c.tx, nil
}

type directTx struct {
	c    *directConn
	done bool
}

func (t *directTx) Exec(ctx context.Context, q string, a *Args) error {
	if t.done {
		return errTxDone
	}
	return t.c.exec(ctx, q, a)
}

func (t *directTx) Query(ctx context.Context, q string, a *Args, fn func(Row) error) error {
	if t.done {
		return errTxDone
	}
	return t.c.query(ctx, q, a, fn)
}

func (t *directTx) Stmt(s Stmt) (Stmt, error) {
	ds, ok := s.(*directStmt)
	if !ok || ds.d != t.c.d {
		return nil, errForeign
	}
	ts, ok := t.c.txStmts[ds]
	if !ok {
		ts = &directTxStmt{t: t, s: ds}
		t.c.txStmts[ds] = ts
	}
	return ts, nil
}

func (t *directTx) end(q string) error {
	if t.done {
		return errTxDone
	}
	err := t.c.raw.ExecScript(q)
	if err != nil && q == "COMMIT" {
		// A failed COMMIT (e.g. SQLITE_BUSY) leaves the transaction open;
		// roll back so the connection goes back to the pool clean.
		t.c.raw.ExecScript("ROLLBACK")
	}
	t.done = true
	t.c.d.put(t.c)
	return err
}

func (t *directTx) Commit() error   { return t.end("COMMIT") }
func (t *directTx) Rollback() error { return t.end("ROLLBACK") }

// directTxStmt is a statement bound to its connection's transaction.
type directTxStmt struct {
	t *directTx
	s *directStmt
	// p is s's prepared statement on t's connection, found on first use:
	// a directTxStmt lives only as long as s is prepared there (closing s
	// drops it from the connection's txStmts).
	p  prepared
	ok bool
	a  Args // Repeat's values, reused from run to run
}

func (s *directTxStmt) Exec(ctx context.Context, a *Args) error { return s.Query(ctx, a, nil) }

func (s *directTxStmt) Query(ctx context.Context, a *Args, fn func(Row) error) error {
	p, err := s.prepared()
	if err != nil {
		return err
	}
	return s.t.c.run(ctx, p, a, fn)
}

// prepared is s's prepared statement on its connection, while the
// transaction is open.
func (s *directTxStmt) prepared() (*prepared, error) {
	if s.t.done {
		return nil, errTxDone
	}
	if !s.ok {
		p, err := s.t.c.stmt(s.s)
		if err != nil {
			return nil, err
		}
		s.p, s.ok = *p, true
	}
	return &s.p, nil
}

// Repeat is a Repeater's: each run's values bound as Exec binds them (in
// one call when the driver has a ValuesBinder), the statement stepped to
// its end and reset; by the driver's own loop when it has one
// (RawRepeater).
func (s *directTxStmt) Repeat(ctx context.Context, vals []any, per int, done func(int)) error {
	p, err := s.prepared()
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if per <= 0 || len(vals)%per != 0 {
		return fmt.Errorf("repeat: %d values are not runs of %d", len(vals), per)
	}
	if p.rep != nil {
		return p.rep.RepeatValues(vals, per, done)
	}
	st, a := p.st, &s.a
	for run, off := 0, 0; off < len(vals); run, off = run+1, off+per {
		a.Boxed(vals[off : off+per])
		if err := bind(st, p.vb, p.rawOnly, a); err != nil {
			st.Reset()
			return err
		}
		if err := stepToEnd(st); err != nil {
			return err
		}
		done(run)
	}
	return nil
}

func (s *directTxStmt) Close() error { return nil }

func (d *directDB) Close() error {
	d.mu.Lock()
	d.closed.Store(true)
	idle := d.idle
	d.idle = nil
	d.mu.Unlock()
	if c := d.hot.Swap(nil); c != nil {
		c.close()
	}
	for _, c := range idle {
		c.close()
	}
	if d.keep != nil {
		d.keep.close()
	}
	return nil
}
