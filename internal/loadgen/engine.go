package loadgen

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/litebench/litebench/internal/gen"
	"github.com/litebench/litebench/internal/metrics"
	"github.com/litebench/litebench/internal/tick"
)

// Executor runs operations for one worker. It is used by one goroutine.
type Executor interface {
	// Do runs one operation of kind op (an index into Config.Ops). retries
	// is how many times it was retried (after SQLITE_BUSY, say) before it
	// succeeded or failed.
	Do(ctx context.Context, op int) (retries int, err error)
}

// Recording is an executor that records parts of its operations itself
// (the statements of a transaction): the engine hands it the recorder the
// operations go to, again whenever that changes (from a warm-up's to the
// measured one), so that the parts are recorded exactly where their
// operation is.
type Recording interface {
	Record(rec *metrics.Recorder)
}

// Multiplexer runs the operations of several closed-loop workers from one
// goroutine, as an event loop does: Start begins a worker's next operation
// without waiting for it, and Wait returns those that ended. The engine
// gives it workers 0 … n-1 of its own (its slots). It is used by one
// goroutine.
type Multiplexer interface {
	// Start begins an operation of kind op on slot. An error is the
	// operation's: it ended at once.
	Start(slot, op int) error
	// Wait calls each with every operation that ends, as it ends (each
	// may Start the slot's next operation at once), and returns once at
	// least one has. It returns the ctx's error once the ctx it was made
	// with ends.
	Wait(each func(Ended)) error
	Close()
}

// Ended is an operation a Multiplexer finished.
type Ended struct {
	Slot, Retries int
	Err           error
}

// fatalError marks an error that ends the run instead of being counted.
type fatalError struct{ error }

func (f fatalError) Unwrap() error { return f.error }

// Fatal wraps err so that the engine stops the run with it. Errors not
// wrapped are counted per kind and the run goes on.
func Fatal(err error) error { return fatalError{err} }

// IsFatal reports whether err was wrapped by Fatal.
func IsFatal(err error) bool {
	var f fatalError
	return errors.As(err, &f)
}

// AnyOp as a worker role lets Config.Choose pick each operation's kind.
const AnyOp = -1

// Clock is where the engine reads the time and how the open-loop
// dispatcher waits (the actions of Wait). Run uses the wall clock unless
// Config.Clock is set; tests set a clock whose time is virtual.
type Clock interface {
	// Now is called by every goroutine of a run.
	Now() time.Time
	// Sleep blocks the calling thread for about d.
	Sleep(d time.Duration)
	// Park waits d on a runtime timer, or until done is closed; it
	// reports whether d passed. Only the dispatcher parks.
	Park(d time.Duration, done <-chan struct{}) bool
	// Spin lets other goroutines run while the next operation is due in
	// rem (less than SpinWindow); the dispatcher then looks at the time
	// again.
	Spin(rem time.Duration)
}

// wallClock is the real clock. Its timer is reused from one park to the
// next.
type wallClock struct{ timer *time.Timer }

func (*wallClock) Now() time.Time { return time.Now() }

// Sleep sleeps the thread: accurate to tens of microseconds, where a
// runtime timer may wake a millisecond late.
func (*wallClock) Sleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	syscall.Nanosleep(&ts, nil) //nolint:errcheck // the dispatcher looks at the time again
}

func (c *wallClock) Park(d time.Duration, done <-chan struct{}) bool {
	if c.timer == nil {
		c.timer = time.NewTimer(d)
	} else {
		c.timer.Reset(d)
	}
	select {
	case <-c.timer.C:
		return true
	case <-done:
		c.timer.Stop()
		return false
	}
}

// Spin yields the processor: the operation is due too soon to sleep.
func (*wallClock) Spin(time.Duration) { runtime.Gosched() }

