package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/litebench/litebench/internal/audit"
	"github.com/litebench/litebench/internal/engine"
	sweep "github.com/litebench/litebench/internal/plan"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/runner"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/spec"
	"github.com/litebench/litebench/internal/stats"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/tune"
	"github.com/litebench/litebench/internal/units"
	"github.com/litebench/litebench/internal/workload"
)

const tuneHelp = `NAME
    litebench tune - the settings that serve a workload best on a target
        while keeping the durability it needs

SYNOPSIS
    litebench tune [WORKLOAD | FILE.toml | -f SCRIPT.sql …] --target T
                   [--durability CLASS|any] [--objective throughput|p99|p999]
                   [--slo 'p99<5ms'] [--budget RUNS|DURATION]
                   [--space 'KEY=V,V;KEY=V,V'] [--vary batch,rows-per-stmt]
                   [--audit-trials N] [--explain] [--resume ID]
                   [workload flags] [setting flags]

DESCRIPTION
    Searches the settings that do not change what the workload does (for
    SQLite: journal mode and synchronous level as a pair, cache_size,
    mmap_size, temp_store, page_size, locking_mode, busy_timeout, BEGIN
    mode; for every engine: pool, single writer, write mutex, prepared
    statements, busy retry) for the best cell on one target, and prints it
    with the code that sets it. --batch and --rows-per-stmt change the
    application's transactions and enter only with --vary. A setting given
    as a flag is held fixed; --space replaces the values of a setting
    ('journal=wal,delete;sync=normal,full'), adds one, or fixes one
    ('tx=deferred'). Values a workload says do nothing are left out.

    Durability: every cell has the class SQLite documents for its journal
    mode and synchronous level (docs/durability-audit.md): survives-power-
    loss, may-lose-acknowledged, survives-process-crash, may-corrupt. The
    requirement defaults to the class of the target's defaults; cells
    below it never run and are never recommended, nor is a cell whose run
    reports a weaker mode in force. --durability any must be asked for.

    The search: coordinate descent from the target's defaults. Each axis
    is a race: the incumbent runs 5 times, each challenger twice, then once
    more per round up to 6; a challenger is out when both first runs fall
    below the incumbent's median or its median is no better after three,
    and wins only when Mann-Whitney finds it better, the difference of the
    medians is more than twice its standard error, and two more runs each
    beat the incumbent's median (noise is not crowned). The descent ends
    when every axis has been raced since the last move; an interaction
    check then races the near misses of two axes together; with more than
    half the budget left, both run again with up to 12 runs a challenger.
    The search stops early at --budget, with the best cell measured if it
    is already significantly better than the incumbent; Ctrl-C prints the
    best so far. Every run is stored under the tune's sweep id; --resume ID
    continues a tune with the same command line without repeating the runs
    stored.

    The answer: the recommended settings, the gain over the defaults with a
    95% interval (Hodges-Lehmann), the class, the runner-up and what else
    was not significantly worse, what the requirement costs against the
    fastest cell of any class (3 runs each of the winner with sync off, in
    rollback journal off and WAL: measured only to say so), and the settings
    as code: mattn and modernc DSNs with database/sql's pool, and Python's
    sqlite3. Where the target can be crashed, the winner is audited with
    process kills (--audit-trials, 0 skips); an audit that disagrees with
    the class withdraws the cell and the next one is audited.

    --objective p99 and p999 (and --slo) take the slowest operation kind's
    percentile, response time under --rate. --explain prints the space,
    its size and how many cells the requirement prunes, and runs nothing.
`

var tunePage = helpPage{text: tuneHelp, group: "TUNE FLAGS", examples: []string{
	"litebench tune insert --target mattn --rows 20k --batch 100",
	"litebench tune read --target modernc --objective p99 --rate 2000 --duration 3s",
	"litebench tune insert --target mattn --space 'journal=wal,delete;sync=normal,full' --explain",
	"litebench tune insert --target mattn --durability survives-power-loss --budget 10m",
}, seeAlso: []string{"audit", "list settings", "show", "compare"},
	exit: "0 a recommendation was printed, 1 a run failed so that nothing could be recommended, 2 bad input (nothing was touched), 130 interrupted (the best so far is printed)."}

func cmdTune(ctx context.Context, args []string, out, errw io.Writer) error {
	switch {
	case len(args) > 0 && isWorkloadFile(args[0]):
		text, err := readInput("tune", args[0])
		if err != nil {
			return err
		}
		f, err := spec.ParseFile(args[0], []byte(text))
		if err != nil {
			return usageError{err.Error()}
		}
		return tuneSpec(ctx, f.WorkloadSpec([]string{"run", args[0]}), "tune "+args[0], args[1:], out, errw)
	case scriptArgs(args):
		f, command, rest, err := parseScriptArgs(args)
		if err != nil {
			return err
		}
		return tuneSpec(ctx, f.WorkloadSpec(command), "tune -f", rest, out, errw)
	}
	name := "insert"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	sp, err := workload.Get(name)
	if err != nil {
		return usageError{err.Error()}
	}
	return tuneSpec(ctx, sp, "tune", args, out, errw)
}

