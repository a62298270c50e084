package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"litebench/internal/report"
	"litebench/internal/results"
	"litebench/internal/runner"
	"litebench/internal/settings"
	"litebench/internal/target"
	"litebench/internal/workload"
)

// common holds the flags every benchmarking command shares.
type common struct {
	targets  string
	dir      string
	db       string
	keep     bool
	store    string
	noStore  bool
	format   string
	progress time.Duration
	series   time.Duration
	walWarn  string
	cpus     int
	memory   string
	repeat   int
	settings map[string]*string
	// defaults are the workload's own setting defaults.
	defaults map[string]string

	// limitNotes say which limits a suite wanted but could not apply.
	limitNotes []string
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.targets, "target", "mattn", "comma list of targets (see 'litebench list targets')")
	fs.StringVar(&c.dir, "dir", "", "directory for bench databases (default: a new temp dir, removed afterwards)")
	fs.StringVar(&c.db, "db", "", "bench database file, optionally with seed-style parameters: 'a.db?_journal=wal&_sync=0'")
	fs.BoolVar(&c.keep, "keep", false, "keep the bench database files after the run")
	fs.StringVar(&c.store, "store", "litebench.db", "results store file")
	fs.BoolVar(&c.noStore, "no-store", false, "do not save runs in the results store")
	fs.StringVar(&c.format, "format", "table", "output: table, markdown, csv, json, benchfmt")
	fs.DurationVar(&c.progress, "progress", 2*time.Second, "progress interval on stderr (0 = none)")
	fs.DurationVar(&c.series, "series", time.Second, "time-series sampling interval (0 = none)")
	fs.StringVar(&c.walWarn, "wal-warn", "64MB", "warn when the WAL passes this size (0 = never)")
	fs.IntVar(&c.repeat, "repeat", 1, "run every cell N times, interleaved across cells; tables show medians with confidence intervals")
	fs.IntVar(&c.cpus, "cpus", 0, "confine litebench to N CPUs (GOMAXPROCS and CPU affinity; 0 = no limit)")
	fs.StringVar(&c.memory, "memory", "", "run the command confined to SIZE of memory in a cgroup, e.g. 1GB; a run that needs more ends as failed (refused where cgroups are not writable)")
	c.settings = map[string]*string{}
	for _, sp := range settings.Specs {
		v := new(string)
		c.settings[sp.Key] = v
		usage := sp.Help + " (default " + sp.Default + "; comma list = sweep)"
		if sp.Default == "true" || sp.Default == "false" {
			// Bare --prepared means true, as in the seeds; lists still work
			// as --prepared=true,false.
			fs.Var(boolList{v}, sp.Key, usage)
		} else {
			fs.StringVar(v, sp.Key, "", usage)
		}
	}
}

// boolList is a setting flag that may stand alone (meaning true) or carry
// a value or comma list after '='.
type boolList struct{ v *string }

func (b boolList) String() string {
	if b.v == nil {
		return ""
	}
	return *b.v
}
func (b boolList) Set(s string) error { *b.v = s; return nil }
func (b boolList) IsBoolFlag() bool   { return true }

// plan is a validated list of runs; building it touches nothing.
type plan struct {
	sweepID string
	specs   []runner.Spec
	dir     string
	tempDir bool
	store   *results.Store
	c       *common
}

func newID() string {
	var b [4]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}

// matrix parses the settings flags (and a seed-style --db) into a matrix.
func (c *common) matrix() (*settings.Matrix, string, error) {
	m := settings.NewMatrix()
	for k, v := range c.defaults {
		if err := m.SetList(k, v); err != nil {
			return nil, "", err
		}
	}
	path := ""
	if c.db != "" {
		d, err := m.ApplyDSN(c.db)
		if err != nil {
			return nil, "", usageError{err.Error()}
		}
		path = d.Path
	}
	for _, sp := range settings.Specs {
		if v := *c.settings[sp.Key]; v != "" {
			if err := m.SetList(sp.Key, v); err != nil {
				return nil, "", usageError{err.Error()}
			}
		}
	}
	return m, path, nil
}