// Config describes a load.
type Config struct {
	Ops metrics.Ops
	// Roles is the closed loop: one worker per entry, running that op kind
	// (or AnyOp). Ignored when Rate > 0.
	Roles []int
	// Rate > 0 makes the load open loop: operations per second in total,
	// scheduled whatever the target does, run by up to MaxInflight
	// executors that are started as they are needed.
	Rate        float64
	Arrivals    Arrivals
	MaxInflight int
	// Choose returns the op kind of operation seq (open loop, AnyOp).
	Choose func(seq uint64) int
	// Duration and Count end the measured part (whichever comes first;
	// zero means no limit, but one of them must be set). Warmup runs
	// before it and is not recorded.
	Duration, Warmup time.Duration
	Count            int64
	Seed             uint64
	// LateAfter is how far behind its schedule an open-loop operation may
	// start before it counts as late (default 1ms).
	LateAfter time.Duration
	// NewExecutor makes worker i's executor (on the worker's goroutine).
	NewExecutor func(worker int) (Executor, error)
	// NewMultiplexer, when set, runs a closed loop on event loops instead
	// of a goroutine per worker: loop i gets a multiplexer of n slots
	// (workers i, i+Loops, …), made with the run's ctx. Open loop still
	// uses NewExecutor.
	NewMultiplexer func(ctx context.Context, loop, n int) (Multiplexer, error)
	// Loops is how many event loops run a multiplexed closed loop
	// (default: GOMAXPROCS, at most one per worker).
	Loops int
	// Classify names an error's kind (metrics.ErrorKinds).
	Classify func(error) string
	// NewRecorder returns a recorder that counts (registered with the run);
	// warm-up uses unregistered ones.
	NewRecorder func() *metrics.Recorder
	// OnMeasure is called once, when the measured part starts.
	OnMeasure func(start time.Time)
	// Done counts finished measured operations, for progress lines. Each
	// worker adds its own count in batches (every 256 operations or 10 ms
	// at the latest); it is exact when Run returns.
	Done *atomic.Int64
	// Clock is the time source; nil is the wall clock.
	Clock Clock
	// Drain is how long Run waits, once ctx is cancelled, for operations
	// in flight (a statement in a busy wait or an fsync) before it returns
	// without them (default 300ms): they are counted in Abandoned and
	// record nothing.
	Drain time.Duration
}

// Stats describes what the engine did.
type Stats struct {
	// Start and End bound the measured part. When ctx is cancelled, End
	// is the moment it was, and operations that end later are not counted.
	Start, End time.Time
	Issued     int64 // operations started in the measured part
	Executors  int   // goroutines that ran operations
	// Interrupted counts measured operations in flight when ctx was
	// cancelled: they ended later and are in no count or latency.
	Interrupted int64
	// Abandoned counts operations still running when Run returned, Drain
	// after the cancel: their executors must not be closed until they end
	// (the process exits first).
	Abandoned int64
	// Lag is, for open loop, how late each measured operation started
	// relative to its schedule (the load generator's own delay plus any
	// wait for a free executor).
	Lag *hdr.Histogram
}

// Run drives the load until the duration or count is reached, ctx is
// cancelled, or an executor returns a Fatal error. When ctx is cancelled
// no operation is started any more (open loop: those queued for an
// executor are dropped), the operations in flight get the cancelled ctx,
// and Run returns as soon as they have.
func Run(ctx context.Context, cfg Config) (Stats, error) {
	if cfg.Duration <= 0 && cfg.Count <= 0 {
		return Stats{}, errors.New("loadgen: set a duration or a count")
	}
	if cfg.LateAfter <= 0 {
		cfg.LateAfter = time.Millisecond
	}
	if cfg.Done == nil {
		cfg.Done = new(atomic.Int64)
	}
	if cfg.Clock == nil {
		cfg.Clock = &wallClock{}
	}
	if cfg.Rate > 0 {
		if cfg.MaxInflight < 1 {
			cfg.MaxInflight = 1
		}
		if cfg.Arrivals == "" {
			cfg.Arrivals = Uniform
		}
		return runOpen(ctx, cfg)
	}
	if len(cfg.Roles) == 0 {
		return Stats{}, errors.New("loadgen: no workers")
	}
	if cfg.NewMultiplexer != nil {
		return runLoops(ctx, cfg)
	}
	return runClosed(ctx, cfg)
}