// tuneFlags are the tune's own flags.
type tuneFlags struct {
	durability, objective, slo, budget, space, vary, resume string
	auditTrials                                             int
	explain                                                 bool
}

// slo is --slo: a percentile kept below a bound (µs).
type sloSpec struct {
	pct string
	max float64
	raw string
}

var sloRE = regexp.MustCompile(`^\s*(p50|p90|p99|p999|p9999)\s*<\s*(\S+)\s*$`)

func parseSLO(v string) (*sloSpec, error) {
	if v == "" {
		return nil, nil
	}
	m := sloRE.FindStringSubmatch(v)
	if m == nil {
		return nil, usagef("--slo %q: want PERCENTILE<DURATION, e.g. 'p99<5ms'", v)
	}
	d, err := time.ParseDuration(m[2])
	if err != nil || d <= 0 {
		return nil, usagef("--slo %q: %q is not a duration such as 5ms", v, m[2])
	}
	return &sloSpec{pct: m[1], max: float64(d) / 1e3, raw: v}, nil
}

// tuneBudget is --budget: runs, or wall time.
func tuneBudget(v string) (runs int, wall time.Duration, err error) {
	if v == "" {
		return 0, 0, nil
	}
	if n, e := strconv.Atoi(v); e == nil && n >= 5 {
		return n, 0, nil
	}
	if d, e := time.ParseDuration(v); e == nil && d >= time.Second {
		return 0, d, nil
	}
	return 0, 0, usagef("--budget %q: want a number of runs (at least 5) or a duration such as 20m", v)
}

