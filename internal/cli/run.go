package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/litebench/litebench/internal/crashfs"
	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/livemetrics"
	"github.com/litebench/litebench/internal/own"
	sweep "github.com/litebench/litebench/internal/plan"
	"github.com/litebench/litebench/internal/report"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/runner"
	"github.com/litebench/litebench/internal/serve"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/store"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/workload"
)

// common holds the flags every benchmarking command shares.
type common struct {
	targets  string
	dir      string
	db       string
	keep     bool
	attach   bool
	store    string
	noStore  bool
	format   string
	progress time.Duration
	quiet    bool
	series   time.Duration
	walWarn  string
	// seriesHists is --series-histograms.
	seriesHists bool
	// metricsAddr is --metrics-addr: where live metrics are served.
	metricsAddr string
	// shard (K/N) and sweepID: --shard and --sweep-id.
	shard, sweepID string
	cpus           int
	memory         string
	repeat         int
	settings       map[string]*string
	// defaults are the workload's own setting defaults.
	defaults map[string]string

	// limitNotes say which limits a suite wanted but could not apply.
	limitNotes []string
	// notes say what settings given in other forms set, printed before
	// the runs start.
	notes []string
	// kind is the kind of bench database the runs use (zero: the
	// built-in workloads').
	kind own.Kind
	// dsn are the user's servers (--dsn); sweepServers the sweep's
	// servers, managed or the user's (engines.go).
	dsn          []string
	sweepServers *engine.Servers
	// processes and from: see registerProcesses (which sets
	// processFlags on the commands that have them).
	processes    int
	from         int64
	processFlags bool
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.targets, "target", target.Default(), "comma list of targets (see 'litebench list targets')")
	fs.StringVar(&c.dir, "dir", "", "directory for bench databases (default: a new temp dir, removed afterwards)")
	fs.StringVar(&c.db, "db", "", "bench database file, optionally with seed-style parameters: 'a.db?_journal=wal&_sync=0'")
	fs.BoolVar(&c.keep, "keep", false, "keep the bench database files after the run")
	fs.BoolVar(&c.attach, "attach", false, "use --db beside the litebench process that owns it, as it is (never created, reset, set up or removed): scan, paginate and read read it; write and mixed write into it too, inserting from --from")
	fs.StringVar(&c.store, "store", "litebench.db", "results store: a file, or postgres://… for a store shared by a team (litebench's own schema in that database)")
	fs.BoolVar(&c.noStore, "no-store", false, "do not save runs in the results store")
	fs.StringVar(&c.format, "format", "table", "output: table, markdown, csv, json, benchfmt, github-action-benchmark (its customBiggerIsBetter JSON), bencher (Bencher Metric Format)")
	fs.DurationVar(&c.progress, "progress", 2*time.Second, "progress interval on stderr (0 = none)")
	fs.BoolVar(&c.quiet, "quiet", false, "print no progress: no line as runs start, end or go on (notes and failures are still printed)")
	fs.DurationVar(&c.series, "series", time.Second, "time-series sampling interval (0 = none)")
	fs.BoolVar(&c.seriesHists, "series-histograms", false, "keep every interval's latency histograms in the time series, for 'show --format hlog' (HdrHistogram's interval log); larger results")
	fs.StringVar(&c.walWarn, "wal-warn", "64MiB", "warn when the WAL passes this size (0 = never)")
	fs.IntVar(&c.repeat, "repeat", 1, "run every cell N times, interleaved across cells (at most 10000 runs in all); tables show medians with confidence intervals")
	fs.IntVar(&c.cpus, "cpus", 0, "confine litebench to N CPUs (GOMAXPROCS and CPU affinity; 0 = no limit)")
	fs.StringVar(&c.memory, "memory", "", "run the command confined to SIZE of memory in a cgroup, e.g. 1GiB, at most the physical memory; a run that needs more ends as failed (refused where cgroups are not writable)")
	fs.Var(dsnList{&c.dsn}, "dsn", dsnUsage)
	fs.StringVar(&c.shard, "shard", "", "run only shard K of N of the sweep's cells (K/N, e.g. 2/3): every N-th cell from the K-th, repeats kept interleaved; needs --sweep-id so that the shards make one sweep")
	fs.StringVar(&c.sweepID, "sweep-id", "", "name the sweep (letters, digits, '.', '_', '-'); its runs are ID.1, ID.2, ... in plan order, so shards of one sweep share it")
	fs.StringVar(&c.metricsAddr, "metrics-addr", "", "serve live metrics (OpenMetrics, for Prometheus) at http://ADDR/metrics while the runs go on, e.g. 127.0.0.1:9464; port 0 picks a free port")
	c.settings = registerSettings(fs)
}

