package spec

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/litebench/litebench/internal/gen"
	"github.com/litebench/litebench/internal/loadgen"
	"github.com/litebench/litebench/internal/metrics"
	"github.com/litebench/litebench/internal/target"
)

// preparedStmt is a statement readied for the pool a step runs it on:
// the read pool (reads, read-only transactions) or the writers'.
type preparedStmt struct {
	read, write *target.Statement
}

// executor runs one worker's transactions. It allocates nothing per
// operation: variables keep their own buffers, arguments are typed and
// reused, rows are scanned into buffers that are refilled in place.
type executor struct {
	m      *machine
	sess   *target.Session
	ctx    context.Context
	slot   int
	x      ectx
	args   target.Args
	writer *target.Writer
	reader *target.Writer
	// cur is the Writer of the transaction a script has begun, or nil.
	cur *target.Writer
	rec *metrics.Recorder
	// gset receives a query's first row: into, its slots; dest, scan
	// destinations (one reused buffer per column).
	into  []int
	dest  []any
	bufs  [][]byte
	found bool
	sink  func(target.Row) error
	tops  []*topState
	// reads holds, for each transaction that is a single table read, its
	// state (nil for the others): Do runs it without the steps' loop.
	reads []*topState
	// ack is called after each committed table write (Env.Ack), or nil.
	ack     func(first, n int64)
	natDest map[*nativeOp][]any
}

// Record is loadgen.Recording: statements' own results go where their
// transaction's go.
func (e *executor) Record(rec *metrics.Recorder) { e.rec = rec }

func (m *machine) newExecutor(ctx context.Context, sh *shared, i int) (*executor, error) {
	if i >= sh.slots {
		return nil, fmt.Errorf("executor %d past the %d planned", i, sh.slots)
	}
	e := &executor{m: m, sess: sh.sess, ctx: ctx, slot: i, writer: sh.sess.Writer(), reader: sh.sess.Reader(), ack: sh.ack}
	e.x.vars = make([]slot, len(m.vars))
	for k, v := range m.vars {
		if v.set {
			e.x.vars[k].assign(v.v)
		}
	}
	e.x.vars[m.clientID].assign(ival(int64(i)))
	if m.scale >= 0 {
		e.x.vars[m.scale].assign(ival(sh.scale))
	}
	e.x.rng = gen.SplitMix{State: gen.Draw(m.seed, gen.StreamKeys, uint64(i)+1)}
	e.x.bufs = make([][]byte, m.bufs)
	most := 0
	for _, s := range m.stmts {
		most = max(most, len(s.into))
	}
	e.bufs = make([][]byte, most)
	e.dest = make([]any, most)
	for k := range e.bufs {
		e.bufs[k] = make([]byte, 0, 64)
		e.dest[k] = &e.bufs[k]
	}
	e.sink = e.scanInto
	for _, op := range m.tops {
		e.tops = append(e.tops, newTopState(op))
	}
	e.reads = make([]*topState, len(m.txns))
	for k, t := range m.txns {
		if len(t.steps) == 1 && t.steps[0].kind == sTable && t.steps[0].top.kind == opRead {
			e.reads[k] = e.tops[t.steps[0].top.idx]
		}
	}
	return e, nil
}

// Do runs transaction op. A transaction that fails on a busy database is
// begun again from its first step with the same random numbers, as the
// busy-retry setting allows.
func (e *executor) Do(_ context.Context, op int) (int, error) {
	if s := e.reads[op]; s != nil {
		// A single read, as run would run it: not retried.
		err := e.tableRead(s)
		if err != nil && e.fatal(err) {
			err = loadgen.Fatal(err)
		}
		return 0, err
	}
	t := e.m.txns[op]
	for retries := 0; ; retries++ {
		saved := e.x.rng
		tableRetries, err := e.run(t)
		if err == nil {
			return retries + tableRetries, nil
		}
		if e.fatal(err) {
			return retries, loadgen.Fatal(err)
		}
		if !e.retryable(err) || !e.sess.Retry(e.ctx, err, retries) {
			return retries + tableRetries, err
		}
		e.x.rng = saved
	}
}

// fatal reports whether err ends the run: the program's own error, or an
// engine error of a fatal class. A missing row (a read, or \gset) is the
// operation's error, counted, never retried: no engine class is
// Retryable for it.
func (e *executor) fatal(err error) bool {
	var ee *evalError
	if errors.As(err, &ee) {
		return true
	}
	if errors.Is(err, errMissing) || errors.Is(err, errNoRow) {
		return false
	}
	return e.sess.Classify(err).Fatal()
}

// tableFailed marks an error a table operation already retried.
type tableFailed struct{ error }

func (t tableFailed) Unwrap() error { return t.error }

