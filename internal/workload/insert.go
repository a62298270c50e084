package workload

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/metrics"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/tick"
)

// MaxVariables is the bound-parameter limit rows per statement are
// checked against before the target is known: SQLite's (since 3.32). Each
// cell is checked again against its engine's own (CheckParams): dqlite's
// wire protocol allows 255.
var MaxVariables = dialect.SQLite.MaxParams()

// Op kinds of insert.
const (
	opInsert = iota
	opBegin
	opCommit
)

// InsertOps are the op kinds Load records: each INSERT statement, each
// BEGIN and each COMMIT.
var InsertOps = metrics.Ops{"insert", "begin", "commit"}

// CheckRowsPerStmt rejects multi-row statements past SQLite's bound
// variable limit, naming the largest that fits.
func CheckRowsPerStmt(sc *Schema, rps int) error {
	return CheckParams(sc, rps, MaxVariables, "SQLite")
}

// CheckParams rejects multi-row statements of rps rows of sc past an
// engine's limit of max bound parameters per statement, naming the
// largest that fits.
func CheckParams(sc *Schema, rps, max int, engine string) error {
	if n := rps * len(sc.Columns); n > max {
		return fmt.Errorf("--rows-per-stmt %d × %d columns of %s = %d bound variables, past %s's limit of %d; use --rows-per-stmt %d or less",
			rps, len(sc.Columns), sc.Name, n, engine, max, max/len(sc.Columns))
	}
	return nil
}

// CreateSchema creates sc's table and indexes in the session's dialect.
func CreateSchema(ctx context.Context, sess *target.Session, sc *Schema) error {
	for _, q := range sess.Dialect().Create(sc.DDL) {
		if err := sess.DB().Exec(ctx, q, nil); err != nil {
			return fmt.Errorf("create %s: %w", sc.Name, err)
		}
	}
	return nil
}

// LoadSpec says what Load inserts and how.
type LoadSpec struct {
	Schema      *Schema
	Seed        uint64
	From, To    int64
	Workers     int
	Batch       int // rows per transaction
	RowsPerStmt int
	// Explicit begins every transaction, even one of a single statement
	// (a BEGIN mode was asked for, which autocommit cannot give).
	Explicit bool
}

