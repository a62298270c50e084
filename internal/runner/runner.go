// Package runner executes one run: it provisions the bench database,
// hands the job to a worker (in this process or a child process), and
// turns the worker's events into progress lines, a time series, warnings
// and the result.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"time"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/metrics"
	"github.com/litebench/litebench/internal/own"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/units"
	"github.com/litebench/litebench/internal/worker"
	"github.com/litebench/litebench/internal/workload"
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
	// Attach uses DBPath as it is, beside the litebench process that owns
	// it: the run neither creates, resets, sets up nor removes it.
	Attach bool
	// Processes, above 1, runs the job in that many worker processes on
	// the one database at once, each inserting rows in its own range
	// (RangeRows); the result holds each one's figures and their sum.
	Processes int
	// InsertFrom is the first row the run's inserts write (0: right after
	// the rows loaded before the run): the range of an attached run, away
	// from the rows its owner inserts.
	InsertFrom int64
	// Repeat numbers repetitions of one cell (0 or 1 for a single run).
	Repeat int
	// Name is the run's label in results (Label without progress counters).
	Name string
	// Label names the run in progress lines.
	Label   string
	Command string
	// Notes are what the plan says about the run's settings (a setting
	// with no effect here, a value it followed from another): printed
	// beside the run and kept in its result.
	Notes []string
	// Progress receives progress lines; nil for none.
	Progress io.Writer
	Interval time.Duration
	TTY      bool
	// SeriesInterval is the time-series sampling period (0 = none).
	SeriesInterval time.Duration
	// SeriesHists keeps each interval's histograms in the series.
	SeriesHists bool
	// WALWarn prints a warning once the WAL passes this many bytes (0 =
	// never).
	WALWarn int64
	// Section is the suite section the run is a step of ("" outside
	// suites).
	Section string
	// Acks, when set, receives the worker's acknowledgements of committed
	// write transactions (the durability audit's ledger).
	Acks func(worker.Event)
	// Digest asks the worker for content digests after set-up and at the
	// end (conformance checks).
	Digest bool
	// VFS opens the database through the Go VFS of that name in the
	// worker (the durability audit's crash VFS).
	VFS string
	// Servers are the sweep's servers, for targets whose engine is a
	// server (nil: each such run starts its own).
	Servers *engine.Servers
	// Started, when set, is called with the worker once it has set the
	// run up, right before the measured part starts (the durability audit
	// injects its fault from there).
	Started func(worker.Worker)
	// Instance, when set, is the server instance the run uses (the
	// durability audit's cluster): the runner neither starts nor stops it.
	Instance engine.Instance
	// Live, when set, receives every interval event with the files'
	// sizes at its end (sized is false when the engine has no files to
	// probe): the live metrics endpoint. Intervals are then on even with
	// no progress and no series.
	Live func(ev worker.Event, files engine.Probe, sized bool)
}

// Reuser is implemented by workloads that read data they can reuse from a
// kept database instead of starting from an empty file.
type Reuser interface{ ReusesData() bool }

// Controlled is implemented by workloads whose runs are compared with
// control runs: those whose label key has value and that share the run's
// values of the labels in match.
type Controlled interface {
	Control() (key, value string, match []string)
}

// Pending is the result of a run about to start, as the store records it
// before the run: its labels, with status running.
func Pending(sp Spec) *results.Result {
	r := &results.Result{
		Schema: results.SchemaVersion, RunID: sp.RunID, SweepID: sp.SweepID,
		Section: sp.Section, Label: sp.Name, Repeat: sp.Repeat,
		Workload: sp.Workload.Name(), Target: sp.Target.Name(),
		Engine: sp.Target.Engine().Name(), Client: sp.Target.Name(), Placement: placementOf(sp.Target, sp.Settings),
		Settings: sp.Settings.Map(), Params: sp.Workload.Params(),
		Status: results.StatusRunning, StartedAt: time.Now().UTC(), Command: sp.Command,
		Notes: append([]string(nil), sp.Notes...),
	}
	if sp.Processes > 1 {
		labelProcesses(r, sp.Processes)
	}
	r.Order = labelOrder(r.Params, r.Settings)
	return r
}

