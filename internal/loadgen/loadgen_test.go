package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/litebench/litebench/internal/gen"
	"github.com/litebench/litebench/internal/metrics"
)

func TestScheduleUniform(t *testing.T) {
	cases := []struct {
		rate float64
		seq  int64
		want time.Duration
	}{
		{1000, 0, 0},
		{1000, 1, time.Millisecond},
		{1000, 1000, time.Second},
		{3, 1, 333333333},
		{3, 3, time.Second}, // no accumulated rounding
		{100000, 7, 70 * time.Microsecond},
	}
	for _, c := range cases {
		if got := Schedule(Uniform, c.rate, c.seq, 12345, 0.9); got != c.want {
			t.Errorf("Schedule(uniform, %v, %d) = %v, want %v", c.rate, c.seq, got, c.want)
		}
	}
}

func TestSchedulePoisson(t *testing.T) {
	// u = 1 - 1/e gives a gap of exactly the mean.
	if got := Gap(Poisson, 1000, 1-1/math.E); got < 999*time.Microsecond || got > 1001*time.Microsecond {
		t.Errorf("gap at u=1-1/e = %v, want 1ms", got)
	}
	if got := Gap(Poisson, 1000, 0); got != 0 {
		t.Errorf("gap at u=0 = %v, want 0", got)
	}
	// Over many seeded draws the mean gap is 1/rate and gaps vary.
	var prev time.Duration
	n := int64(200000)
	var gaps []time.Duration
	for seq := int64(0); seq <= n; seq++ {
		due := Schedule(Poisson, 50000, seq, prev, gen.ArrivalU(0, seq))
		if seq > 0 {
			gaps = append(gaps, due-prev)
		}
		prev = due
	}
	mean := float64(prev) / float64(n)
	if want := float64(20 * time.Microsecond); math.Abs(mean-want)/want > 0.01 {
		t.Errorf("mean gap %.0fns, want %.0fns ±1%%", mean, want)
	}
	var var_ float64
	for _, g := range gaps {
		d := float64(g) - mean
		var_ += d * d
	}
	// An exponential's standard deviation equals its mean.
	if sd := math.Sqrt(var_ / float64(len(gaps))); math.Abs(sd-mean)/mean > 0.02 {
		t.Errorf("gap sd %.0fns, want about the mean %.0fns", sd, mean)
	}
}

func TestWait(t *testing.T) {
	ms, us := time.Millisecond, time.Microsecond
	cases := []struct {
		now, due time.Duration
		a        Action
		d, lag   time.Duration
	}{
		{10 * ms, 10 * ms, Issue, 0, 0},
		{15 * ms, 10 * ms, Issue, 0, 5 * ms},
		{0, 100 * ms, Park, 98 * ms, 0},                     // far: a timer, stopping 2ms short
		{0, 3 * ms, Sleep, 3*ms - 150*us, 0},                // near: a thread sleep to the spin window
		{0, 100 * us, Spin, 0, 0},                           // inside the spin window
		{0, TimerGuard + SpinWindow + ms, Sleep, 3 * ms, 0}, // the boundary sleeps
	}
	for _, c := range cases {
		a, d, l := Wait(c.now, c.due)
		if a != c.a || d != c.d || l != c.lag {
			t.Errorf("Wait(%v, %v) = %v %v %v, want %v %v %v", c.now, c.due, a, d, l, c.a, c.d, c.lag)
		}
	}
}

func TestParseArrivals(t *testing.T) {
	if _, err := ParseArrivals("bursty"); err == nil {
		t.Error("unknown arrivals accepted")
	}
	if a, err := ParseArrivals("poisson"); err != nil || a != Poisson {
		t.Error("poisson rejected")
	}
}

// virtual is the clock of tests run in a synctest bubble, where time.Now,
// time.Sleep and timers read the bubble's virtual time. Time moves only
// when every goroutine of the test waits, so the dispatcher issues each
// operation exactly on schedule, a fake operation takes exactly its
// duration, and a run's figures are fixed.
type virtual struct{}

