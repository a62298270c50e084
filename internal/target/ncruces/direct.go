// Package ncruces registers github.com/ncruces/go-sqlite3 (SQLite compiled
// to WebAssembly, run by wazero): its direct API as "ncruces-direct" and, in
// builds tagged ncrucessql, its database/sql driver as "ncruces".
package ncruces

import (
	"context"
	"errors"
	"fmt"

	"github.com/ncruces/go-sqlite3"

	"litebench/internal/target"
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
	target.Register(&target.DirectTarget{
		TName:   "ncruces-direct",
		TModule: module,
		Version: func() string { return versionOnce() },
		OpenConn: func(o target.Options) (target.RawConn, error) {
			flags := sqlite3.OPEN_URI | sqlite3.OPEN_NOMUTEX
			if o.ReadOnly || o.Immutable {
				flags |= sqlite3.OPEN_READONLY
			} else {
				flags |= sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE
			}
			c, err := sqlite3.OpenFlags(o.URI(), flags)
			if err != nil {
				return nil, err
			}
			return conn{c}, nil
		},
		ErrCode: errCode,
	})
}

var version string

func versionOnce() string {
	if version != "" {
		return version
	}
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
	if st.Step() {
		version = st.ColumnText(0)
	}
	return version
}

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

type stmt struct{ s *sqlite3.Stmt }

func (s stmt) Bind(args []any) error {
	for i, a := range args {
		var err error
		switch v := a.(type) {
		case int64:
			err = s.s.BindInt64(i+1, v)
		case int:
			err = s.s.BindInt64(i+1, int64(v))
		case string:
			err = s.s.BindText(i+1, v)
		case []byte:
			err = s.s.BindBlob(i+1, v)
		case float64:
			err = s.s.BindFloat(i+1, v)
		case nil:
			err = s.s.BindNull(i + 1)
		default:
			err = fmt.Errorf("ncruces: cannot bind %T", a)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (s stmt) Step() (bool, error) {
	if s.s.Step() {
		return true, nil
	}
	return false, s.s.Err()
}

func (s stmt) Scan(dest []any) error {
	for i, d := range dest {
		switch p := d.(type) {
		case *int64:
			*p = s.s.ColumnInt64(i)
		case *int:
			*p = int(s.s.ColumnInt64(i))
		case *string:
			*p = s.s.ColumnText(i)
		case *[]byte:
			*p = s.s.ColumnBlob(i, (*p)[:0])
		case *float64:
			*p = s.s.ColumnFloat(i)
		default:
			return fmt.Errorf("ncruces: cannot scan into %T", d)
		}
	}
	return nil
}

func (s stmt) Reset() error {
	err := s.s.Reset()
	s.s.ClearBindings()
	return err
}

func (s stmt) Close() error { return s.s.Close() }
