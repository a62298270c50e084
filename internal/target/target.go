// Package target is what a user names with --target: an engine (what
// stores the data, package engine), a client that speaks it (a driver and
// its API: mattn, modernc, ncruces, ncruces-direct, zombie) and a placement
// (where the client runs: in the litebench process today). Clients register
// here by name, each saying which engine it speaks.
//
// Two shapes of client meet here: database/sql drivers (their own pool,
// *sql.Stmt) and direct APIs (a connection, prepare/bind/step). Both are
// presented as a DB with the same semantics: the DB is a pool, Exec/Query
// borrow a connection for one statement, a Stmt is prepared once per
// connection and reused, a Tx pins one connection until Commit. Arguments
// are typed (Args) and bound without allocating.
//
// Above the clients, a Session applies the application-side settings that
// every workload gets alike: the pool size, a connection per operation, a
// single writer connection, a write mutex, prepared statements (cached per
// connection and per transaction) and busy retries.
package target

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/litebench/litebench/internal/engine"
)

// Stop, returned by a query's row function, ends the query after that row
// without an error and without reading further (a point read by key: no
// step to find that there is no second row).
var Stop error = &stopRows{"stop reading rows"}

// stopRows is Stop's type, of which Stop is the only value: the pools
// tell Stop by its type (isStop), one comparison of type words, where
// comparing two errors calls the runtime.
type stopRows struct{ msg string }

func (e *stopRows) Error() string { return e.msg }

func isStop(err error) bool {
	_, ok := err.(*stopRows)
	return ok
}

// Row gives access to the current row of a query.
type Row interface {
	// Scan copies columns into dest, which holds *int64, *int, *string,
	// *[]byte or *float64 values.
	Scan(dest ...any) error
}

// Stmt is a prepared statement usable from any connection of its DB.
type Stmt interface {
	Exec(ctx context.Context, a *Args) error
	Query(ctx context.Context, a *Args, fn func(Row) error) error
	Close() error
}

// Repeater is a Stmt that runs itself many times over in one call: once
// per per values of vals (the values as generated, Args.Boxed's), calling
// done after each run that succeeded, with the number of that run (from
// 0). It returns at the first error, done not called for that run. The
// insert path uses it for a transaction's statements: one short loop per
// row instead of the layers of an Exec, whose code would crowd the
// driver's out of the instruction cache.
type Repeater interface {
	Stmt
	Repeat(ctx context.Context, vals []any, per int, done func(run int)) error
}

// KeyReader is a Stmt of one integer parameter that reads at most one row
// (a point read by primary key) in one call: ReadKey binds key, steps
// once, scans the row into dest as Scan does, and resets, reporting
// whether there was a row. It is what Query with a function that scans
// and returns Stop does, without the layers between: the read path's
// operation, whose harness would otherwise cost as much as a tenth of a
// point read.
type KeyReader interface {
	Stmt
	ReadKey(ctx context.Context, key int64, dest []any) (found bool, err error)
}

// Execer runs SQL on a DB (borrowing a connection) or a Tx (on its own).
// A nil *Args means no arguments.
type Execer interface {
	Exec(ctx context.Context, query string, a *Args) error
	Query(ctx context.Context, query string, a *Args, fn func(Row) error) error
}

// Tx is a transaction pinned to one connection. It must not be used after
// Commit or Rollback.
type Tx interface {
	Execer
	// Stmt returns s bound to the transaction's connection; s must come
	// from the DB that began the transaction.
	Stmt(s Stmt) (Stmt, error)
	Commit() error
	Rollback() error
}

// DB is a pool of connections to one database.
type DB interface {
	Execer
	Prepare(ctx context.Context, query string) (Stmt, error)
	Begin(ctx context.Context) (Tx, error)
	// OpenedConns reports how many connections the pool has opened so far.
	OpenedConns() int64
	Close() error
}

// PoolOptions are how a client runs its pool.
type PoolOptions struct {
	MaxOpen     int  // most open connections; 0 = unlimited
	ConnPerOp   bool // keep no idle connection: every borrow opens one
	TxImmediate bool // transactions take the write lock when they begin
	TxExclusive bool // transactions take the exclusive lock when they begin
}