// plan is a validated list of runs and what running them needs: the
// directory for bench databases, the store and the limits. Building it
// touches nothing; open creates what it needs.
type plan struct {
	sweepID string
	specs   []sweep.Cell
	dir     string
	tempDir bool
	store   *store.Store
	c       *common
	// dbPath is --db; dbLock holds it for the whole plan.
	dbPath string
	dbLock *own.DBLock
	// run is this process's marked directory: its lock tells readers of
	// the store that the runs begun here are still running.
	run *own.Dir
	// live serves --metrics-addr; liveShown says its address was printed.
	live      *livemetrics.Server
	liveShown bool
}

// usage turns the planner's input errors into usage errors (exit 2).
func usage(err error) error {
	var ie *sweep.InputError
	if errors.As(err, &ie) {
		return usageError{ie.Msg}
	}
	return err
}

// matrix parses the settings flags (and a seed-style --db) into a matrix.
func (c *common) matrix() (*settings.Matrix, string, error) {
	given := map[string]string{}
	for k, v := range c.settings {
		given[k] = *v
	}
	m, path, err := sweep.Matrix(c.defaults, c.db, given)
	if err == nil {
		c.notes = append(c.notes, settingNotes(given)...)
	}
	return m, path, usage(err)
}

// given reports whether the setting flag key was given.
func (c *common) given(key string) bool { v := c.settings[key]; return v != nil && *v != "" }

// settingNotes says what each setting given in another form than its
// canonical one sets (--cache-size 64MiB: PRAGMA cache_size = -65536).
func settingNotes(given map[string]string) []string {
	var notes []string
	for _, sp := range settings.Specs {
		raw := given[sp.Key]
		if raw == "" || sp.Show == nil {
			continue
		}
		for _, v := range strings.Split(raw, ",") {
			s := settings.Default()
			if s.Set(sp.Key, v) != nil || s.Get(sp.Key) == strings.TrimSpace(v) {
				continue
			}
			if show := sp.Show(s.Get(sp.Key)); show != "" {
				notes = append(notes, fmt.Sprintf("--%s %s: %s", sp.Key, strings.TrimSpace(v), show))
			}
		}
	}
	return notes
}

func (c *common) targetList() ([]target.Target, error) {
	ts, err := sweep.Targets(c.targets)
	return ts, usage(err)
}

// checkPaths validates --db, --dir and --store without creating anything.
func (c *common) checkPaths(dbPath string) error {
	if err := report.CheckFormat(c.format); err != nil {
		return usageError{err.Error()}
	}
	if c.progress < 0 {
		return usagef("--progress %s: want a positive duration or 0", c.progress)
	}
	if c.repeat < 1 {
		return usagef("--repeat %d: want 1 or more", c.repeat)
	}
	if c.series < 0 {
		return usagef("--series %s: want a positive duration or 0", c.series)
	}
	if c.cpus < 0 || c.cpus > runtime.NumCPU() {
		return usagef("--cpus %d: want 1 to %d (0 = no limit)", c.cpus, runtime.NumCPU())
	}
	if c.memory != "" {
		if n, err := settings.ParseSize(c.memory); err != nil || n < 16<<20 {
			return usagef("--memory %q: want a size of at least 16MiB, such as 512MiB or 1GiB", c.memory)
		} else if err := checkMemoryFlag(c.memory, n); err != nil {
			return err
		}
	}
	if _, err := settings.ParseSize(c.walWarn); err != nil {
		return usagef("--wal-warn %q: want a size such as 64MiB, 1GB or 0", c.walWarn)
	}
	if dbPath != "" {
		if err := own.WritableDir(filepath.Dir(dbPath)); err != nil {
			return usagef("--db %s: directory %v", dbPath, err)
		}
		if err := own.ProbeDB(dbPath, c.attach); err != nil {
			return usagef("--db: %v", err)
		}
		k := c.kind
		if k.AppID == 0 {
			k = workload.BenchDB
		}
		k.Shared = c.attach
		exists, err := own.Check(dbPath, k)
		if err != nil {
			return usagef("--db: %v", err)
		}
		if c.attach && !exists {
			return usagef("--attach: %s does not exist; start the command that creates it without --attach", dbPath)
		}
	} else if c.attach {
		return usagef("--attach needs --db FILE: the database another litebench process owns")
	}
	if c.dir != "" {
		if err := own.WritableDir(c.dir); err != nil {
			return usagef("--dir: %v", err)
		}
	}
	if c.metricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.metricsAddr); err != nil {
			return usagef("--metrics-addr %q: give HOST:PORT, e.g. 127.0.0.1:9464", c.metricsAddr)
		}
	}
	if !c.noStore && !store.IsPostgres(c.store) {
		if err := own.WritableDir(filepath.Dir(c.store)); err != nil {
			return usagef("--store %s: directory %v, or pass --no-store", c.store, err)
		}
		if _, err := own.Check(c.store, own.Store); err != nil {
			return usagef("--store: %v, or pass --no-store", err)
		}
	}
	return nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// open creates what the plan needs: the temp dir and the store.
