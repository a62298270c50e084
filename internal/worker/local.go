package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/histcodec"
	"github.com/litebench/litebench/internal/metrics"
	"github.com/litebench/litebench/internal/own"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/spec"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/units"
	"github.com/litebench/litebench/internal/workload"
)

// Local runs jobs in this process: the in-process placement, and what
// 'litebench worker' runs on the other side of the protocol.
type Local struct {
	job   *Job
	wl    workload.Workload
	tgt   target.Target
	sess  *target.Session
	env   *workload.Env
	setup Event
}

// NewLocal returns a worker that runs jobs in this process.
func NewLocal() *Local { return &Local{} }

// Caps are what the Go worker can do. It runs workload files (CapProgram)
// from the job's definition (Spec): it compiles them to their program,
// as the controller does for workers of other languages, and runs the
// program.
var Caps = []string{"closed_loop", "open_loop", "intervals", "acks", "digest", "in_memory", CapProgram, CapInsertRange}

// Hello describes the worker.
func (l *Local) Hello(context.Context) (Event, error) {
	return Event{T: THello, Protocol: Protocol, Lang: runtime.Version(), Version: Version, Caps: Caps,
		Driver: Driver, DriverVersion: DriverVersion, EngineVersion: EngineVersion}, nil
}

// Driver and DriverVersion name the driver of a Go worker process of its
// own (go-crawshaw), set by its main; empty in litebench itself.
var Driver, DriverVersion string

// EngineVersion, when set, is the engine version hello reports (a worker
// whose engine's version does not need a database to read it).
var EngineVersion string

// Version is litebench's version, set by the caller (the runner's
// fingerprint knows it).
var Version = "dev"

// Resolve builds the workload and target a job names, validating both.
// Parameters and settings left out take their defaults (the workload's
// own setting defaults included) and the job is completed with them, as
// settings.WorkerMap gives them. The
// job names the target the run uses (the planner has already resolved a
// workload's own choice, e.g. http's direct strategy).
func Resolve(j *Job) (workload.Workload, target.Target, error) {
	var kind *workload.Spec
	var err error
	if j.Spec != nil {
		kind, err = spec.FromDefinition(j.Spec)
	} else {
		kind, err = workload.Get(j.Workload)
	}
	if err != nil {
		return nil, nil, err
	}
	s := settings.Default()
	for k, v := range kind.SettingDefaults {
		s.Set(k, v)
	}
	for k, v := range j.Settings {
		if settings.Lookup(k) == nil {
			return nil, nil, fmt.Errorf("job: unknown setting %q (see 'litebench list settings')", k)
		}
		if err := s.Set(k, v); err != nil {
			return nil, nil, fmt.Errorf("job: %v", err)
		}
	}
	p := map[string]string{}
	for _, pr := range kind.Params {
		p[pr.Name] = pr.Default
	}
	for k, v := range j.Params {
		if _, ok := p[k]; !ok {
			return nil, nil, fmt.Errorf("job: workload %s has no parameter %q", j.Workload, k)
		}
		p[k] = v
	}
	w, err := kind.New(p, s)
	if err != nil {
		return nil, nil, err
	}
	t, err := target.Get(j.Target)
	if err != nil {
		return nil, nil, err
	}
	// As a worker of the target's engine is sent them (a setting that
	// does not reach it at its default stays out).
	j.Params, j.Settings = p, s.WorkerMap(t.Engine().Name())
	return w, t, nil
}

// Setup opens the database, stamps it, reads back what SQLite runs and
// sets the workload up. Nothing of it is measured.
func (l *Local) Setup(ctx context.Context, j *Job) (Event, error) {
	wl, tgt, err := Resolve(j)
	if err != nil {
		return Event{}, err
	}
	if u, ok := wl.(interface {
		UseProgram(json.RawMessage, dialect.Dialect) error
	}); ok && len(j.Program) > 0 {
		// Run the program the job carries, as a worker of another
		// language does.
		if err := u.UseProgram(j.Program, tgt.Engine().Dialect()); err != nil {
			return Event{}, err
		}
	}
	if j.Settings["in-memory"] != "true" && !engine.IsServed(tgt.Engine()) {
		// A controller checks the path before it hands it over; a worker
		// started by hand or by another program checks again.
		k := workload.DBKind(wl)
		k.Shared = j.Attach
		if _, err := own.Check(j.Path, k); err != nil {
			return Event{}, err
		}
	}
	return l.SetupWith(ctx, j, wl, tgt, nil)
}

