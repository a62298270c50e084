package loadgen

import (
	"context"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"litebench/internal/gen"
	"litebench/internal/metrics"
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

// fake is an executor whose operations take a fixed time, optionally
// stalling once, or failing with a given error.
type fake struct {
	d       time.Duration
	stall   *atomic.Int64 // the operation number that stalls
	stallD  time.Duration
	n       *atomic.Int64
	failEvr int
	err     error
}

func (f *fake) Do(ctx context.Context, op int) (int, error) {
	k := f.n.Add(1)
	if f.stall != nil && k == f.stall.Load() {
		time.Sleep(f.stallD)
	}
	if f.d > 0 {
		time.Sleep(f.d)
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

func TestClosedLoopCountAndErrors(t *testing.T) {
	ops := metrics.Ops{"read", "write"}
	var n atomic.Int64
	var rs recs
	var done atomic.Int64
	busy := errors.New("database is locked")
	stats, err := Run(context.Background(), Config{
		Ops: ops, Roles: []int{0, 0, 1}, Count: 3000,
		NewExecutor: func(int) (Executor, error) {
			return &fake{n: &n, d: 20 * time.Microsecond, failEvr: 10, err: busy}, nil
		},
		Classify:    func(error) string { return "busy" },
		NewRecorder: rs.new(ops), Done: &done,
	})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Issued != 3000 {
		t.Errorf("issued %d, want 3000", stats.Issued)
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
}

func TestClosedLoopWarmupExcluded(t *testing.T) {
	ops := metrics.Ops{"op"}
	var n atomic.Int64
	var rs recs
	var started time.Time
	stats, err := Run(context.Background(), Config{
		Ops: ops, Roles: []int{0, 0}, Duration: 100 * time.Millisecond, Warmup: 100 * time.Millisecond,
		NewExecutor: func(int) (Executor, error) { return &fake{n: &n, d: time.Millisecond}, nil },
		NewRecorder: rs.new(ops), OnMeasure: func(t time.Time) { started = t },
	})
	if err != nil {
		t.Fatal(err)
	}
	counted := metrics.Merge(ops, rs.rs)[0].Count
	if total := n.Load(); counted >= total*3/4 {
		t.Errorf("counted %d of %d operations: warm-up was recorded", counted, total)
	}
	if started.IsZero() || !stats.Start.Equal(started) {
		t.Errorf("OnMeasure %v, stats start %v", started, stats.Start)
	}
	if el := stats.End.Sub(stats.Start); el < 100*time.Millisecond || el > 400*time.Millisecond {
		t.Errorf("measured %v, want about 100ms", el)
	}
}

func TestFatalStops(t *testing.T) {
	ops := metrics.Ops{"op"}
	var n atomic.Int64
	var rs recs
	boom := errors.New("no such table")
	_, err := Run(context.Background(), Config{
		Ops: ops, Roles: []int{0, 0}, Duration: 10 * time.Second,
		NewExecutor: func(int) (Executor, error) { return &fake{n: &n, failEvr: 5, err: Fatal(boom)}, nil },
		NewRecorder: rs.new(ops),
	})
	if !errors.Is(err, boom) {
		t.Errorf("got %v, want the fatal error", err)
	}
}

func TestOpenLoopRate(t *testing.T) {
	ops := metrics.Ops{"read", "write"}
	var n atomic.Int64
	var rs recs
	stats, err := Run(context.Background(), Config{
		Ops: ops, Rate: 2000, Arrivals: Poisson, MaxInflight: 8, Duration: 500 * time.Millisecond, Seed: 1,
		Choose:      func(seq uint64) int { return int(seq % 10 / 9) }, // 10% writes
		NewExecutor: func(int) (Executor, error) { return &fake{n: &n, d: 100 * time.Microsecond}, nil },
		NewRecorder: rs.new(ops),
	})
	if err != nil {
		t.Fatal(err)
	}
	m := metrics.Merge(ops, rs.rs)
	total := m[0].Count + m[1].Count
	// Poisson arrivals over 0.5 s at 2000/s: 1000 expected, sd ~32.
	if total < 850 || total > 1150 {
		t.Errorf("%d operations, want about 1000", total)
	}
	if w := float64(m[1].Count) / float64(total); w < 0.07 || w > 0.13 {
		t.Errorf("write share %.3f, want 0.10", w)
	}
	if m[0].Response == nil {
		t.Fatal("open loop recorded no response times")
	}
	if stats.Lag == nil || stats.Lag.TotalCount() != total {
		t.Errorf("lag samples %v, want %d", stats.Lag.TotalCount(), total)
	}
}

// A target that stalls for 500 ms once, driven at a fixed rate: the stall
// must show in the response-time tail (every operation scheduled during the
// stall waited) and not in the service times of the other operations.
func TestCoordinatedOmission(t *testing.T) {
	ops := metrics.Ops{"op"}
	var n atomic.Int64
	stall := new(atomic.Int64)
	stall.Store(200)
	var rs recs
	_, err := Run(context.Background(), Config{
		Ops: ops, Rate: 1000, MaxInflight: 1, Duration: 2 * time.Second,
		Choose: func(uint64) int { return 0 },
		NewExecutor: func(int) (Executor, error) {
			return &fake{n: &n, stall: stall, stallD: 500 * time.Millisecond}, nil
		},
		NewRecorder: rs.new(ops),
	})
	if err != nil {
		t.Fatal(err)
	}
	m := metrics.Merge(ops, rs.rs)[0]
	resp := metrics.Summarise(m.Response)
	svc := metrics.Summarise(m.Service)
	if resp.P["p999"] < 200_000 {
		t.Errorf("response p99.9 = %.0fµs: the 500ms stall is hidden", resp.P["p999"])
	}
	if resp.P["p90"] < 50_000 {
		t.Errorf("response p90 = %.0fµs: ~25%% of operations were scheduled during the stall", resp.P["p90"])
	}
	if svc.P["p999"] > 100_000 {
		t.Errorf("service p99.9 = %.0fµs: one stalled operation should not reach it", svc.P["p999"])
	}
	if m.Late < 400 {
		t.Errorf("late = %d, want the ~500 operations scheduled during the stall", m.Late)
	}
}

func TestOpenLoopCount(t *testing.T) {
	ops := metrics.Ops{"op"}
	var n atomic.Int64
	var rs recs
	stats, err := Run(context.Background(), Config{
		Ops: ops, Rate: 5000, MaxInflight: 4, Count: 500, Warmup: 20 * time.Millisecond,
		Choose:      func(uint64) int { return 0 },
		NewExecutor: func(int) (Executor, error) { return &fake{n: &n}, nil },
		NewRecorder: rs.new(ops),
	})
	if err != nil {
		t.Fatal(err)
	}
	if c := metrics.Merge(ops, rs.rs)[0].Count; c != 500 || stats.Issued != 500 {
		t.Errorf("counted %d, issued %d, want 500", c, stats.Issued)
	}
	if n.Load() <= 500 {
		t.Errorf("ran %d operations; warm-up ran none", n.Load())
	}
}

func TestInterrupt(t *testing.T) {
	ops := metrics.Ops{"op"}
	var n atomic.Int64
	var rs recs
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := Run(ctx, Config{
		Ops: ops, Rate: 1000, MaxInflight: 2, Duration: time.Hour,
		Choose:      func(uint64) int { return 0 },
		NewExecutor: func(int) (Executor, error) { return &fake{n: &n}, nil },
		NewRecorder: rs.new(ops),
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want the context's error", err)
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