// phase tracks the switch from warm-up to measurement.
type phase struct {
	cfg *Config
	// epoch is the clock's time when the run started: the closed loop
	// reads the time as the duration since it (run.since), and warmEnd
	// and deadline as warmEndAt and deadlineAt.
	epoch     time.Time
	warmEnd   time.Time
	warmEndAt time.Duration
	once      sync.Once
	measured  atomic.Bool
	// start and deadline are written once, before measured is set.
	start, deadline time.Time
	deadlineAt      time.Duration
}

func (p *phase) begin(now time.Time) {
	p.once.Do(func() {
		p.start = now
		if p.cfg.Duration > 0 {
			p.deadline = now.Add(p.cfg.Duration)
			p.deadlineAt = p.deadline.Sub(p.epoch)
		}
		p.cfg.Done.Store(0)
		if p.cfg.OnMeasure != nil {
			p.cfg.OnMeasure(now)
		}
		p.measured.Store(true)
	})
}

// stopper collects the first fatal error and cancels the run.
type stopper struct {
	once   sync.Once
	err    error
	cancel context.CancelFunc
}

func (s *stopper) stop(err error) {
	s.once.Do(func() { s.err = err; s.cancel() })
}

// run is what the goroutines of one Run share.
type run struct {
	cfg *Config
	clk Clock
	// wall: clk is the wall clock, whose durations since the epoch
	// (since) are read from tick.Since, counted from epochTick.
	wall      bool
	epochTick int64
	// ctx ends when the caller's does (parent) or on a fatal error.
	ctx, parent context.Context
	st          stopper
	ph          phase
	// cancelled receives the time the caller's ctx ended.
	cancelled   chan time.Time
	interrupted atomic.Int64
	// inflight counts operations between the call to Do and its return;
	// a closed-loop worker counts once from its start to its end (its
	// loop, outside Do, ends at once after a cancel), so as not to write
	// a shared counter twice per operation.
	inflight atomic.Int64
}

// wait waits for the run's goroutines; once the caller's ctx is cancelled
// it waits at most Drain more and returns how many operations it left
// running.
func (r *run) wait(wg *sync.WaitGroup) int64 {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return 0
	case <-r.parent.Done():
	}
	grace := r.cfg.Drain
	if grace <= 0 {
		grace = 300 * time.Millisecond
	}
	if !r.clk.Park(grace, done) {
		return 0 // ended within the grace
	}
	return max(r.inflight.Load(), 1)
}

// start sets up a run; call the function it returns when the run is over.
func start(parent context.Context, cfg *Config) (*run, func()) {
	ctx, cancel := context.WithCancel(parent)
	r := &run{cfg: cfg, clk: cfg.Clock, ctx: ctx, parent: parent, cancelled: make(chan time.Time, 1)}
	r.st.cancel = cancel
	r.ph.cfg = cfg
	_, r.wall = cfg.Clock.(*wallClock)
	if r.wall {
		tick.Calibrate()
	}
	r.ph.epoch = r.clk.Now()
	r.epochTick = tick.Since()
	unwatch := context.AfterFunc(parent, func() { r.cancelled <- r.clk.Now() })
	return r, func() { unwatch(); cancel() }
}

// since is the time on the run's clock as the duration since its epoch.
// On the wall clock that is one read of tick.Since (the time-stamp
// counter, where the machine's clock is that counter), where a time.Time
// reads the monotonic and the wall clock through the vDSO.
func (r *run) since() time.Duration {
	if r.wall {
		return time.Duration(tick.Since() - r.epochTick)
	}
	return r.clk.Now().Sub(r.ph.epoch)
}

