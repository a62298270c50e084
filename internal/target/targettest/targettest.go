// Package targettest provides a fake client for tests of what runs above a
// target (the runner, the workloads' executors): its statements do nothing
// but count, allocate nothing, and every query returns one row. It speaks
// the SQLite engine, so runs on it provision (in-memory) SQLite instances
// that no statement ever touches.
package targettest

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/engine/sqlite"
	"github.com/litebench/litebench/internal/target"
)

// ErrBusy is classified as engine.Busy.
var ErrBusy = errors.New("busy")

// Client is the fake client.
type Client struct {
	// Delay is slept by every Exec.
	Delay time.Duration
	// Execs and Queries count statements; Begins transactions; Binds
	// statements bound to a transaction; Opened pools.
	Execs, Queries, Begins, Binds, Opened atomic.Int64
	// LastPool is the pool (numbered from 1 in opening order) the last
	// statement ran on.
	LastPool atomic.Int64
	// InTx is how many transactions are open; MaxInTx the most at once.
	InTx, MaxInTx atomic.Int64
	// OpenErr, when set, is what Open fails with.
	OpenErr error
	// Cancel, when set, is called by the CancelAfter-th Exec, as a Ctrl-C
	// landing at that statement would.
	Cancel      context.CancelFunc
	CancelAfter int64
	// Block is a statement (e.g. "VACUUM") that runs until its context is
	// cancelled and then fails as SQLite does, with its own error.
	Block string
	// Repeat makes statements bound to a transaction target.Repeaters, as
	// a direct driver's are; Repeats counts their Repeat calls.
	Repeat  bool
	Repeats atomic.Int64
	// KeyRead makes prepared statements target.KeyReaders, as a direct
	// driver's are; KeyReads counts their ReadKey calls (each also counts
	// as a query).
	KeyRead  bool
	KeyReads atomic.Int64
	// KeyMissing makes ReadKey find no row; KeyErr, when set, is what it
	// fails with.
	KeyMissing bool
	KeyErr     error
}

// Target returns the in-process target of a fake client.
func Target(c *Client) target.Target { return target.New(sqlite.Engine, c, target.InProcess) }

func (c *Client) Name() string             { return "fake" }
func (c *Client) Engine() string           { return sqlite.Name }
func (c *Client) API() string              { return "direct" }
func (c *Client) Module() string           { return "test" }
func (c *Client) Version() (string, error) { return "0", nil }

// Classify knows ErrBusy.
func (c *Client) Classify(err error) engine.ErrClass {
	if errors.Is(err, ErrBusy) {
		return engine.Busy
	}
	return engine.None
}

func (c *Client) Open(context.Context, engine.Endpoint, target.PoolOptions) (target.DB, error) {
	if c.OpenErr != nil {
		return nil, c.OpenErr
	}
	d := &db{c: c, n: c.Opened.Add(1)}
	d.st.d, d.tx.d, d.rep.d, d.key.d = d, d, d, d
	return d, nil
}

type db struct {
	c   *Client
	n   int64
	st  stmt
	tx  tx
	rep repStmt
	key keyStmt
}

func (d *db) exec() error {
	if d.c.Execs.Add(1) == d.c.CancelAfter && d.c.Cancel != nil {
		d.c.Cancel()
	}
	d.c.LastPool.Store(d.n)
	if d.c.Delay > 0 {
		time.Sleep(d.c.Delay)
	}
	return nil
}

func (d *db) query(fn func(target.Row) error) error {
	d.c.Queries.Add(1)
	d.c.LastPool.Store(d.n)
	if fn == nil {
		return nil
	}
	if err := fn(row{}); err != nil && err != target.Stop {
		return err
	}
	return nil
}

func (d *db) Exec(ctx context.Context, q string, _ *target.Args) error {
	if d.c.Block != "" && q == d.c.Block {
		<-ctx.Done()
		return errors.New("interrupted")
	}
	return d.exec()
}
func (d *db) Query(_ context.Context, _ string, _ *target.Args, fn func(target.Row) error) error {
	return d.query(fn)
}
func (d *db) Prepare(context.Context, string) (target.Stmt, error) {
	if d.c.KeyRead {
		return &d.key, nil
	}
	return &d.st, nil
}
func (d *db) Begin(context.Context) (target.Tx, error) {
	d.c.Begins.Add(1)
	n := d.c.InTx.Add(1)
	for m := d.c.MaxInTx.Load(); n > m && !d.c.MaxInTx.CompareAndSwap(m, n); m = d.c.MaxInTx.Load() {
	}
	return &d.tx, nil
}
func (d *db) OpenedConns() int64 { return 1 }
func (d *db) Close() error       { return nil }

type stmt struct{ d *db }

func (s *stmt) Exec(context.Context, *target.Args) error { return s.d.exec() }
func (s *stmt) Query(_ context.Context, _ *target.Args, fn func(target.Row) error) error {
	return s.d.query(fn)
}
func (s *stmt) Close() error { return nil }

type tx struct{ d *db }

func (t *tx) Exec(context.Context, string, *target.Args) error { return t.d.exec() }
func (t *tx) Query(_ context.Context, _ string, _ *target.Args, fn func(target.Row) error) error {
	return t.d.query(fn)
}
func (t *tx) Stmt(s target.Stmt) (target.Stmt, error) {
	t.d.c.Binds.Add(1)
	if t.d.c.Repeat {
		return &t.d.rep, nil
	}
	return s, nil
}
func (t *tx) Commit() error   { t.d.c.InTx.Add(-1); return nil }
func (t *tx) Rollback() error { t.d.c.InTx.Add(-1); return nil }

// row leaves the scan destinations as they are.
type row struct{}

func (row) Scan(...any) error { return nil }

// repStmt is a statement bound to a transaction that repeats itself.
type repStmt struct{ stmt }

func (s *repStmt) Repeat(_ context.Context, vals []any, per int, done func(int)) error {
	s.d.c.Repeats.Add(1)
	for run := 0; run*per < len(vals); run++ {
		if err := s.d.exec(); err != nil {
			return err
		}
		done(run)
	}
	return nil
}

// keyStmt is a prepared statement that reads by key in one call: every
// key has a row (none under KeyMissing), and the scan destinations are
// left as they are.
type keyStmt struct{ stmt }

func (s *keyStmt) ReadKey(context.Context, int64, []any) (bool, error) {
	c := s.d.c
	c.KeyReads.Add(1)
	if c.KeyErr != nil {
		return false, c.KeyErr
	}
	return !c.KeyMissing, s.d.query(nil)
}