func tuneSpec(ctx context.Context, wsp *workload.Spec, what string, args []string, out, errw io.Writer) error {
	fs := flag.NewFlagSet(what, flag.ContinueOnError)
	var c common
	c.register(fs)
	var allowAttach []string
	registerAllowAttach(fs, &allowAttach)
	params, err := registerParams(fs, wsp, what)
	if err != nil {
		return err
	}
	var tf tuneFlags
	fs.StringVar(&tf.durability, "durability", "", "the weakest durability class to accept: "+strings.Join(audit.Classes, ", ")+", or any (default: the class of the target's defaults)")
	fs.StringVar(&tf.objective, "objective", "throughput", "what to optimise: throughput (the headline), p99 or p999 (the slowest operation kind's)")
	fs.StringVar(&tf.slo, "slo", "", "a latency bound every recommended cell keeps, e.g. 'p99<5ms' (the slowest operation kind's)")
	fs.StringVar(&tf.budget, "budget", "", "most runs (e.g. 40), or wall time (e.g. 20m) (default: 10 runs plus 4 for every value the space adds to its axes, at least 40)")
	fs.StringVar(&tf.space, "space", "", "settings to vary and their values, replacing the defaults', e.g. 'journal=wal,delete;sync=normal,full'")
	fs.StringVar(&tf.vary, "vary", "", "also vary settings that change the application's transactions: batch, rows-per-stmt")
	fs.StringVar(&tf.resume, "resume", "", "continue the tune stored as sweep ID (same command line), without repeating its runs")
	fs.IntVar(&tf.auditTrials, "audit-trials", 3, "process-kill trials to audit the winner with (0 = no audit)")
	fs.BoolVar(&tf.explain, "explain", false, "print the space, its size and what the durability requirement prunes; run nothing")
	if err := parse(fs, args, out, tunePage.help(fs)); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q (the workload comes first; see 'litebench tune --help')", what, fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, f := range []string{"repeat", "shard", "sweep-id", "db", "attach", "format", "in-memory", "placement"} {
		if set[f] {
			return usagef("tune: --%s does not apply: a tune runs each cell as often as its search needs, each on a new database in --dir, and prints a recommendation (see 'litebench tune --help')", f)
		}
	}
	if tf.objective != "throughput" && tf.objective != "p99" && tf.objective != "p999" {
		return usagef("--objective %q: want throughput, p99 or p999", tf.objective)
	}
	slo, err := parseSLO(tf.slo)
	if err != nil {
		return err
	}
	budgetRuns, budgetWall, err := tuneBudget(tf.budget)
	if err != nil {
		return err
	}
	budgetGiven := tf.budget != ""
	if tf.auditTrials < 0 {
		return usagef("--audit-trials %d: want 0 (no audit) or more", tf.auditTrials)
	}
	if tf.durability != "" {
		if err := tune.CheckRequire(tf.durability); err != nil {
			return usageError{err.Error()}
		}
	}
	if tf.resume != "" && c.noStore {
		return usagef("--resume reads the tune's runs from the store; drop --no-store")
	}
	ts, err := c.targetList()
	if err != nil {
		return err
	}
	if len(ts) != 1 {
		return usagef("tune: --target %s: give one target; tune each target on its own and compare", c.targets)
	}
	t := ts[0]
	eng := t.Engine().Name()
	if err := fenceWorkload(wsp, allowAttach, ts); err != nil {
		return err
	}
	// The settings given as flags are held fixed.
	c.defaults = wsp.SettingDefaults
	m, _, err := c.matrix()
	if err != nil {
		return err
	}
	if vary := m.Varying(); len(vary) > 0 {
		return usagef("tune: --%s takes one value here (it is held fixed); give several with --space '%s=…'", vary[0], vary[0])
	}
	base := m.Points()[0]
	sp, notes, err := tuneSpace(wsp, params, base, eng, &c, tf)
	if err != nil {
		return err
	}
	// On the user's server (--dsn) litebench changes nothing server-wide,
	// so its commit durability is not litebench's to tune.
	for _, u := range c.dsn {
		if e, err := engine.EngineOfDSN(u); err == nil && e == eng {
			var kept []tune.Axis
			for _, a := range sp.Axes {
				if len(a.Keys) == 1 && a.Keys[0] == "sync" {
					notes = append(notes, "--sync left out: on the server of --dsn litebench changes nothing server-wide; its commit durability stays the server's")
					continue
				}
				kept = append(kept, a)
			}
			sp.Axes = kept
		}
	}
	// The class of a mode left at default is what the target runs.
	eff, effNote := effectiveDefaults(ctx, t, sp)
	if effNote != "" {
		notes = append(notes, effNote)
	}
	if eng == "sqlite" {
		sp.Class = tune.SQLiteClass(eff)
	} else {
		sp.Class = tune.ServerClass
	}
	startSet := base.Clone()
	if eng == "sqlite" {
		j, s := eff(startSet.Get("journal"))
		if startSet.Get("journal") == "default" {
			startSet.Set("journal", j)
		}
		if startSet.Get("sync") == "default" {
			startSet.Set("sync", s)
		}
	} else if startSet.Get("sync") == "default" {
		startSet.Set("sync", "full")
	}
	start := sp.Start(startSet)
	if _, ok := sp.Find(startSet); !ok {
		notes = append(notes, fmt.Sprintf("the defaults are not in the space: the search starts from %s (or the nearest cell that meets the requirement), and gains are measured against it", sp.Key(start)))
	}
	sp.Require = tf.durability
	requireWhy := "asked for"
	if sp.Require == "" {
		// The defaults' own class, in the space or not: a tune never
		// trades durability away unless asked.
		sp.Require = sp.Class(startSet)
		requireWhy = "the class of " + t.Name() + "'s defaults (--durability any to accept every class)"
	}
	if !budgetGiven {
		budgetRuns = defaultBudget(sp)
	}
	if tf.explain {
		fmt.Fprintf(out, "tune %s on %s: the space\n%s", wsp.Name, t.Name(), sp.Explain())
		fmt.Fprintf(out, "budget: %s\n", budgetText(budgetRuns, budgetWall))
		fmt.Fprintf(out, "classes: %s\n", strings.Join(sp.ClassCounts(), ", "))
		fmt.Fprintf(out, "requirement: %s (%s)\n", sp.Require, requireWhy)
		fmt.Fprintf(out, "start: %s (%s)\n", sp.Key(start), sp.ClassOf(start))
		for _, n := range notes {
			fmt.Fprintf(out, "note: %s\n", n)
		}
		return nil
	}
	if len(sp.EligibleCells()) == 0 {
		return usagef("tune: no cell of the space meets --durability %s; widen --space (journal, sync) or accept a weaker class", sp.Require)
	}
	p, err := buildPlan(ctx, wsp, &c, params)
	if err != nil {
		return err
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
	tr := &tuner{c: &c, p: p, wsp: wsp, params: params, t: t, sp: sp, objective: tf.objective, slo: slo, start: start,
		out: out, errw: errw, budgetRuns: budgetRuns}
	if budgetWall > 0 {
		tr.deadline = time.Now().Add(budgetWall)
	}
	sweepID := tf.resume
	if sweepID == "" {
		sweepID = sweep.NewSweepID()
	}
	tr.ids = sweep.NewIDs(sweepID)
	if tf.resume != "" {
		if err := tr.load(tf.resume); err != nil {
			return err
		}
	}
	fmt.Fprintf(errw, "tune %s on %s: sweep %s (continue it with --resume %s); %d cells, %d meet %s; budget %s\n", wsp.Name, t.Name(), sweepID, sweepID, sp.Size(), len(sp.EligibleCells()), sp.Require, budgetText(budgetRuns, budgetWall))
	for _, n := range notes {
		fmt.Fprintf(errw, "note: %s\n", n)
	}
	cfg := tune.Config{Higher: tf.objective == "throughput", Budget: budgetRuns, Start: start,
		Log: func(s string) { fmt.Fprintf(errw, "tune: %s\n", s) }}
	if budgetWall > 0 {
		cfg.Budget = 0
	}
	if slo != nil {
		cfg.SLOMax = slo.max
	}
	tr.search = tune.New(sp, cfg, tr.eval)
	res, err := tr.search.Search(ctx)
	if err != nil {
		return err
	}
	return tr.report(ctx, res, tf.auditTrials, requireWhy)
}

// defaultBudget is the budget without --budget: enough for the incumbent,
// about four runs of every other value of every axis and some
// confirmations, at least 40 runs.
func defaultBudget(sp *tune.Space) int {
	n := 10
	for _, a := range sp.Axes {
		n += 4 * (len(a.Values) - 1)
	}
	return max(n, 40)
}