func (c *common) targetList() ([]target.Target, error) {
	var ts []target.Target
	seen := map[string]bool{}
	for _, n := range strings.Split(c.targets, ",") {
		n = strings.TrimSpace(n)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		t, err := target.Get(n)
		if err != nil {
			return nil, usagef("--target: %v", err)
		}
		ts = append(ts, t)
	}
	if len(ts) == 0 {
		return nil, usagef("--target: no target given")
	}
	return ts, nil
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
			return usagef("--memory %q: want a size of at least 16MB, such as 512MB or 1GB", c.memory)
		}
	}
	if _, err := settings.ParseSize(c.walWarn); err != nil {
		return usagef("--wal-warn %q: want a size such as 64MB, 1GB or 0", c.walWarn)
	}
	if dbPath != "" {
		if err := results.CheckOwned(dbPath, results.BenchAppID); err != nil {
			return usagef("--db: %v; litebench only writes databases it created, so name a new file", err)
		}
		if dir := filepath.Dir(dbPath); !isDir(dir) {
			return usagef("--db %s: directory %s does not exist", dbPath, dir)
		}
	}
	if c.dir != "" && !isDir(c.dir) {
		return usagef("--dir %s: not an existing directory; create it first", c.dir)
	}
	if !c.noStore {
		if err := results.CheckOwned(c.store, results.StoreAppID); err != nil {
			return usagef("--store: %v; pass a new path or --no-store", err)
		}
		if dir := filepath.Dir(c.store); !isDir(dir) {
			return usagef("--store %s: directory %s does not exist", c.store, dir)
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
	if p.c.dir == "" {
		d, err := os.MkdirTemp("", "litebench-")
		if err != nil {
			return err
		}
		p.dir, p.tempDir = d, true
	} else {
		p.dir = p.c.dir
	}
	if !p.c.noStore {
		s, err := results.OpenStore(p.c.store)
		if err != nil {
			return err
		}
		p.store = s
	}
	for i := range p.specs {
		p.specs[i].Dir = p.dir
	}
	return nil
}

func (p *plan) close() {
	if p.store != nil {
		p.store.Close()
	}
	if p.tempDir && !p.c.keep {
		os.RemoveAll(p.dir)
	}
}

// execute runs every spec in order, saving each result as soon as it ends.
// It stops at an interrupt; the partial run is saved as interrupted.
func (p *plan) execute(ctx context.Context, out, errw io.Writer) ([]*results.Result, error) {
	var rs []*results.Result
	for i := range p.specs {
		sp := &p.specs[i]
		if ctx.Err() != nil {
			break
		}
		if p.c.progress > 0 {
			sp.Progress, sp.Interval, sp.TTY = errw, p.c.progress, isTTY(errw)
		}
		sp.SeriesInterval = p.c.series
		sp.WALWarn, _ = settings.ParseSize(p.c.walWarn)
		sp.Name = sp.Label
		sp.Label = fmt.Sprintf("[%d/%d] %s", i+1, len(p.specs), sp.Label)
		fmt.Fprintf(errw, "%s ...\n", sp.Label)
		noteRun(sp)
		r := runner.Run(ctx, *sp)
		if p.store != nil {
			if err := p.store.Save(r); err != nil {
				return rs, fmt.Errorf("saving run %s: %w", r.RunID, err)
			}
		}
		u := runner.Unit(sp.Workload)
		fmt.Fprintf(errw, "%s %s: %s %ss in %ss, %s %ss/s\n", sp.Label, r.Status, report.Num(float64(r.Rows)), u, report.Num(r.Elapsed), report.Num(r.RowsPerSecond), u)
		if r.Error != "" {
			fmt.Fprintf(errw, "%s failed: %s\n", sp.Label, r.Error)
		}
		if p.c.format == "json" {
			report.WriteJSON(out, r)
		}
		rs = append(rs, r)
		if r.Status == results.StatusInterrupted {
			break
		}
	}
	return rs, nil
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
	for _, r := range rs {
		if r.Status == results.StatusInterrupted {
			return errInterrupted
		}
	}
	if len(rs) < len(p.specs) {
		return errInterrupted
	}
	for _, r := range rs {
		if r.Status == results.StatusFailed {
			return errFailed
		}
	}
	return nil
}

func workloadHelp(sp *workload.Spec) func(w io.Writer) {
	return func(w io.Writer) {
		var b strings.Builder
		fmt.Fprintf(&b, "NAME\n    litebench %s - %s\n\n", sp.Name, sp.Summary)
		fmt.Fprintf(&b, "SYNOPSIS\n    litebench %s [workload flags] [setting flags] [output flags]\n\n", sp.Name)
		b.WriteString("DESCRIPTION\n    Every setting flag takes a comma list; lists make a sweep over every\n    combination of targets, settings and listed workload parameters. Data is\n    deterministic from --seed. Setup (schema, loading) is never measured.\n\n")
		b.WriteString("WORKLOAD FLAGS\n")
		for _, p := range sp.Params {
			list := ""
			if p.Sweep {
				list = "; comma list = sweep"
			}
			fmt.Fprintf(&b, "    --%-16s %s (default %s%s)\n", p.Name, p.Help, p.Default, list)
		}
		b.WriteString("\nSETTING FLAGS\n")
		for _, s := range settings.Specs {
			fmt.Fprintf(&b, "    --%-16s %s (default %s)\n", s.Key, s.Help, s.Default)
		}
		b.WriteString(`
TARGET AND OUTPUT FLAGS
    --target LIST      targets to run (default mattn; see 'litebench list targets')
    --db FILE[?PARAMS] bench database file; seed-style parameters map onto the
                       settings above: _journal, _sync, _busy_timeout,
                       _cache_size, _locking_mode, _txlock, mode=memory,
                       cache=shared. Only a new file or one litebench created.
    --dir DIR          directory for bench databases (default: a temp dir)
    --keep             keep bench databases after the run
    --store FILE       results store (default litebench.db)
    --no-store         do not save runs
    --format F         table, markdown, csv, json (one object per run per
                       line), benchfmt (Go benchmark format, for benchstat)
    --progress D       progress interval on stderr, 0 for none (default 2s)
    --repeat N         run every cell N times, going round the cells; tables
                       show medians, 95% confidence intervals (6+ runs) and
                       a warning beside cells whose runs disagree
    --series D         time-series sampling interval: per op kind ops/s and
                       p99, database, WAL and shm sizes (default 1s; 0 none)
    --wal-warn SIZE    warn once the WAL passes SIZE, naming the likely cause
                       (default 64MB; 0 never)
    --cpus N           confine litebench to N CPUs (GOMAXPROCS + affinity)
    --memory SIZE      run the command in a child process confined to SIZE
                       of memory in a cgroup (v2, or v1's memory controller);
                       a run that needs more ends as failed, "out of
                       memory". Refused with exit 2 where the machine does
                       not allow it. Limits go into each run's environment.

EXIT STATUS
    0 ok, 1 a run failed, 2 bad input (nothing touched), 130 interrupted.
`)
		io.WriteString(w, b.String())
	}
}

// runWorkload is 'litebench run NAME' and its shortcuts.
func runWorkload(ctx context.Context, name string, args []string, out, errw io.Writer) error {
	spec, err := workload.Get(name)
	if err != nil {
		return usageError{err.Error()}
	}
	help := workloadHelp(spec)
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var c common
	c.register(fs)
	params := map[string]*string{}
	for _, p := range spec.Params {
		params[p.Name] = fs.String(p.Name, p.Default, p.Help)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			help(out)
			return flag.ErrHelp
		}
		return usagef("%s: %v (see 'litebench %s --help')", name, err, name)
	}
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q (flags go before nothing else; see 'litebench %s --help')", name, fs.Arg(0), name)
	}
	p, err := buildPlan(spec, &c, params)
	if err != nil {
		return err
	}
	if err := p.open(ctx); err != nil {
		return err
	}
	defer p.close()
	rs, err := p.execute(ctx, out, errw)
	if err != nil {
		return err
	}
	return p.finish(rs, out, errw)
}