func (p *plan) open(ctx context.Context) error {
	if err := p.c.applyLimits(ctx); err != nil {
		return err
	}
	err := p.create()
	if err != nil {
		p.close()
	}
	return err
}

func (p *plan) create() error {
	if p.c.metricsAddr != "" {
		l, err := livemetrics.Listen(p.c.metricsAddr)
		if err != nil {
			return usagef("--metrics-addr %s: %v; choose another port (0 picks a free one)", p.c.metricsAddr, err)
		}
		p.live = l
	}
	crashfs.SweepStale() // mounts of killed runs, before their directories go
	own.CleanStale()     // directories of killed runs
	if p.dbPath != "" && p.usesFile() {
		l, err := own.LockDB(p.dbPath, p.c.attach)
		if err != nil {
			return usagef("--db: %v", err)
		}
		p.dbLock = l
	}
	d, err := own.NewDir()
	if err != nil {
		return err
	}
	p.run = d
	if p.c.dir == "" {
		p.dir, p.tempDir = d.Path, true
	} else {
		p.dir = p.c.dir
	}
	if !p.c.noStore {
		s, err := store.Open(p.c.store)
		if err != nil {
			return err
		}
		s.SetLock(d.LockPath())
		p.store = s
		if p.c.sweepID != "" {
			ids := make([]string, len(p.specs))
			for i, c := range p.specs {
				ids[i] = c.RunID
			}
			held, err := s.Existing(ids)
			if err != nil {
				return err
			}
			for _, id := range ids {
				if held[id] {
					return usagef("--sweep-id %s: %s already holds run %s; give a new sweep id", p.c.sweepID, p.c.store, id)
				}
			}
		}
	}
	for i := range p.specs {
		p.specs[i].Dir = p.dir
	}
	p.useServers()
	return nil
}

// usesFile reports whether any run of the plan uses a database file.
func (p *plan) usesFile() bool {
	for _, sp := range p.specs {
		if !sp.Settings.Bool("in-memory") {
			return true
		}
	}
	return false
}

func (p *plan) close() {
	if p.live != nil {
		p.live.Close()
	}
	p.closeServers()
	if p.store != nil {
		p.store.Close()
	}
	if p.run != nil {
		// A kept temp dir is the user's now; the lock-only dir beside
		// --dir goes.
		p.run.Close(p.tempDir && p.c.keep)
	}
	if p.dbLock != nil {
		p.dbLock.Release()
	}
}