// Client is how statements are issued: a driver and its API.
type Client interface {
	Name() string
	// Engine names the engine the client speaks.
	Engine() string
	// API is "database/sql" or "direct".
	API() string
	// Module is the Go module that provides the driver.
	Module() string
	// Version is the engine's version as this client links or reaches it.
	Version() (string, error)
	Open(ctx context.Context, ep engine.Endpoint, p PoolOptions) (DB, error)
	// Classify reads the engine's error code in err (engine.None when err
	// carries none).
	Classify(err error) engine.ErrClass
}

// Placement is where a client runs.
type Placement string

// InProcess runs the client in the litebench process.
const InProcess Placement = "in-process"

// IsProcess reports whether p runs the client in a process of its own.
func (p Placement) IsProcess() bool { return p != InProcess && p != "" }

// Language is the language the client runs in: its worker's
// ("process:python"), or Go (in this process, or a 'litebench worker'
// child).
func (p Placement) Language() string {
	if l, ok := strings.CutPrefix(string(p), "process:"); ok {
		return l
	}
	return "go"
}

// Target is engine × client × placement, what a user names.
type Target interface {
	Name() string
	Engine() engine.Engine
	Client() Client
	Placement() Placement
	API() string
	Module() string
	// Version is the engine's version as the client sees it.
	Version() (string, error)
	Open(ctx context.Context, ep engine.Endpoint, p PoolOptions) (DB, error)
	// Classify names the kind of a failed statement's error.
	Classify(err error) engine.ErrClass
}

// New returns the target of client c speaking engine e, placed at p.
func New(e engine.Engine, c Client, p Placement) Target { return &resolved{e: e, c: c, p: p} }

type resolved struct {
	e engine.Engine
	c Client
	p Placement
}

func (t *resolved) Name() string             { return t.c.Name() }
func (t *resolved) Engine() engine.Engine    { return t.e }
func (t *resolved) Client() Client           { return t.c }
func (t *resolved) Placement() Placement     { return t.p }
func (t *resolved) API() string              { return t.c.API() }
func (t *resolved) Module() string           { return t.c.Module() }
func (t *resolved) Version() (string, error) { return t.c.Version() }

func (t *resolved) Open(ctx context.Context, ep engine.Endpoint, p PoolOptions) (DB, error) {
	return t.c.Open(ctx, ep, p)
}

func (t *resolved) Classify(err error) engine.ErrClass { return engine.Classify(err, t.c.Classify) }

// Unavailable describes a client that is known but not in this build.
type Unavailable struct {
	Name, Engine, API, Module, Reason string
}

var (
	mu          sync.Mutex
	registry    = map[string]Client{}
	unavailable = map[string]Unavailable{}
)

// Register adds a client; it panics on a duplicate name.
func Register(c Client) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[c.Name()]; dup {
		panic("target: duplicate " + c.Name())
	}
	registry[c.Name()] = c
	delete(unavailable, c.Name())
}

// RegisterUnavailable records a known client that this build lacks.
func RegisterUnavailable(u Unavailable) {
	mu.Lock()
	defer mu.Unlock()
	if _, ok := registry[u.Name]; !ok {
		unavailable[u.Name] = u
	}
}

// ErrUnknown is returned by Get for a name that is not registered.
var ErrUnknown = errors.New("unknown target")

// Get resolves a target name: today a client's name, run in-process on
// the engine the client speaks.
func Get(name string) (Target, error) {
	mu.Lock()
	c, ok := registry[name]
	u, known := unavailable[name]
	names := namesLocked()
	mu.Unlock()
	if !ok {
		if known {
			return nil, fmt.Errorf("target %q is not in this build: %s", name, u.Reason)
		}
		return nil, fmt.Errorf("%w %q (known: %s; see 'litebench list targets')", ErrUnknown, name, strings.Join(names, ", "))
	}
	e, err := engine.Get(c.Engine())
	if err != nil {
		return nil, fmt.Errorf("target %q: %w", name, err)
	}
	if b, ok := c.(EngineBinder); ok {
		e = b.BindEngine(e)
	}
	p := InProcess
	if x, ok := c.(External); ok {
		p = x.Placement()
	}
	return New(e, c, p), nil
}

// EngineBinder is a client that brings part of the engine it speaks: Get
// resolves its target to BindEngine(e), e being the registry's engine of
// that name. The dqlite client binds its worker binary as the program of
// the cluster's nodes (dqlite.WithNodes).
type EngineBinder interface {
	BindEngine(e engine.Engine) engine.Engine
}