func (virtual) Now() time.Time        { return time.Now() }
func (virtual) Sleep(d time.Duration) { time.Sleep(d) }
func (virtual) Spin(rem time.Duration) {
	time.Sleep(rem) // spinning would never let virtual time move
}

func (virtual) Park(d time.Duration, done <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-done:
		return false
	}
}

// fake is an executor whose operations take a fixed time, one of them
// longer, or fail with a given error.
type fake struct {
	d       time.Duration
	stallAt int64 // the operation (counting from 1) that takes stallD more
	stallD  time.Duration
	n       *atomic.Int64
	failEvr int
	err     error
	// honour ends an operation early when its ctx is cancelled, as
	// statements that can be interrupted do.
	honour bool
}

func (f *fake) Do(ctx context.Context, op int) (int, error) {
	k := f.n.Add(1)
	d := f.d
	if k == f.stallAt {
		d += f.stallD
	}
	if d > 0 && f.honour {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return 0, ctx.Err()
		}
	} else if d > 0 {
		time.Sleep(d)
	}
	if f.failEvr > 0 && k%int64(f.failEvr) == 0 {
		return 2, f.err
	}
	return 0, nil
}

type recs struct {
	mu sync.Mutex
	rs []*metrics.Recorder
}

func (r *recs) new(ops metrics.Ops) func() *metrics.Recorder {
	return func() *metrics.Recorder {
		rec := metrics.NewRecorder(ops)
		r.mu.Lock()
		r.rs = append(r.rs, rec)
		r.mu.Unlock()
		return rec
	}
}

// count returns the operations recorded in the measured part.
func (r *recs) count(ops metrics.Ops) (n int64) {
	for _, o := range metrics.Merge(ops, r.rs) {
		n += o.Count
	}
	return n
}

// runVirtual runs cfg in virtual time (inside a synctest bubble) and
// returns the stats, the error and the virtual time Run took. setup, if
// set, runs in the bubble before the run (to schedule a cancel, say).
func runVirtual(t *testing.T, cfg Config, setup func(cancel context.CancelFunc)) (st Stats, err error, took time.Duration) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if setup != nil {
			setup(cancel)
		}
		cfg.Clock = virtual{}
		begin := time.Now()
		st, err = Run(ctx, cfg)
		took = time.Since(begin)
		// Times are returned relative to the start of the run.
		st.Start, st.End = time.Unix(0, 0).Add(st.Start.Sub(begin)), time.Unix(0, 0).Add(st.End.Sub(begin))
	})
	return st, err, took
}

// chanMux is a Multiplexer over executors, for tests: each operation runs
// on a goroutine of its own and ends on a channel.
type chanMux struct {
	ctx context.Context
	exs []Executor
	ch  chan Ended
	wg  sync.WaitGroup
}

// testLoops is how many event loops the tests' multiplexed runs use.
const testLoops = 2

// muxOf makes multiplexers over cfg's executors: slot k of loop i is
// worker i + k*testLoops, as the engine shares them out.
func muxOf(newEx func(int) (Executor, error)) func(context.Context, int, int) (Multiplexer, error) {
	return func(ctx context.Context, loop, n int) (Multiplexer, error) {
		m := &chanMux{ctx: ctx, ch: make(chan Ended, n)}
		for k := range n {
			ex, err := newEx(loop + k*testLoops)
			if err != nil {
				return nil, err
			}
			m.exs = append(m.exs, ex)
		}
		return m, nil
	}
}

func (m *chanMux) Start(slot, op int) error {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		r, err := m.exs[slot].Do(m.ctx, op)
		m.ch <- Ended{Slot: slot, Retries: r, Err: err}
	}()
	return nil
}

func (m *chanMux) Wait(each func(Ended)) error {
	select {
	case e := <-m.ch:
		each(e)
	case <-m.ctx.Done():
		return m.ctx.Err()
	}
	for {
		select {
		case e := <-m.ch:
			each(e)
		default:
			return nil
		}
	}
}

// Close waits for the operations in flight (they end on their own).
func (m *chanMux) Close() { m.wg.Wait() }

