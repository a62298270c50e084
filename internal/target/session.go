package target

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/settings"
)

// Policy is the application side of a run: how connections, statements,
// writes and busy errors are handled. Every workload gets it alike through
// a Session.
type Policy struct {
	PoolOptions
	// Prepared prepares statements once and reuses them (per connection,
	// and per transaction); false prepares every statement ad hoc.
	Prepared bool
	// SingleWriter sends writes to one dedicated connection; reads use the
	// pool.
	SingleWriter bool
	// WriteMutex serialises writes behind one application-level mutex.
	WriteMutex bool
	// Retries is how often a busy write is tried again: -1 until it
	// succeeds or the run ends.
	Retries int
	// Backoff is the wait before each retry (zero: at once).
	Backoff Backoff
}

// PolicyOf reads the application-side settings.
func PolicyOf(s settings.Settings) Policy {
	return Policy{
		PoolOptions:  PoolOptions{MaxOpen: s.Int("pool"), ConnPerOp: s.Bool("conn-per-op"), TxImmediate: s.Get("tx") == "immediate", TxExclusive: s.Get("tx") == "exclusive"},
		Prepared:     s.Bool("prepared"),
		SingleWriter: s.Get("writer") == "single",
		WriteMutex:   s.Bool("write-mutex"),
		Retries:      s.BusyRetries(),
		Backoff:      backoffOf(s),
	}
}

func backoffOf(s settings.Settings) Backoff {
	min, max, _ := s.BusyBackoff()
	return Backoff{Min: min, Max: max}
}

// Session is a workload's view of its target: the pools of one instance
// and the application-side policy, applied the same way for every
// workload. Statements come from Prepare; writes go through a Writer.
type Session struct {
	*pools
	p Policy
}

// pools are what the views of one session share.
type pools struct {
	t      Target
	ep     engine.Endpoint
	reads  DB
	writer atomic.Pointer[writerDB] // the single writer's pool, opened on first use
	draws  atomic.Uint64            // backoff's draws
	openMu sync.Mutex
	wmu    sync.Mutex // the write mutex
}

type writerDB struct{ db DB }

// Open opens t's pool on ep under policy p.
func Open(ctx context.Context, t Target, ep engine.Endpoint, p Policy) (*Session, error) {
	db, err := t.Open(ctx, ep, p.PoolOptions)
	if err != nil {
		return nil, err
	}
	return &Session{pools: &pools{t: t, ep: ep, reads: db}, p: p}, nil
}

// Target is the session's target.
func (s *Session) Target() Target { return s.t }

// Policy is the session's policy.
func (s *Session) Policy() Policy { return s.p }

// Dialect renders SQL for the session's engine.
func (s *Session) Dialect() dialect.Dialect { return s.t.Engine().Dialect() }

// DB is the pool (for set-up statements and ad hoc queries).
func (s *Session) DB() DB { return s.reads }

// Setup is a view of the session for loading data before the measured
// part: statements prepared, busy writes retried until they succeed, on
// the pool, with no single writer or write mutex.
func (s *Session) Setup() *Session {
	return &Session{pools: s.pools, p: Policy{PoolOptions: s.p.PoolOptions, Prepared: true, Retries: -1}}
}

// OpenedConns counts the connections the session's pools have opened.
func (s *Session) OpenedConns() int64 {
	n := s.reads.OpenedConns()
	if w := s.writer.Load(); w != nil {
		n += w.db.OpenedConns()
	}
	return n
}

// Close closes the pools.
func (s *Session) Close() error {
	if w := s.writer.Load(); w != nil {
		w.db.Close()
	}
	return s.reads.Close()
}

// writes returns the pool writes go to: the single writer's (opened the
// first time) or the shared one.
func (s *Session) writes(ctx context.Context) (DB, error) {
	if !s.p.SingleWriter {
		return s.reads, nil
	}
	if w := s.writer.Load(); w != nil {
		return w.db, nil
	}
	s.openMu.Lock()
	defer s.openMu.Unlock()
	if w := s.writer.Load(); w != nil {
		return w.db, nil
	}
	o := s.p.PoolOptions
	o.MaxOpen, o.ConnPerOp = 1, false
	db, err := s.t.Open(ctx, s.ep, o)
	if err != nil {
		return nil, fmt.Errorf("opening the single writer connection: %w", err)
	}
	s.writer.Store(&writerDB{db})
	return db, nil
}

// Classify names the kind of a failed statement's error.
func (s *Session) Classify(err error) engine.ErrClass { return s.t.Classify(err) }

// Again reports whether work that failed with err after retries retries
// is tried again under the busy-retry policy.
func (s *Session) Again(err error, retries int) bool {
	return s.t.Classify(err).Retryable() && (s.p.Retries < 0 || retries < s.p.Retries)
}

// Side says which pool a statement runs on.
type Side uint8

// Sides.
const (
	Read  Side = iota // the pool
	Write             // the single writer's connection when there is one
)

// Statement is a statement of a session: prepared once when the policy
// prepares, run ad hoc otherwise.
type Statement struct {
	q  string
	db DB
	st Stmt // nil when run ad hoc
	kr KeyReader
}