// External is a client that runs in a worker process of its own (another
// language, or a Go driver that cannot link with the others): Open is
// refused, and the runner starts Command instead, speaking the worker
// protocol with it.
type External interface {
	Client
	// Placement names where it runs, e.g. "process:python".
	Placement() Placement
	// Lang is the worker's language and runtime.
	Lang() string
	// Command is the worker's command line.
	Command() ([]string, error)
}

func namesLocked() []string {
	var names []string
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// InProcessNames returns the names of the targets whose clients run in
// this process and open a database here (a file or memory; not the
// clients of a server engine), sorted.
func InProcessNames() []string {
	mu.Lock()
	defer mu.Unlock()
	var names []string
	for _, n := range namesLocked() {
		if _, ext := registry[n].(External); ext {
			continue
		}
		if !servedLocked(n) {
			names = append(names, n)
		}
	}
	return names
}

// ServerNames returns the names of the targets whose engine is a server,
// sorted.
func ServerNames() []string {
	mu.Lock()
	defer mu.Unlock()
	var names []string
	for _, n := range namesLocked() {
		if servedLocked(n) {
			names = append(names, n)
		}
	}
	return names
}

func servedLocked(n string) bool {
	e, err := engine.Get(registry[n].Engine())
	return err == nil && engine.IsServed(e)
}

// Names returns the registered target names, sorted.
func Names() []string {
	mu.Lock()
	defer mu.Unlock()
	return namesLocked()
}

// All returns the targets of this build and the unavailable ones, sorted
// by name.
func All() ([]Target, []Unavailable) {
	var ts []Target
	for _, n := range Names() {
		if t, err := Get(n); err == nil {
			ts = append(ts, t)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	var us []Unavailable
	for _, u := range unavailable {
		us = append(us, u)
	}
	sort.Slice(us, func(i, j int) bool { return us[i].Name < us[j].Name })
	return ts, us
}

type queryReturnedKey struct{}

// queryReturnedLive counts the contexts of WithQueryReturned not yet
// released. While there are none, queryReturned skips the lookup: looking
// a value up in a context walks its chain, and through a
// context.WithoutCancel (which the workloads' statements run under) it
// also allocates, which a point read would pay on every operation for a
// hook only scan sets. Counted, not latched: a run after a scan in the
// same process (a suite, a sweep) does not pay it either.
var queryReturnedLive atomic.Int64

// WithQueryReturned returns a context under which Query calls fn once the
// query has been handed to the engine and returned, before the first row
// is read (sqlite3perf's "time after query"), and the function to call
// once the query is over.
func WithQueryReturned(ctx context.Context, fn func()) (context.Context, func()) {
	queryReturnedLive.Add(1)
	var once sync.Once
	return context.WithValue(ctx, queryReturnedKey{}, fn), func() { once.Do(func() { queryReturnedLive.Add(-1) }) }
}

// QueryReturned calls the function WithQueryReturned put in ctx, if any
// (for clients outside this package).
func QueryReturned(ctx context.Context) { queryReturned(ctx) }

// queryReturned is small enough to be inlined where a query runs: the
// look-up in ctx is made only while a hook is live.
func queryReturned(ctx context.Context) {
	if queryReturnedLive.Load() != 0 {
		callQueryReturned(ctx)
	}
}

func callQueryReturned(ctx context.Context) {
	if fn, ok := ctx.Value(queryReturnedKey{}).(func()); ok {
		fn()
	}
}

// SQL adapts a DB to what an engine needs to stamp and inspect its
// instance.
func SQL(db DB) engine.SQL { return inspector{db} }

type inspector struct{ db DB }

func (i inspector) Exec(ctx context.Context, q string) error { return i.db.Exec(ctx, q, nil) }

func (i inspector) Strings(ctx context.Context, q string) ([]string, error) {
	var out []string
	var s string
	err := i.db.Query(ctx, q, nil, func(r Row) error {
		if err := r.Scan(&s); err != nil {
			return err
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

// Default is the target commands use when --target is not given: mattn
// (SQLite's C code through cgo, the most used Go driver), or, in a build
// without cgo, modernc (the same C translated to Go).
func Default() string {
	mu.Lock()
	defer mu.Unlock()
	for _, n := range []string{"mattn", "modernc"} {
		if _, ok := registry[n]; ok {
			return n
		}
	}
	return "mattn"
}