// closedModes runs f for a closed loop on a goroutine per worker and on
// event loops: mode sets a config up for the one being tested.
func closedModes(t *testing.T, f func(t *testing.T, mode func(Config) Config)) {
	t.Run("goroutines", func(t *testing.T) { f(t, func(c Config) Config { return c }) })
	t.Run("event-loops", func(t *testing.T) {
		f(t, func(c Config) Config {
			c.NewMultiplexer, c.Loops = muxOf(c.NewExecutor), testLoops
			return c
		})
	})
}

// at is an offset from the start of a run as runVirtual returns times.
func at(d time.Duration) time.Time { return time.Unix(0, 0).Add(d) }

func TestClosedLoopCountAndErrors(t *testing.T) {
	closedModes(t, func(t *testing.T, mode func(Config) Config) {
		ops := metrics.Ops{"read", "write"}
		var n atomic.Int64
		var rs recs
		var done atomic.Int64
		busy := errors.New("database is locked")
		stats, err, _ := runVirtual(t, mode(Config{
			Ops: ops, Roles: []int{0, 0, 1}, Count: 3000,
			NewExecutor: func(int) (Executor, error) {
				return &fake{n: &n, d: 20 * time.Microsecond, failEvr: 10, err: busy}, nil
			},
			Classify:    func(error) string { return "busy" },
			NewRecorder: rs.new(ops), Done: &done,
		}), nil)
		if err != nil {
			t.Fatal(err)
		}
		if stats.Issued != 3000 || n.Load() != 3000 {
			t.Errorf("issued %d, ran %d, want 3000", stats.Issued, n.Load())
		}
		m := metrics.Merge(ops, rs.rs)
		var okN, errN, retries int64
		for _, o := range m {
			okN += o.Count
			errN += o.Errors["busy"]
			retries += o.Retries
		}
		if okN+errN != 3000 || errN != 300 {
			t.Errorf("ok %d + busy %d, want 2700 + 300", okN, errN)
		}
		if retries != 600 {
			t.Errorf("retries %d, want 600 (2 per failed op)", retries)
		}
		if done.Load() != okN {
			t.Errorf("done %d, want %d", done.Load(), okN)
		}
		if len(m) != 2 || m[1].Count == 0 {
			t.Errorf("the writer's op kind is missing: %+v", m)
		}
	})
}

// Workers claim a counted run's operations in blocks: whatever the
// number of workers and their speeds, exactly Count operations run, and
// a slow worker is not left finishing a long block alone.
func TestClosedLoopCountExact(t *testing.T) {
	closedModes(t, func(t *testing.T, mode func(Config) Config) {
		cases := []struct {
			name    string
			count   int64
			speeds  []time.Duration // one worker each
			maxTook time.Duration
		}{
			{"one worker", 3000, []time.Duration{time.Microsecond}, 3 * time.Millisecond},
			{"fewer ops than workers", 5, []time.Duration{1, 1, 1, 1, 1, 1, 1, 1}, time.Microsecond},
			{"fast workers", 100_003, []time.Duration{time.Microsecond, 2 * time.Microsecond, 3 * time.Microsecond}, 60 * time.Millisecond},
			// The fast workers run ~3000 operations in 1 ms; the slow one
			// holds one operation at a time, so it ends within 1 ms of them.
			{"one slow worker", 3000, []time.Duration{time.Millisecond, time.Microsecond, time.Microsecond, time.Microsecond}, 2 * time.Millisecond},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				ops := metrics.Ops{"op"}
				var n, done atomic.Int64
				var rs recs
				roles := make([]int, len(c.speeds))
				st, err, took := runVirtual(t, mode(Config{
					Ops: ops, Roles: roles, Count: c.count, Done: &done,
					NewExecutor: func(w int) (Executor, error) { return &fake{n: &n, d: c.speeds[w]}, nil },
					NewRecorder: rs.new(ops),
				}), nil)
				if err != nil {
					t.Fatal(err)
				}
				if n.Load() != c.count || st.Issued != c.count || rs.count(ops) != c.count || done.Load() != c.count {
					t.Errorf("ran %d, issued %d, recorded %d, done %d, want %d", n.Load(), st.Issued, rs.count(ops), done.Load(), c.count)
				}
				if took > c.maxTook {
					t.Errorf("the run took %v, want at most %v", took, c.maxTook)
				}
			})
		}
	})
}