// buildPlan validates everything and expands the sweep; it touches no file.
func buildPlan(spec *workload.Spec, c *common, params map[string]*string) (*plan, error) {
	c.defaults = spec.SettingDefaults
	m, dbPath, err := c.matrix()
	if err != nil {
		return nil, err
	}
	ts, err := c.targetList()
	if err != nil {
		return nil, err
	}
	if err := c.checkPaths(dbPath); err != nil {
		return nil, err
	}
	// Workload parameters that take lists are sweep axes too.
	paramPoints := []map[string]string{{}}
	for _, ps := range spec.Params {
		raw := *params[ps.Name]
		vals := []string{raw}
		if ps.Sweep && strings.Contains(raw, ",") {
			vals = strings.Split(raw, ",")
		}
		var next []map[string]string
		for _, pp := range paramPoints {
			for _, v := range vals {
				c := map[string]string{}
				for k, x := range pp {
					c[k] = x
				}
				c[ps.Name] = strings.TrimSpace(v)
				next = append(next, c)
			}
		}
		paramPoints = next
	}
	p := &plan{sweepID: newID(), c: c}
	// Repetitions go round the cells (cell 1, cell 2, …, cell 1, …) so
	// that drift of a noisy machine spreads over every cell alike. Every
	// run gets its own workload: workloads keep state while they run.
	for rep := 1; rep <= c.repeat; rep++ {
		for _, t := range ts {
			for _, pp := range paramPoints {
				for _, s := range m.Points() {
					if err := s.Validate(); err != nil {
						return nil, usageError{err.Error()}
					}
					w, err := spec.New(pp, s)
					if err != nil {
						return nil, usageError{err.Error()}
					}
					if err := c.checkDemand(w, s); err != nil {
						return nil, err
					}
					t, err := targetFor(w, t)
					if err != nil {
						return nil, err
					}
					label := spec.Name + " " + t.Name()
					if vary := varyingLabel(m, s, spec, pp, paramPoints); vary != "" {
						label += " " + vary
					}
					rp := 0
					if c.repeat > 1 {
						label += fmt.Sprintf(" #%d", rep)
						rp = rep
					}
					p.specs = append(p.specs, runner.Spec{
						RunID: fmt.Sprintf("%s.%d", p.sweepID, len(p.specs)+1), SweepID: p.sweepID,
						Workload: w, Target: t, Settings: s, DBPath: dbPath, Keep: c.keep,
						Label: label, Command: cellCommand(spec, t, pp, s, c, dbPath), Repeat: rp,
					})
				}
			}
		}
	}
	if c.repeat > 1 && dbPath != "" {
		// A named database would be reused by the next repetition.
		for _, sp := range p.specs {
			if _, ok := sp.Workload.(runner.Reuser); ok {
				return nil, usagef("--repeat with --db: repetitions would share one database file; use --dir instead")
			}
		}
	}
	return p, nil
}

