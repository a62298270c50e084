package loadgen

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/litebench/litebench/internal/metrics"
)

// runLoops is the closed loop on event loops: the workers are shared out
// among Config.Loops goroutines, each driving its workers' operations
// through a Multiplexer. The semantics are work's, operation by
// operation: warm-up, count and duration, overruns, errors, interrupts.
func runLoops(parent context.Context, cfg Config) (Stats, error) {
	r, finish := start(parent, &cfg)
	defer finish()
	q := r.closedStart()
	loops := cfg.Loops
	if loops <= 0 {
		loops = runtime.GOMAXPROCS(0)
	}
	loops = min(loops, len(cfg.Roles))
	var issued atomic.Int64
	var wg sync.WaitGroup
	for i := range loops {
		var ws []int
		for w := i; w < len(cfg.Roles); w += loops {
			ws = append(ws, w)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			issued.Add(r.loop(i, ws, q))
		}()
	}
	return r.closedStats(&wg, &issued)
}

// slot is a worker of an event loop and its operation in flight.
type slot struct {
	role     int
	seq      uint64
	busy     bool
	measured bool // started in the measured part
	op       int
	start    time.Time
}

// eventLoop is one event loop of a run and its workers.
type eventLoop struct {
	r         *run
	mx        Multiplexer
	slots     []slot
	rec, warm *metrics.Recorder
	measuring bool
	done      tally
	own       int64         // operations of the count claimed, not started
	took      time.Duration // how long the last operation took
	q         *quota
	issued    int64
	inflight  int
	onEnd     func(Ended) // ended, made once
}

// loop runs event loop i with workers ws until the run ends, and returns
// how many measured operations it started.
func (r *run) loop(i int, ws []int, q *quota) int64 {
	cfg := r.cfg
	mx, err := cfg.NewMultiplexer(r.ctx, i, len(ws))
	if err != nil {
		r.st.stop(fmt.Errorf("event loop %d: %w", i, err))
		return 0
	}
	defer mx.Close()
	l := &eventLoop{r: r, mx: mx, slots: make([]slot, len(ws)), q: q,
		warm: metrics.NewRecorder(cfg.Ops), done: tally{to: cfg.Done}}
	l.onEnd = l.ended
	defer l.done.flush()
	l.rec = l.warm
	if l.measuring = r.ph.measured.Load(); l.measuring {
		l.rec = cfg.NewRecorder()
	}
	for k, w := range ws {
		l.slots[k] = slot{role: cfg.Roles[w], seq: uint64(w) << 40}
	}
	now := r.clk.Now()
	for k := range l.slots {
		l.begin(k, now)
	}
	for l.inflight > 0 {
		err := mx.Wait(l.onEnd)
		if err != nil || r.ctx.Err() != nil {
			if r.ctx.Err() == nil {
				r.st.stop(fmt.Errorf("event loop %d: %w", i, err))
			}
			for _, s := range l.slots {
				if s.busy && s.measured {
					r.interrupted.Add(1) // ended after the cancel: not counted
				}
			}
			return l.issued
		}
	}
	return l.issued
}

// onEnd records an operation as it ends and starts its slot's next one
// at once, as wrk does: the other operations that ended in the same pass
// of the loop do not delay it.
func (l *eventLoop) ended(e Ended) {
	if l.r.ctx.Err() != nil {
		// Ended after the cancel: like one still in flight, it is left
		// busy, and counted as interrupted when Wait returns, as work
		// counts one whose Do returns after the cancel.
		return
	}
	now := l.r.clk.Now()
	l.end(e, now)
	l.begin(e.Slot, now)
}

// begin starts slot k's next operation at now, unless the run is over
// for it. An operation that fails at once ends there and the next one
// starts.
func (l *eventLoop) begin(k int, now time.Time) {
	r, cfg := l.r, l.r.cfg
	for r.ctx.Err() == nil {
		if !l.measuring {
			if !r.ph.measured.Load() && !now.Before(r.ph.warmEnd) {
				r.ph.begin(now)
			}
			if r.ph.measured.Load() {
				l.measuring = true
				l.rec = cfg.NewRecorder()
			}
		}
		if l.measuring {
			if cfg.Duration > 0 && !now.Before(r.ph.deadline) {
				return
			}
			if cfg.Count > 0 {
				if l.own == 0 {
					if l.own = l.q.claim(l.took / time.Duration(len(l.slots))); l.own == 0 {
						return
					}
				}
				l.own--
			}
			l.issued++
		}
		s := &l.slots[k]
		s.op = s.role
		if s.op == AnyOp {
			s.op = cfg.Choose(s.seq)
		}
		s.seq++
		s.busy, s.measured, s.start = true, l.measuring, now
		l.inflight++
		err := l.mx.Start(k, s.op)
		if err == nil {
			return
		}
		now = r.clk.Now()
		l.end(Ended{Slot: k, Err: err}, now)
	}
}

// end records slot k's operation, ended at now.
func (l *eventLoop) end(e Ended, now time.Time) {
	r, cfg := l.r, l.r.cfg
	s := &l.slots[e.Slot]
	s.busy = false
	l.inflight--
	l.took = now.Sub(s.start)
	rec := l.warm
	if s.measured {
		rec = l.rec
	}
	if !record(cfg, rec, s.op, e.Retries, e.Err, &r.st) {
		return
	}
	if s.measured && cfg.Duration > 0 && now.After(r.ph.deadline) {
		// Finished after the window closed: its latency counts, it
		// does not count towards the rate.
		rec.ObserveOverrun(s.op, l.took)
		return
	}
	rec.Observe(s.op, l.took)
	if s.measured {
		l.done.add(now.Sub(r.ph.epoch))
	}
}