// Two workers whose operations take 1 ms, 100 ms of warm-up then 100 ms
// measured: the window starts when the warm-up ends and closes at its
// deadline, and exactly the 200 operations run inside it are counted.
func TestClosedLoopWarmupExcluded(t *testing.T) {
	closedModes(t, func(t *testing.T, mode func(Config) Config) {
		ops := metrics.Ops{"op"}
		var n, done atomic.Int64
		var rs recs
		var started time.Time
		stats, err, _ := runVirtual(t, mode(Config{
			Ops: ops, Roles: []int{0, 0}, Duration: 100 * time.Millisecond, Warmup: 100 * time.Millisecond,
			NewExecutor: func(int) (Executor, error) { return &fake{n: &n, d: time.Millisecond}, nil },
			NewRecorder: rs.new(ops), OnMeasure: func(t time.Time) { started = t }, Done: &done,
		}), nil)
		if err != nil {
			t.Fatal(err)
		}
		if c := rs.count(ops); c != 200 || n.Load() != 400 || stats.Issued != 200 || done.Load() != 200 {
			t.Errorf("counted %d (done %d, issued %d) of %d operations, want 200 of 400", c, done.Load(), stats.Issued, n.Load())
		}
		if stats.Start != at(100*time.Millisecond) || stats.End != at(200*time.Millisecond) {
			t.Errorf("measured %v to %v, want 100ms to 200ms", stats.Start, stats.End)
		}
		if started.IsZero() {
			t.Error("OnMeasure was not called")
		}
	})
}

func TestFatalStops(t *testing.T) {
	closedModes(t, func(t *testing.T, mode func(Config) Config) {
		ops := metrics.Ops{"op"}
		var n atomic.Int64
		var rs recs
		boom := errors.New("no such table")
		_, err, _ := runVirtual(t, mode(Config{
			Ops: ops, Roles: []int{0, 0}, Duration: 10 * time.Second,
			NewExecutor: func(int) (Executor, error) {
				return &fake{n: &n, d: time.Millisecond, failEvr: 5, err: Fatal(boom)}, nil
			},
			NewRecorder: rs.new(ops),
		}), nil)
		if !errors.Is(err, boom) {
			t.Errorf("got %v, want the fatal error", err)
		}
	})
}