func (e *executor) retryable(err error) bool {
	var tf tableFailed
	return !errors.As(err, &tf)
}

// run runs t's steps once; it returns the table operations' retries.
func (e *executor) run(t *txnRun) (int, error) {
	retries := 0
	for _, st := range t.steps {
		var err error
		switch st.kind {
		case sSet:
			var v value
			if v, err = st.e.eval(&e.x); err == nil {
				e.x.vars[st.slot].assign(v)
			}
		case sSleep:
			var v value
			if v, err = st.e.eval(&e.x); err == nil {
				var n int64
				if n, err = toInt(v, st.at); err == nil && n > 0 {
					time.Sleep(time.Duration(n * st.unit))
				}
			}
		case sSQL, sBegin, sCommit, sRollback:
			err = e.sqlStep(st)
		case sTable:
			var r int
			r, err = e.tableStep(st)
			retries += r
			if err != nil {
				err = tableFailed{err}
			}
		case sNative:
			err = e.native(st.nat)
		}
		if err != nil {
			if e.cur != nil {
				e.cur.Rollback()
				e.cur = nil
			}
			return retries, err
		}
	}
	return retries, nil
}

// sqlStep runs a statement or transaction control, timing it when it has
// a result of its own.
func (e *executor) sqlStep(st *stepRun) error {
	var start time.Time
	if st.part >= 0 {
		start = time.Now()
	}
	err := e.sqlOnce(st)
	if st.part >= 0 && e.rec != nil {
		if err == nil {
			e.rec.Observe(st.part, time.Since(start))
		} else {
			kind := "other"
			if errors.Is(err, errNoRow) {
				kind = "missing"
			} else {
				kind = e.sess.Classify(err).String()
			}
			e.rec.Error(st.part, kind)
		}
	}
	return err
}

// discard steps through a query's rows without reading them.
func discard(target.Row) error { return nil }

var errNoRow = errors.New("\\gset: the query returned no row")

func (e *executor) sqlOnce(st *stepRun) error {
	switch st.kind {
	case sBegin:
		w := e.writer
		if st.read {
			w = e.reader
		}
		if err := w.Begin(e.ctx); err != nil {
			return err
		}
		e.cur = w
		return nil
	case sCommit, sRollback:
		w := e.cur
		e.cur = nil
		if st.kind == sCommit {
			return w.Commit()
		}
		return w.Rollback()
	}
	s := st.stmt
	if err := e.bind(s); err != nil {
		return err
	}
	fn := discard
	if len(s.into) > 0 {
		fn, e.into, e.found = e.sink, s.into, false
	}
	var err error
	switch {
	case e.cur != nil && e.cur == e.reader:
		err = e.cur.Query(e.ctx, s.prep.read, &e.args, fn)
	case e.cur != nil && (s.read || len(s.into) > 0):
		err = e.cur.Query(e.ctx, s.prep.write, &e.args, fn)
	case e.cur != nil:
		err = e.cur.Exec(e.ctx, s.prep.write, &e.args)
	case s.read:
		err = s.prep.read.Query(e.ctx, &e.args, fn)
	case len(s.into) > 0:
		err = e.writer.Query(e.ctx, s.prep.write, &e.args, fn)
	default:
		err = e.writer.Exec(e.ctx, s.prep.write, &e.args)
	}
	if err == nil && len(s.into) > 0 && !e.found {
		return errNoRow
	}
	return err
}

// bind sets the statement's arguments from its variables.
func (e *executor) bind(s *stmtRun) error {
	e.args.Reset()
	for _, sl := range s.binds {
		v := &e.x.vars[sl]
		if !v.set {
			return &evalError{pos: s.at, msg: "variable :" + e.m.names[sl] + " is not set"}
		}
		switch v.v.k {
		case vInt, vBool:
			e.args.Int(v.v.i)
		case vFloat:
			e.args.Float(v.v.f)
		case vText:
			e.args.Text(unsafeString(v.v.s))
		default:
			e.args.Null()
		}
	}
	return nil
}

// scanInto stores a query's first row in its \gset variables.
func (e *executor) scanInto(r target.Row) error {
	if e.found {
		return nil
	}
	e.found = true
	n := len(e.into)
	if err := r.Scan(e.dest[:n]...); err != nil {
		return err
	}
	for k, sl := range e.into {
		b := e.bufs[k]
		if b == nil {
			e.x.vars[sl].assign(value{k: vNull})
			e.bufs[k] = make([]byte, 0, 64)
			continue
		}
		e.x.vars[sl].assign(textValue(b))
	}
	return nil
}

// shared is what the executors of one run share; nothing in it is locked
// per operation.
type shared struct {
	sess  *target.Session
	slots int
	scale int64
	ack   func(first, n int64)
}
