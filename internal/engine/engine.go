// Package engine defines what stores the data of a run — SQLite today — as
// litebench sees it: an Engine provisions Instances, owns its own settings
// and error classes, and renders its SQL through a dialect; an Instance is
// one database a run uses, which litebench stamps, fingerprints, probes,
// checks and removes (only if litebench created it).
//
// Clients (package target) issue statements against an instance's
// Endpoint; they never decide where the database lives or whose it is.
package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/litebench/litebench/internal/own"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/settings"
)

// Engine provides and inspects database instances.
type Engine interface {
	// Name is the engine's name: "sqlite".
	Name() string
	// Dialect renders the engine's SQL.
	Dialect() dialect.Dialect
	// Settings are the engine's own settings (also registered with package
	// settings, under their flag names).
	Settings() []settings.Spec
	// Provision prepares the instance of one run. It refuses to replace
	// what litebench did not create.
	Provision(ctx context.Context, r Request) (Instance, error)
}

// Request says which instance a run wants.
type Request struct {
	Settings settings.Settings
	// Path names the database the user chose; empty means a new one of
	// litebench's own in Dir, named after Name.
	Path, Dir string
	// Name identifies the run (a run id): it names new instances.
	Name string
	// Reuse keeps the data already there (a workload that reads a kept
	// database); otherwise an existing database of litebench's is replaced.
	Reuse bool
	// Keep leaves the instance in place after Destroy.
	Keep bool
	// Kind is what litebench made such an instance as (its stamp and the
	// tables it may hold): only an instance of that kind is replaced or
	// removed. A request that neither replaces nor removes (Reuse and
	// Keep) may leave it unset.
	Kind own.Kind
	// Servers are the sweep's servers, for an engine whose instances live
	// on one (see Served); nil gives the run a server of its own.
	Servers *Servers
}

// Endpoint is what a client needs to connect to an instance.
type Endpoint struct {
	// Engine is the engine's name.
	Engine string
	// DSN is the connection string: a URI filename for SQLite.
	DSN string
	// File is the database file when the instance is one ("" otherwise).
	File string
	// ReadOnly: connections must not write.
	ReadOnly bool
	// InMemory: the database lives in this process only while a
	// connection holds it; a pool must keep one open for the run.
	InMemory bool
	// Init runs, in order, on every new connection (SQLite's pragmas).
	Init []string
	// Trusted says that all the SQL run here is litebench's own (a
	// built-in workload): SQLite clients then leave their authorizer off,
	// which costs on every statement prepared, and keep only the limit on
	// attached databases (see sqlfence). A workload the user wrote is
	// fenced by both, beside the controller's check of its text.
	Trusted bool
}

// Instance is one database a run uses.
type Instance interface {
	// String names the instance in messages (a path, a memory name).
	String() string
	// Endpoint is where the run's clients connect.
	Endpoint() Endpoint
	// ReadEndpoint is where read-only clients (a server's handles)
	// connect; immutable promises the data does not change while they
	// read.
	ReadEndpoint(immutable bool) Endpoint
	// Stamp marks the instance as litebench's, through a client.
	Stamp(ctx context.Context, db SQL) error
	// Fingerprint reads back what the instance runs, through the run's
	// client (compile options are the client's build).
	Fingerprint(ctx context.Context, db SQL) Fingerprint
	// Probe measures the instance's storage; false when there is nothing
	// to measure (an in-memory database).
	Probe() (Probe, bool)
	// Check verifies the instance's integrity; nil when it is sound.
	Check(ctx context.Context, db SQL) error
	// Destroy removes what Provision created, unless the request kept it.
	Destroy() error
}

// Fingerprint is what an instance runs, read back rather than assumed.
type Fingerprint struct {
	Version        string
	CompileOptions []string
	// InForce are settings as the engine reports them (journal_mode).
	InForce map[string]string
	// Notes name settings asked for that the engine does not run.
	Notes []string
}

// Probe is an instance's storage at one moment.
type Probe struct {
	// DB, WAL and SHM are the bytes of the database, its write-ahead log
	// and its shared-memory index.
	DB, WAL, SHM int64
	// WALSeq is the log's checkpoint sequence: it moves each time a
	// checkpoint completes and the log starts over. If it stops while the
	// log grows, checkpoints are starved.
	WALSeq int64
}

// SQL is the little an engine needs from a client to stamp and inspect an
// instance.
type SQL interface {
	Exec(ctx context.Context, query string) error
	// Strings returns the first column of every row of query.
	Strings(ctx context.Context, query string) ([]string, error)
}

// ErrClass is the kind of a failed statement, the same for every engine.
type ErrClass uint8

// Error classes. The zero value is no error.
const (
	None          ErrClass = iota
	Busy                   // the database is busy (SQLITE_BUSY)
	Locked                 // a table is locked (SQLITE_LOCKED)
	Serialization          // a transaction could not be serialised (SQLSTATE 40001)
	Deadlock               // a deadlock was detected (SQLSTATE 40P01)
	Constraint             // a constraint failed
	Conn                   // the connection could not be made or was lost
	Interrupted            // the run was stopped
	Other                  // anything else
)

var classNames = [...]string{"", "busy", "locked", "serialization", "deadlock", "constraint", "connection", "interrupted", "other"}

// String names the class as error counters show it.
func (c ErrClass) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "other"
}

// Retryable reports whether the same work may succeed if tried again.
func (c ErrClass) Retryable() bool {
	return c == Busy || c == Locked || c == Serialization || c == Deadlock
}

// Fatal reports whether an error of this class makes a run's numbers
// meaningless (the others are counted and the run goes on).
func (c ErrClass) Fatal() bool { return c == Conn || c == Other }

// Classify returns Interrupted when err comes from a cancelled context and
// native(err) otherwise; native is a client's reading of its engine's
// error codes.
func Classify(err error, native func(error) ErrClass) ErrClass {
	if err == nil {
		return None
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return Interrupted
	}
	if c := native(err); c != None {
		return c
	}
	return Other
}

var (
	mu      sync.Mutex
	engines = map[string]Engine{}
)

// Register adds an engine; it panics on a duplicate name.
func Register(e Engine) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := engines[e.Name()]; dup {
		panic("engine: duplicate " + e.Name())
	}
	engines[e.Name()] = e
}

// Get returns the engine registered under name.
func Get(name string) (Engine, error) {
	mu.Lock()
	defer mu.Unlock()
	if e, ok := engines[name]; ok {
		return e, nil
	}
	var names []string
	for n := range engines {
		names = append(names, n)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("unknown engine %q (known: %v)", name, names)
}