// Poisson arrivals at 2000/s for 0.5 s: the engine issues exactly the
// operations its schedule puts inside the window, each on time.
func TestOpenLoopRate(t *testing.T) {
	ops := metrics.Ops{"read", "write"}
	choose := func(seq uint64) int { return int(seq % 10 / 9) } // 10% writes
	const rate, seed = 2000, 1
	var want, wantW int64
	var prev time.Duration
	for seq := int64(0); ; seq++ {
		due := Schedule(Poisson, rate, seq, prev, gen.ArrivalU(seed, seq))
		if due >= 500*time.Millisecond {
			break
		}
		prev = due
		want++
		wantW += int64(choose(uint64(seq)))
	}
	if want < 900 || want > 1100 {
		t.Fatalf("the schedule has %d operations in 0.5 s at 2000/s", want)
	}
	var n, done atomic.Int64
	var rs recs
	stats, err, _ := runVirtual(t, Config{
		Ops: ops, Rate: rate, Arrivals: Poisson, MaxInflight: 8, Duration: 500 * time.Millisecond, Seed: seed,
		Choose:      choose,
		NewExecutor: func(int) (Executor, error) { return &fake{n: &n, d: 100 * time.Microsecond}, nil },
		NewRecorder: rs.new(ops), Done: &done,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := metrics.Merge(ops, rs.rs)
	if total := m[0].Count + m[1].Count; total != want || m[1].Count != wantW || stats.Issued != want || done.Load() != want {
		t.Errorf("%d operations (%d writes, %d issued, %d done), want %d (%d writes)", total, m[1].Count, stats.Issued, done.Load(), want, wantW)
	}
	if m[0].Response == nil {
		t.Fatal("open loop recorded no response times")
	}
	if stats.Lag == nil || stats.Lag.TotalCount() != want || stats.Lag.Max() > 1 {
		t.Errorf("lag: %d samples, max %dns; want %d, all on time", stats.Lag.TotalCount(), stats.Lag.Max(), want)
	}
	// On time and never queued: response time is the service time.
	for _, o := range m {
		r, us100 := o.Response, int64(100*time.Microsecond)
		if !r.ValuesAreEquivalent(r.Min(), us100) || !r.ValuesAreEquivalent(r.Max(), us100) || o.Late != 0 {
			t.Errorf("%s: response %d..%dns, late %d; want 100µs each", o.Name, r.Min(), r.Max(), o.Late)
		}
	}
	if stats.End != at(500*time.Millisecond) && stats.End.Before(at(prev)) {
		t.Errorf("the run ended at %v, before its last operation was due (%v)", stats.End, prev)
	}
}

// A target that stalls for 500 ms once, driven at 1000/s by one executor:
// the stall shows in the response times of every operation scheduled
// during it, and in the service time of the stalled one only.
func TestCoordinatedOmission(t *testing.T) {
	ops := metrics.Ops{"op"}
	var n atomic.Int64
	var rs recs
	_, err, _ := runVirtual(t, Config{
		Ops: ops, Rate: 1000, MaxInflight: 1, Duration: 2 * time.Second,
		Choose: func(uint64) int { return 0 },
		NewExecutor: func(int) (Executor, error) {
			return &fake{n: &n, stallAt: 200, stallD: 500 * time.Millisecond}, nil
		},
		NewRecorder: rs.new(ops),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := metrics.Merge(ops, rs.rs)[0]
	if m.Count != 2000 {
		t.Errorf("%d operations, want 2000", m.Count)
	}
	// Operation 200, due at 199 ms, ends at 699 ms; those due from 200 to
	// 698 ms wait for it, 699-due ms; late means more than 1 ms.
	if m.Late != 498 {
		t.Errorf("late = %d, want the 498 operations due 200-697 ms", m.Late)
	}
	resp := metrics.Summarise(m.Response)
	svc := metrics.Summarise(m.Service)
	if resp.Max < 499_500 || resp.Max > 500_500 {
		t.Errorf("response max = %.0fµs, want 500ms", resp.Max)
	}
	// 200 operations (10%) waited more than 300 ms: the stalled one and
	// those due from 200 to 398 ms.
	if resp.P["p90"] < 299_000 || resp.P["p90"] > 301_000 {
		t.Errorf("response p90 = %.0fµs, want 300ms", resp.P["p90"])
	}
	if svc.Max < 499_500 || svc.P["p999"] > 0.001 {
		t.Errorf("service max %.0fµs, p99.9 %.3fµs: only the stalled operation is slow", svc.Max, svc.P["p999"])
	}
}

func TestOpenLoopCount(t *testing.T) {
	ops := metrics.Ops{"op"}
	var n atomic.Int64
	var rs recs
	stats, err, _ := runVirtual(t, Config{
		Ops: ops, Rate: 5000, MaxInflight: 4, Count: 500, Warmup: 20 * time.Millisecond,
		Choose:      func(uint64) int { return 0 },
		NewExecutor: func(int) (Executor, error) { return &fake{n: &n, d: 50 * time.Microsecond}, nil },
		NewRecorder: rs.new(ops),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := rs.count(ops); c != 500 || stats.Issued != 500 {
		t.Errorf("counted %d, issued %d, want 500", c, stats.Issued)
	}
	// 100 operations are due in the 20 ms of warm-up.
	if n.Load() != 600 {
		t.Errorf("ran %d operations, want 100 of warm-up and 500", n.Load())
	}
	if stats.Start != at(20*time.Millisecond) {
		t.Errorf("measured from %v, want 20ms", stats.Start)
	}
}

// Ctrl-C during an open-loop run that has fallen behind: operations take
// 10 ms, two executors, 1000/s due, so tickets queue. At the cancel
// (105.5 ms) the queued tickets are dropped, the two operations in flight
// (started at 100 and 101 ms) end or are interrupted, and only the 20
// operations that ended before the cancel are counted.
func TestOpenLoopInterrupt(t *testing.T) {
	for _, honour := range []bool{false, true} {
		t.Run(fmt.Sprintf("interruptible=%v", honour), func(t *testing.T) {
			ops := metrics.Ops{"op"}
			var n, done atomic.Int64
			var rs recs
			cancelAt := 105*time.Millisecond + 500*time.Microsecond
			st, err, took := runVirtual(t, Config{
				Ops: ops, Rate: 1000, MaxInflight: 2, Duration: time.Hour, Done: &done,
				Choose:      func(uint64) int { return 0 },
				NewExecutor: func(int) (Executor, error) { return &fake{n: &n, d: 10 * time.Millisecond, honour: honour}, nil },
				NewRecorder: rs.new(ops),
			}, func(cancel context.CancelFunc) { time.AfterFunc(cancelAt, cancel) })
			// Without interruption the last operation in flight ends at
			// 111 ms; with it, Run returns once the dispatcher wakes from
			// its thread sleep (the one wait it does not cut short).
			maxTook := 111 * time.Millisecond
			if honour {
				maxTook = cancelAt + maxSleep
			}
			checkInterrupted(t, ops, &rs, st, err, took, cancelAt, maxTook, 20)
			if n.Load() != 22 || st.Issued != 22 || st.Lag.TotalCount() != 22 {
				t.Errorf("started %d operations (issued %d, lag samples %d), want 22: queued ones ran after the cancel",
					n.Load(), st.Issued, st.Lag.TotalCount())
			}
			if done.Load() != 20 {
				t.Errorf("done %d, want 20", done.Load())
			}
		})
	}
}

// Ctrl-C during a closed-loop run: two workers whose operations take
// 10 ms, cancelled at 55 ms: five operations each are counted, the two in
// flight are not, and no worker starts another.
func TestClosedLoopInterrupt(t *testing.T) {
	closedModes(t, func(t *testing.T, mode func(Config) Config) {
		for _, honour := range []bool{false, true} {
			for _, count := range []int64{0, 1000} {
				t.Run(fmt.Sprintf("interruptible=%v,count=%d", honour, count), func(t *testing.T) {
					ops := metrics.Ops{"op"}
					var n, done atomic.Int64
					var rs recs
					cancelAt := 55 * time.Millisecond
					cfg := Config{
						Ops: ops, Roles: []int{0, 0}, Count: count, Done: &done,
						NewExecutor: func(int) (Executor, error) { return &fake{n: &n, d: 10 * time.Millisecond, honour: honour}, nil },
						NewRecorder: rs.new(ops),
					}
					if count == 0 {
						cfg.Duration = time.Hour
					}
					st, err, took := runVirtual(t, mode(cfg), func(cancel context.CancelFunc) { time.AfterFunc(cancelAt, cancel) })
					maxTook := 60 * time.Millisecond // the operations in flight end
					if honour {
						maxTook = cancelAt
					}
					checkInterrupted(t, ops, &rs, st, err, took, cancelAt, maxTook, 10)
					if n.Load() != 12 || st.Issued != 12 || done.Load() != 10 {
						t.Errorf("started %d operations (issued %d, done %d), want 12 (10 done)", n.Load(), st.Issued, done.Load())
					}
				})
			}
		}
	})
}

// maxSleep is the longest thread sleep of Wait.
const maxSleep = TimerGuard + time.Millisecond

// checkInterrupted checks a run cancelled at cancelAt, with two
// operations in flight: it returned by maxTook, its window ends at the
// cancel, and only the count operations that ended before are counted.
func checkInterrupted(t *testing.T, ops metrics.Ops, rs *recs, st Stats, err error, took, cancelAt, maxTook time.Duration, count int64) {
	t.Helper()
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want the context's error", err)
	}
	if took > maxTook || took > time.Second {
		t.Errorf("Run returned %v after the start, want by %v (cancelled at %v)", took, maxTook, cancelAt)
	}
	if st.End != at(cancelAt) {
		t.Errorf("the measured part ends at %v, want the cancel at %v", st.End, cancelAt)
	}
	m := metrics.Merge(ops, rs.rs)[0]
	if m.Count != count || m.Service.TotalCount() != count || len(m.Errors) != 0 || m.Overrun != 0 {
		t.Errorf("counted %d operations (%d latencies, errors %v, overruns %d), want the %d that ended before the cancel",
			m.Count, m.Service.TotalCount(), m.Errors, m.Overrun, count)
	}
	if st.Interrupted != 2 {
		t.Errorf("interrupted %d, want the 2 in flight", st.Interrupted)
	}
}

// The one test on the wall clock: the real dispatcher (timers, thread
// sleeps, spinning) drives an open-loop run, and the counts agree with
// each other. It asserts no timing.
func TestWallClockSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("wall clock")
	}
	ops := metrics.Ops{"read", "write"}
	var n, done atomic.Int64
	var rs recs
	st, err := Run(context.Background(), Config{
		Ops: ops, Rate: 2000, Arrivals: Poisson, MaxInflight: 8, Duration: 300 * time.Millisecond, Seed: 1,
		Choose:      func(seq uint64) int { return int(seq % 10 / 9) },
		NewExecutor: func(int) (Executor, error) { return &fake{n: &n, d: 100 * time.Microsecond}, nil },
		NewRecorder: rs.new(ops), Done: &done,
	})
	if err != nil {
		t.Fatal(err)
	}
	c := rs.count(ops)
	if c == 0 || c != st.Issued || c != n.Load() || c != done.Load() || st.Lag.TotalCount() != c || st.Interrupted != 0 {
		t.Errorf("counted %d, issued %d, ran %d, done %d, lag samples %d, interrupted %d", c, st.Issued, n.Load(), done.Load(), st.Lag.TotalCount(), st.Interrupted)
	}
	if !st.End.After(st.Start) {
		t.Errorf("window %v to %v", st.Start, st.End)
	}
}

// A closed-loop worker that is not stuck ends at the cancel and is not
// counted among the abandoned: only the stuck one is.
func TestDrainCountsOnlyStuckWorkers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ops := metrics.Ops{"op"}
		release := make(chan struct{})
		var n atomic.Int64
		var rs recs
		cfg := Config{
			Ops: ops, Roles: []int{0, 0}, Duration: time.Hour, Drain: 200 * time.Millisecond, Clock: virtual{},
			NewExecutor: func(w int) (Executor, error) {
				if w == 0 {
					return stuck{release}, nil
				}
				return &fake{n: &n, d: time.Millisecond}, nil
			},
			NewRecorder: rs.new(ops),
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		time.AfterFunc(50*time.Millisecond, cancel)
		st, err := Run(ctx, cfg)
		close(release)
		synctest.Wait()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err %v", err)
		}
		if st.Abandoned != 1 || n.Load() == 0 {
			t.Errorf("abandoned %d (the other worker ran %d), want 1", st.Abandoned, n.Load())
		}
	})
}

