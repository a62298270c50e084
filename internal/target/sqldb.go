package target

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"sync/atomic"
)

// SQLTarget is a Target over a database/sql driver. Drivers differ only in how
// the DSN is written and how errors carry codes; both are functions here.
type SQLTarget struct {
	TName   string
	TModule string
	Driver  driver.Driver
	// DSN renders the driver's connection string for o.
	DSN func(o Options) string
	// ErrCode extracts the primary/extended result code.
	ErrCode func(err error) int
}

func (t *SQLTarget) Name() string       { return t.TName }
func (t *SQLTarget) API() string        { return "database/sql" }
func (t *SQLTarget) Module() string     { return t.TModule }
func (t *SQLTarget) Code(err error) int { return t.ErrCode(err) }

func (t *SQLTarget) SQLiteVersion() (string, error) {
	db := sql.OpenDB(&connector{drv: t.Driver, dsn: t.DSN(Options{Path: "litebench-version", Memory: true})})
	defer db.Close()
	var v string
	err := db.QueryRow("select sqlite_version()").Scan(&v)
	return v, err
}

// connector opens driver connections and runs the pragmas on each, so that
// every driver gets the same settings however its DSN spells them.
type connector struct {
	drv     driver.Driver
	dsn     string
	pragmas []string
	opened  atomic.Int64
}

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	for _, p := range c.pragmas {
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

func (t *SQLTarget) Open(ctx context.Context, o Options) (DB, error) {
	c := &connector{drv: t.Driver, dsn: t.DSN(o), pragmas: o.Pragmas}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(o.MaxOpen)
	switch {
	case o.ConnPerOp:
		db.SetMaxIdleConns(-1) // keep none: every operation opens a connection
	case o.MaxOpen > 0:
		db.SetMaxIdleConns(o.MaxOpen)
	default:
		db.SetMaxIdleConns(1 << 16)
	}
	s := &sqlDB{db: db, c: c}
	if o.Memory {
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

func (d *sqlDB) Exec(ctx context.Context, q string, args ...any) error {
	_, err := d.db.ExecContext(ctx, q, args...)
	return err
}

func (d *sqlDB) Query(ctx context.Context, q string, args []any, fn func(Row) error) error {
	rows, err := d.db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	queryReturned(ctx)
	return drain(rows, fn)
}

func drain(rows *sql.Rows, fn func(Row) error) error {
	for rows.Next() {
		if err := fn(rows); err != nil {
			rows.Close()
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

func (s sqlStmt) Exec(ctx context.Context, args ...any) error {
	_, err := s.st.ExecContext(ctx, args...)
	return err
}

func (s sqlStmt) Query(ctx context.Context, args []any, fn func(Row) error) error {
	rows, err := s.st.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	queryReturned(ctx)
	return drain(rows, fn)
}

func (s sqlStmt) Close() error { return s.st.Close() }

type sqlTx struct{ tx *sql.Tx }

func (t sqlTx) Exec(ctx context.Context, q string, args ...any) error {
	_, err := t.tx.ExecContext(ctx, q, args...)
	return err
}

func (t sqlTx) Query(ctx context.Context, q string, args []any, fn func(Row) error) error {
	rows, err := t.tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	return drain(rows, fn)
}

func (t sqlTx) Stmt(s Stmt) Stmt {
	// database/sql reuses the statement when it was already prepared on the
	// transaction's connection.
	return sqlTxStmt{sqlStmt{t.tx.Stmt(s.(sqlStmt).st)}}
}

func (t sqlTx) Commit() error   { return t.tx.Commit() }
func (t sqlTx) Rollback() error { return t.tx.Rollback() }

// sqlTxStmt is a transaction's view of a statement; closing it must not close
// the parent, which database/sql handles itself.
type sqlTxStmt struct{ sqlStmt }

func (s sqlTxStmt) Close() error { return nil }
