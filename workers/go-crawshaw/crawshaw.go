package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"crawshaw.io/sqlite"
	"crawshaw.io/sqlite/sqlitex"

	"github.com/litebench/litebench/internal/sqlfence"
	"github.com/litebench/litebench/internal/target"
)

// Name is the target's name; module the driver's Go module.
const (
	Name   = "go-crawshaw"
	module = "crawshaw.io/sqlite"
)

func init() {
	target.Register(target.SQLiteDirect(Name, module, libVersion, open,
		func(err error) int { return int(sqlite.ErrCode(err)) }))
}

// libVersion is the SQLite version the driver compiles in (it exports no
// constant for it), read once from an in-memory connection.
var libVersion = sync.OnceValue(func() string {
	c, err := sqlite.OpenConn(":memory:", sqlite.SQLITE_OPEN_READWRITE|sqlite.SQLITE_OPEN_MEMORY|sqlite.SQLITE_OPEN_NOMUTEX)
	if err != nil {
		return "unknown"
	}
	defer c.Close()
	v := "unknown"
	sqlitex.ExecTransient(c, "SELECT sqlite_version()", func(st *sqlite.Stmt) error { v = st.ColumnText(0); return nil })
	return v
})

// open opens one connection. Flags are given explicitly: crawshaw's
// default (0) also switches the database to WAL, which is the journal
// setting's business (the pool runs the endpoint's pragmas on every
// connection, busy_timeout included, which replaces the 10 s busy timeout
// OpenConn installs). crawshaw exposes sqlite3_limit but no authorizer:
// a connection is fenced by the limit on attached databases and, for
// workloads the user wrote, by the controller's check of their SQL
// (authorize is what other clients act on).
func open(uri string, readOnly, authorize bool) (target.RawConn, error) {
	flags := sqlite.SQLITE_OPEN_URI | sqlite.SQLITE_OPEN_NOMUTEX
	if readOnly {
		flags |= sqlite.SQLITE_OPEN_READONLY
	} else {
		flags |= sqlite.SQLITE_OPEN_READWRITE | sqlite.SQLITE_OPEN_CREATE
	}
	c, err := sqlite.OpenConn(uri, flags)
	if err != nil {
		return nil, err
	}
	c.Limit(sqlite.SQLITE_LIMIT_ATTACHED, sqlfence.AttachLimit)
	return conn{c}, nil
}

type conn struct{ c *sqlite.Conn }

func (c conn) Prepare(q string) (target.RawStmt, error) {
	st, _, err := c.c.PrepareTransient(q)
	if err != nil {
		return nil, err
	}
	return &stmt{s: st, params: st.BindParamCount()}, nil
}

// ExecScript runs one statement to its end (a statement followed by more
// SQL is refused).
func (c conn) ExecScript(q string) error { return sqlitex.ExecTransient(c.c, q, nil) }

func (c conn) Close() error { return c.c.Close() }

// SetInterrupt stops statements in progress once ctx is done.
func (c conn) SetInterrupt(ctx context.Context) { c.c.SetInterrupt(ctx.Done()) }

// errBlob refuses []byte arguments: crawshaw.io/sqlite v0.3.2's BindBytes
// binds them with sqlite3_bind_text, so they would be stored as TEXT, not
// as the BLOB every other target stores.
var errBlob = errors.New("go-crawshaw cannot bind a BLOB: crawshaw.io/sqlite v0.3.2 binds []byte as TEXT")

// stmt adapts *sqlite.Stmt to target.RawStmt. Bind errors surface from
// Step.
//
// Reset does not call sqlite3_clear_bindings (a cgo call and an allocation
// in the driver per execution): every execution binds its parameters
// afresh, and the first Step binds NULL to any parameter above the last
// one bound since Reset, which is what clearing would have left there.
type stmt struct {
	s      *sqlite.Stmt
	params int // the statement's parameter count
	bound  int // the highest parameter bound since Reset
}

func (s *stmt) mark(i int) {
	if i > s.bound {
		s.bound = i
	}
}