// The closed loop on the wall clock (the time read as durations since
// the run's start): after a warm-up, every operation started in the
// window is counted once, in the count or as an overrun, each latency is
// at least the operation's own, and the window is the duration asked.
func TestClosedLoopWallClock(t *testing.T) {
	if testing.Short() {
		t.Skip("wall clock")
	}
	ops := metrics.Ops{"op"}
	var n, done atomic.Int64
	var rs recs
	var started time.Time
	const d = 200 * time.Microsecond
	st, err := Run(context.Background(), Config{
		Ops: ops, Roles: []int{0, 0}, Duration: 200 * time.Millisecond, Warmup: 50 * time.Millisecond,
		NewExecutor: func(int) (Executor, error) { return &fake{n: &n, d: d}, nil },
		NewRecorder: rs.new(ops), Done: &done, OnMeasure: func(t time.Time) { started = t },
	})
	if err != nil {
		t.Fatal(err)
	}
	m := metrics.Merge(ops, rs.rs)
	if len(m) != 1 {
		t.Fatalf("merged %d op kinds", len(m))
	}
	o := m[0]
	if o.Count == 0 || o.Count+o.Overrun != st.Issued || o.Count != done.Load() || o.Service.TotalCount() != st.Issued || n.Load() <= st.Issued {
		t.Errorf("counted %d + %d overruns, %d latencies, issued %d, done %d, ran %d", o.Count, o.Overrun, o.Service.TotalCount(), st.Issued, done.Load(), n.Load())
	}
	if min := o.Service.Min(); min < int64(d)*999/1000 {
		t.Errorf("shortest latency %v, want at least %v", time.Duration(min), d)
	}
	if !st.Start.Equal(started) || st.End.Sub(st.Start) != 200*time.Millisecond {
		t.Errorf("window %v to %v (OnMeasure %v), want 200ms", st.Start, st.End, started)
	}
}

