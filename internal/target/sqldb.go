package target

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/litebench/litebench/internal/engine"
)

// SQLClient is a client over a database/sql driver. Drivers differ in how
// the DSN is written and how errors carry the engine's codes; both are
// functions here.
type SQLClient struct {
	ClientName string
	ModulePath string
	EngineName string
	Driver     driver.Driver
	// DSN renders the driver's connection string for an endpoint.
	DSN func(ep engine.Endpoint, p PoolOptions) string
	// VersionSQL, run on a connection to Scratch, returns the engine's
	// version.
	VersionSQL string
	Scratch    engine.Endpoint
	// Native classifies the engine's error codes in err.
	Native func(err error) engine.ErrClass
	// VFS is as DirectClient's.
	VFS func(name string) bool
	// ServerVersion, when set, is the engine's version instead of
	// VersionSQL on Scratch (a server's, which needs no connection).
	ServerVersion func() (string, error)
	// Fence, when set, confines each new connection to its own database
	// (a SQLite driver's authorizer and limits; see sqlfence) before
	// anything runs on it.
	Fence func(conn driver.Conn, authorize bool) error
}

// VFSLookup is the client's VFS (nil when it cannot use a Go VFS).
func (c *SQLClient) VFSLookup() func(string) bool { return c.VFS }

func (c *SQLClient) Name() string                       { return c.ClientName }
func (c *SQLClient) Engine() string                     { return c.EngineName }
func (c *SQLClient) API() string                        { return "database/sql" }
func (c *SQLClient) Module() string                     { return c.ModulePath }
func (c *SQLClient) Classify(err error) engine.ErrClass { return c.Native(err) }

func (c *SQLClient) Version() (string, error) {
	if c.ServerVersion != nil {
		return c.ServerVersion()
	}
	db := sql.OpenDB(&connector{drv: c.Driver, dsn: c.DSN(c.Scratch, PoolOptions{})})
	defer db.Close()
	var v string
	err := db.QueryRow(c.VersionSQL).Scan(&v)
	return v, err
}

