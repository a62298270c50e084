package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	flag "github.com/spf13/pflag"

	"github.com/litebench/litebench/internal/audit"
	"github.com/litebench/litebench/internal/crashfs"
	"github.com/litebench/litebench/internal/crashvfs"
	"github.com/litebench/litebench/internal/engine"
	sweep "github.com/litebench/litebench/internal/plan"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/workload"
)

const auditHelp = `NAME
    litebench audit - measure what settings give up in durability by
        crashing them

SYNOPSIS
    litebench audit [WORKLOAD] [--fault process-kill,power-loss] [--trials N]
                    [--power-model torn,lose-unsynced,reorder]
                    [--power-via fs|vfs] [--disk SPEC]
                    [--fault-at 100ms-1s|sync:FILE:N|write:FILE:N]
                    [--fault-seed N] [--target LIST] [setting flags]
                    [workload flags] [output flags]

DESCRIPTION
    For every cell (target × settings × workload parameters, comma lists
    as for 'litebench insert') and every fault, runs N trials. In each, the
    workload (insert by default; write or mixed with --write-kind insert)
    runs in a 'litebench worker' child process that acknowledges every
    committed write transaction to litebench, which records it; at a seeded
    moment within --fault-at the fault strikes; litebench's own SQLite
    (ncruces-direct, whatever the target's language) then opens a copy of
    the crashed files (the recovery time is open + first query), runs
    PRAGMA integrity_check and looks for every acknowledged transaction,
    each a batch of consecutive rows, so a batch partly present is an
    atomicity violation. A trial whose files cannot be copied or opened
    for a reason other than corruption is unverified: counted apart, in
    no verdict.

    With no --target, 'litebench audit' takes a quick look: the default
    target and ncruces-direct, 5 trials each. With no --fault, each target
    runs the faults it can take. The first line on stderr says what was
    chosen.

    Faults:
      process-kill  SIGKILL of the worker: the operating system keeps what
                    was written. Any target.
      power-loss    a power cut: SIGKILL, then the files are rebuilt as
                    a disk would hold them (writes no sync covered are
                    lost, torn at sectors, or reordered), from a log of
                    every write and sync. Any SQLite target: the worker
                    runs with its database on a crash file system (FUSE,
                    mounted in the run's directory; needs /dev/fuse, and
                    root or fusermount3); targets that open through a Go
                    VFS (ncruces-direct) use the crash VFS unless
                    --power-via fs. --disk sets the simulated disk:
                    sector=512|4096, atomic (sectors never garbled),
                    powersafe|no-powersafe, dirsync|no-dirsync (whether a
                    creation or unlink needs a directory fsync to last);
                    default sector=4096,powersafe,dirsync. --fault-at
                    sync:wal:17 strikes during the 17th sync of the WAL
                    (FILE db, wal, journal or a file name), write:db:3
                    during the 3rd write of the database (crash file
                    system only).

    Each cell and fault is one result (stored, and one row): trials,
    acknowledged transactions, those lost (total, most in one trial, how
    long before the fault the oldest was acknowledged), corrupt trials,
    unverified trials, partly present transactions, in-flight ones
    present, recovery time and the rows committed per second, beside what
    SQLite documents for its journal mode and synchronous level: "as
    documented", or a FINDING.
    docs/durability-audit.md describes the model and the oracle.

    Workload flags are those of 'litebench WORKLOAD --help' (the flags of
    insert are listed below; 'litebench audit write --help' lists write's);
    the audit's defaults differ so that the fault strikes a running
    workload: insert --rows 10m, write and mixed --duration 1h (the fault
    ends them). --placement, --in-memory, --db, --attach, --repeat,
    --memory, --series and --wal-warn are refused: a trial runs in a
    worker process on a file of its own.
`

// auditPage is the audit's manual page.
var auditPage = helpPage{text: auditHelp, group: "AUDIT FLAGS", examples: []string{
	"litebench audit",
	"litebench audit --target ncruces-direct --journal delete,wal --sync off,normal,full",
	"litebench audit write --fault process-kill --target mattn --journal wal --sync off --trials 50",
	"litebench audit --fault power-loss --target mattn,modernc --journal wal --sync full --power-model torn,reorder",
}, seeAlso: []string{"suite durability", "list targets", "show"},
	exit: "0 the audit ran (findings are results, not errors), 1 a trial failed or no trial of a cell could be verified, 2 bad input (nothing was touched), 130 interrupted."}

// auditDefaults are the workload parameters the audit changes when they
// are not given: the fault must strike a running workload.
var auditDefaults = map[string]map[string]string{
	"insert": {"rows": "10m"},
	"write":  {"duration": "1h"},
	"mixed":  {"duration": "1h"},
}