// executor runs cells through the runner: a line on errw as each run
// starts and ends, progress per --progress, each result saved as soon as
// it ends and, with --format json, written to out at once.
func (p *plan) executor(out, errw io.Writer) sweep.Executor {
	walWarn, _ := settings.ParseSize(p.c.walWarn)
	if p.live != nil && !p.liveShown {
		p.liveShown = true
		fmt.Fprintf(errw, "live metrics: http://%s/metrics\n", p.live.Addr())
		if e := serve.Exposure(p.live.Addr()); e != "" {
			fmt.Fprintf(errw, "warning: metrics served on %s, %s: anyone who can reach this machine can read them; --metrics-addr 127.0.0.1:PORT serves this machine only\n", p.live.Addr(), e)
		}
	}
	p.c.sweepServers.SetLog(errw) // what a killed run left on a --dsn server, removed
	return sweep.Executor{
		Run: runner.Run,
		Start: func(sp *runner.Spec) error {
			if p.live != nil {
				sp.Live = p.live.Start(runner.Pending(*sp))
			}
			if p.c.progress > 0 && !p.c.quiet {
				sp.Progress, sp.Interval, sp.TTY = errw, p.c.progress, isTTY(errw)
			}
			sp.SeriesInterval, sp.SeriesHists = p.c.series, p.c.seriesHists
			sp.WALWarn = walWarn
			if !p.c.quiet {
				fmt.Fprintf(errw, "%s ...\n", sp.Label)
			}
			for _, n := range sp.Notes {
				fmt.Fprintf(errw, "  note: %s\n", n)
			}
			noteRun(sp)
			if p.store != nil {
				// A run the process does not live to finish shows as lost,
				// not missing.
				if err := p.store.Begin(runner.Pending(*sp)); err != nil {
					return fmt.Errorf("saving run %s: %w", sp.RunID, err)
				}
			}
			return nil
		},
		Done: func(sp *runner.Spec, r *results.Result) error {
			if p.live != nil {
				p.live.End(sp.RunID)
			}
			if n := conformNote(p.store, r.Target); n != "" {
				r.Notes = append(r.Notes, n)
			}
			if p.store != nil {
				if err := p.store.Save(r); err != nil {
					return fmt.Errorf("saving run %s: %w", r.RunID, err)
				}
			}
			if !p.c.quiet {
				u := runner.Unit(sp.Workload)
				fmt.Fprintf(errw, "%s %s: %d %ss in %.2fs, %.0f %ss/s\n", sp.Label, r.StatusText(), r.Rows, u, r.Elapsed, r.RowsPerSecond, u)
			}
			if r.Error != "" {
				fmt.Fprintf(errw, "%s failed: %s\n", sp.Label, r.Error)
			}
			if p.c.format == "json" {
				report.WriteJSON(out, r)
			}
			return nil
		},
	}
}

// execute runs every cell in order, saving each result as soon as it ends.
// It stops at an interrupt; the partial run is saved as interrupted.
func (p *plan) execute(ctx context.Context, out, errw io.Writer) ([]*results.Result, error) {
	return p.executor(out, errw).Execute(ctx, p.specs)
}

// finish prints the results and maps statuses to the command's error.
func (p *plan) finish(rs []*results.Result, out, errw io.Writer) error {
	if p.c.format != "json" {
		if err := report.Write(out, rs, p.c.format); err != nil {
			return err
		}
	}
	if p.store != nil && len(rs) > 0 {
		fmt.Fprintf(errw, "saved %d run(s) as sweep %s in %s\n", len(rs), p.sweepID, p.store.Path())
	}
	switch sweep.OutcomeOf(rs, len(p.specs)) {
	case sweep.Interrupted:
		return errInterrupted
	case sweep.Failed:
		return errFailed
	}
	return nil
}

// workloadExamples are command lines for each built-in workload.
var workloadExamples = map[string][]string{
	"insert": {
		"litebench insert --rows 1m --journal wal --sync off --batch 1000",
		"litebench insert --target mattn,modernc --journal delete,wal --batch 10,100,1000",
		"litebench insert --db 'a.db?_journal=wal&_sync=0' --rows-per-stmt 100 --rows 50000",
		"litebench insert --schema users --rows 100k --repeat 6",
	},
	"scan":     {"litebench scan --rows 1.5m", "litebench scan --target mattn,ncruces --rows 500k --format markdown"},
	"paginate": {"litebench paginate --rows 1m --depths 1000,100000,900000", "litebench paginate --rows 100k --page 20 --count 50"},
	"read": {
		"litebench read --workers 1,4,16 --journal wal --duration 5s",
		"litebench read --rate 2000 --keys zipfian --duration 30s",
		"litebench read --schema foo --rows 100k --pool 1,2",
	},
	"write": {
		"litebench write --workers 4 --journal wal --busy-timeout 5000 --busy-retry until",
		"litebench write --write-kind update,upsert --keys latest --duration 5s",
		"litebench write --rate 20 --batch 1000 --count 1000 --schema account",
	},
	"mixed": {
		"litebench mixed --readers 4 --writers 1,4 --journal wal --writer pool,single",
		"litebench mixed --rate 1000 --write-ratio 10,50 --duration 30s",
	},
	"http": {
		"litebench run http --strategy plain,prepared,stmt-pool,file",
		"litebench run http --server net/http,fasthttp --concurrency 10,50",
		"litebench run http --rate 5000 --duration 10s --strategy stmt-pool",
	},
}