// targetFor is the target a run of w uses: t, unless the workload needs
// another (http's --strategy direct on a database/sql target).
func targetFor(w workload.Workload, t target.Target) (target.Target, error) {
	o, ok := w.(interface{ TargetFor(target.Target) string })
	if !ok {
		return t, nil
	}
	name := o.TargetFor(t)
	if name == "" {
		return t, nil
	}
	nt, err := target.Get(name)
	if err != nil {
		return nil, usagef("--direct-target: %v", err)
	}
	return nt, nil
}

// cellCommand is the command line that repeats one run of a sweep: the
// workload, the target, every parameter and every setting that differs
// from its default (the workload's own defaults included).
func cellCommand(spec *workload.Spec, t target.Target, pp map[string]string, s settings.Settings, c *common, dbPath string) string {
	parts := []string{"litebench", spec.Name, "--target", t.Name()}
	for _, p := range spec.Params {
		if v := pp[p.Name]; v != p.Default {
			parts = append(parts, "--"+p.Name, shellQuote(v))
		}
	}
	def := settings.Default()
	for k, v := range spec.SettingDefaults {
		def.Set(k, v)
	}
	for _, sp := range settings.Specs {
		if v := s.Get(sp.Key); v != def.Get(sp.Key) {
			parts = append(parts, "--"+sp.Key+"="+shellQuote(v))
		}
	}
	if dbPath != "" {
		parts = append(parts, "--db", shellQuote(dbPath))
	}
	if c.cpus > 0 {
		parts = append(parts, "--cpus", strconv.Itoa(c.cpus))
	}
	if c.memory != "" {
		parts = append(parts, "--memory", c.memory)
	}
	return strings.Join(parts, " ")
}

func shellQuote(v string) string {
	if v != "" && strings.IndexFunc(v, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == ',' || r == '/' || r == ':' || r == '=' || r == '@' ||
			(r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'))
	}) < 0 {
		return v
	}
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}

func varyingLabel(m *settings.Matrix, s settings.Settings, spec *workload.Spec, pp map[string]string, all []map[string]string) string {
	var parts []string
	if len(all) > 1 {
		for _, ps := range spec.Params {
			first := all[0][ps.Name]
			for _, o := range all[1:] {
				if o[ps.Name] != first {
					parts = append(parts, ps.Name+"="+pp[ps.Name])
					break
				}
			}
		}
	}
	for _, k := range m.Varying() {
		parts = append(parts, k+"="+s.Get(k))
	}
	return strings.Join(parts, " ")
}

func cmdRun(ctx context.Context, args []string, out, errw io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fmt.Fprintf(out, "NAME\n    litebench run - run a workload\n\nSYNOPSIS\n    litebench run WORKLOAD [flags]\n\nWORKLOADS\n")
			for _, n := range workload.Names() {
				sp, _ := workload.Get(n)
				fmt.Fprintf(out, "    %-10s %s\n", n, sp.Summary)
			}
			fmt.Fprintf(out, "\n'litebench run WORKLOAD --help' lists its flags.\n")
			return flag.ErrHelp
		}
		return usagef("run: name a workload (%s)", strings.Join(workload.Names(), ", "))
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