// SetupWith is Setup for a workload and target already built (the
// in-process placement hands over its own objects).
func (l *Local) SetupWith(ctx context.Context, j *Job, wl workload.Workload, tgt target.Target, inst engine.Instance) (Event, error) {
	if l.job != nil {
		return Event{}, errors.New("worker: setup twice")
	}
	s := settings.FromMap(j.Settings)
	t0 := time.Now()
	var err error
	if inst == nil {
		// The controller has claimed the path: the engine only names it.
		if inst, err = tgt.Engine().Provision(ctx, engine.Request{Settings: s, Path: j.Path, Name: j.RunID, Reuse: true, Keep: true}); err != nil {
			return Event{}, err
		}
	}
	ep := inst.Endpoint()
	// A built-in workload (no definition in the job) runs litebench's own
	// SQL only: no authorizer on its connections (see engine.Endpoint).
	ep.Trusted = j.Spec == nil
	if j.VFS != "" {
		if ep, err = target.WithVFS(tgt, ep, j.VFS); err != nil {
			return Event{}, err
		}
	}
	sess, err := target.Open(ctx, tgt, ep, target.PolicyOf(s))
	if err != nil {
		return Event{}, fmt.Errorf("open %s with %s: %w", inst, tgt.Name(), err)
	}
	l.job, l.wl, l.tgt, l.sess = j, wl, tgt, sess
	l.env = &workload.Env{Session: sess, Instance: inst, Settings: s, Attached: j.Attach, InsertFrom: j.InsertFrom, InsertTo: j.InsertTo}
	db := target.SQL(sess.DB())
	if !j.Attach {
		if err := inst.Stamp(ctx, db); err != nil {
			return Event{}, fmt.Errorf("mark %s: %w", inst, err)
		}
	}
	fp := inst.Fingerprint(ctx, db)
	ev := Event{T: TSetupDone, Client: tgt.Name(), Engine: tgt.Engine().Name(), EngineVersion: fp.Version,
		CompileOptions: fp.CompileOptions, JournalMode: fp.InForce["journal_mode"], InForce: fp.InForce, Notes: fp.Notes}
	if !j.Attach {
		if err := wl.Setup(ctx, l.env); err != nil {
			return Event{}, fmt.Errorf("setup: %w", err)
		}
	}
	if j.Digest {
		d, err := Digest(ctx, sess.DB(), sess.Dialect())
		if err != nil {
			return Event{}, fmt.Errorf("digest after setup: %w", err)
		}
		ev.Digest = d
	}
	ev.SetupMS = float64(time.Since(t0).Microseconds()) / 1e3
	l.env.Done.Store(0)
	l.setup = ev
	return ev, nil
}