// end returns the end of the measured part for a run whose goroutines
// stopped at stopAt: the time the caller cancelled it, if that is earlier.
// An operation that ended after the cancel saw the cancelled ctx, so
// every operation counted ended before the time returned.
func (r *run) end(stopAt time.Time) time.Time {
	if r.parent.Err() == nil {
		return stopAt
	}
	if c := <-r.cancelled; c.Before(stopAt) {
		return c
	}
	return stopAt
}

// tally counts one worker's finished measured operations into Config.Done
// in batches, so that workers do not all write one shared counter per
// operation: Done lags a worker by at most tallyBatch operations or
// tallyEvery, and is exact once every worker has flushed.
type tally struct {
	to   *atomic.Int64
	n    int64
	last time.Duration // since the run's epoch
}

const (
	tallyBatch = 256
	tallyEvery = 10 * time.Millisecond
)

// add counts an operation that ended at now (since the run's epoch).
func (t *tally) add(now time.Duration) {
	t.n++
	if t.n >= tallyBatch || now-t.last >= tallyEvery {
		t.to.Add(t.n)
		t.n, t.last = 0, now
	}
}

func (t *tally) flush() {
	t.to.Add(t.n)
	t.n = 0
}

// quota hands out the operations of a counted closed-loop run. A worker
// claims a block at a time, about quotaSpan of its own operations (one
// at a time for slower ones, at most quotaBlock), so that workers do not
// all write one shared counter per operation; blocks shrink as the count
// runs out, so the last operations are still shared among the workers,
// and the total is exact.
type quota struct {
	left    atomic.Int64
	workers int64
}

const (
	quotaSpan  = time.Millisecond
	quotaBlock = 64
)

// claim takes a block of the operations left for a worker whose last
// operation took last (0 if it has run none); it returns 0 when none are
// left.
func (q *quota) claim(last time.Duration) int64 {
	n := int64(1)
	if last > 0 {
		n = max(1, min(quotaBlock, int64(quotaSpan/last)))
	}
	for {
		left := q.left.Load()
		if left <= 0 {
			return 0
		}
		k := max(1, min(n, left/(4*q.workers)))
		if q.left.CompareAndSwap(left, left-k) {
			return k
		}
	}
}

// record counts a finished operation's retries and, if it failed, its
// error (or stops the run on a fatal one). It reports whether it succeeded.
func record(cfg *Config, rec *metrics.Recorder, op, retries int, err error, st *stopper) bool {
	rec.RetryN(op, retries)
	if err == nil {
		return true
	}
	var f fatalError
	if errors.As(err, &f) {
		st.stop(f.error)
		return false
	}
	kind := "other"
	if cfg.Classify != nil {
		kind = cfg.Classify(err)
	}
	rec.Error(op, kind)
	return false
}

func runClosed(parent context.Context, cfg Config) (Stats, error) {
	r, finish := start(parent, &cfg)
	defer finish()
	q := r.closedStart()
	var issued atomic.Int64
	var wg sync.WaitGroup
	for w, role := range cfg.Roles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			issued.Add(r.work(w, role, q))
		}()
	}
	return r.closedStats(&wg, &issued)
}

// closedStart starts a closed loop's clock (its warm-up, or the measured
// part) and returns its quota.
func (r *run) closedStart() *quota {
	t0 := r.clk.Now()
	r.ph.warmEnd = t0.Add(r.cfg.Warmup)
	r.ph.warmEndAt = r.ph.warmEnd.Sub(r.ph.epoch)
	if r.cfg.Warmup <= 0 {
		r.ph.begin(t0)
	}
	q := &quota{workers: int64(len(r.cfg.Roles))}
	q.left.Store(r.cfg.Count)
	return q
}

