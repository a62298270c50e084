// Package target defines what executes SQL for a run — a driver and its API
// mode — and the registry in which targets register by name.
//
// Two shapes of driver meet here: database/sql drivers (their own pool,
// *sql.Stmt) and direct APIs (a connection, prepare/bind/step). Both are
// presented as a DB with the same semantics: the DB is a pool, Exec/Query
// borrow a connection for one statement, a Stmt is prepared once per
// connection and reused, a Tx pins one connection until Commit.
package target

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
)

// Options is how a DB is opened. It is rendered from settings by the caller.
type Options struct {
	Path        string   // database file
	Memory      bool     // in-memory database named by Path
	ReadOnly    bool     // open read-only
	Immutable   bool     // open with immutable=1 (implies read-only)
	SharedCache bool     // cache=shared
	Pragmas     []string // run, in order, on every new connection
	MaxOpen     int      // 0 = unlimited
	ConnPerOp   bool     // no idle connections are kept: every borrow opens one
	TxImmediate bool     // transactions start with BEGIN IMMEDIATE
}

// URI renders the SQLite URI filename for the options.
func (o Options) URI() string {
	q := ""
	add := func(kv string) {
		if q == "" {
			q = "?" + kv
		} else {
			q += "&" + kv
		}
	}
	if o.Memory {
		add("mode=memory")
	} else if o.Immutable {
		add("immutable=1")
		add("mode=ro")
	} else if o.ReadOnly {
		add("mode=ro")
	}
	if o.SharedCache || o.Memory {
		// An in-memory database is private to its connection unless the
		// cache is shared; a pool needs every connection to see it.
		add("cache=shared")
	}
	return "file:" + escapePath(o.Path) + q
}

func escapePath(p string) string {
	// '?' and '#' end the path part of a URI; '%' starts an escape.
	out := make([]byte, 0, len(p))
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '?', '#', '%':
			out = append(out, fmt.Sprintf("%%%02X", c)...)
		default:
			out = append(out, c)
		}
	}
	return string(out)
}

// Row gives access to the current row of a query.
type Row interface {
	// Scan copies columns into dest, which holds *int64, *int, *string,
	// *[]byte or *float64 values.
	Scan(dest ...any) error
}

// Stmt is a prepared statement usable from any connection of its DB.
type Stmt interface {
	Exec(ctx context.Context, args ...any) error
	Query(ctx context.Context, args []any, fn func(Row) error) error
	Close() error
}

// Execer runs SQL on a DB (borrowing a connection) or a Tx (on its own).
type Execer interface {
	Exec(ctx context.Context, query string, args ...any) error
	Query(ctx context.Context, query string, args []any, fn func(Row) error) error
}

// Tx is a transaction pinned to one connection.
type Tx interface {
	Execer
	// Stmt returns s bound to the transaction's connection.
	Stmt(s Stmt) Stmt
	Commit() error
	Rollback() error
}

// DB is a pool of connections to one database.
type DB interface {
	Execer
	Prepare(ctx context.Context, query string) (Stmt, error)
	Begin(ctx context.Context) (Tx, error)
	// Stats reports how many connections the pool has opened so far.
	OpenedConns() int64
	Close() error
}

// Target opens DBs. Implementations register themselves in init.
type Target interface {
	Name() string
	// API is "database/sql" or "direct".
	API() string
	// Module is the Go module that provides the driver.
	Module() string
	// SQLiteVersion is the bundled SQLite version.
	SQLiteVersion() (string, error)
	Open(ctx context.Context, o Options) (DB, error)
	// Code returns the primary SQLite result code of err, or 0.
	Code(err error) int
}

// Unavailable describes a target that is known but not in this binary.
type Unavailable struct {
	Name, API, Module, Reason string
}

var (
	mu          sync.Mutex
	registry    = map[string]Target{}
	unavailable = map[string]Unavailable{}
)

// Register adds t to the registry; it panics on a duplicate name.
func Register(t Target) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[t.Name()]; dup {
		panic("target: duplicate " + t.Name())
	}
	registry[t.Name()] = t
	delete(unavailable, t.Name())
}

// RegisterUnavailable records a known target that this build lacks.
func RegisterUnavailable(u Unavailable) {
	mu.Lock()
	defer mu.Unlock()
	if _, ok := registry[u.Name]; !ok {
		unavailable[u.Name] = u
	}
}

// ErrUnknown is returned by Get for a name that is not registered.
var ErrUnknown = errors.New("unknown target")

// Get returns the target registered under name.
func Get(name string) (Target, error) {
	mu.Lock()
	defer mu.Unlock()
	if t, ok := registry[name]; ok {
		return t, nil
	}
	if u, ok := unavailable[name]; ok {
		return nil, fmt.Errorf("target %q is not in this build: %s", name, u.Reason)
	}
	return nil, fmt.Errorf("%w %q (known: %s; see 'litebench list targets')", ErrUnknown, name, joinNames())
}

func joinNames() string {
	s := ""
	for i, n := range namesLocked() {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

func namesLocked() []string {
	var names []string
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Names returns the registered target names, sorted.
func Names() []string {
	mu.Lock()
	defer mu.Unlock()
	return namesLocked()
}

// All returns registered targets and unavailable ones, sorted by name.
func All() ([]Target, []Unavailable) {
	mu.Lock()
	defer mu.Unlock()
	var ts []Target
	for _, n := range namesLocked() {
		ts = append(ts, registry[n])
	}
	var us []Unavailable
	for _, u := range unavailable {
		us = append(us, u)
	}
	sort.Slice(us, func(i, j int) bool { return us[i].Name < us[j].Name })
	return ts, us
}

// SQLite primary result codes used to classify errors.
const (
	CodeBusy       = 5
	CodeLocked     = 6
	CodeConstraint = 19
)

// Classify names the kind of err for error counters: busy, locked,
// constraint, interrupted or other.
func Classify(t Target, err error) string {
	if err == nil {
		return ""
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "interrupted"
	}
	switch t.Code(err) & 0xff {
	case CodeBusy:
		return "busy"
	case CodeLocked:
		return "locked"
	case CodeConstraint:
		return "constraint"
	}
	return "other"
}

// Retryable reports whether err is SQLITE_BUSY or SQLITE_LOCKED.
func Retryable(t Target, err error) bool {
	c := t.Code(err) & 0xff
	return c == CodeBusy || c == CodeLocked
}

type queryReturnedKey struct{}

// WithQueryReturned returns a context under which Query calls fn once the
// query has been handed to SQLite and returned, before the first row is
// read (seed 000's "time after query").
func WithQueryReturned(ctx context.Context, fn func()) context.Context {
	return context.WithValue(ctx, queryReturnedKey{}, fn)
}

func queryReturned(ctx context.Context) {
	if fn, ok := ctx.Value(queryReturnedKey{}).(func()); ok {
		fn()
	}
}