// BindValues binds vals to parameters 1..len(vals) (target.ValuesBinder):
// one call per statement, each value bound by a type switch straight to
// the driver, instead of the harness converting values it holds as
// interfaces (the insert path's generated rows) to typed ones and binding
// each through an interface call. Parameters past len(vals) are bound NULL
// by Step, as for binds one by one.
func (s *stmt) BindValues(vals []any) error {
	if len(vals) > s.params {
		return fmt.Errorf("go-crawshaw: %d values for a statement with %d parameters", len(vals), s.params)
	}
	for k, v := range vals {
		i := k + 1
		// The generated rows' types first, each found by one comparison
		// (a switch over many types searches by the type's hash).
		if x, ok := v.(string); ok {
			s.s.BindText(i, x)
			continue
		}
		if x, ok := v.(int64); ok {
			s.s.BindInt64(i, x)
			continue
		}
		switch x := v.(type) {
		case float64:
			s.s.BindFloat(i, x)
		case int:
			s.s.BindInt64(i, int64(x))
		case nil:
			s.s.BindNull(i)
		case []byte:
			return errBlob
		default:
			return fmt.Errorf("cannot bind a %T", v)
		}
	}
	s.mark(len(vals))
	return nil
}

// RawValuesOnly makes BindValues a target.RawValuesBinder: a typed value
// (a point read's key) is bound by BindInt64 and the like, straight to
// the driver, rather than boxed for BindValues to unbox.
func (*stmt) RawValuesOnly() {}

func (s *stmt) BindNull(i int) error             { s.mark(i); s.s.BindNull(i); return nil }
func (s *stmt) BindInt64(i int, v int64) error   { s.mark(i); s.s.BindInt64(i, v); return nil }
func (s *stmt) BindFloat(i int, v float64) error { s.mark(i); s.s.BindFloat(i, v); return nil }
func (s *stmt) BindText(i int, v string) error   { s.mark(i); s.s.BindText(i, v); return nil }
func (s *stmt) BindBlob(int, []byte) error       { return errBlob }
func (s *stmt) ColumnInt64(i int) int64          { return s.s.ColumnInt64(i) }
func (s *stmt) ColumnFloat(i int) float64        { return s.s.ColumnFloat(i) }
func (s *stmt) ColumnText(i int) string          { return s.s.ColumnText(i) }
func (s *stmt) Close() error                     { return s.s.Finalize() }

func (s *stmt) Step() (bool, error) {
	for s.bound < s.params {
		s.bound++
		s.s.BindNull(s.bound)
	}
	return s.s.Step()
}

func (s *stmt) AppendColumn(i int, dst []byte) []byte {
	n := s.s.ColumnLen(i)
	dst = append(dst, make([]byte, n)...)
	s.s.ColumnBytes(i, dst[len(dst)-n:])
	return dst
}

func (s *stmt) Reset() error {
	s.bound = 0
	return s.s.Reset()
}

// RepeatValues is a target.RawRepeater: the insert path's loop over a
// transaction's statements, each bound, stepped and reset by direct
// calls into the driver.
func (s *stmt) RepeatValues(vals []any, per int, done func(int)) error {
	for run, off := 0, 0; off < len(vals); run, off = run+1, off+per {
		if err := s.BindValues(vals[off : off+per]); err != nil {
			s.Reset()
			return err
		}
		for {
			more, err := s.Step()
			if err != nil {
				s.Reset()
				return err
			}
			if !more {
				break
			}
		}
		if err := s.Reset(); err != nil {
			return err
		}
		done(run)
	}
	return nil
}

// ReadKey is a target.RawKeyReader: a point read by direct calls into the
// driver, the row's text and integer columns read without going through
// target.Columns.
func (s *stmt) ReadKey(key int64, dest []any) (bool, error) {
	s.mark(1)
	s.s.BindInt64(1, key)
	more, err := s.Step()
	if err != nil || !more {
		rerr := s.Reset()
		if err == nil {
			err = rerr
		}
		return false, err
	}
	for i, d := range dest {
		if p, ok := d.(*[]byte); ok {
			*p = s.AppendColumn(i, (*p)[:0])
		} else if p, ok := d.(*int64); ok {
			*p = s.s.ColumnInt64(i)
		} else if err = target.ScanColumn(s, i, d); err != nil {
			break
		}
	}
	s.Reset()
	return true, err
}
