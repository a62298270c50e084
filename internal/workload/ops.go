package workload

import (
	"context"
	"fmt"
	"github.com/litebench/litebench/internal/cpuuse"
	"strconv"
	"time"

	"github.com/litebench/litebench/internal/loadgen"
	"github.com/litebench/litebench/internal/metrics"
	"github.com/litebench/litebench/internal/units"
)

func pFloat(p map[string]string, name string, lo, hi float64) (float64, error) {
	f, err := units.ParseNumber(p[name])
	if err != nil || f < lo || f > hi {
		return 0, fmt.Errorf("--%s %q: want a number from %v to %v", name, p[name], lo, hi)
	}
	return f, nil
}

func pDuration(p map[string]string, name string) (time.Duration, error) {
	d, err := time.ParseDuration(p[name])
	if err != nil || d < 0 {
		return 0, fmt.Errorf("--%s %q: want a duration such as 500ms, 10s or 2m", name, p[name])
	}
	return d, nil
}

// maxSchedule is the longest a target rate may take to schedule --count
// operations.
const maxSchedule = 24 * time.Hour

// checkRate refuses a positive rate too low to schedule one operation in
// the run's duration (or --count operations within a day): such a run
// measures nothing.
func checkRate(c loadgen.Config, raw string) error {
	switch {
	case c.Rate == 0:
		return nil
	case c.Count > 0 && float64(c.Count)/c.Rate > maxSchedule.Seconds():
		return fmt.Errorf("--rate %s: %d operations would take more than %s to schedule; want at least %s, or 0 for a closed loop",
			raw, c.Count, maxSchedule, strconv.FormatFloat(float64(c.Count)/maxSchedule.Seconds(), 'g', 3, 64))
	case c.Count == 0 && c.Rate*c.Duration.Seconds() < 1:
		return fmt.Errorf("--rate %s: less than one operation in --duration %s; want at least %s, or 0 for a closed loop",
			raw, c.Duration, strconv.FormatFloat(1/c.Duration.Seconds(), 'g', 3, 64))
	}
	return nil
}

// LoadConfig reads the load-model parameters every operation workload
// shares: duration or count, warm-up, rate, arrivals, max in flight.
func LoadConfig(p map[string]string, ops metrics.Ops, seed uint64) (loadgen.Config, error) {
	c := loadgen.Config{Ops: ops, Seed: seed}
	var err error
	if c.Duration, err = pDuration(p, "duration"); err != nil {
		return c, err
	}
	if c.Warmup, err = pDuration(p, "warmup"); err != nil {
		return c, err
	}
	if c.Count, err = pInt(p, "count", 0); err != nil {
		return c, err
	}
	if c.Count > 0 {
		c.Duration = 0
	} else if c.Duration <= 0 {
		return c, fmt.Errorf("--duration %s: want a positive duration, or set --count", p["duration"])
	}
	if c.Rate, err = pFloat(p, "rate", 0, 1e9); err != nil {
		return c, err
	}
	if err := checkRate(c, p["rate"]); err != nil {
		return c, err
	}
	if c.Arrivals, err = loadgen.ParseArrivals(p["arrivals"]); err != nil {
		return c, err
	}
	mi, err := pInt(p, "max-inflight", 1)
	if err != nil {
		return c, err
	}
	c.MaxInflight = int(mi)
	return c, nil
}

// RunLoad drives cfg against env: recorders that feed the time series,
// progress, the measured start after a warm-up, the end of the measured
// interval, and the open-loop figures every load workload reports.
func RunLoad(ctx context.Context, env *Env, cfg loadgen.Config) (loadgen.Stats, error) {
	cfg.Done = &env.Done
	cfg.NewRecorder = func() *metrics.Recorder { return env.NewLiveRecorder(cfg.Ops) }
	onMeasure := cfg.OnMeasure
	var cpu CPUMeter
	cfg.OnMeasure = func(t time.Time) {
		env.MarkStart(t)
		cpu.Start()
		if onMeasure != nil {
			onMeasure(t)
		}
	}
	if cfg.Warmup > 0 {
		env.MarkStart(time.Time{}) // the engine marks the end of the warm-up
	}
	st, err := loadgen.Run(ctx, cfg)
	cpu.Report(env)
	env.End = st.End
	if st.Abandoned > 0 {
		env.Abandoned = true
		env.Notes = append(env.Notes, fmt.Sprintf("interrupted: %d operation(s) still running %s after the interrupt were left unfinished (not counted)", st.Abandoned, drainOf(cfg)))
	}
	if cfg.Rate > 0 {
		env.Figure("wanted_rate", units.OpsPerSecond, units.None, cfg.Rate) // reports read it by this name
		if st.Lag != nil && st.Lag.TotalCount() > 0 {
			env.Figure("sched_lag_p99", units.Microseconds, units.None, float64(st.Lag.ValueAtQuantile(99))/1e3)
		}
	}
	return st, err
}

// ProcessCPU is the name of the process_cpu figure, the same as
// results.ProcessCPU (a workload speaks of figures by name and does not
// import results).
const ProcessCPU = "process_cpu"

// CPUMeter measures the process_cpu figure: the CPU litebench's whole
// process (the client, and an in-process engine) used over the measured
// part, in cores, a figure to tell when the client, not the server, is the
// limit, and what a target costs in CPU per operation.
type CPUMeter struct {
	cpu0 time.Duration
	t0   time.Time
}

// Start is called at the measured start (after a warm-up).
func (m *CPUMeter) Start() { m.cpu0, m.t0 = cpuuse.Process(), time.Now() }

// Report adds process_cpu to env's figures, called once every goroutine
// of the measured part is done; nothing when Start was not called (a
// warm-up that outlasted the run).
func (m *CPUMeter) Report(env *Env) {
	if wall := time.Since(m.t0); !m.t0.IsZero() && wall > 0 {
		env.Figure(ProcessCPU, units.Cores, units.None, float64(cpuuse.Process()-m.cpu0)/float64(wall))
	}
}

// drainOf is how long the engine waited for operations in flight after an
// interrupt.
func drainOf(cfg loadgen.Config) time.Duration {
	if cfg.Drain > 0 {
		return cfg.Drain
	}
	return 300 * time.Millisecond
}