// closedStats waits for a closed loop's goroutines and describes the run.
func (r *run) closedStats(wg *sync.WaitGroup, issued *atomic.Int64) (Stats, error) {
	abandoned := r.wait(wg)
	if r.st.err != nil {
		return Stats{}, r.st.err
	}
	end := r.end(r.clk.Now())
	if !r.ph.measured.Load() {
		r.ph.begin(end) // the warm-up outlasted the run (interrupted)
	}
	if r.cfg.Duration > 0 && end.After(r.ph.deadline) {
		end = r.ph.deadline // the window; later completions are overruns
	}
	return Stats{Start: r.ph.start, End: end, Issued: issued.Load(), Executors: len(r.cfg.Roles),
		Interrupted: r.interrupted.Load(), Abandoned: abandoned}, r.ctx.Err()
}

// work is closed-loop worker w: it runs operations of kind role until the
// run ends, and returns how many measured ones it started.
func (r *run) work(w, role int, q *quota) (issued int64) {
	cfg, ctx := r.cfg, r.ctx
	ex, err := cfg.NewExecutor(w)
	if err != nil {
		r.st.stop(fmt.Errorf("worker %d: %w", w, err))
		return 0
	}
	if c, ok := ex.(interface{ Close() }); ok {
		defer c.Close()
	}
	r.inflight.Add(1)
	defer r.inflight.Add(-1)
	measuring := r.ph.measured.Load()
	rec := metrics.NewRecorder(cfg.Ops) // warm-up: not registered
	if measuring {
		rec = cfg.NewRecorder()
	}
	rx, _ := ex.(Recording)
	if rx != nil {
		rx.Record(rec)
	}
	done := tally{to: cfg.Done}
	defer done.flush()
	var own int64          // operations of the count claimed, not started
	var took time.Duration // how long the last operation took
	seq := uint64(w) << 40
	for ctx.Err() == nil {
		start := r.since()
		if !measuring {
			if !r.ph.measured.Load() && start >= r.ph.warmEndAt {
				r.ph.begin(r.ph.epoch.Add(start))
			}
			if r.ph.measured.Load() {
				measuring = true
				rec = cfg.NewRecorder()
				if rx != nil {
					rx.Record(rec)
				}
			}
		}
		if measuring {
			if cfg.Duration > 0 && start >= r.ph.deadlineAt {
				return issued
			}
			if cfg.Count > 0 {
				if own == 0 {
					if own = q.claim(took); own == 0 {
						return issued
					}
				}
				own--
			}
			issued++
		}
		op := role
		if op == AnyOp {
			op = cfg.Choose(seq)
		}
		seq++
		retries, err := ex.Do(ctx, op)
		end := r.since()
		took = end - start
		if ctx.Err() != nil {
			if measuring {
				r.interrupted.Add(1) // ended after the cancel: not counted
			}
			return issued
		}
		if (err != nil || retries != 0) && !record(cfg, rec, op, retries, err, &r.st) {
			continue
		}
		if measuring && cfg.Duration > 0 && end > r.ph.deadlineAt {
			// Finished after the window closed: its latency counts,
			// it does not count towards the rate.
			rec.ObserveOverrun(op, took)
			continue
		}
		rec.Observe(op, took)
		if measuring {
			done.add(end)
		}
	}
	return issued
}

type ticket struct {
	seq uint64
	due time.Duration
}

