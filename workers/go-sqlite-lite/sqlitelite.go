package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/bvinc/go-sqlite-lite/sqlite3"

	"github.com/litebench/litebench/internal/sqlfence"
	"github.com/litebench/litebench/internal/target"
)

// Name is the target's name; module the driver's Go module.
const (
	Name   = "go-sqlite-lite"
	module = "github.com/bvinc/go-sqlite-lite"
)

func init() {
	target.Register(target.SQLiteDirect(Name, module, sqlite3.Version, open, errCode))
}

// errCode is SQLite's (extended) result code in err, 0 when err carries
// none.
func errCode(err error) int {
	var e *sqlite3.Error
	if errors.As(err, &e) {
		return e.Code()
	}
	return 0
}

// open opens one connection, read-write-create or read-only, on a URI
// filename, without the connection mutex (the pool lends a connection to
// one goroutine at a time). The driver sets no busy timeout of its own:
// the pool runs the endpoint's pragmas, busy_timeout included, on every
// connection. It is fenced as the other SQLite clients are (sqlfence):
// the limit on attached databases always, the authorizer for workloads
// the user wrote.
func open(uri string, readOnly, authorize bool) (target.RawConn, error) {
	flags := sqlite3.OPEN_URI | sqlite3.OPEN_NOMUTEX
	if readOnly {
		flags |= sqlite3.OPEN_READONLY
	} else {
		flags |= sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE
	}
	c, err := sqlite3.Open(uri, flags)
	if err != nil {
		return nil, err
	}
	c.Limit(sqlite3.LIMIT_ATTACHED, sqlfence.AttachLimit)
	if authorize {
		c.AuthorizerFunc(func(op int, arg1, arg2, _, _ sqlite3.RawString) int {
			return sqlfence.Authorize(op, string(arg1), string(arg2))
		})
	}
	return &conn{c: c}, nil
}

type conn struct {
	c *sqlite3.Conn
	// The interruption in place: stop ends it, done is closed once its
	// function has run or will never run.
	stop func() bool
	done chan struct{}
}

// errEmpty refuses SQL holding no statement (the driver prepares nothing).
var errEmpty = errors.New("go-sqlite-lite: the SQL holds no statement")

func (c *conn) Prepare(q string) (target.RawStmt, error) {
	st, err := c.c.Prepare(q)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, errEmpty
	}
	return &stmt{s: st, args: make([]any, st.BindParameterCount()), fresh: true}, nil
}

// ExecScript runs q with sqlite3_exec (every statement in it, to its end).
func (c *conn) ExecScript(q string) error { return c.c.Exec(q) }

func (c *conn) Close() error {
	c.SetInterrupt(context.Background())
	return c.c.Close()
}

// SetInterrupt stops statements in progress once ctx is done
// (sqlite3_interrupt); context.Background() ends the previous
// interruption, waiting for it if it has begun, so that it cannot land on
// a later statement.
func (c *conn) SetInterrupt(ctx context.Context) {
	if c.stop != nil {
		if !c.stop() {
			<-c.done
		}
		c.stop, c.done = nil, nil
	}
	if ctx.Done() == nil {
		return
	}
	done := make(chan struct{})
	c.done = done
	c.stop = context.AfterFunc(ctx, func() {
		c.c.Interrupt()
		close(done)
	})
}

// stmt adapts *sqlite3.Stmt to target.RawStmt. The driver binds a
// statement's parameters in one call (Bind, from parameter 1), which
// BindValues makes with the harness's values as they are (boxed once,
// when generated); values bound one by one are kept and bound by the
// first Step. Either way a parameter given no value is bound NULL, which
// is what clearing the bindings would have left there. Errors of the
// one-by-one binds surface from Step.
type stmt struct {
	s     *sqlite3.Stmt
	args  []any // by parameter - 1; nil binds NULL
	fresh bool  // no Step since Reset: the next one binds args
	err   error // a value bound to a parameter the statement lacks
}

func (s *stmt) set(i int, v any) error {
	if i < 1 || i > len(s.args) {
		s.err = fmt.Errorf("go-sqlite-lite: parameter %d of a statement with %d", i, len(s.args))
		return nil
	}
	s.args[i-1] = v
	return nil
}

// BindValues binds vals now (target.ValuesBinder).
func (s *stmt) BindValues(vals []any) error {
	s.fresh = false
	if len(vals) > len(s.args) {
		return fmt.Errorf("go-sqlite-lite: %d values for a statement with %d parameters", len(vals), len(s.args))
	}
	if len(vals) < len(s.args) {
		copy(s.args, vals)
		clear(s.args[len(vals):])
		vals = s.args
	}
	return s.s.Bind(vals...)
}

func (s *stmt) BindNull(i int) error             { return s.set(i, nil) }
func (s *stmt) BindInt64(i int, v int64) error   { return s.set(i, v) }
func (s *stmt) BindFloat(i int, v float64) error { return s.set(i, v) }
func (s *stmt) BindText(i int, v string) error   { return s.set(i, v) }
func (s *stmt) BindBlob(i int, v []byte) error   { return s.set(i, v) }

func (s *stmt) Step() (bool, error) {
	if s.fresh {
		s.fresh = false
		if s.err != nil {
			return false, s.err
		}
		if err := s.s.Bind(s.args...); err != nil {
			return false, err
		}
	}
	return s.s.Step()
}

func (s *stmt) ColumnInt64(i int) int64 {
	v, _, _ := s.s.ColumnInt64(i)
	return v
}

func (s *stmt) ColumnFloat(i int) float64 {
	v, _, _ := s.s.ColumnDouble(i)
	return v
}

func (s *stmt) ColumnText(i int) string {
	v, _, _ := s.s.ColumnText(i)
	return v
}

// AppendColumn appends the column's bytes without the driver's copy.
func (s *stmt) AppendColumn(i int, dst []byte) []byte {
	b, _ := s.s.ColumnRawBytes(i)
	return append(dst, b...)
}

func (s *stmt) Reset() error {
	clear(s.args)
	s.fresh, s.err = true, nil
	return s.s.Reset()
}

func (s *stmt) Close() error { return s.s.Close() }

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
			more, err := s.s.Step()
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
	if len(s.args) == 0 {
		return false, fmt.Errorf("go-sqlite-lite: a key for a statement with no parameter")
	}
	s.args[0] = key
	s.fresh = false
	more := false
	err := s.s.Bind(s.args...)
	if err == nil {
		more, err = s.s.Step()
	}
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
			*p = s.ColumnInt64(i)
		} else if err = target.ScanColumn(s, i, d); err != nil {
			break
		}
	}
	s.Reset()
	return true, err
}