// NewResult is the result of sp as it starts: what runs where, with its
// versions and environment, status ok.
func NewResult(sp Spec) *results.Result {
	r := Pending(sp)
	r.Status = results.StatusOK
	if c, ok := sp.Workload.(Controlled); ok {
		k, v, m := c.Control()
		r.Control = &results.Control{Key: k, Value: v, Match: m}
	}
	r.Engine = sp.Target.Engine().Name()
	r.EngineVersion, _ = sp.Target.Version()
	r.ClientVersion = ClientVersion(sp.Target)
	r.Env = Fingerprint(sp.Target, r.EngineVersion, sp.Dir)
	return r
}

// Run executes spec. It always returns a result; its Status says how the
// run ended, and Error why it failed.
//
// The runner provisions the database (path, ownership), hands the job to
// a worker of the spec's placement and consumes the worker's events:
// interval events drive the progress lines, the time series and the WAL
// warning; the final event becomes the result.
func Run(ctx context.Context, sp Spec) *results.Result {
	r := NewResult(sp)
	// The headline is the workload's own unit per second.
	rate := units.Rate(Unit(sp.Workload))
	head := results.Metric{Name: results.Throughput, Unit: rate, Better: units.Natural(rate)}
	fail := func(err error) *results.Result {
		// A statement stopped by the interrupt fails with the driver's
		// "interrupted", not with ctx's error.
		if errors.Is(err, context.Canceled) || ctx.Err() != nil {
			r.Status = results.StatusInterrupted
		} else {
			r.Status = results.StatusFailed
			r.Error = err.Error()
		}
		if len(r.Metrics) == 0 {
			r.SetHeadline(head)
		}
		return r
	}

	var inst engine.Instance
	var path string
	var lock *own.DBLock
	var err error
	switch e := sp.Target.Engine(); {
	case engine.IsServed(e):
		// A database of litebench's own on a server, dropped at the end.
		inst, err = e.Provision(ctx, engine.Request{Settings: sp.Settings, Dir: sp.Dir, Name: sp.RunID, Keep: sp.Keep, Servers: sp.Servers, Kind: workload.DBKind(sp.Workload)})
		if err != nil {
			return fail(err)
		}
		defer inst.Destroy()
		path = inst.Endpoint().DSN
	case engine.IsServer(e):
		// A cluster the engine starts for the run (or the audit's own).
		var release func()
		if inst, release, err = provision(ctx, sp); err != nil {
			return fail(err)
		}
		defer release()
		path = inst.Endpoint().DSN
	default:
		var release func()
		if path, lock, release, err = claimFile(sp); err != nil {
			return fail(err)
		}
		defer release()
		// The runner has claimed the path: the engine only names and opens
		// it (nothing to replace, nothing to remove at the end).
		if inst, err = e.Provision(ctx, engine.Request{Settings: sp.Settings, Path: path, Name: sp.RunID, Reuse: true, Keep: true}); err != nil {
			return fail(err)
		}
	}
	job := &worker.Job{
		RunID: sp.RunID, Workload: sp.Workload.Name(), Params: sp.Workload.Params(),
		Settings: sp.Settings.WorkerMap(sp.Target.Engine().Name()), Target: sp.Target.Name(), Path: path,
		IntervalNS: int64(sp.interval()), Acks: sp.Acks != nil, Digest: sp.Digest, Attach: sp.Attach,
		VFS: sp.VFS,
	}
	if d, ok := sp.Workload.(workload.Defined); ok {
		job.Spec = d.Definition()
	}
	if sp.Processes > 1 {
		return runProcesses(ctx, sp, r, head, inst, lock, job, fail)
	}
	job.InsertFrom = sp.InsertFrom
	placement := sp.Settings.Get("placement")
	var w worker.Worker
	var setup worker.Event
	if x, ok := sp.Target.Client().(target.External); ok {
		// A worker of another language (or a Go driver that cannot link
		// here): always a process of its own, whatever --placement says.
		if placement != worker.InProcess && placement != "" {
			r.Notes = append(r.Notes, fmt.Sprintf("%s runs in its own worker process; --placement %s changes nothing", sp.Target.Name(), placement))
		}
		if pg, ok := sp.Workload.(worker.Programmed); ok && job.Spec != nil {
			// Workers of other languages run the workload compiled.
			job.Program, err = pg.ProgramJSON(sp.Target.Engine().Dialect())
		}
		var args []string
		if err == nil {
			args, err = x.Command()
		}
		if err == nil {
			var p *worker.Process
			if p, err = worker.StartCommand(args[0], args[1:]...); err == nil {
				w = p
				var h worker.Event
				if h, err = w.Hello(ctx); err == nil {
					if err = worker.CheckProgram(sp.Target.Name(), job, h.Caps); err == nil {
						if err = worker.CheckInsertRange(sp.Target.Name(), job, h.Caps); err == nil {
							setup, err = w.Setup(ctx, job)
						}
					}
				}
			}
		}
	} else if placement == "" || placement == worker.InProcess {
		l := worker.NewLocal()
		w = l
		setup, err = l.SetupWith(ctx, job, sp.Workload, sp.Target, inst)
	} else {
		if pg, ok := sp.Workload.(worker.Programmed); ok && job.Spec != nil {
			// A Go worker process runs the program too.
			job.Program, err = pg.ProgramJSON(sp.Target.Engine().Dialect())
		}
		if err == nil {
			if w, err = worker.For(placement); err == nil {
				if _, err = w.Hello(ctx); err == nil {
					setup, err = w.Setup(ctx, job)
				}
			}
		}
	}
	if w != nil {
		defer w.Close()
	}
	if err != nil {
		return fail(err)
	}
	if setup.EngineVersion != "" && setup.EngineVersion != r.EngineVersion {
		// A worker in another process may run another SQLite; a server
		// says which version it runs.
		r.EngineVersion = setup.EngineVersion
		if !engine.IsServed(sp.Target.Engine()) {
			r.Env.SQLiteVersion = setup.EngineVersion
		}
	}
	if len(setup.InForce) > 0 {
		r.Env.InForce = setup.InForce
	}
	if lock != nil {
		lock.Share() // set up: processes may attach now
	}
	if sp.Attach {
		r.Notes = append(r.Notes, "attached to "+path+": used as it was, beside the litebench process that owns it (not created, reset or set up)")
		if sp.InsertFrom > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("writes into %s beside its owner: inserts from row %d on", path, sp.InsertFrom))
		}
	}
	r.Env.CompileOptions = setup.CompileOptions
	r.InForce = setup.InForce
	if r.InForce == nil && setup.JournalMode != "" {
		r.InForce = map[string]string{"journal_mode": setup.JournalMode}
	}
	r.Notes = append(r.Notes, setup.Notes...) // settings asked for that the engine does not run

	if sp.Started != nil {
		sp.Started(w)
	}
	smp := newSampler(sp, inst, Unit(sp.Workload))
	fin, err := w.Run(ctx, func(ev worker.Event) {
		switch ev.T {
		case worker.TInterval:
			smp.interval(ev)
		case worker.TAck:
			if sp.Acks != nil {
				sp.Acks(ev)
			}
		}
	})
	series, notes := smp.stop()
	report(ctx, sp, inst, r)
	if err != nil {
		return fail(err)
	}
	r.Series = series
	r.Notes = append(r.Notes, notes...)
	r.Elapsed = fin.ElapsedS
	r.Rows = fin.Done
	if r.Elapsed > 0 {
		head.Value = float64(r.Rows) / r.Elapsed
	}
	r.Ops = fin.FinalOps
	r.Metrics = append(r.Metrics, fin.Metrics...)
	info := func(name, unit string, v float64) {
		r.Metrics = append(r.Metrics, results.Metric{Name: name, Unit: unit, Value: v})
	}
	if fs, ok := inst.Probe(); ok {
		info("db_size", units.ByteSize, float64(fs.DB))
		if fs.WAL > 0 {
			info(results.WALSize, units.ByteSize, float64(fs.WAL))
		}
	}
	r.Notes = append(r.Notes, fin.Notes...)
	if fin.Conns > 0 {
		info("connections_opened", "connections", float64(fin.Conns))
	}
	r.SetHeadline(head)
	switch fin.Status {
	case results.StatusInterrupted:
		return fail(context.Canceled)
	case results.StatusFailed:
		return fail(errors.New(fin.Error))
	}
	if ctx.Err() != nil {
		return fail(ctx.Err())
	}
	r.Judge() // failed if nothing succeeded, a warning past 1% failed
	return r
}

