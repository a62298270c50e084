package postgres

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/engine/server"
	"github.com/litebench/litebench/internal/target"
)

// textResults asks for every column in text, as libpq does by default, so
// that a column scans into a string or bytes as its text and into an
// integer as its value, whatever its type.
var textResults = pgx.QueryResultFormats{pgx.TextFormatCode}

// pool is a pool of pgx connections with target.DB's semantics: Exec and
// Query borrow a connection for one statement, a Stmt is prepared once per
// connection (a named server-side statement) and reused, a Tx pins one
// connection until it ends.
type pool struct {
	cfg    *pgx.ConnConfig
	init   []string
	perOp  bool
	sem    chan struct{} // nil: no limit
	mu     sync.Mutex
	idle   []*conn
	opened atomic.Int64
	stmts  atomic.Int64
	closed bool
	// busy are the connections lent out. One hook on the callers'
	// context (a run's, the same for all its operations) interrupts
	// them when it ends, instead of one per statement: pgx then runs
	// with a context that never ends (see quiet), and the statements of
	// concurrent workers do not all register with one context's lock.
	busy      map[*conn]struct{}
	watchDone <-chan struct{}
	unwatch   func() bool
}

// quiet is the context a statement runs under in pgx: ctx's values
// without its end (the pool's hook interrupts the connection instead).
func quiet(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

type conn struct {
	c     *pgx.Conn
	names map[*stmt]*prep // statements prepared on this connection
	argv  []any           // a query's arguments, reused
	// A fast statement's encoded arguments and its current row, reused.
	params [][]byte
	pbuf   []byte
	row    row
	// broken: interrupted (shut down) while lent; closed when returned.
	broken bool
}

func newPool(ctx context.Context, cfg *pgx.ConnConfig, ep engine.Endpoint, p target.PoolOptions) (*pool, error) {
	pl := &pool{cfg: cfg, init: ep.Init, perOp: p.ConnPerOp, busy: map[*conn]struct{}{}}
	if p.MaxOpen > 0 {
		pl.sem = make(chan struct{}, p.MaxOpen)
	}
	c, err := pl.get(ctx)
	if err != nil {
		return nil, err
	}
	pl.put(c)
	return pl, nil
}

func (p *pool) get(ctx context.Context) (*conn, error) {
	if p.sem != nil {
		select {
		case p.sem <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	p.mu.Lock()
	p.watch(ctx)
	if n := len(p.idle); n > 0 {
		c := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.busy[c] = struct{}{}
		p.mu.Unlock()
		return c, nil
	}
	p.mu.Unlock()
	pc, err := pgx.ConnectConfig(ctx, p.cfg.Copy())
	if err == nil {
		for _, q := range p.init {
			if _, err = pc.Exec(ctx, q); err != nil {
				pc.Close(context.Background())
				break
			}
		}
	}
	if err != nil {
		p.release()
		return nil, err
	}
	p.opened.Add(1)
	c := &conn{c: pc, names: map[*stmt]*prep{}}
	p.mu.Lock()
	p.busy[c] = struct{}{}
	p.mu.Unlock()
	if ctx.Err() != nil {
		p.put(c)
		return nil, ctx.Err()
	}
	return c, nil
}

// watch hooks the interruption of the busy connections onto ctx's end,
// once per context (p.mu held).
func (p *pool) watch(ctx context.Context) {
	d := ctx.Done()
	if d == p.watchDone {
		return
	}
	if p.unwatch != nil {
		p.unwatch()
		p.unwatch = nil
	}
	if p.watchDone = d; d != nil {
		p.unwatch = context.AfterFunc(ctx, p.interrupt)
	}
}

// interrupt ends the statements in progress on the busy connections.
func (p *pool) interrupt() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.busy {
		server.Interrupt(c.c.PgConn().Conn())
		c.broken = true
	}
}

func (p *pool) release() {
	if p.sem != nil {
		<-p.sem
	}
}

// put returns c to the pool, or closes it when it broke, when every
// operation opens its own, or when the pool is closed.
func (p *pool) put(c *conn) {
	p.mu.Lock()
	delete(p.busy, c)
	if c.c.IsClosed() || c.broken || p.perOp || p.closed {
		p.mu.Unlock()
		c.c.Close(context.Background())
	} else {
		p.idle = append(p.idle, c)
		p.mu.Unlock()
	}
	p.release()
}

func (p *pool) OpenedConns() int64 { return p.opened.Load() }

func (p *pool) Close() error {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	if p.unwatch != nil {
		p.unwatch()
	}
	p.mu.Unlock()
	for _, c := range idle {
		c.c.Close(context.Background())
	}
	return nil
}

func (p *pool) Exec(ctx context.Context, q string, a *target.Args) error {
	return p.with(ctx, a, func(c *conn) error { return c.exec(ctx, q, a) })
}

func (p *pool) Query(ctx context.Context, q string, a *target.Args, fn func(target.Row) error) error {
	return p.with(ctx, a, func(c *conn) error { return c.query(ctx, q, a, fn) })
}

// with runs fn on a connection borrowed for it.
func (p *pool) with(ctx context.Context, a *target.Args, fn func(c *conn) error) error {
	if err := a.Err(); err != nil {
		return err
	}
	c, err := p.get(ctx)
	if err != nil {
		return err
	}
	defer p.put(c)
	return fn(c)
}

func (c *conn) exec(ctx context.Context, q string, a *target.Args) error {
	_, err := c.c.Exec(quiet(ctx), q, a.Values()...)
	return err
}

func (c *conn) query(ctx context.Context, q string, a *target.Args, fn func(target.Row) error) error {
	// The result formats, then the arguments, in a slice the connection
	// keeps.
	c.argv = append(append(c.argv[:0], textResults), a.Values()...)
	rows, err := c.c.Query(quiet(ctx), q, c.argv...)
	clear(c.argv)
	if err != nil {
		return err
	}
	target.QueryReturned(ctx)
	for rows.Next() {
		if err := fn(rows); err != nil {
			rows.Close()
			if errors.Is(err, target.Stop) {
				return rows.Err()
			}
			return err
		}
	}
	rows.Close()
	return rows.Err()
}

// prep returns s as prepared on c, preparing it there the first time.
func (c *conn) prep(ctx context.Context, s *stmt) (*prep, error) {
	if p, ok := c.names[s]; ok {
		return p, nil
	}
	sd, err := c.c.Prepare(quiet(ctx), s.name, s.q)
	if err != nil {
		return nil, err
	}
	p := newPrep(s.name, sd)
	c.names[s] = p
	return p, nil
}

// stmt is a statement of the pool, prepared on each connection that runs
// it.
type stmt struct {
	p    *pool
	q    string
	name string
}

func (p *pool) Prepare(ctx context.Context, q string) (target.Stmt, error) {
	s := &stmt{p: p, q: q, name: "lb" + itoa(p.stmts.Add(1))}
	// Prepare once now, so that a statement that does not prepare fails
	// here.
	c, err := p.get(ctx)
	if err != nil {
		return nil, err
	}
	defer p.put(c)
	if _, err := c.prep(ctx, s); err != nil {
		return nil, err
	}
	return s, nil
}

func itoa(n int64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		if n /= 10; n == 0 {
			return string(b[i:])
		}
	}
}

func (s *stmt) Exec(ctx context.Context, a *target.Args) error {
	return s.p.with(ctx, a, func(c *conn) error { return s.execOn(ctx, c, a) })
}

func (s *stmt) Query(ctx context.Context, a *target.Args, fn func(target.Row) error) error {
	return s.p.with(ctx, a, func(c *conn) error { return s.queryOn(ctx, c, a, fn) })
}

func (s *stmt) execOn(ctx context.Context, c *conn, a *target.Args) error {
	p, err := c.prep(ctx, s)
	if err != nil {
		return err
	}
	if p.fast {
		return c.run(ctx, p, a, nil)
	}
	return c.exec(ctx, p.name, a)
}

func (s *stmt) queryOn(ctx context.Context, c *conn, a *target.Args, fn func(target.Row) error) error {
	p, err := c.prep(ctx, s)
	if err != nil {
		return err
	}
	if p.fast {
		return c.run(ctx, p, a, fn)
	}
	return c.query(ctx, p.name, a, fn)
}

// Close forgets the statement; connections drop it when they close.
func (s *stmt) Close() error { return nil }

func (p *pool) Begin(ctx context.Context) (target.Tx, error) {
	c, err := p.get(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := c.c.Begin(quiet(ctx))
	if err != nil {
		p.put(c)
		return nil, err
	}
	return &txn{p: p, c: c, tx: tx, ctx: ctx}, nil
}

// txn is a transaction pinned to one connection.
type txn struct {
	p   *pool
	c   *conn
	tx  pgx.Tx
	ctx context.Context
}

func (t *txn) Exec(ctx context.Context, q string, a *target.Args) error {
	if err := a.Err(); err != nil {
		return err
	}
	return t.c.exec(ctx, q, a)
}

func (t *txn) Query(ctx context.Context, q string, a *target.Args, fn func(target.Row) error) error {
	if err := a.Err(); err != nil {
		return err
	}
	return t.c.query(ctx, q, a, fn)
}

var errForeign = errors.New("statement was prepared by another pool")

func (t *txn) Stmt(s target.Stmt) (target.Stmt, error) {
	st, ok := s.(*stmt)
	if !ok || st.p != t.p {
		return nil, errForeign
	}
	return txStmt{t, st}, nil
}

func (t *txn) Commit() error   { return t.end(t.tx.Commit(context.WithoutCancel(t.ctx))) }
func (t *txn) Rollback() error { return t.end(t.tx.Rollback(context.WithoutCancel(t.ctx))) }

func (t *txn) end(err error) error {
	t.p.put(t.c)
	return err
}

// txStmt is a statement run on its transaction's connection.
type txStmt struct {
	t *txn
	s *stmt
}

func (s txStmt) Exec(ctx context.Context, a *target.Args) error {
	if err := a.Err(); err != nil {
		return err
	}
	return s.s.execOn(ctx, s.t.c, a)
}

func (s txStmt) Query(ctx context.Context, a *target.Args, fn func(target.Row) error) error {
	if err := a.Err(); err != nil {
		return err
	}
	return s.s.queryOn(ctx, s.t.c, a, fn)
}

func (txStmt) Close() error { return nil }