func cmdAudit(ctx context.Context, args []string, out, errw io.Writer) error {
	name := "insert"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	spec, err := workload.Get(name)
	if err != nil {
		return usageError{err.Error()}
	}
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	var c common
	c.register(fs)
	params := map[string]*string{}
	for _, p := range spec.Params {
		def := p.Default
		if d, ok := auditDefaults[name][p.Name]; ok {
			def = d
		}
		params[p.Name] = fs.String(p.Name, def, p.Help)
		inGroup(fs, groupWorkload, p.Name)
	}
	faults := fs.String("fault", strings.Join(audit.Faults, ","), "process-kill, power-loss or both")
	trials := fs.Int("trials", 20, fmt.Sprintf("trials per cell and fault (%d without --target)", quickTrials))
	models := fs.String("power-model", string(crashvfs.Torn), "torn, lose-unsynced, reorder (crash file system only), or several: each power-loss trial is judged under each model")
	faultAt := fs.String("fault-at", "100ms-1s", "when the fault strikes after the measured part starts: 300ms, a window such as 100ms-1s, or an operation: sync:FILE:N, write:FILE:N")
	powerVia := fs.String("power-via", "", "how power loss is recorded: fs (the crash file system, any target) or vfs (the crash VFS, Go VFS targets); default vfs where the target can, fs elsewhere")
	disk := fs.String("disk", "", "the crash file system's disk: sector=512|4096, atomic, powersafe|no-powersafe, dirsync|no-dirsync (default sector=4096,powersafe,dirsync)")
	seed := fs.Uint64("fault-seed", 1, "seed of the fault moments and torn patterns: the same seed strikes the same way")
	fs.SetAnnotation("fault", "litebench-help-value", []string{"LIST"})
	fs.SetAnnotation("power-model", "litebench-help-value", []string{"LIST"})
	fs.SetAnnotation("fault-at", "litebench-help-value", []string{"WINDOW"})
	if err := parse(fs, args, out, auditPage.help(fs)); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("audit: unexpected argument %q (the workload comes first; see 'litebench audit --help')", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, f := range []string{"db", "attach", "repeat", "memory", "series", "wal-warn", "placement", "in-memory"} {
		if set[f] {
			return usagef("audit: --%s does not apply: the audit runs every trial in a worker process on a database file of its own", f)
		}
	}
	if c.format == "benchfmt" {
		return usagef("audit: --format benchfmt does not apply; use table, markdown, csv or json")
	}
	var chose []string
	if !set["target"] {
		c.targets = quickTargets()
		chose = append(chose, "--target "+c.targets)
		if !set["trials"] {
			*trials = quickTrials
			chose = append(chose, fmt.Sprintf("--trials %d", quickTrials))
		}
	}
	cfg := audit.Config{Trials: *trials, Seed: *seed, Keep: c.keep, Section: "audit"}
	if cfg.Faults, err = auditFaults(*faults); err != nil {
		return err
	}
	if cfg.Models, err = powerModels(*models); err != nil {
		return err
	}
	if set["power-model"] && !slices.Contains(cfg.Faults, audit.PowerLoss) {
		return usagef("audit: --power-model applies to --fault power-loss only")
	}
	if crashfs.IsPoint(*faultAt) {
		pt, err := crashfs.ParsePoint(*faultAt)
		if err != nil {
			return usageError{err.Error()}
		}
		cfg.Point = &pt
	} else if cfg.FaultAt, err = audit.ParseWindow(*faultAt); err != nil {
		return usageError{err.Error()}
	}
	if cfg.Device, err = crashfs.ParseDevice(*disk); err != nil {
		return usageError{err.Error()}
	}
	cfg.PowerVia = *powerVia
	for _, f := range []string{"power-via", "disk"} {
		if set[f] && !slices.Contains(cfg.Faults, audit.PowerLoss) {
			return usagef("audit: --%s applies to --fault power-loss only", f)
		}
	}
	if cfg.Point != nil && !slices.Equal(cfg.Faults, []string{audit.PowerLoss}) {
		return usagef("audit: --fault-at %s applies to --fault power-loss alone (a process kill strikes at a moment)", cfg.Point)
	}
	p, err := buildPlan(ctx, spec, &c, params)
	if err != nil {
		return err
	}
	for _, sp := range p.specs {
		if engine.IsServed(sp.Target.Engine()) {
			return usagef("audit: %s is a server engine, which the audit cannot crash (it kills worker processes on SQLite files and dqlite nodes); drop it from --target", sp.Target.Name())
		}
	}
	if !set["fault"] {
		cfg.Faults = clusterFaults(p.specs, cfg.Faults)
		cfg.Auto = true // each target under the faults it can take
	}
	if err := audit.Check(cfg, p.specs); err != nil {
		return usageError{err.Error()}
	}
	planned := 0
	for _, sp := range p.specs {
		planned += len(cfg.FaultsFor(sp))
	}
	if cfg.Auto || len(chose) > 0 {
		fmt.Fprintln(errw, auditChoice(cfg, p.specs, chose))
	}
	if err := p.open(ctx); err != nil {
		return err
	}
	defer p.close()
	rs, err := runAudit(ctx, cfg, p, p.specs, out, errw)
	if err != nil {
		return err
	}
	if c.format != "json" && len(rs) > 0 {
		if err := audit.Table(rs).Render(out, c.format); err != nil {
			return err
		}
	}
	if p.store != nil && len(rs) > 0 {
		fmt.Fprintf(errw, "saved %d result(s) as sweep %s in %s\n", len(rs), p.sweepID, p.store.Path())
	}
	if c.keep {
		fmt.Fprintf(errw, "trial files kept in %s\n", p.dir)
	}
	return auditOutcome(rs, planned)
}

// quickTrials are the trials of each cell and fault of the audit's quick
// look (no --target): enough to see each fault strike, in under a minute.
const quickTrials = 5

// quickTargets are the targets of the audit's quick look: the default
// target, and one that opens through a Go VFS (power loss needs one):
// the audit's verifier, or the first such target.
func quickTargets() string {
	list := target.Default()
	for _, n := range append([]string{audit.Verifier}, target.Names()...) {
		if t, err := target.Get(n); err == nil && target.SupportsVFS(t) {
			if n != list {
				list += "," + n
			}
			break
		}
	}
	return list
}

// auditChoice is the line that says what an audit not told every choice
// chose: the flags it filled in and each target's faults.
func auditChoice(cfg audit.Config, cells []sweep.Cell, chose []string) string {
	var per []string
	seen := map[string]bool{}
	for _, c := range cells {
		n := c.Target.Name()
		if !seen[n] {
			seen[n] = true
			per = append(per, strings.Join(cfg.FaultsFor(c), " and ")+" on "+n)
		}
	}
	line := "audit: " + strings.Join(per, "; ")
	if cfg.Auto {
		line += " (each target under the faults it can take; --fault chooses)"
	}
	if len(chose) > 0 {
		line += "; chose " + strings.Join(chose, " ") + " (name them to choose)"
	}
	return line
}

// runAudit runs the audit of cells in the plan's directory, saving each
// result as it starts and ends and, with --format json, writing it.
func runAudit(ctx context.Context, cfg audit.Config, p *plan, cells []sweep.Cell, out, errw io.Writer) ([]*results.Result, error) {
	cfg.Dir = p.dir
	if p.c.progress > 0 {
		cfg.Progress = errw
	}
	cfg.Begin = func(r *results.Result) error {
		if p.store == nil {
			return nil
		}
		pending := *r
		pending.Status = results.StatusRunning
		return p.store.Begin(&pending)
	}
	cfg.Done = func(r *results.Result) error {
		if p.store != nil {
			if err := p.store.Save(r); err != nil {
				return fmt.Errorf("saving %s: %w", r.RunID, err)
			}
		}
		if p.c.format == "json" {
			return audit.WriteJSON(out, r)
		}
		return nil
	}
	rs, err := audit.Run(ctx, cfg, cells)
	if err != nil && ctx.Err() == nil {
		return rs, err
	}
	return rs, nil
}

// auditOutcome maps the results' statuses to the command's error.
func auditOutcome(rs []*results.Result, cells int) error {
	for _, r := range rs {
		if r.Status == results.StatusInterrupted {
			return errInterrupted
		}
	}
	for _, r := range rs {
		if r.Status == results.StatusFailed {
			return errFailed
		}
	}
	if len(rs) == 0 && cells > 0 {
		return errInterrupted
	}
	return nil
}

// auditFaultsOf names the faults 'litebench audit' can inject on t: power
// loss through the crash VFS or, for any SQLite target, the crash file
// system.
func auditFaultsOf(t target.Target) string {
	if engine.IsServed(t.Engine()) {
		return "-" // a server's durability is not audited (see 'litebench audit --help')
	}
	if engine.IsServer(t.Engine()) {
		return strings.Join(audit.ClusterFaults, ", ")
	}
	return audit.ProcessKill + ", " + audit.PowerLoss
}

func auditFaults(list string) ([]string, error) {
	var out []string
	for _, f := range audit.Faults {
		for _, g := range strings.Split(list, ",") {
			if strings.TrimSpace(g) == f && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	for _, f := range audit.ClusterFaults {
		for _, g := range strings.Split(list, ",") {
			if strings.TrimSpace(g) == f && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	for _, g := range strings.Split(list, ",") {
		if g = strings.TrimSpace(g); !slices.Contains(audit.Faults, g) && !slices.Contains(audit.ClusterFaults, g) {
			return nil, usagef("--fault %q: unknown fault %q; want process-kill, power-loss or both (kill-leader, kill-follower for dqlite)", list, g)
		}
	}
	return out, nil
}

func powerModels(list string) ([]crashvfs.Model, error) {
	var out []crashvfs.Model
	for _, s := range strings.Split(list, ",") {
		m, err := audit.ParseModel(strings.TrimSpace(s))
		if err != nil {
			return nil, usagef("--power-model: %v", err)
		}
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out, nil
}