// Run measures the job set up before and returns the final event. emit
// receives intervals (and acks) as they happen.
func (l *Local) Run(ctx context.Context, emit func(Event)) (Event, error) {
	if l.job == nil {
		return Event{}, errors.New("worker: run before setup")
	}
	env, j := l.env, l.job
	var emitMu sync.Mutex
	send := func(e Event) {
		emitMu.Lock()
		emit(e)
		emitMu.Unlock()
	}
	if j.Acks {
		env.Ack = func(first, n int64) { send(Event{T: TAck, Seqs: []int64{first}, Rows: []int64{n}}) }
	}
	start := time.Now()
	env.MarkStart(start) // a workload with a warm-up moves it
	stop := l.startIntervals(env, send)
	runErr := l.wl.Run(ctx, env)
	end := env.End
	if end.IsZero() {
		end = time.Now()
	}
	stop()
	if s := env.Started(); !s.IsZero() {
		start = s
	}
	fin := Event{T: TFinal, Status: results.StatusOK}
	fin.ElapsedS = (end.Sub(start) - env.Excluded).Seconds()
	fin.Done = env.Done.Load()
	fin.FinalOps = ToOps(metrics.Merge(l.wl.Ops(), env.Recorders))
	if p, ok := l.wl.(workload.Parted); ok {
		// Merge leaves out the ops that saw nothing: a part's op index
		// is its place in the workload's ops, found by name.
		for i := range fin.FinalOps {
			if k := slices.Index(l.wl.Ops(), fin.FinalOps[i].Name); k >= 0 {
				fin.FinalOps[i].Of = p.PartOf(k)
			}
		}
	}
	for _, f := range env.Figures {
		fin.Metrics = append(fin.Metrics, results.Metric{Name: f.Name, Unit: f.Unit, Value: f.Value, Better: f.Better})
	}
	if env.Excluded > 0 {
		fin.Metrics = append(fin.Metrics, results.Metric{Name: "generate", Unit: units.Seconds, Value: env.Excluded.Seconds()})
	}
	fin.Notes = env.Notes
	fin.Conns = l.sess.OpenedConns()
	if runErr == nil && ctx.Err() == nil && j.Digest {
		d, err := Digest(ctx, l.sess.DB(), l.sess.Dialect())
		if err != nil {
			runErr = fmt.Errorf("digest after run: %w", err)
		}
		fin.Digest = d
	}
	switch {
	case runErr != nil && errors.Is(runErr, context.Canceled), runErr == nil && ctx.Err() != nil:
		fin.Status = results.StatusInterrupted
	case runErr != nil:
		fin.Status, fin.Error = results.StatusFailed, runErr.Error()
	}
	return fin, nil
}

// startIntervals emits an interval event every job interval from the
// live recorders, once the measured part has started.
func (l *Local) startIntervals(env *workload.Env, send func(Event)) (stop func()) {
	every := l.job.Interval()
	if every <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	ops := l.wl.Ops()
	parted, _ := l.wl.(workload.Parted)
	var last time.Time
	tick := func(time.Time) {
		iv := metrics.TakeInterval(ops, env.LiveRecorders())
		// The interval ends when the recorders were swapped: what they
		// held by then is in it.
		now := time.Now()
		start := env.Started()
		if start.IsZero() || now.Before(start) {
			return // warm-up
		}
		from := start
		if last.After(start) {
			from = last
		}
		last = now
		ev := Event{T: TInterval, AtS: now.Sub(start).Seconds(), SpanS: now.Sub(from).Seconds(), Done: env.Done.Load()}
		for i, s := range iv {
			if s.Count == 0 && s.Errors == 0 || parted != nil && parted.PartOf(i) != "" {
				continue // statements' own results are in the final event only
			}
			ev.Ops = append(ev.Ops, IntervalOp{Name: ops[i], Count: s.Count, Errors: s.Errors, Hist: histcodec.Encode(s.Hist)})
		}
		send(ev)
	}
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				// A last, partial interval, however short: the intervals
				// add up to the final counts, and short runs have a series.
				tick(time.Now())
				return
			case now := <-t.C:
				tick(now)
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// Close closes the job's database.
func (l *Local) Close() error {
	if l.env != nil && l.env.Abandoned {
		// Operations left running after an interrupt still use the
		// connections; the process ends before they matter.
		l.sess = nil
		return nil
	}
	if l.sess != nil {
		err := l.sess.Close()
		l.sess = nil
		return err
	}
	return nil
}

// ToOps converts merged metrics into result ops: summaries and encoded
// histograms.
func ToOps(ms []metrics.Op) []results.Op {
	out := make([]results.Op, 0, len(ms))
	for _, m := range ms {
		o := results.Op{Name: m.Name, Count: m.Count, Retries: m.Retries, Late: m.Late, Overrun: m.Overrun,
			Service: Latency(metrics.Summarise(m.Service)), Hist: histcodec.Encode(m.Service)}
		if len(m.Errors) > 0 {
			o.Errors = m.Errors
		}
		if m.Response != nil {
			o.Response = Latency(metrics.Summarise(m.Response))
			o.RespHist = histcodec.Encode(m.Response)
		}
		out = append(out, o)
	}
	return out
}

// Latency is a distribution as a result's op holds it.
func Latency(d metrics.Dist) results.Latency {
	l := results.Latency{"count": float64(d.Count), "min": d.Min, "mean": d.Mean, "max": d.Max}
	for k, v := range d.P {
		l[k] = v
	}
	return l
}
