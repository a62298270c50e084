// Package zombie registers zombiezen.com/go/sqlite (direct API over the
// modernc translation of SQLite).
package zombie

import (
	"context"

	"zombiezen.com/go/sqlite"

	"github.com/litebench/litebench/internal/sqlfence"
	"github.com/litebench/litebench/internal/target"
)

func init() {
	target.Register(target.SQLiteDirect("zombie", "zombiezen.com/go/sqlite",
		func() string { return sqlite.Version }, open,
		func(err error) int { return int(sqlite.ErrCode(err)) }))
}

func open(uri string, readOnly, authorize bool) (target.RawConn, error) {
	flags := sqlite.OpenURI | sqlite.OpenNoMutex
	if readOnly {
		flags |= sqlite.OpenReadOnly
	} else {
		flags |= sqlite.OpenReadWrite | sqlite.OpenCreate
	}
	c, err := sqlite.OpenConn(uri, flags)
	if err != nil {
		return nil, err
	}
	if err := fence(c, authorize); err != nil {
		c.Close()
		return nil, err
	}
	return conn{c}, nil
}

// fence confines a connection to its database: zombie exposes the
// authorizer and sqlite3_limit. Its authorizer does not show a function's
// name, so load_extension() is refused by SQLite itself: zombie never
// enables extension loading.
func fence(c *sqlite.Conn, authorize bool) error {
	c.Limit(sqlite.LimitAttached, sqlfence.AttachLimit)
	if !authorize {
		return nil
	}
	return c.SetAuthorizer(sqlite.AuthorizeFunc(func(a sqlite.Action) sqlite.AuthResult {
		switch a.Type() {
		case sqlite.OpAttach:
			return sqlite.AuthResult(sqlfence.Authorize(sqlfence.ActionAttach, a.File(), ""))
		case sqlite.OpDetach:
			return sqlite.AuthResultDeny
		}
		return sqlite.AuthResultOK
	}))
}

type conn struct{ c *sqlite.Conn }

func (c conn) Prepare(q string) (target.RawStmt, error) {
	st, _, err := c.c.PrepareTransient(q)
	if err != nil {
		return nil, err
	}
	return stmt{st}, nil
}

func (c conn) ExecScript(q string) error {
	st, err := c.Prepare(q)
	if err != nil {
		return err
	}
	for {
		more, err := st.Step()
		if err != nil {
			st.Close()
			return err
		}
		if !more {
			break
		}
	}
	return st.Close()
}

func (c conn) Close() error { return c.c.Close() }

// SetInterrupt stops statements in progress once ctx is done.
func (c conn) SetInterrupt(ctx context.Context) { c.c.SetInterrupt(ctx.Done()) }

// stmt adapts *sqlite.Stmt to target.RawStmt. Bind errors surface from
// Step.
type stmt struct{ s *sqlite.Stmt }

func (s stmt) BindNull(i int) error             { s.s.BindNull(i); return nil }
func (s stmt) BindInt64(i int, v int64) error   { s.s.BindInt64(i, v); return nil }
func (s stmt) BindFloat(i int, v float64) error { s.s.BindFloat(i, v); return nil }
func (s stmt) BindText(i int, v string) error   { s.s.BindText(i, v); return nil }
func (s stmt) BindBlob(i int, v []byte) error   { s.s.BindBytes(i, v); return nil }
func (s stmt) ColumnInt64(i int) int64          { return s.s.ColumnInt64(i) }
func (s stmt) ColumnFloat(i int) float64        { return s.s.ColumnFloat(i) }
func (s stmt) ColumnText(i int) string          { return s.s.ColumnText(i) }
func (s stmt) Step() (bool, error)              { return s.s.Step() }
func (s stmt) Close() error                     { return s.s.Finalize() }

func (s stmt) AppendColumn(i int, dst []byte) []byte {
	n := s.s.ColumnLen(i)
	dst = append(dst, make([]byte, n)...)
	s.s.ColumnBytes(i, dst[len(dst)-n:])
	return dst
}

func (s stmt) Reset() error {
	err := s.s.Reset()
	s.s.ClearBindings()
	return err
}
