// Package runner executes one run: it opens the target with the settings,
// sets up the workload (not measured), measures the workload, prints
// progress, and turns the recorders into a result.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"litebench/internal/engine"
	"litebench/internal/metrics"
	"litebench/internal/report"
	"litebench/internal/results"
	"litebench/internal/settings"
	"litebench/internal/target"
	"litebench/internal/workload"
)

// Spec is one planned run.
type Spec struct {
	RunID, SweepID string
	Workload       workload.Workload
	Target         target.Target
	Settings       settings.Settings
	// DBPath is the bench database; empty means a new file in Dir.
	DBPath string
	Dir    string
	// Keep leaves the bench database on disk after the run.
	Keep bool
	// Repeat numbers repetitions of one cell (0 or 1 for a single run).
	Repeat int
	// Name is the run's label in results (Label without progress counters).
	Name string
	// Label names the run in progress lines.
	Label   string
	Command string
	// Progress receives progress lines; nil for none.
	Progress io.Writer
	Interval time.Duration
	TTY      bool
	// SeriesInterval is the time-series sampling period (0 = none).
	SeriesInterval time.Duration
	// WALWarn prints a warning once the WAL passes this many bytes (0 =
	// never).
	WALWarn int64
}

// Reuser is implemented by workloads that read data they can reuse from a
// kept database instead of starting from an empty file.
type Reuser interface{ ReusesData() bool }

// Run executes spec. It always returns a result; its Status says how the
// run ended, and Error why it failed.
func Run(ctx context.Context, sp Spec) *results.Result {
	r := &results.Result{
		RunID: sp.RunID, SweepID: sp.SweepID,
		Workload: sp.Workload.Name(), Target: sp.Target.Name(),
		Settings: sp.Settings.Map(), Params: sp.Workload.Params(),
		Status: results.StatusOK, StartedAt: time.Now().UTC(), Command: sp.Command,
		Repeat: sp.Repeat, Label: sp.Name,
	}
	r.SQLite, _ = sp.Target.Version()
	r.Env = Fingerprint(sp.Target, r.SQLite, sp.Dir)
	fail := func(err error) *results.Result {
		if errors.Is(err, context.Canceled) {
			r.Status = results.StatusInterrupted
		} else {
			r.Status = results.StatusFailed
			r.Error = err.Error()
		}
		return r
	}

	_, reuse := sp.Workload.(Reuser)
	inst, err := sp.Target.Engine().Provision(ctx, engine.Request{Settings: sp.Settings, Path: sp.DBPath, Dir: sp.Dir,
		Name: sp.RunID, Reuse: reuse, Keep: sp.Keep || sp.DBPath != ""})
	if err != nil {
		return fail(err)
	}
	defer inst.Destroy()

	sess, err := target.Open(ctx, sp.Target, inst.Endpoint(), target.PolicyOf(sp.Settings))
	if err != nil {
		return fail(fmt.Errorf("open %s with %s: %w", inst, sp.Target.Name(), err))
	}
	defer sess.Close()
	env := &workload.Env{Session: sess, Instance: inst, Settings: sp.Settings, Extra: map[string]float64{}}
	db := target.SQL(sess.DB())
	if err := inst.Stamp(ctx, db); err != nil {
		return fail(fmt.Errorf("mark %s: %w", inst, err))
	}
	fp := inst.Fingerprint(ctx, db)
	r.Env.CompileOptions = fp.CompileOptions
	r.Notes = append(r.Notes, fp.Notes...)

	if err := sp.Workload.Setup(ctx, env); err != nil {
		return fail(fmt.Errorf("setup: %w", err))
	}
	env.Done.Store(0)

	start := time.Now()
	env.MarkStart(start) // a workload with a warm-up moves it
	smp := startSampler(sp, env, inst)
	stop := startProgress(sp, env, smp)
	runErr := sp.Workload.Run(ctx, env)
	end := env.End
	if end.IsZero() {
		end = time.Now()
	}
	stop()
	if s := env.Started(); !s.IsZero() {
		start = s
	}
	series, notes := smp.stop()
	r.Series = series
	r.Notes = append(r.Notes, notes...)

	r.Elapsed = (end.Sub(start) - env.Excluded).Seconds()
	r.Rows = env.Done.Load()
	if r.Elapsed > 0 {
		r.RowsPerSecond = float64(r.Rows) / r.Elapsed
	}
	r.Ops = ToOps(metrics.Merge(sp.Workload.Ops(), env.Recorders))
	r.Extra = map[string]float64{}
	if env.Excluded > 0 {
		r.Extra["generate_seconds"] = env.Excluded.Seconds()
	}
	for k, v := range env.Extra {
		r.Extra[k] = v
	}
	if fs, ok := inst.Probe(); ok {
		r.Extra["db_bytes"] = float64(fs.DB)
		if fs.WAL > 0 {
			r.Extra["wal_bytes"] = float64(fs.WAL)
		}
	}
	r.Notes = append(r.Notes, env.Notes...)
	if n := sess.OpenedConns(); n > 0 {
		r.Extra["connections_opened"] = float64(n)
	}
	if len(r.Extra) == 0 {
		r.Extra = nil
	}
	if runErr != nil {
		return fail(runErr)
	}
	if ctx.Err() != nil {
		return fail(ctx.Err())
	}
	return r
}

// ToOps converts merged metrics into result ops.
func ToOps(ms []metrics.Op) []results.Op { return results.OpsFromMetrics(ms) }

func startProgress(sp Spec, env *workload.Env, smp *sampler) (stop func()) {
	if sp.Progress == nil || sp.Interval <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	start := time.Now()
	total := sp.Workload.Total()
	go func() {
		defer wg.Done()
		t := time.NewTicker(sp.Interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				if sp.TTY {
					fmt.Fprint(sp.Progress, "\r\033[K")
				}
				return
			case <-t.C:
				el := time.Since(start)
				if s := env.Started(); !s.IsZero() {
					el = time.Since(s)
				}
				line := progressLine(sp.Label, env.Done.Load(), total, el, Unit(sp.Workload))
				if w := smp.wal.Load(); w > 0 {
					line += ", WAL " + report.Bytes(w)
				}
				if sp.TTY {
					fmt.Fprint(sp.Progress, "\r\033[K"+line)
				} else {
					fmt.Fprintln(sp.Progress, line)
				}
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// ProgressLine formats a progress line in the spirit of seed 000:
// "label  845999/10000000 (8.46%) in 2s, avg 2.364µs/row, 422983 rows/s".
func ProgressLine(label string, done, total int64, el time.Duration) string {
	return progressLine(label, done, total, el, "row")
}

// Unit names what a workload counts ("row" unless it says otherwise).
func Unit(w workload.Workload) string {
	if u, ok := w.(interface{ Unit() string }); ok {
		return u.Unit()
	}
	return "row"
}

func progressLine(label string, done, total int64, el time.Duration, unit string) string {
	var b strings.Builder
	if label != "" {
		b.WriteString(label)
		b.WriteString("  ")
	}
	if total > 0 {
		fmt.Fprintf(&b, "%d/%d (%6.2f%%)", done, total, 100*float64(done)/float64(total))
	} else {
		fmt.Fprintf(&b, "%d", done)
	}
	fmt.Fprintf(&b, " in %s", el.Round(10*time.Millisecond))
	if done > 0 {
		per := el / time.Duration(done)
		fmt.Fprintf(&b, ", avg %s/%s, %.0f %ss/s", per, unit, float64(done)/el.Seconds(), unit)
	}
	return b.String()
}