func budgetText(runs int, wall time.Duration) string {
	if wall > 0 {
		return wall.String()
	}
	return strconv.Itoa(runs) + " runs"
}

// tuneSpace builds the space: the engine's default axes less the settings
// given as flags, with --vary and --space applied, single values moved to
// the base, and values the workload says do nothing left out.
func tuneSpace(wsp *workload.Spec, params map[string]*string, base settings.Settings, eng string, c *common, tf tuneFlags) (*tune.Space, []string, error) {
	var notes []string
	axes := tune.DefaultAxes(eng)
	if tf.vary != "" {
		for _, k := range strings.Split(tf.vary, ",") {
			k = strings.TrimSpace(k)
			vals, ok := tune.VaryAxes[k]
			if !ok {
				return nil, nil, usagef("--vary %q: want batch, rows-per-stmt or both (the settings that change the application's transactions)", tf.vary)
			}
			axes = tune.SetAxis(axes, k, vals)
		}
	}
	if tf.space != "" {
		var err error
		if axes, err = tune.ParseSpace(axes, tf.space); err != nil {
			return nil, nil, usageError{err.Error()}
		}
		for _, part := range strings.Split(tf.space, ";") {
			k, _, _ := strings.Cut(part, "=")
			k = strings.TrimSpace(k)
			if c.given(k) {
				return nil, nil, usagef("--%s is given both as a flag (held fixed) and in --space; drop one", k)
			}
			if k == "batch" || k == "rows-per-stmt" {
				if !strings.Contains(tf.vary, k) {
					return nil, nil, usagef("--space %s: it changes the application's transactions; add --vary %s to tune it", k, k)
				}
			}
			if why := settings.NotFor(k, eng); why != "" {
				return nil, nil, usagef("--space: %s", why)
			}
		}
	}
	for _, sp := range settings.Specs {
		if c.given(sp.Key) {
			axes = tune.SetAxis(axes, sp.Key, []string{base.Get(sp.Key)})
		}
	}
	axes, fixed := tune.Fixed(axes)
	for k, v := range fixed {
		base.Set(k, v)
	}
	// Values the workload says change nothing (one worker: no pool, no
	// write mutex, no busy retry) are left out, and so is an axis left
	// with one value.
	pp := map[string]string{}
	for _, p := range wsp.Params {
		pp[p.Name] = strings.Split(*params[p.Name], ",")[0]
	}
	var kept []tune.Axis
	for _, a := range axes {
		if len(a.Keys) != 1 {
			kept = append(kept, a)
			continue
		}
		k := a.Keys[0]
		var vals [][]string
		for i, v := range a.Values {
			s := base.Clone()
			s.Set(k, v[0])
			if i > 0 {
				if why := inertWhy(wsp, pp, s, k); why != "" {
					notes = append(notes, fmt.Sprintf("--%s %s left out: %s", k, v[0], why))
					continue
				}
			}
			vals = append(vals, v)
		}
		if len(vals) > 1 {
			kept = append(kept, tune.Axis{Keys: a.Keys, Values: vals})
		} else {
			base.Set(k, vals[0][0])
		}
	}
	return &tune.Space{Base: base, Axes: kept}, notes, nil
}

// inertWhy is the workload's note that setting key does nothing in s, or
// "".
func inertWhy(wsp *workload.Spec, pp map[string]string, s settings.Settings, key string) string {
	w, err := wsp.New(pp, s)
	if err != nil {
		return ""
	}
	for _, n := range inert(w) {
		if strings.HasPrefix(n, "--"+key+" ") && (strings.Contains(n, "no effect") || strings.Contains(n, "takes effect only")) {
			return n
		}
	}
	return ""
}

func inert(w workload.Workload) []string {
	if i, ok := w.(interface{ Inert() []string }); ok {
		return i.Inert()
	}
	return nil
}

// effectiveDefaults says what journal mode and synchronous level a cell
// that leaves them at default runs on t: for an in-process SQLite target,
// read back from a database file opened as a run opens it; otherwise
// SQLite's compiled defaults (DELETE, FULL), which the note says.
func effectiveDefaults(ctx context.Context, t target.Target, sp *tune.Space) (func(string) (string, string), string) {
	fallback := func(j string) (string, string) {
		if j == "default" {
			j = "delete"
		}
		return j, "full"
	}
	if t.Engine().Name() != "sqlite" {
		return fallback, ""
	}
	if t.Placement().IsProcess() {
		return fallback, fmt.Sprintf("a mode left at default is taken as SQLite's compiled default (journal DELETE, synchronous FULL) on %s, which runs in a worker process; give --space sync=… to say", t.Name())
	}
	journals := []string{"default"}
	for _, a := range sp.Axes {
		for _, tuple := range a.Values {
			for j, k := range a.Keys {
				if k == "journal" && tuple[j] != "default" {
					journals = append(journals, tuple[j])
				}
			}
		}
	}
	if j := sp.Base.Get("journal"); j != "default" {
		journals = append(journals, j)
	}
	dir, err := os.MkdirTemp("", "litebench-tune-")
	if err != nil {
		return fallback, ""
	}
	defer os.RemoveAll(dir)
	got := map[string][2]string{}
	for _, j := range journals {
		if _, ok := got[j]; ok {
			continue
		}
		s := settings.Default()
		s.Set("journal", j)
		in, err := t.Engine().Provision(ctx, engine.Request{Settings: s, Dir: dir, Name: "probe-" + j, Kind: workload.BenchDB})
		if err != nil {
			return fallback, ""
		}
		d, err := t.Open(ctx, in.Endpoint(), target.PoolOptions{})
		if err != nil {
			return fallback, ""
		}
		var jm, sy string
		d.Query(ctx, "PRAGMA journal_mode", nil, func(r target.Row) error { return r.Scan(&jm) })
		d.Query(ctx, "PRAGMA synchronous", nil, func(r target.Row) error { return r.Scan(&sy) })
		d.Close()
		got[j] = [2]string{strings.ToLower(jm), audit.SyncName(sy)}
	}
	return func(j string) (string, string) {
		if v, ok := got[j]; ok && v[0] != "" && v[1] != "" {
			return v[0], v[1]
		}
		return fallback(j)
	}, ""
}