// interval is how often the worker reports: the time-series interval, or
// the progress interval when that is shorter or the only one.
func (sp Spec) interval() time.Duration {
	iv := sp.SeriesInterval
	if sp.Live != nil && iv <= 0 {
		iv = time.Second
	}
	if p := sp.Interval; sp.Progress != nil && p > 0 && (iv <= 0 || p < iv) {
		iv = p
	}
	return iv
}

// CheckDB applies litebench's ownership rule to a bench database path: it
// returns false if the path does not exist, true if it is a bench database
// litebench created holding only litebench's tables, and an error naming
// the file and the fix otherwise. A database to attach to is in use by its
// owner: only the file itself is checked.
func CheckDB(path string, attach bool) (bool, error) {
	k := workload.BenchDB
	k.Shared = attach
	return own.Check(path, k)
}

// RemoveDB deletes a bench database and its -wal/-shm/-journal files, only
// if it passes CheckDB.
func RemoveDB(path string) error { return own.Remove(path, workload.BenchDB) }

// claimFile names the run's SQLite database (a file, or an in-memory
// name) and claims a file for the run; release gives it up at the end,
// removing a temp file litebench made.
func claimFile(sp Spec) (path string, lock *own.DBLock, release func(), err error) {
	path = sp.DBPath
	temp := path == ""
	if temp {
		path = filepath.Join(sp.Dir, "litebench-"+sp.RunID+".db")
	}
	if sp.Settings.Bool("in-memory") {
		return "litebench-" + sp.RunID, nil, func() {}, nil
	}
	if lock, err = claim(sp, path); err != nil {
		return "", nil, nil, err
	}
	return path, lock, func() {
		if temp && !sp.Keep {
			lock.Remove(workload.DBKind(sp.Workload))
		}
		lock.Release()
	}, nil
}