type nop struct{}

func (nop) Do(context.Context, int) (int, error) { return 0, nil }

// BenchmarkOpenLoop100k drives a no-op executor at 100,000 operations per
// second for one second per iteration and reports the achieved share of
// the requested rate and the p99 scheduling lag: the load generator must
// not be what limits an open-loop run.
func BenchmarkOpenLoop100k(b *testing.B) {
	ops := metrics.Ops{"op"}
	var achieved, lag99 []float64
	for i := 0; i < b.N; i++ {
		var rs recs
		st, err := Run(context.Background(), Config{
			Ops: ops, Rate: 100000, MaxInflight: 64, Duration: time.Second,
			Choose:      func(uint64) int { return 0 },
			NewExecutor: func(int) (Executor, error) { return nop{}, nil },
			NewRecorder: rs.new(ops),
		})
		if err != nil {
			b.Fatal(err)
		}
		c := metrics.Merge(ops, rs.rs)[0].Count
		achieved = append(achieved, float64(c)/st.End.Sub(st.Start).Seconds()/100000)
		lag99 = append(lag99, float64(st.Lag.ValueAtQuantile(99))/1e3)
		b.Logf("lag p50 %d p90 %d p99 %d max %d executors %d", st.Lag.ValueAtQuantile(50), st.Lag.ValueAtQuantile(90), st.Lag.ValueAtQuantile(99), st.Lag.Max(), st.Executors)
	}
	b.ReportMetric(median(achieved)*100, "%rate")
	b.ReportMetric(median(lag99), "p99-lag-µs")
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}