// workloadPage is the manual page of a workload's command.
func workloadPage(sp *workload.Spec) helpPage {
	var b strings.Builder
	name := sp.Name
	if !isCommand(name) {
		name = "run " + name
	}
	if sp.Command != nil {
		name = strings.Join(sp.Command, " ")
	}
	fmt.Fprintf(&b, "NAME\n%s\n", wrap("litebench "+name+" - "+sp.Summary, 4, 8))
	fmt.Fprintf(&b, "SYNOPSIS\n%s\n", wrap("litebench "+name+" [workload flags] [setting flags] [target and output flags]", 4, 8))
	b.WriteString("DESCRIPTION\n")
	desc := "Every setting flag takes a comma list, and so does every workload flag that says so; lists make a sweep over every combination of targets, settings and listed workload parameters, one stored run and one table row each. Data is deterministic from --seed. Setup (schema, loading) is never measured. --db takes seed-style parameters after '?' (_journal, _sync, _busy_timeout, _cache_size, _locking_mode, _txlock, mode=memory, cache=shared), which map onto the settings; it must be a new file or one litebench created."
	b.WriteString(wrap(desc, 4, 4))
	if sp.Kind != "native" {
		more := "The workload is written as a file: docs/workload-files.md describes it"
		if sp.Command == nil {
			more += ", and 'litebench workload show " + sp.Name + "' prints it"
		}
		b.WriteString("\n" + wrap(more+".", 4, 4))
	}
	ex := workloadExamples[sp.Name]
	if sp.Command != nil || len(ex) == 0 {
		ex = []string{"litebench " + name, "litebench " + name + " --target mattn,modernc --repeat 3"}
	}
	return helpPage{text: b.String(), group: groupWorkload, examples: ex,
		seeAlso: []string{"run", "list settings", "list targets", "show", "compare", "report"}}
}

// runWorkload is 'litebench run NAME' and its shortcuts.
func runWorkload(ctx context.Context, name string, args []string, out, errw io.Writer) error {
	spec, err := workload.Get(name)
	if err != nil {
		return usageError{err.Error()}
	}
	return runSpec(ctx, spec, name, args, out, errw)
}

// registerParams adds a flag for each of the workload's parameters (in
// the workload group of the help page) and returns their values.
func registerParams(fs *flag.FlagSet, spec *workload.Spec, what string) (map[string]*string, error) {
	params := map[string]*string{}
	for _, p := range spec.Params {
		if fs.Lookup(p.Name) != nil {
			return nil, usagef("%s: parameter %s has the name of a flag of litebench's; rename it", what, p.Name)
		}
		params[p.Name] = new(string)
		stringFlag(fs, params[p.Name], p.Name, p.Default, paramUsage(p), isBoolDefault(p.Default))
		inGroup(fs, groupWorkload, p.Name)
	}
	return params, nil
}

// runSpec runs a workload kind with the rest of the command line: its
// parameters, the settings, targets and output flags. what names the
// workload in messages ("read", "run bank.toml").
func runSpec(ctx context.Context, spec *workload.Spec, what string, args []string, out, errw io.Writer) error {
	fs := flag.NewFlagSet(what, flag.ContinueOnError)
	var c common
	c.register(fs)
	var allowAttach []string
	registerAllowAttach(fs, &allowAttach)
	registerProcesses(fs, &c)
	params, err := registerParams(fs, spec, what)
	if err != nil {
		return err
	}
	var reload *bool
	if readsHeld(spec) {
		reload = fs.Bool("reload", false, reloadUsage)
	}
	if err := parse(fs, args, out, workloadPage(spec).help(fs)); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q (flags go before nothing else; see 'litebench %s --help')", what, fs.Arg(0), what)
	}
	ts, err := c.targetList()
	if err != nil {
		return err
	}
	if err := fenceWorkload(spec, allowAttach, ts); err != nil {
		return err
	}
	p, err := buildPlan(ctx, spec, &c, params)
	if err != nil {
		return err
	}
	if reload != nil {
		given := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
		note, again, err := adoptHeld(ctx, p, params, given, *reload)
		if err != nil {
			return err
		}
		if again {
			c.notes = nil
			if p, err = buildPlan(ctx, spec, &c, params); err != nil {
				return heldErr(err, c.db, *params["rows"])
			}
		}
		if note != "" {
			fmt.Fprintln(errw, note)
		}
	}
	if err := validateCells(ctx, p); err != nil {
		return err
	}
	for _, n := range c.notes {
		fmt.Fprintln(errw, n)
	}
	if err := p.open(ctx); err != nil {
		return err
	}
	defer p.close()
	if reload != nil && *reload {
		if err := p.reload(errw); err != nil {
			return err
		}
	}
	rs, err := p.execute(ctx, out, errw)
	if err != nil {
		return err
	}
	return p.finish(rs, out, errw)
}