// claim takes the bench database at path for the run: as its owner, which
// starts from an empty file unless the workload reuses data, or attached,
// using it as it is.
func claim(sp Spec, path string) (*own.DBLock, error) {
	lock, err := own.LockDB(path, sp.Attach)
	if err != nil {
		return nil, err
	}
	k := workload.DBKind(sp.Workload)
	k.Shared = sp.Attach
	exists, err := own.Check(path, k)
	switch _, reuse := sp.Workload.(Reuser); {
	case err != nil:
	case sp.Attach && !exists:
		err = fmt.Errorf("--attach: %s does not exist; start the command that creates it without --attach", path)
	case sp.Attach:
	default:
		// Setting up may reset it: attached processes must have left.
		if err = lock.Exclusive(); err == nil && !reuse {
			err = own.Remove(path, workload.DBKind(sp.Workload))
		}
	}
	if err != nil {
		lock.Release()
		return nil, err
	}
	return lock, nil
}

// ToOps converts merged metrics into result ops: summaries and encoded
// histograms.
func ToOps(ms []metrics.Op) []results.Op { return worker.ToOps(ms) }

// labelOrder is the display order of a run's parameters (by name) and
// settings (in the settings' own order).
func labelOrder(params, set map[string]string) []string {
	order := make([]string, 0, len(params)+len(set))
	for k := range params {
		order = append(order, k)
	}
	sort.Strings(order)
	for _, s := range settings.Specs {
		if _, ok := set[s.Key]; ok {
			order = append(order, s.Key)
		}
	}
	return order
}

// placementOf is where a run's client runs.
func placementOf(t target.Target, s settings.Settings) string {
	if p := t.Placement(); p.IsProcess() {
		return string(p)
	}
	if p := s.Get("placement"); p != "" {
		return p
	}
	return worker.InProcess
}

// Unit names what a workload counts ("row" unless it says otherwise).
func Unit(w workload.Workload) string {
	if u, ok := w.(interface{ Unit() string }); ok {
		return u.Unit()
	}
	return "row"
}