// stuck is an executor whose operations end only when release is closed
// (a busy wait, a long fsync that nothing interrupts).
type stuck struct{ release chan struct{} }

func (s stuck) Do(context.Context, int) (int, error) { <-s.release; return 0, nil }

// Ctrl-C while operations are stuck: Run waits Drain for them, then
// returns without them, counting them as abandoned, in both loops.
func TestDrainAbandonsStuckOperations(t *testing.T) {
	ops := metrics.Ops{"op"}
	cancelAt := 50 * time.Millisecond
	for _, open := range []bool{false, true} {
		t.Run(fmt.Sprintf("open=%v", open), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				release := make(chan struct{})
				var rs recs
				cfg := Config{
					Ops: ops, Duration: time.Hour, Drain: 200 * time.Millisecond, Clock: virtual{},
					Choose:      func(uint64) int { return 0 },
					NewExecutor: func(int) (Executor, error) { return stuck{release}, nil },
					NewRecorder: rs.new(ops),
				}
				want := int64(2)
				if open {
					cfg.Rate, cfg.MaxInflight = 100, 3 // three have started by the cancel
					want = 3
				} else {
					cfg.Roles = []int{0, 0}
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				time.AfterFunc(cancelAt, cancel)
				begin := time.Now()
				st, err := Run(ctx, cfg)
				took := time.Since(begin)
				close(release) // the stuck operations end; nothing records them
				synctest.Wait()
				if !errors.Is(err, context.Canceled) {
					t.Errorf("err %v", err)
				}
				if took != cancelAt+cfg.Drain {
					t.Errorf("Run returned after %v, want the cancel plus the drain, %v", took, cancelAt+cfg.Drain)
				}
				if st.Abandoned != want {
					t.Errorf("abandoned %d, want %d", st.Abandoned, want)
				}
				for _, r := range rs.rs {
					if r.Count(0) != 0 {
						t.Errorf("an abandoned operation was recorded")
					}
				}
			})
		})
	}
}