// validateCells checks, before anything is created, that a workload
// written as a file prepares every statement on each target's engine (in
// an in-memory database), and that each target can run it.
func validateCells(ctx context.Context, p *plan) error {
	seen := map[string]bool{}
	for _, cell := range p.specs {
		v, ok := cell.Workload.(interface {
			Validate(context.Context, target.Target) error
		})
		if !ok || seen[cell.Target.Name()] {
			continue
		}
		seen[cell.Target.Name()] = true
		if err := v.Validate(ctx, cell.Target); err != nil {
			if ctx.Err() != nil {
				return errStopped
			}
			return usageError{err.Error()}
		}
	}
	return nil
}

// buildPlan validates everything and expands the sweep; it touches no file.
func buildPlan(ctx context.Context, spec *workload.Spec, c *common, params map[string]*string) (*plan, error) {
	c.defaults = spec.SettingDefaults
	if err := c.checkProcesses(); err != nil {
		return nil, err
	}
	m, dbPath, err := c.matrix()
	if err != nil {
		return nil, err
	}
	ts, err := c.targetList()
	if err != nil {
		return nil, err
	}
	k, n, err := c.shardOf()
	if err != nil {
		return nil, err
	}
	pl, err := sweep.Build(sweep.Request{
		Workload: spec, Params: paramLists(spec, params), Settings: m, Targets: ts,
		Repeat: c.repeat, DBPath: dbPath, Keep: c.keep, Attach: c.attach, CPUs: c.cpus, Memory: c.memory,
		Processes: c.processes, InsertFrom: c.from,
		BatchPerStmt: c.given("rows-per-stmt") && !c.given("batch"), Ctx: ctx,
		IDs: sweep.NewIDs(c.sweepID),
	})
	if err != nil {
		return nil, usage(interruptedOr(ctx, err))
	}
	if n > 0 {
		all := len(pl.Cells)
		pl.Cells = sweep.Shard(pl.Cells, k, n)
		if len(pl.Cells) == 0 {
			return nil, usagef("--shard %s: the sweep has %d cells, so shard %d has none; use at most %d shards", c.shard, all, k, all)
		}
		c.notes = append(c.notes, fmt.Sprintf("shard %d of %d: %d of the sweep's %d runs (%s)", k, n, len(pl.Cells), all, shardIDs(pl.Cells)))
	}
	c.kind = workload.DBKind(pl.Cells[0].Workload)
	if err := c.checkServed(pl.Cells); err != nil {
		return nil, err
	}
	if err := c.checkPaths(dbPath); err != nil {
		return nil, err
	}
	for _, cell := range pl.Cells {
		if err := c.checkDemand(cell.Workload, cell.Settings); err != nil {
			return nil, err
		}
		if err := c.checkDisk(cell.Workload, cell.Settings, cell.Target.Engine().Name(), dbPath); err != nil {
			return nil, err
		}
	}
	return &plan{sweepID: pl.SweepID, specs: pl.Cells, c: c, dbPath: dbPath}, nil
}

