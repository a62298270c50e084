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

	"litebench/internal/gen"
	"litebench/internal/metrics"
)

// Executor runs operations for one worker. It is used by one goroutine.
type Executor interface {
	// Do runs one operation of kind op (an index into Config.Ops). retries
	// is how many times it was retried (after SQLITE_BUSY, say) before it
	// succeeded or failed.
	Do(ctx context.Context, op int) (retries int, err error)
}

// fatalError marks an error that ends the run instead of being counted.
type fatalError struct{ error }

func (f fatalError) Unwrap() error { return f.error }

// Fatal wraps err so that the engine stops the run with it. Errors not
// wrapped are counted per kind and the run goes on.
func Fatal(err error) error { return fatalError{err} }

// AnyOp as a worker role lets Config.Choose pick each operation's kind.
const AnyOp = -1

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
	// Classify names an error's kind (metrics.ErrorKinds).
	Classify func(error) string
	// NewRecorder returns a recorder that counts (registered with the run);
	// warm-up uses unregistered ones.
	NewRecorder func() *metrics.Recorder
	// OnMeasure is called once, when the measured part starts.
	OnMeasure func(start time.Time)
	// Done counts finished measured operations, for progress lines.
	Done *atomic.Int64
}

// Stats describes what the engine did.
type Stats struct {
	Start, End time.Time // the measured part
	Issued     int64     // operations started in the measured part
	Executors  int       // goroutines that ran operations
	// Lag is, for open loop, how late each measured operation started
	// relative to its schedule (the load generator's own delay plus any
	// wait for a free executor).
	Lag *hdr.Histogram
}

// Run drives the load until the duration or count is reached, ctx is
// cancelled, or an executor returns a Fatal error.
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
	return runClosed(ctx, cfg)
}

// phase tracks the switch from warm-up to measurement.
type phase struct {
	cfg      *Config
	warmEnd  time.Time
	once     sync.Once
	measured atomic.Bool
	// start and deadline are written once, before measured is set.
	start, deadline time.Time
}

