// Package ncruces registers github.com/ncruces/go-sqlite3 (SQLite compiled
// to WebAssembly, run by wazero): its direct API as "ncruces-direct" and its
// database/sql driver as "ncruces".
package ncruces

import (
	"context"
	"errors"
	"sync"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/vfs"

	"github.com/litebench/litebench/internal/sqlfence"
	"github.com/litebench/litebench/internal/target"
)

const module = "github.com/ncruces/go-sqlite3"

func errCode(err error) int {
	var e *sqlite3.Error
	if errors.As(err, &e) {
		return int(e.ExtendedCode())
	}
	var c sqlite3.ErrorCode
	if errors.As(err, &c) {
		return int(c)
	}
	return 0
}

func init() {
	c := target.SQLiteDirect("ncruces-direct", module, version, open, errCode)
	c.VFS = hasVFS
	target.Register(c)
}

// hasVFS reports whether a VFS of that name is registered with ncruces'
// vfs package in this process.
func hasVFS(name string) bool { return vfs.Find(name) != nil }

func open(uri string, readOnly, authorize bool) (target.RawConn, error) {
	flags := sqlite3.OPEN_URI | sqlite3.OPEN_NOMUTEX
	if readOnly {
		flags |= sqlite3.OPEN_READONLY
	} else {
		flags |= sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE
	}
	c, err := sqlite3.OpenFlags(uri, flags)
	if err != nil {
		return nil, err
	}
	if err := fence(c, authorize); err != nil {
		c.Close()
		return nil, err
	}
	return conn{c}, nil
}

// fence confines a connection to its database: ncruces exposes both the
// authorizer and sqlite3_limit (and, compiled to WebAssembly, cannot
// load extensions at all).
func fence(c *sqlite3.Conn, authorize bool) error {
	c.Limit(sqlite3.LIMIT_ATTACHED, sqlfence.AttachLimit)
	if !authorize {
		return nil
	}
	return c.SetAuthorizer(func(action sqlite3.AuthorizerActionCode, name3rd, name4th, _, _ string) sqlite3.AuthorizerReturnCode {
		return sqlite3.AuthorizerReturnCode(sqlfence.Authorize(int(action), name3rd, name4th))
	})
}

// version asks the library once.
var version = sync.OnceValue(func() string {
	c, err := sqlite3.Open(":memory:")
	if err != nil {
		return "unknown"
	}
	defer c.Close()
	st, _, err := c.Prepare("select sqlite_version()")
	if err != nil {
		return "unknown"
	}
	defer st.Close()
	if !st.Step() {
		return "unknown"
	}
	return st.ColumnText(0)
})

type conn struct{ c *sqlite3.Conn }

func (c conn) Prepare(q string) (target.RawStmt, error) {
	st, _, err := c.c.Prepare(q)
	if err != nil {
		return nil, err
	}
	return stmt{st}, nil
}

func (c conn) ExecScript(q string) error { return c.c.Exec(q) }
func (c conn) Close() error              { return c.c.Close() }

// SetInterrupt stops statements in progress once ctx is done.
func (c conn) SetInterrupt(ctx context.Context) { c.c.SetInterrupt(ctx) }

// stmt adapts *sqlite3.Stmt to target.RawStmt; binding and column
// methods are the library's own.
type stmt struct{ *sqlite3.Stmt }

func (s stmt) Step() (bool, error) {
	if s.Stmt.Step() {
		return true, nil
	}
	return false, s.Stmt.Err()
}

func (s stmt) AppendColumn(i int, dst []byte) []byte { return s.ColumnBlob(i, dst) }

func (s stmt) Reset() error {
	err := s.Stmt.Reset()
	s.ClearBindings()
	return err
}