// Prepare readies q for the given side.
func (s *Session) Prepare(ctx context.Context, q string, side Side) (*Statement, error) {
	db := s.reads
	if side == Write {
		var err error
		if db, err = s.writes(ctx); err != nil {
			return nil, err
		}
	}
	st := &Statement{q: q, db: db}
	if s.p.Prepared {
		var err error
		if st.st, err = db.Prepare(ctx, q); err != nil {
			return nil, err
		}
		st.kr, _ = st.st.(KeyReader)
	}
	return st, nil
}

// KeyReader is the prepared statement as a KeyReader, when its client's
// statements are (nil otherwise, or when the statement runs ad hoc). Use
// it only for a statement of one integer parameter that reads at most one
// row.
func (st *Statement) KeyReader() KeyReader { return st.kr }

// SQL is the statement's text.
func (st *Statement) SQL() string { return st.q }

// Exec runs the statement on its pool. Writes under the write policy go
// through a Writer instead.
func (st *Statement) Exec(ctx context.Context, a *Args) error {
	if st.st != nil {
		return st.st.Exec(ctx, a)
	}
	return st.db.Exec(ctx, st.q, a)
}

// Query runs the statement and hands every row to fn.
func (st *Statement) Query(ctx context.Context, a *Args, fn func(Row) error) error {
	if st.st != nil {
		return st.st.Query(ctx, a, fn)
	}
	return st.db.Query(ctx, st.q, a, fn)
}

// Close releases the prepared statement.
func (st *Statement) Close() error {
	if st.st != nil {
		return st.st.Close()
	}
	return nil
}

// Writer issues one worker's writes under the session's write policy: on
// the writer's pool, behind the write mutex when there is one (held from
// Begin to Commit or Rollback, or for one autocommit statement), with each
// prepared statement bound to the open transaction once. One goroutine
// uses a Writer.
type Writer struct {
	s      *Session
	read   bool // a Reader: on the pool, without the write mutex
	tx     Tx
	locked bool
	bound  []boundStmt // statements bound to the open transaction
}

type boundStmt struct {
	st *Statement
	tx Stmt
}

// Writer returns a writer of the session.
func (s *Session) Writer() *Writer { return &Writer{s: s} }

// Reader returns a Writer for transactions that only read: they run on
// the pool (never the single writer) and outside the write mutex.
func (s *Session) Reader() *Writer { return &Writer{s: s, read: true} }

func (w *Writer) lock() {
	if w.s.p.WriteMutex && !w.locked && !w.read {
		w.s.wmu.Lock()
		w.locked = true
	}
}

func (w *Writer) unlock() {
	if w.locked {
		w.locked = false
		w.s.wmu.Unlock()
	}
}

// Begin starts a transaction.
func (w *Writer) Begin(ctx context.Context) error {
	if w.tx != nil {
		return fmt.Errorf("a transaction is already open")
	}
	w.lock()
	db, err := w.s.reads, error(nil)
	if !w.read {
		db, err = w.s.writes(ctx)
	}
	if err == nil {
		w.tx, err = db.Begin(ctx)
	}
	if err != nil {
		w.unlock()
		return err
	}
	w.bound = w.bound[:0]
	return nil
}

// Exec runs st with a: in the open transaction, or on its own.
func (w *Writer) Exec(ctx context.Context, st *Statement, a *Args) error {
	if w.tx == nil {
		w.lock()
		err := st.Exec(ctx, a)
		w.unlock()
		return err
	}
	if st.st == nil {
		return w.tx.Exec(ctx, st.q, a)
	}
	ts, err := w.bind(st)
	if err != nil {
		return err
	}
	return ts.Exec(ctx, a)
}

// Query runs st with a, handing every row to fn: in the open transaction,
// or on its own (under the write mutex for a Writer).
func (w *Writer) Query(ctx context.Context, st *Statement, a *Args, fn func(Row) error) error {
	if w.tx == nil {
		w.lock()
		err := st.Query(ctx, a, fn)
		w.unlock()
		return err
	}
	if st.st == nil {
		return w.tx.Query(ctx, st.q, a, fn)
	}
	ts, err := w.bind(st)
	if err != nil {
		return err
	}
	return ts.Query(ctx, a, fn)
}

// Bound returns st bound to the open transaction, for a caller that runs
// it many times in the transaction: its Exec does what Writer.Exec(ctx,
// st, a) does, without finding the binding again each time. It returns
// nil when no transaction is open or st is not prepared (Writer.Exec runs
// those by their text).
func (w *Writer) Bound(st *Statement) (Stmt, error) {
	if w.tx == nil || st.st == nil {
		return nil, nil
	}
	return w.bind(st)
}

// bind returns st bound to the open transaction, binding it the first
// time.
func (w *Writer) bind(st *Statement) (Stmt, error) {
	for i := range w.bound {
		if w.bound[i].st == st {
			return w.bound[i].tx, nil
		}
	}
	ts, err := w.tx.Stmt(st.st)
	if err != nil {
		return nil, err
	}
	w.bound = append(w.bound, boundStmt{st, ts})
	return ts, nil
}

// Commit commits the open transaction.
func (w *Writer) Commit() error { return w.end(true) }

// Rollback abandons the open transaction.
func (w *Writer) Rollback() error { return w.end(false) }

func (w *Writer) end(commit bool) error {
	if w.tx == nil {
		return fmt.Errorf("no transaction is open")
	}
	var err error
	if commit {
		err = w.tx.Commit()
	} else {
		err = w.tx.Rollback()
	}
	w.tx = nil
	clear(w.bound)
	w.bound = w.bound[:0]
	w.unlock()
	return err
}