// tuner runs a tune's cells through the plan's executor.
type tuner struct {
	c          *common
	p          *plan
	wsp        *workload.Spec
	params     map[string]*string
	t          target.Target
	sp         *tune.Space
	objective  string
	slo        *sloSpec
	out, errw  io.Writer
	ids        *sweep.IDs
	search     *tune.Searcher
	budgetRuns int
	deadline   time.Time
	// stored are the runs of a resumed tune, by settings, in run order.
	stored map[string][]tune.Sample
	reused int
	ran    int
	// headUnit is the headline's unit (rows/s).
	headUnit string
	// start is the cell of the target's defaults.
	start tune.Cell
}

// load reads a stored tune's runs to reuse them.
func (tr *tuner) load(id string) error {
	rs, err := tr.p.store.Get(id)
	if err != nil {
		return usageError{err.Error()}
	}
	tr.stored = map[string][]tune.Sample{}
	last := 0
	for _, r := range rs {
		if r.SweepID != id {
			return usagef("--resume %s: that is a run, not a tune's sweep id", id)
		}
		if r.Workload != tr.wsp.Name || r.Target != tr.t.Name() {
			return usagef("--resume %s: that sweep ran %s on %s; resume it with the same workload and --target", id, r.Workload, r.Target)
		}
		if n, err := strconv.Atoi(r.RunID[strings.LastIndex(r.RunID, ".")+1:]); err == nil && n > last {
			last = n
		}
		if r.Audit != nil || (r.Status != results.StatusOK && r.Status != results.StatusFailed) {
			continue
		}
		for _, p := range tr.wsp.Params {
			if v := strings.Split(*tr.params[p.Name], ",")[0]; r.Params[p.Name] != v {
				return usagef("--resume %s: its runs have --%s %s, this command %s; resume with the same workload flags", id, p.Name, r.Params[p.Name], v)
			}
		}
		k := settings.FromMap(r.Settings).String()
		tr.stored[k] = append(tr.stored[k], tr.sampleOf(r))
	}
	for i := 0; i < last; i++ {
		tr.ids.Next()
	}
	return nil
}

// runSettings makes one run of s: from the stored runs of a resumed tune
// while there are some, else a new run, stored as it ends.
func (tr *tuner) runSettings(ctx context.Context, s settings.Settings, label string) (tune.Sample, error) {
	key := s.For(tr.t.Engine().Name()).String()
	if q := tr.stored[key]; len(q) > 0 {
		tr.stored[key] = q[1:]
		tr.reused++
		return q[0], nil
	}
	if !tr.deadline.IsZero() && time.Now().After(tr.deadline) {
		return tune.Sample{}, tune.ErrBudget
	}
	m := settings.NewMatrix()
	m.Base = s
	pl, err := sweep.Build(sweep.Request{Workload: tr.wsp, Params: paramLists(tr.wsp, tr.params), Settings: m,
		Targets: []target.Target{tr.t}, CPUs: tr.c.cpus, Memory: tr.c.memory, IDs: tr.ids})
	if err != nil {
		fmt.Fprintf(tr.errw, "tune: %s cannot run: %v\n", label, err)
		return tune.Sample{Failed: true}, nil
	}
	cell := pl.Cells[0]
	if err := tr.c.checkDemand(cell.Workload, cell.Settings); err != nil {
		fmt.Fprintf(tr.errw, "tune: %s cannot run: %v\n", label, err)
		return tune.Sample{Failed: true}, nil
	}
	cell.Dir, cell.Servers = tr.p.dir, tr.c.sweepServers
	cell.Label = label
	ex := tr.p.executor(tr.out, tr.errw)
	start := ex.Start
	tr.ran++
	n := tr.ran + tr.reused
	ex.Start = func(sp *runner.Spec) error {
		of := "?"
		if tr.budgetRuns > 0 && tr.deadline.IsZero() {
			of = strconv.Itoa(tr.budgetRuns)
		}
		sp.Label = fmt.Sprintf("[%d/%s] %s", n, of, sp.Name)
		return start(sp)
	}
	if tr.c.format == "json" {
		ex.Done = nil
	}
	rs, err := ex.Execute(ctx, []sweep.Cell{cell})
	if err != nil {
		return tune.Sample{}, err
	}
	if len(rs) == 0 || rs[0].Status == results.StatusInterrupted {
		if ctx.Err() != nil {
			return tune.Sample{}, ctx.Err()
		}
		return tune.Sample{}, errInterrupted
	}
	return tr.sampleOf(rs[0]), nil
}

