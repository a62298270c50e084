// Package zombie registers zombiezen.com/go/sqlite (direct API over the
// modernc translation of SQLite).
package zombie

import (
	"context"
	"fmt"

	"zombiezen.com/go/sqlite"

	"litebench/internal/target"
)

func init() {
	target.Register(&target.DirectTarget{
		TName:   "zombie",
		TModule: "zombiezen.com/go/sqlite",
		Version: func() string { return sqlite.Version },
		OpenConn: func(o target.Options) (target.RawConn, error) {
			flags := sqlite.OpenURI | sqlite.OpenNoMutex
			if o.ReadOnly || o.Immutable {
				flags |= sqlite.OpenReadOnly
			} else {
				flags |= sqlite.OpenReadWrite | sqlite.OpenCreate
			}
			c, err := sqlite.OpenConn(o.URI(), flags)
			if err != nil {
				return nil, err
			}
			return conn{c}, nil
		},
		ErrCode: func(err error) int { return int(sqlite.ErrCode(err)) },
	})
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
	st, _, err := c.c.PrepareTransient(q)
	if err != nil {
		return err
	}
	for {
		more, err := st.Step()
		if err != nil {
			st.Finalize()
			return err
		}
		if !more {
			break
		}
	}
	return st.Finalize()
}

func (c conn) Close() error { return c.c.Close() }

// SetInterrupt stops statements in progress once ctx is done.
func (c conn) SetInterrupt(ctx context.Context) { c.c.SetInterrupt(ctx.Done()) }

type stmt struct{ s *sqlite.Stmt }

func (s stmt) Bind(args []any) error {
	for i, a := range args {
		switch v := a.(type) {
		case int64:
			s.s.BindInt64(i+1, v)
		case int:
			s.s.BindInt64(i+1, int64(v))
		case string:
			s.s.BindText(i+1, v)
		case []byte:
			s.s.BindBytes(i+1, v)
		case float64:
			s.s.BindFloat(i+1, v)
		case nil:
			s.s.BindNull(i + 1)
		default:
			return fmt.Errorf("zombie: cannot bind %T", a)
		}
	}
	return nil // bind errors surface from Step
}

func (s stmt) Step() (bool, error) { return s.s.Step() }

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
			n := s.s.ColumnLen(i)
			if cap(*p) < n {
				*p = make([]byte, n)
			}
			*p = (*p)[:n]
			s.s.ColumnBytes(i, *p)
		case *float64:
			*p = s.s.ColumnFloat(i)
		default:
			return fmt.Errorf("zombie: cannot scan into %T", d)
		}
	}
	return nil
}

func (s stmt) Reset() error {
	err := s.s.Reset()
	s.s.ClearBindings()
	return err
}

func (s stmt) Close() error { return s.s.Finalize() }