// Load inserts rows [From, To) with Workers goroutines through sess (whose
// policy says whether statements are prepared and how busy batches are
// retried), recording into fresh recorders of env. It returns the first
// error that makes the run meaningless; busy/locked/constraint errors are
// counted instead.
func Load(ctx context.Context, env *Env, sess *target.Session, ls LoadSpec) error {
	if ls.Workers < 1 {
		ls.Workers = 1
	}
	if ls.RowsPerStmt < 1 {
		ls.RowsPerStmt = 1
	}
	if ls.Batch < ls.RowsPerStmt {
		// A transaction holds at least one whole statement.
		ls.Batch = ls.RowsPerStmt
	}
	total := ls.To - ls.From
	var wg sync.WaitGroup
	errs := make([]error, ls.Workers)
	excluded := make([]time.Duration, ls.Workers)
	recs := make([]*metrics.Recorder, ls.Workers)
	for i := range recs {
		recs[i] = env.NewRecorder(InsertOps)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for i := 0; i < ls.Workers; i++ {
		from := ls.From + total*int64(i)/int64(ls.Workers)
		to := ls.From + total*int64(i+1)/int64(ls.Workers)
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ins := &inserter{env: env, sess: sess, w: sess.Writer(), ls: ls, rec: recs[i]}
			errs[i] = ins.run(ctx, from, to)
			excluded[i] = ins.excluded
			if errs[i] != nil && !errors.Is(errs[i], context.Canceled) {
				cancel() // one failed worker ends the run
			}
		}(i)
	}
	wg.Wait()
	if ls.Workers == 1 {
		env.Excluded += excluded[0]
	}
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

type inserter struct {
	env   *Env
	sess  *target.Session
	w     *target.Writer
	ls    LoadSpec
	rec   *metrics.Recorder
	src   *Source
	stmts map[int]*target.Statement // by rows per statement
	hotK  int
	hot   *target.Statement // stmts[hotK]
	args  target.Args
	// last is when the open transaction's last statement (or its BEGIN)
	// ended (tick.Since), for statementDone.
	last   int64
	doneFn func(int) // w.statementDone, made once (a method value allocates)
	// excluded is time spent generating rows inline, outside the measure.
	excluded time.Duration
}

// stmt returns the statement inserting k rows, prepared (or not, per the
// policy) the first time.
func (w *inserter) stmt(ctx context.Context, k int) (*target.Statement, error) {
	if k == w.hotK && w.hot != nil {
		// The common case, without a map lookup.
		return w.hot, nil
	}
	st, ok := w.stmts[k]
	if !ok {
		sc := w.ls.Schema
		var err error
		if st, err = w.sess.Prepare(ctx, w.sess.Dialect().Insert(sc.Table, sc.Columns, k), target.Write); err != nil {
			return nil, err
		}
		w.stmts[k] = st
	}
	w.hotK, w.hot = k, st
	return st, nil
}

func (w *inserter) run(ctx context.Context, from, to int64) error {
	tick.Calibrate()
	if w.ls.Workers == 1 {
		// One worker: generate inline and leave that time out of the
		// measurement, as if the rows had been generated beforehand.
		w.src = NewInlineSource(w.ls.Schema, w.ls.Seed, from, to)
		defer func() { w.excluded = w.src.Generated() }()
	} else {
		// Several workers share the wall clock: generate ahead on another
		// goroutine so generation overlaps the inserts.
		w.src = NewSource(ctx, w.ls.Schema, w.ls.Seed, from, to)
	}
	defer w.src.Close()
	w.stmts = map[int]*target.Statement{}
	defer func() {
		for _, st := range w.stmts {
			st.Close()
		}
	}()
	batch := int64(w.ls.Batch)
	// Statements run under a context that cannot be cancelled: a
	// cancellable one makes drivers (mattn, database/sql) start a watcher
	// goroutine per statement and per transaction, which would be measured.
	// Cancellation is checked between transactions instead.
	stmtCtx := context.WithoutCancel(ctx)
	for start := from; start < to; start += batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(batch, to-start)
		for attempt := 0; ; attempt++ {
			err := w.tx(stmtCtx, start, int(n))
			if err == nil {
				w.env.Done.Add(n)
				if w.env.Ack != nil {
					w.env.Ack(start, n)
				}
				break
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if w.sess.Retry(ctx, err, attempt) {
				w.rec.Retry(opInsert)
				continue
			}
			if ctx.Err() != nil { // ended during a backoff's wait
				return ctx.Err()
			}
			class := w.sess.Classify(err)
			w.rec.Error(opInsert, class.String())
			if class.Fatal() {
				return fmt.Errorf("insert rows %d-%d: %w", start, start+n-1, err)
			}
			break // the batch is lost and counted; the run goes on
		}
	}
	return nil
}

// tx inserts rows [start, start+n) in one transaction (or one autocommit
// statement when the batch is a single statement and no BEGIN mode was
// asked for).
func (w *inserter) tx(ctx context.Context, start int64, n int) error {
	rps := w.ls.RowsPerStmt
	w.src.Ready(start, n)
	// Times are tick.Since's: one read of the time-stamp counter each,
	// where the machine's clock is that counter.
	t0 := tick.Since()
	if n <= rps && !w.ls.Explicit {
		err := w.exec(ctx, start, n)
		if err == nil {
			w.rec.ObserveN(opInsert, int64(n), time.Duration(tick.Since()-t0))
		}
		return err
	}
	// Prepare before BEGIN: with --pool 1 the transaction holds the only
	// connection, and preparing on the pool would wait for it.
	for _, k := range []int{n % rps, rps} {
		if k > 0 {
			if _, err := w.stmt(ctx, k); err != nil {
				return err
			}
		}
	}
	if err := w.w.Begin(ctx); err != nil {
		return err
	}
	w.last = tick.Since()
	w.rec.Observe(opBegin, time.Duration(w.last-t0))
	// The full statements run bound to the transaction once, rather than
	// found again per statement: the loop's cost per row is the harness's.
	full, err := w.stmt(ctx, rps)
	if err != nil {
		w.w.Rollback()
		return err
	}
	ts, err := w.w.Bound(full)
	if err != nil {
		w.w.Rollback()
		return err
	}
	// An inline source's rows for the whole transaction, taken once: Ready
	// made them its current chunk, which stays put until the next Ready.
	// A pipelined source's chunks are recycled as it moves on, so its rows
	// are taken per statement.
	var all []any
	ncols := len(w.ls.Schema.Columns)
	if w.src.inline {
		all = w.src.Args(start, n)
	}
	off := 0
	if rep, ok := ts.(target.Repeater); ok && all != nil && n >= rps {
		// The full statements' rows in one call, each statement timed
		// by statementDone.
		rows := n / rps * rps
		if w.doneFn == nil {
			w.doneFn = w.statementDone
		}
		if err := rep.Repeat(ctx, all[:rows*ncols], rps*ncols, w.doneFn); err != nil {
			w.w.Rollback()
			return err
		}
		off = rows
	}
	for ; off < n; off += rps {
		k := min(rps, n-off)
		if k == rps && ts != nil {
			if all != nil {
				w.args.Boxed(all[off*ncols : (off+k)*ncols])
			} else {
				w.args.Boxed(w.src.Args(start+int64(off), k))
			}
			err = ts.Exec(ctx, &w.args)
		} else {
			err = w.exec(ctx, start+int64(off), k)
		}
		if err != nil {
			w.w.Rollback()
			return err
		}
		now := tick.Since()
		w.rec.ObserveN(opInsert, int64(k), time.Duration(now-w.last))
		w.last = now
	}
	if err := w.w.Commit(); err != nil {
		return err
	}
	w.rec.Observe(opCommit, time.Duration(tick.Since()-w.last))
	return nil
}

// statementDone records a full statement that Repeat ran: its latency
// from the end of the one before (w.last).
func (w *inserter) statementDone(int) {
	now := tick.Since()
	w.rec.ObserveN(opInsert, int64(w.ls.RowsPerStmt), time.Duration(now-w.last))
	w.last = now
}

// exec inserts rows [i, i+k) in one statement, in the open transaction if
// there is one.
func (w *inserter) exec(ctx context.Context, i int64, k int) error {
	st, err := w.stmt(ctx, k)
	if err != nil {
		return err
	}
	w.args.Boxed(w.src.Args(i, k))
	return w.w.Exec(ctx, st, &w.args)
}