// eval is the search's evaluation of a cell.
func (tr *tuner) eval(ctx context.Context, c tune.Cell) (tune.Sample, error) {
	return tr.runSettings(ctx, tr.sp.Settings(c), "tune "+tr.wsp.Name+" "+tr.t.Name()+" "+tr.sp.Key(c))
}

// sampleOf is what the search needs of a result.
func (tr *tuner) sampleOf(r *results.Result) tune.Sample {
	var x tune.Sample
	errs := int64(0)
	for _, n := range r.ErrorTotals() {
		errs += n
	}
	x.Failed = r.Status != results.StatusOK || errs > 0
	if tr.objective == "throughput" {
		x.Value = r.Headline().Value
		if tr.headUnit == "" {
			tr.headUnit = r.Headline().Unit
		}
	} else {
		x.Value = slowest(r, tr.objective)
	}
	if x.Value <= 0 {
		x.Failed = true
	}
	if tr.slo != nil {
		x.SLO = slowest(r, tr.slo.pct)
	}
	if j, s := r.InForce["journal_mode"], r.InForce["synchronous"]; j != "" && s != "" && r.Engine == "sqlite" {
		if e, err := audit.Lookup(j, s); err == nil {
			x.Class = e.Class()
		}
	}
	return x
}

// slowest is the largest percentile pct (µs) over the run's operation
// kinds: what users of the slowest one felt.
func slowest(r *results.Result, pct string) float64 {
	v := 0.0
	for _, o := range r.Ops {
		if o.Of == "" && o.Count > 0 {
			v = math.Max(v, o.Felt()[pct])
		}
	}
	return v
}

// fmtValue renders an objective value with its unit.
func (tr *tuner) fmtValue(v float64) string {
	if tr.objective == "throughput" {
		return units.Num(v) + " " + tr.headUnit
	}
	return units.Duration(v)
}