// shardOf reads --shard K/N (n = 0 without it) and checks --sweep-id.
func (c *common) shardOf() (k, n int, err error) {
	if c.sweepID != "" && !validSweepID(c.sweepID) {
		return 0, 0, usagef("--sweep-id %q: use letters, digits, '.', '_' and '-' only, starting with a letter or digit", c.sweepID)
	}
	if c.shard == "" {
		return 0, 0, nil
	}
	ks, ns, ok := strings.Cut(c.shard, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 1 || k > n {
		return 0, 0, usagef("--shard %q: give K/N with 1 <= K <= N, e.g. 2/3", c.shard)
	}
	if c.sweepID == "" {
		return 0, 0, usagef("--shard %s: give every shard the same --sweep-id (e.g. the CI run's number) so that their runs make one sweep", c.shard)
	}
	return k, n, nil
}

func validSweepID(id string) bool {
	for i, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case i > 0 && (r == '.' || r == '_' || r == '-'):
		default:
			return false
		}
	}
	return id != "" && len(id) <= 100
}

// shardIDs lists a shard's run numbers briefly: "runs 2, 5, 8".
func shardIDs(cells []sweep.Cell) string {
	var ns []string
	for _, c := range cells {
		ns = append(ns, c.RunID[strings.LastIndex(c.RunID, ".")+1:])
	}
	if len(ns) > 8 {
		ns = append(ns[:8], "...")
	}
	return "runs " + strings.Join(ns, ", ")
}

// paramLists reads the workload parameter flags: a comma list given to a
// parameter that sweeps is a list of values, any other value is one.
func paramLists(spec *workload.Spec, params map[string]*string) map[string][]string {
	lists := map[string][]string{}
	for _, ps := range spec.Params {
		raw := *params[ps.Name]
		vals := []string{raw}
		if ps.Sweep && strings.Contains(raw, ",") {
			vals = strings.Split(raw, ",")
		}
		for i, v := range vals {
			vals[i] = strings.TrimSpace(v)
		}
		lists[ps.Name] = vals
	}
	return lists
}

// runPage is the manual page of 'litebench run': the flags every
// workload takes, and the workloads.
func runPage() helpPage {
	var b strings.Builder
	b.WriteString(`NAME
    litebench run - run a workload

SYNOPSIS
    litebench run WORKLOAD [flags]
    litebench run FILE.toml [flags]
    litebench run -f SCRIPT.sql[@WEIGHT] … [--init FILE.sql] [-D NAME=VALUE …]
                  [flags]

DESCRIPTION
`)
	b.WriteString(wrap("Runs a built-in workload, a workload file (TOML) or pgbench scripts on every target of --target with every combination of the settings given as comma lists: one stored run and one table row each. 'litebench run WORKLOAD --help' lists a workload's own flags; the flags below are those every workload takes. docs/workload-files.md describes workload files and scripts.", 4, 4))
	b.WriteString("\nWORKLOADS\n")
	for _, n := range workload.Names() {
		sp, _ := workload.Get(n)
		fmt.Fprintf(&b, "    %-10s %s", n, wrapAt(sp.Summary, 15, 15))
	}
	return helpPage{text: b.String(), examples: []string{
		"litebench run insert --rows 1m --journal wal --sync off",
		"litebench run http --strategy plain,stmt-pool --server net/http,fasthttp",
		"litebench run read --target mattn,modernc --workers 1,8 --repeat 6",
	}, seeAlso: []string{"list workloads", "workload show", "list settings", "show"}}
}

func cmdRun(ctx context.Context, args []string, out, errw io.Writer) error {
	if len(args) > 0 && isWorkloadFile(args[0]) {
		return runFile(ctx, args[0], args[1:], out, errw)
	}
	if scriptArgs(args) {
		return runScripts(ctx, args, out, errw)
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fs := flag.NewFlagSet("run", flag.ContinueOnError)
			var c common
			c.register(fs)
			registerAllowAttach(fs, new([]string))
			registerProcesses(fs, &c)
			return parse(fs, args[:1], out, runPage().help(fs))
		}
		return usagef("run: name a workload (%s), a workload file (FILE.toml) or scripts (-f FILE.sql)", strings.Join(workload.Names(), ", "))
	}
	return runWorkload(ctx, args[0], args[1:], out, errw)
}

func versionString() string {
	r := runner.Fingerprint(nopTarget{}, "", "")
	return r.Litebench + " (" + r.GoVersion + ")"
}

type nopTarget struct{ target.Target }

func (nopTarget) Name() string   { return "" }
func (nopTarget) API() string    { return "" }
func (nopTarget) Module() string { return "" }