func runOpen(parent context.Context, cfg Config) (Stats, error) {
	r, finish := start(parent, &cfg)
	defer finish()
	ctx, clk := r.ctx, r.clk
	// Tickets wait in a buffer for a free executor, so the dispatcher never
	// waits for a handoff; the time they wait counts in their response time.
	// The handoff (a channel send and receive) and idle are what executors
	// share per operation, as in wrk2 and vegeta; BenchmarkOpenLoop100k
	// shows it holds 100,000 operations per second.
	ch := make(chan ticket, 1024)
	var idle atomic.Int32
	var dropped atomic.Int64
	var wg sync.WaitGroup
	var lagMu sync.Mutex
	lagDone := false // set once Run has taken lag: late merges are dropped
	lag := metrics.NewIntervalHistogram()
	warm := cfg.Warmup
	var t0 time.Time
	spawned := 0
	spawn := func() {
		w := spawned
		spawned++
		idle.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			ex, err := cfg.NewExecutor(w)
			if err != nil {
				r.st.stop(fmt.Errorf("executor %d: %w", w, err))
				for range ch { // keep the dispatcher from blocking
				}
				return
			}
			if c, ok := ex.(interface{ Close() }); ok {
				defer c.Close()
			}
			warmRec := metrics.NewRecorder(cfg.Ops)
			var rec, last *metrics.Recorder
			rx, _ := ex.(Recording)
			myLag := metrics.NewIntervalHistogram()
			done := tally{to: cfg.Done}
			var myDropped int64
			defer func() {
				done.flush()
				dropped.Add(myDropped)
				lagMu.Lock()
				if !lagDone {
					lag.Merge(myLag)
				}
				lagMu.Unlock()
			}()
			for t := range ch {
				measured := t.due >= warm
				if ctx.Err() != nil {
					if measured {
						myDropped++ // stopped: what is still queued is not started
					}
					continue
				}
				idle.Add(-1)
				start := clk.Now()
				late := start.Sub(t0) - t.due
				into := warmRec
				if measured {
					if rec == nil {
						rec = cfg.NewRecorder()
					}
					into = rec
					myLag.RecordValue(max(int64(late), 1)) //nolint:errcheck
				}
				if rx != nil && into != last {
					rx.Record(into)
					last = into
				}
				op := cfg.Choose(t.seq)
				r.inflight.Add(1)
				retries, err := ex.Do(ctx, op)
				r.inflight.Add(-1)
				end := clk.Now()
				switch {
				case ctx.Err() != nil:
					if measured {
						r.interrupted.Add(1) // ended after the cancel: not counted
					}
				case record(&cfg, into, op, retries, err, &r.st):
					into.ObserveScheduled(op, end.Sub(start), end.Sub(t0)-t.due, late > cfg.LateAfter)
					if measured {
						done.add(end.Sub(t0))
					}
				}
				idle.Add(1)
			}
		}()
	}
	spawn()
	t0 = clk.Now()
	if warm <= 0 {
		r.ph.begin(t0)
	}
	var issued int64
	var prev time.Duration
	end := warm + cfg.Duration
dispatch:
	for seq := int64(0); ; seq++ {
		due := Schedule(cfg.Arrivals, cfg.Rate, seq, prev, gen.ArrivalU(cfg.Seed, seq))
		prev = due
		if cfg.Duration > 0 && due >= end {
			break
		}
		if cfg.Count > 0 && due >= warm && issued >= cfg.Count {
			break
		}
		for {
			now := clk.Now().Sub(t0)
			a, d, _ := Wait(now, due)
			switch a {
			case Issue:
			case Spin:
				clk.Spin(due - now)
			case Sleep:
				clk.Sleep(d)
			case Park:
				clk.Park(d, ctx.Done())
			}
			if ctx.Err() != nil {
				break dispatch
			}
			if a == Issue {
				break
			}
		}
		if due >= warm {
			if !r.ph.measured.Load() {
				r.ph.begin(t0.Add(warm))
			}
			issued++
		}
		if idle.Load() <= 0 && spawned < cfg.MaxInflight {
			spawn()
		}
		select {
		case ch <- ticket{uint64(seq), due}:
		case <-ctx.Done():
			break dispatch
		}
	}
	close(ch)
	abandoned := r.wait(&wg)
	lagMu.Lock()
	lagDone = true
	lagMu.Unlock()
	if r.st.err != nil {
		return Stats{}, r.st.err
	}
	stopAt := r.end(clk.Now())
	if !r.ph.measured.Load() {
		r.ph.begin(stopAt)
	}
	return Stats{Start: r.ph.start, End: stopAt, Issued: issued - dropped.Load(), Executors: spawned,
		Interrupted: r.interrupted.Load(), Abandoned: abandoned, Lag: lag}, ctx.Err()
}