// connector opens driver connections and runs the endpoint's Init
// statements on each, so that every driver gets the same settings however
// its DSN spells them.
type connector struct {
	drv    driver.Driver
	dsn    string
	init   []string
	fence  func(driver.Conn) error
	opened atomic.Int64
}

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	if c.fence != nil {
		if err := c.fence(conn); err != nil {
			conn.Close()
			return nil, err
		}
	}
	for _, p := range c.init {
		if err := execDriver(ctx, conn, p); err != nil {
			conn.Close()
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	c.opened.Add(1)
	return conn, nil
}

func (c *connector) Driver() driver.Driver { return c.drv }

func execDriver(ctx context.Context, conn driver.Conn, q string) error {
	// Pragmas like journal_mode return a row; run them as queries when the
	// driver can, so every driver steps them to completion.
	if qc, ok := conn.(driver.QueryerContext); ok {
		rows, err := qc.QueryContext(ctx, q, nil)
		if err == nil {
			dest := make([]driver.Value, len(rows.Columns()))
			for rows.Next(dest) == nil {
			}
			return rows.Close()
		}
		if err != driver.ErrSkip {
			return err
		}
	}
	if ec, ok := conn.(driver.ExecerContext); ok {
		if _, err := ec.ExecContext(ctx, q, nil); err != driver.ErrSkip {
			return err
		}
	}
	st, err := conn.Prepare(q)
	if err != nil {
		return err
	}
	defer st.Close()
	_, err = st.Exec(nil) //nolint:staticcheck // fallback for old drivers
	return err
}

func (c *SQLClient) Open(ctx context.Context, ep engine.Endpoint, p PoolOptions) (DB, error) {
	cn := &connector{drv: c.Driver, dsn: c.DSN(ep, p), init: ep.Init}
	if c.Fence != nil {
		cn.fence = func(conn driver.Conn) error { return c.Fence(conn, !ep.Trusted) }
	}
	db := sql.OpenDB(cn)
	if ep.InMemory && p.MaxOpen > 0 {
		// The connection that keeps an in-memory database alive is held
		// apart (as the direct clients do): --pool counts the others.
		db.SetMaxOpenConns(p.MaxOpen + 1)
	} else {
		db.SetMaxOpenConns(p.MaxOpen)
	}
	switch {
	case p.ConnPerOp:
		db.SetMaxIdleConns(-1) // keep none: every operation opens a connection
	case p.MaxOpen > 0:
		db.SetMaxIdleConns(p.MaxOpen)
	default:
		db.SetMaxIdleConns(1 << 16)
	}
	s := &sqlDB{db: db, c: cn}
	if ep.InMemory {
		// Hold one connection for the run so the in-memory database lives.
		keep, err := db.Conn(ctx)
		if err != nil {
			db.Close()
			return nil, err
		}
		s.keep = keep
	} else if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

type sqlDB struct {
	db   *sql.DB
	c    *connector
	keep *sql.Conn
}

func (d *sqlDB) OpenedConns() int64 { return d.c.opened.Load() }

func (d *sqlDB) Exec(ctx context.Context, q string, a *Args) error {
	if err := a.Err(); err != nil {
		return err
	}
	_, err := d.db.ExecContext(ctx, q, a.Values()...)
	return err
}

func (d *sqlDB) Query(ctx context.Context, q string, a *Args, fn func(Row) error) error {
	if err := a.Err(); err != nil {
		return err
	}
	rows, err := d.db.QueryContext(ctx, q, a.Values()...)
	return drain(ctx, rows, err, fn)
}

// drain hands every row of a query that returned rows (or err) to fn.
func drain(ctx context.Context, rows *sql.Rows, err error, fn func(Row) error) error {
	if err != nil {
		return err
	}
	queryReturned(ctx)
	for rows.Next() {
		if err := fn(rows); err != nil {
			rows.Close()
			if isStop(err) {
				return nil
			}
			return err
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return err
	}
	return rows.Close()
}

func (d *sqlDB) Prepare(ctx context.Context, q string) (Stmt, error) {
	st, err := d.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	return sqlStmt{st}, nil
}

func (d *sqlDB) Begin(ctx context.Context) (Tx, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return sqlTx{tx}, nil
}

func (d *sqlDB) Close() error {
	if d.keep != nil {
		d.keep.Close()
	}
	return d.db.Close()
}

type sqlStmt struct{ st *sql.Stmt }

func (s sqlStmt) Exec(ctx context.Context, a *Args) error {
	if err := a.Err(); err != nil {
		return err
	}
	_, err := s.st.ExecContext(ctx, a.Values()...)
	return err
}

func (s sqlStmt) Query(ctx context.Context, a *Args, fn func(Row) error) error {
	if err := a.Err(); err != nil {
		return err
	}
	rows, err := s.st.QueryContext(ctx, a.Values()...)
	return drain(ctx, rows, err, fn)
}

func (s sqlStmt) Close() error { return s.st.Close() }

type sqlTx struct{ tx *sql.Tx }

func (t sqlTx) Exec(ctx context.Context, q string, a *Args) error {
	if err := a.Err(); err != nil {
		return err
	}
	_, err := t.tx.ExecContext(ctx, q, a.Values()...)
	return err
}

func (t sqlTx) Query(ctx context.Context, q string, a *Args, fn func(Row) error) error {
	if err := a.Err(); err != nil {
		return err
	}
	rows, err := t.tx.QueryContext(ctx, q, a.Values()...)
	return drain(ctx, rows, err, fn)
}

// errForeign is returned for a statement that another DB prepared.
var errForeign = errors.New("statement was prepared by another pool")

func (t sqlTx) Stmt(s Stmt) (Stmt, error) {
	st, ok := s.(sqlStmt)
	if !ok {
		return nil, errForeign
	}
	// database/sql reuses the statement when it was already prepared on the
	// transaction's connection.
	return sqlTxStmt{sqlStmt{t.tx.Stmt(st.st)}}, nil
}

func (t sqlTx) Commit() error   { return t.tx.Commit() }
func (t sqlTx) Rollback() error { return t.tx.Rollback() }

// sqlTxStmt is a transaction's view of a statement; closing it must not close
// the parent, which database/sql handles itself.
type sqlTxStmt struct{ sqlStmt }

func (s sqlTxStmt) Close() error { return nil }