// changed renders the settings of c that differ from start's.
func (tr *tuner) changed(start, c tune.Cell) string {
	var parts []string
	for i, a := range tr.sp.Axes {
		if c[i] != start[i] {
			for j, k := range a.Keys {
				if a.Values[c[i]][j] != a.Values[start[i]][j] {
					parts = append(parts, k+"="+a.Values[c[i]][j])
				}
			}
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, " ")
}

// command is the litebench command line that runs s as the tune ran it.
func (tr *tuner) command(s settings.Settings) string {
	m := settings.NewMatrix()
	m.Base = s
	pl, err := sweep.Build(sweep.Request{Workload: tr.wsp, Params: paramLists(tr.wsp, tr.params), Settings: m,
		Targets: []target.Target{tr.t}, CPUs: tr.c.cpus, Memory: tr.c.memory, IDs: sweep.NewIDs("command")})
	if err != nil {
		return err.Error()
	}
	return pl.Cells[0].Command
}

// report audits the winner and prints the answer.
func (tr *tuner) report(ctx context.Context, res *tune.Result, trials int, requireWhy string) error {
	s, sp, out := tr.search, tr.sp, tr.out
	ranked := s.Ranked()
	best := res.Best
	if ok, _ := s.OK(best); !ok || len(s.Values(best)) == 0 {
		fmt.Fprintf(out, "no recommendation: no cell ran that meets %s", sp.Require)
		if res.Stopped != "" {
			fmt.Fprintf(out, " (%s)", res.Stopped)
		}
		fmt.Fprintln(out)
		if res.Stopped == "interrupted" {
			return errInterrupted
		}
		return errFailed
	}
	// The best first, then the rest by median.
	order := []tune.Cell{best}
	for _, c := range ranked {
		if sp.Key(c) != sp.Key(best) {
			order = append(order, c)
		}
	}
	auditLine := ""
	withdrawn := []string{}
	switch {
	case res.Stopped == "interrupted":
		auditLine = "not audited (interrupted)"
	case trials == 0:
		auditLine = "not audited (--audit-trials 0)"
	case engine.IsServed(tr.t.Engine()):
		auditLine = "not audited: the audit crashes worker processes on SQLite files, not a server"
	default:
		for i, c := range order {
			if i == 3 {
				auditLine = "not audited: three audits disagreed with their class"
				break
			}
			verdict, agree, err := tr.audit(ctx, c, trials)
			if err != nil {
				return err
			}
			if agree == nil {
				auditLine = verdict
				break
			}
			if *agree {
				best, auditLine = c, verdict
				order = append([]tune.Cell{c}, without(order, sp, c)...)
				break
			}
			withdrawn = append(withdrawn, fmt.Sprintf("%s withdrawn: %s", sp.Key(c), verdict))
			if i == len(order)-1 {
				fmt.Fprintln(out, "no recommendation: every candidate's audit disagreed with its class")
				for _, w := range withdrawn {
					fmt.Fprintln(out, "  "+w)
				}
				return errFailed
			}
		}
	}
	start := res.Start
	total := tr.ran + tr.reused
	stopped := "converged (more runs could not change the answer)"
	switch res.Stopped {
	case "budget":
		stopped = "stopped at the budget"
	case "interrupted":
		stopped = "interrupted: the best so far"
	}
	fmt.Fprintf(out, "tune %s on %s: %s, durability %s (%s)\n", tr.wsp.Name, tr.t.Name(), tr.objectiveName(), sp.Require, requireWhy)
	fmt.Fprintf(out, "space: %d cells, %d meet the requirement; %d runs (%d reused from the store), %s\n", sp.Size(), len(sp.EligibleCells()), total, tr.reused, stopped)
	for _, w := range withdrawn {
		fmt.Fprintln(out, w)
	}
	bs := sp.Settings(best)
	bv := s.Values(best)
	sum := stats.Summarise(bv)
	fmt.Fprintf(out, "\nrecommended: %s\n", sp.Key(best))
	fmt.Fprintf(out, "  %s: %s (median of %d runs, %s)\n", tr.objectiveName(), tr.fmtValue(sum.Median), sum.N, ciOr(sum.CI()))
	from := "the defaults"
	if sp.Key(start) != sp.Key(tr.start) {
		from = "the start"
		fmt.Fprintf(out, "  the defaults (%s) are below the requirement or outside the space; the search started from %s\n", sp.Key(tr.start), sp.Key(start))
	}
	fmt.Fprintf(out, "  changed from %s: %s\n", from, tr.changed(start, best))
	if sp.Key(best) == sp.Key(start) {
		fmt.Fprintf(out, "  gain over %s: none found (nothing was significantly better)\n", from)
	} else {
		fmt.Fprintf(out, "  gain over %s: %s\n", from, tr.change(s.Values(start), bv))
	}
	fmt.Fprintf(out, "  durability: %s (documented)", sp.ClassOf(best))
	if auditLine != "" {
		fmt.Fprintf(out, "; %s", auditLine)
	}
	fmt.Fprintln(out)
	fmt.Fprintf(out, "  to run it again: %s\n", tr.command(bs))
	if len(order) > 1 {
		ru := order[1]
		fmt.Fprintf(out, "runner-up: %s: %s (%s)\n", tr.changed(start, ru), tr.fmtValue(s.Median(ru)), tr.change(bv, s.Values(ru)))
	}
	if close := s.Close(best, 4); len(close) > 0 {
		fmt.Fprintln(out, "neither significantly worse nor better:")
		for _, c := range close {
			fmt.Fprintf(out, "  %s: %s (median of %d runs)\n", tr.changed(start, c), tr.fmtValue(s.Median(c)), len(s.Values(c)))
		}
	}
	if res.Stopped != "interrupted" {
		if err := tr.cost(ctx, best); err != nil {
			return err
		}
	}
	if tr.t.Engine().Name() == "sqlite" {
		fmt.Fprintln(out, "\nas code (the file path in place of PATH):")
		for _, sn := range tune.Snippets(bs) {
			fmt.Fprintf(out, "\n--- %s\n%s", sn.Title, sn.Text)
		}
	} else {
		fmt.Fprintf(out, "\npool (database/sql): %s\n", strings.Join(poolOnly(bs), "; "))
		if sn, ok := tune.ServerSnippet(tr.t.Engine().Name(), bs); ok {
			fmt.Fprintf(out, "\n--- %s\n%s", sn.Title, sn.Text)
		}
	}
	if res.Stopped == "interrupted" || ctx.Err() != nil {
		fmt.Fprintf(tr.errw, "interrupted: continue with the same command and --resume %s\n", tr.ids.Sweep())
		return errInterrupted
	}
	return nil
}

func without(cs []tune.Cell, sp *tune.Space, c tune.Cell) []tune.Cell {
	var out []tune.Cell
	for _, x := range cs {
		if sp.Key(x) != sp.Key(c) {
			out = append(out, x)
		}
	}
	return out
}

// poolOnly are the pool lines of a server target's answer.
func poolOnly(s settings.Settings) []string {
	if n := s.Int("pool"); n > 0 {
		return []string{fmt.Sprintf("db.SetMaxOpenConns(%d)", n), fmt.Sprintf("db.SetMaxIdleConns(%d)", n)}
	}
	return []string{"no limit on open connections (database/sql's default)"}
}

// ciOr is a summary's interval, or says there was one run.
func ciOr(s string) string {
	if s == "" {
		return "one run"
	}
	return s
}

func (tr *tuner) objectiveName() string {
	if tr.objective == "throughput" {
		return "throughput"
	}
	return tr.objective + " latency"
}

// change renders the change from a to b: the median's and the 95%
// Hodges-Lehmann interval.
func (tr *tuner) change(a, b []float64) string {
	if len(a) == 0 || len(b) == 0 {
		return "no runs to compare"
	}
	pct := 100 * (median(b)/median(a) - 1)
	lo, hi, ok := stats.ChangeCI(a, b)
	cmp := stats.Compare(a, b)
	sig := "significant"
	if !cmp.Significant {
		sig = "not significant"
	}
	if !ok {
		return fmt.Sprintf("%+.1f%% (too few runs for a 95%% interval; %s)", pct, sig)
	}
	return fmt.Sprintf("%+.1f%% (95%% interval %+.1f%% to %+.1f%%, p=%.3f, %s)", pct, lo, hi, cmp.P, sig)
}

// cost measures what the requirement costs: the winner with sync off, in
// rollback journal off and in WAL (cells of weaker classes, 3 runs each,
// never recommended), against the winner.
func (tr *tuner) cost(ctx context.Context, best tune.Cell) error {
	sp, out := tr.sp, tr.out
	if sp.Require == tune.Any || tr.t.Engine().Name() != "sqlite" {
		return nil
	}
	bv := tr.search.Values(best)
	type probe struct {
		s     settings.Settings
		class string
		v     []float64
	}
	var ps []probe
	for _, j := range []string{"off", "wal"} {
		s := sp.Settings(best)
		s.Set("journal", j)
		s.Set("sync", "off")
		if s.Validate() != nil {
			continue
		}
		cl := sp.Class(s)
		if tune.Meets(cl, sp.Require) {
			continue
		}
		pr := probe{s: s, class: cl}
		for i := 0; i < 3; i++ {
			x, err := tr.runSettings(ctx, s, "tune "+tr.wsp.Name+" "+tr.t.Name()+" cost of durability: journal="+j+" sync=off")
			if errors.Is(err, tune.ErrBudget) {
				break
			}
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
			if !x.Failed {
				pr.v = append(pr.v, x.Value)
			}
		}
		if len(pr.v) > 0 {
			ps = append(ps, pr)
		}
	}
	if len(ps) == 0 {
		return nil
	}
	sort.Slice(ps, func(i, j int) bool {
		if tr.objective == "throughput" {
			return median(ps[i].v) > median(ps[j].v)
		}
		return median(ps[i].v) < median(ps[j].v)
	})
	f := ps[0]
	faster := median(f.v) > median(bv)
	if tr.objective != "throughput" {
		faster = median(f.v) < median(bv)
	}
	if !faster || !stats.Compare(bv, f.v).Significant {
		var tried []string
		for _, p := range ps {
			tried = append(tried, "journal="+p.s.Get("journal")+" sync=off")
		}
		fmt.Fprintf(out, "what %s costs: nothing measured: the weaker cells tried (%s) were not significantly faster; the best, %s, %s against the recommendation\n",
			sp.Require, strings.Join(tried, ", "), tr.fmtValue(median(f.v)), tr.change(bv, f.v))
		return nil
	}
	fmt.Fprintf(out, "what %s costs: the fastest cell measured of any class, journal=%s sync=off (%s, not recommended), runs at %s: %s against the recommendation\n",
		sp.Require, f.s.Get("journal"), f.class, tr.fmtValue(median(f.v)), tr.change(bv, f.v))
	return nil
}

// audit runs the process-kill audit of cell c: verdict says what it found;
// agree is nil when the audit cannot run, else whether it agrees with
// the cell's class.
func (tr *tuner) audit(ctx context.Context, c tune.Cell, trials int) (string, *bool, error) {
	s := tr.sp.Settings(c)
	lists := paramLists(tr.wsp, tr.params)
	for k, v := range auditDefaults[tr.wsp.Name] {
		lists[k] = []string{v}
	}
	m := settings.NewMatrix()
	m.Base = s
	pl, err := sweep.Build(sweep.Request{Workload: tr.wsp, Params: lists, Settings: m, Targets: []target.Target{tr.t}, IDs: tr.ids})
	if err != nil {
		return "not audited: " + err.Error(), nil, nil
	}
	cells := pl.Cells
	cells[0].Label = "tune audit " + tr.sp.Key(c)
	cfg := audit.Config{Faults: []string{audit.ProcessKill}, Trials: trials, FaultAt: [2]time.Duration{50 * time.Millisecond, 500 * time.Millisecond}, Seed: 1, Section: "tune audit"}
	if err := audit.Check(cfg, cells); err != nil {
		return "not audited: " + err.Error(), nil, nil
	}
	rs, err := runAudit(ctx, cfg, tr.p, cells, io.Discard, tr.errw)
	if err != nil {
		return "", nil, err
	}
	if len(rs) == 0 || rs[0].Audit == nil || rs[0].Status != results.StatusOK {
		if ctx.Err() != nil {
			return "not audited (interrupted)", nil, nil
		}
		return "not audited: the audit's run failed", nil, nil
	}
	a := rs[0].Audit
	agree := a.Finding == "" && tune.Meets(a.Class, tr.sp.Require)
	v := fmt.Sprintf("process-kill audit, %d trials (%d struck while running): %d acknowledged transactions lost, %d corrupt: %s", a.Trials, a.Faulted, a.LostAckedTotal, a.CorruptTrials, a.Verdict)
	if a.Finding != "" {
		v += ": " + a.Finding
	}
	return v, &agree, nil
}