func (p *phase) begin(now time.Time) {
	p.once.Do(func() {
		p.start = now
		if p.cfg.Duration > 0 {
			p.deadline = now.Add(p.cfg.Duration)
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

func runClosed(ctx context.Context, cfg Config) (Stats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st := &stopper{cancel: cancel}
	t0 := time.Now()
	ph := &phase{cfg: &cfg, warmEnd: t0.Add(cfg.Warmup)}
	if cfg.Warmup <= 0 {
		ph.begin(t0)
	}
	var claimed atomic.Int64
	var issued atomic.Int64
	var wg sync.WaitGroup
	for w, role := range cfg.Roles {
		wg.Add(1)
		go func(w, role int) {
			defer wg.Done()
			ex, err := cfg.NewExecutor(w)
			if err != nil {
				st.stop(fmt.Errorf("worker %d: %w", w, err))
				return
			}
			if c, ok := ex.(interface{ Close() }); ok {
				defer c.Close()
			}
			measuring := ph.measured.Load()
			rec := metrics.NewRecorder(cfg.Ops) // warm-up: not registered
			if measuring {
				rec = cfg.NewRecorder()
			}
			seq := uint64(w) << 40
			for ctx.Err() == nil {
				start := time.Now()
				if !measuring {
					if !ph.measured.Load() && !start.Before(ph.warmEnd) {
						ph.begin(start)
					}
					if ph.measured.Load() {
						measuring = true
						rec = cfg.NewRecorder()
					}
				}
				if measuring {
					if cfg.Duration > 0 && !start.Before(ph.deadline) {
						return
					}
					if cfg.Count > 0 && claimed.Add(1) > cfg.Count {
						return
					}
					issued.Add(1)
				}
				op := role
				if op == AnyOp {
					op = cfg.Choose(seq)
				}
				seq++
				retries, err := ex.Do(ctx, op)
				if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
					return
				}
				if !record(&cfg, rec, op, retries, err, st) {
					continue
				}
				end := time.Now()
				d := end.Sub(start)
				if measuring && cfg.Duration > 0 && end.After(ph.deadline) {
					// Finished after the window closed: its latency counts,
					// it does not count towards the rate.
					rec.ObserveOverrun(op, d)
					continue
				}
				rec.Observe(op, d)
				if measuring {
					cfg.Done.Add(1)
				}
			}
		}(w, role)
	}
	wg.Wait()
	end := time.Now()
	if st.err != nil {
		return Stats{}, st.err
	}
	if !ph.measured.Load() {
		ph.begin(end) // the warm-up outlasted the run (interrupted)
	}
	if cfg.Duration > 0 && end.After(ph.deadline) && ctx.Err() == nil {
		end = ph.deadline // the window; later completions are overruns
	}
	return Stats{Start: ph.start, End: end, Issued: issued.Load(), Executors: len(cfg.Roles)}, ctx.Err()
}

type ticket struct {
	seq uint64
	due time.Duration
}

func runOpen(ctx context.Context, cfg Config) (Stats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st := &stopper{cancel: cancel}
	// Tickets wait in a buffer for a free executor, so the dispatcher never
	// waits for a handoff; the time they wait counts in their response time.
	ch := make(chan ticket, 1024)
	var idle atomic.Int32
	var wg sync.WaitGroup
	var lagMu sync.Mutex
	lag := metrics.NewIntervalHistogram()
	warm := cfg.Warmup
	var t0 time.Time
	ph := &phase{cfg: &cfg}
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
				st.stop(fmt.Errorf("executor %d: %w", w, err))
				for range ch { // keep the dispatcher from blocking
				}
				return
			}
			if c, ok := ex.(interface{ Close() }); ok {
				defer c.Close()
			}
			warmRec := metrics.NewRecorder(cfg.Ops)
			var rec *metrics.Recorder
			myLag := metrics.NewIntervalHistogram()
			defer func() {
				lagMu.Lock()
				lag.Merge(myLag)
				lagMu.Unlock()
			}()
			for t := range ch {
				idle.Add(-1)
				start := time.Now()
				late := start.Sub(t0) - t.due
				measured := t.due >= warm
				r := warmRec
				if measured {
					if rec == nil {
						rec = cfg.NewRecorder()
					}
					r = rec
					myLag.RecordValue(max(int64(late), 1)) //nolint:errcheck
				}
				op := cfg.Choose(t.seq)
				retries, err := ex.Do(ctx, op)
				end := time.Now()
				interrupted := err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled)
				if !interrupted && record(&cfg, r, op, retries, err, st) {
					r.ObserveScheduled(op, end.Sub(start), end.Sub(t0)-t.due, late > cfg.LateAfter)
					if measured {
						cfg.Done.Add(1)
					}
				}
				idle.Add(1)
			}
		}()
	}
	spawn()
	t0 = time.Now()
	if warm <= 0 {
		ph.begin(t0)
	}
	var issued int64
	var prev time.Duration
	timer := time.NewTimer(time.Hour)
	timer.Stop()
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
	wait:
		for {
			a, d, _ := Wait(time.Since(t0), due)
			switch a {
			case Issue:
				break wait
			case Spin:
				runtime.Gosched()
			case Sleep:
				ts := syscall.NsecToTimespec(int64(d))
				syscall.Nanosleep(&ts, nil) //nolint:errcheck // re-checked
			case Park:
				timer.Reset(d)
				select {
				case <-timer.C:
				case <-ctx.Done():
					timer.Stop()
					break dispatch
				}
			}
			if ctx.Err() != nil {
				break dispatch
			}
		}
		if due >= warm {
			if !ph.measured.Load() {
				ph.begin(t0.Add(warm))
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
	wg.Wait()
	stopAt := time.Now()
	if st.err != nil {
		return Stats{}, st.err
	}
	if !ph.measured.Load() {
		ph.begin(stopAt)
	}
	return Stats{Start: ph.start, End: stopAt, Issued: issued, Executors: spawned, Lag: lag}, ctx.Err()
}
