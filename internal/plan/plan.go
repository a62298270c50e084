// Package plan turns a request (a workload kind, its parameter lists, a
// settings matrix, targets and a repeat count) into cells, the runs of a
// sweep, and executes cells through a runner given as a function.
//
// Building a plan touches no file and runs nothing. Executing one leaves
// saving and printing to the caller's hooks, so that the command line and
// any other driver of sweeps share the same expansion, ids, labels and
// reproduction commands.
package plan

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/runner"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/workload"
)

// InputError is a request that cannot be planned as given; its message
// names the problem and the fix.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputf(format string, a ...any) error { return &InputError{fmt.Sprintf(format, a...)} }

// IDs names a sweep and numbers its runs: SWEEP.1, SWEEP.2, …
type IDs struct {
	sweep string
	n     int
}

// NewIDs numbers the runs of the sweep named sweep; an empty name gets a
// new one from NewSweepID.
func NewIDs(sweep string) *IDs {
	if sweep == "" {
		sweep = NewSweepID()
	}
	return &IDs{sweep: sweep}
}

// Sweep is the sweep's id.
func (x *IDs) Sweep() string { return x.sweep }

// Next returns the id of the next run.
func (x *IDs) Next() string {
	x.n++
	return x.sweep + "." + strconv.Itoa(x.n)
}

// NewSweepID returns a new sweep id: the UTC time to the second and eight
// random hex digits, such as 20260101T120000-1a2b3c4d.
func NewSweepID() string {
	var b [4]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}

// Shard returns shard k of n (1 <= k <= n) of cells: every n-th cell from
// the k-th. Cells keep their run ids, so the shards' runs together are
// the sweep's, and since repetitions go round the cells, each shard's
// repetitions stay interleaved.
func Shard(cells []Cell, k, n int) []Cell {
	var out []Cell
	for i := k - 1; i < len(cells); i += n {
		out = append(out, cells[i])
	}
	return out
}

// Request describes a sweep of one workload kind.
type Request struct {
	Workload *workload.Spec
	// Params holds values of the workload's parameters. A parameter not
	// given takes its default; more than one value makes it a sweep axis,
	// which only parameters marked Sweep may be.
	Params map[string][]string
	// Settings is the settings matrix (see Matrix); nil means the
	// workload's defaults.
	Settings *settings.Matrix
	Targets  []target.Target
	// Repeat runs every cell this many times, going round the cells; 0
	// means once.
	Repeat int
	// DBPath is the bench database of every run; empty means a new file
	// per run in the directory the runs are given.
	DBPath string
	// Keep leaves bench databases on disk after their runs.
	Keep bool
	// Attach uses DBPath as it is, beside the litebench process that owns
	// it (only workloads that reuse data may).
	Attach bool
	// Processes, above 1, runs each cell in that many worker processes on
	// one database, each inserting in its own range of rows (read, write,
	// mixed and workload files whose writes are table operations).
	Processes int
	// InsertFrom is the first row the runs' inserts write (0: right after
	// the rows loaded): an attached run's range, away from its owner's.
	InsertFrom int64
	// CPUs and Memory are the limits the runs are confined to (0 and ""
	// for none); each cell's command repeats them.
	CPUs   int
	Memory string
	// IDs names the sweep and numbers its runs; nil means a new sweep.
	IDs *IDs
	// Ctx, when set, stops the building of a large plan: Build returns
	// its error once it is cancelled.
	Ctx context.Context
	// BatchPerStmt makes --batch follow --rows-per-stmt in workloads that
	// insert rows: one multi-row INSERT per transaction, as sqlite3perf's
	// generate -b N (rows-per-stmt given, batch not).
	BatchPerStmt bool
}

// Cell is one planned run: the runner's spec (run id, workload, target,
// settings, label and the command that repeats the run alone) and the
// workload parameters it was built from.
type Cell struct {
	runner.Spec
	Params map[string]string
}

// Plan is a validated list of runs.
type Plan struct {
	SweepID string
	Cells   []Cell
}

// Build validates req and expands it into cells: every combination of
// target, parameters and settings, repeated. Repetitions go round the cells
// (cell 1, cell 2, …, cell 1, …) so that the drift of a noisy machine
// spreads over every cell alike; within a round the order is target, then
// parameters, then settings, first axis outermost. Every cell gets its own
// workload, since workloads keep state while they run. Build touches no
// file; every error it returns is an *InputError but for an invalid default
// of the workload itself.
func Build(req Request) (*Plan, error) {
	spec := req.Workload
	if spec == nil {
		return nil, inputf("no workload given")
	}
	if len(req.Targets) == 0 {
		return nil, inputf("--target: no target given")
	}
	m := req.Settings
	if m == nil {
		var err error
		if m, _, err = Matrix(spec.SettingDefaults, "", nil); err != nil {
			return nil, err
		}
	}
	points, err := paramPoints(spec, req.Params)
	if err != nil {
		return nil, err
	}
	ids := req.IDs
	if ids == nil {
		ids = NewIDs("")
	}
	if err := checkApplies(spec, m, req.Targets); err != nil {
		return nil, err
	}
	repeat := max(req.Repeat, 1)
	if err := checkSize(repeat, len(req.Targets), len(points), m.Size()); err != nil {
		return nil, err
	}
	p := &Plan{SweepID: ids.Sweep()}
	for rep := 1; rep <= repeat; rep++ {
		for _, asked := range req.Targets {
			eng := asked.Engine().Name()
			seen := map[string]bool{}
			for i, pp := range points {
				for _, s := range m.Points() {
					// Settings the engine does not run stay at their
					// defaults: they neither label nor repeat its cells,
					// and the cells say so.
					if req.Ctx != nil && req.Ctx.Err() != nil {
						return nil, req.Ctx.Err()
					}
					given := s
					s = s.For(eng)
					skippedNotes := skipped(given, s, eng)
					if k := fmt.Sprint(i) + " " + s.String(); seen[k] {
						continue
					} else {
						seen[k] = true
					}
					if err := s.Validate(); err != nil {
						return nil, &InputError{err.Error()}
					}
					if b, ok := asked.Engine().(engine.Borrower); ok {
						if err := b.CheckCell(s); err != nil {
							return nil, &InputError{fmt.Sprintf("--target %s: %v", asked.Name(), err)}
						}
					}
					w, err := spec.New(pp, s)
					if err != nil {
						return nil, &InputError{err.Error()}
					}
					notes := append(append([]string(nil), m.Notes...), skippedNotes...)
					if req.BatchPerStmt && insertsRows(w) {
						rps := s.Get("rows-per-stmt")
						s.Set("batch", rps)
						if w, err = spec.New(pp, s); err != nil {
							return nil, &InputError{err.Error()}
						}
						notes = append(notes, fmt.Sprintf("--batch follows --rows-per-stmt: one %s-row INSERT per transaction (as sqlite3perf's generate -b %s); give --batch to put several statements in one transaction", rps, rps))
					}
					if c, ok := w.(interface{ CheckBegin(string) error }); ok {
						if err := c.CheckBegin(eng); err != nil {
							return nil, &InputError{fmt.Sprintf("--target %s: %v", asked.Name(), err)}
						}
					}
					if c, ok := w.(interface{ CheckParams(int, string) error }); ok {
						if err := c.CheckParams(asked.Engine().Dialect().MaxParams(), eng); err != nil {
							return nil, &InputError{fmt.Sprintf("--target %s: %v", asked.Name(), err)}
						}
					}
					notes = append(notes, inert(w)...)
					t, err := resolveTarget(w, asked)
					if err != nil {
						return nil, err
					}
					if err := backoffRuns(t, s); err != nil {
						return nil, err
					}
					label := spec.Name + " " + t.Name()
					if vary := varyingLabel(m, s, spec, pp, points, eng); vary != "" {
						label += " " + vary
					}
					rp := 0
					if repeat > 1 {
						label += fmt.Sprintf(" #%d", rep)
						rp = rep
					}
					p.Cells = append(p.Cells, Cell{Params: pp, Spec: runner.Spec{
						RunID: ids.Next(), SweepID: ids.Sweep(),
						Workload: w, Target: t, Settings: s, DBPath: req.DBPath, Keep: req.Keep, Attach: req.Attach,
						Processes: req.Processes, InsertFrom: req.InsertFrom,
						Label: label, Command: cellCommand(spec, t, pp, s, req), Repeat: rp, Notes: notes,
					}})
				}
			}
		}
	}
	if err := checkProcesses(req, p.Cells); err != nil {
		return nil, err
	}
	if repeat > 1 && req.DBPath != "" {
		// A named database would be reused by the next repetition.
		for _, c := range p.Cells {
			if _, ok := c.Workload.(runner.Reuser); ok {
				return nil, inputf("--repeat with --db: repetitions would share one database file; use --dir instead")
			}
		}
	}
	return p, nil
}

// backoffRuns refuses --busy-retry backoff on a worker of another
// language, which retries only at once.
func backoffRuns(t target.Target, s settings.Settings) error {
	if _, _, ok := s.BusyBackoff(); !ok {
		return nil
	}
	if l, ok := t.Client().(interface{ Lang() string }); ok && l.Lang() != "go" {
		return inputf("--busy-retry %s: the %s worker of target %s retries at once only (none, N, until); use --busy-retry until with it, or a Go target", s.Get("busy-retry"), l.Lang(), t.Name())
	}
	return nil
}

// MaxRuns is the most runs one sweep plans. A plan is built whole before
// anything runs (every cell holds its own workload), and at a second a run
// 10000 runs already take hours: past it, a sweep is better split.
const MaxRuns = 10000

// checkSize refuses a plan of more than MaxRuns runs before any is built:
// repeat × targets × parameter points × settings points (an upper bound:
// cells an engine does not tell apart are merged later).
func checkSize(repeat, targets, params, settings int) error {
	cells := 1
	for _, n := range []int{targets, params, settings} {
		if cells = cells * max(n, 1); cells > MaxRuns {
			break
		}
	}
	if cells <= MaxRuns && repeat <= MaxRuns/cells {
		return nil
	}
	if cells > MaxRuns {
		return inputf("the sweep has %d targets × %d parameter values × %d settings, more than the limit of %d runs per sweep; give fewer values or split it", targets, params, settings, MaxRuns)
	}
	return inputf("--repeat %d: %d cell(s) × %d is more than the limit of %d runs per sweep; use --repeat %d or less", repeat, cells, repeat, MaxRuns, MaxRuns/cells)
}

// insertsRows reports whether w inserts a table's rows, where --batch and
// --rows-per-stmt shape its transactions and statements.
func insertsRows(w workload.Workload) bool {
	i, ok := w.(interface{ InsertsRows() bool })
	return ok && i.InsertsRows()
}

// inert is what w says of the settings that change nothing in its run.
func inert(w workload.Workload) []string {
	if i, ok := w.(interface{ Inert() []string }); ok {
		return i.Inert()
	}
	return nil
}

// paramPoints expands the parameter lists into every combination, first
// parameter outermost, with defaults for the parameters not given.
func paramPoints(spec *workload.Spec, given map[string][]string) ([]map[string]string, error) {
	known := map[string]bool{}
	for _, ps := range spec.Params {
		known[ps.Name] = true
	}
	var unknown []string
	for k := range given {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, inputf("%s: unknown parameter --%s (see 'litebench %s --help')", spec.Name, unknown[0], spec.Name)
	}
	points := []map[string]string{{}}
	for _, ps := range spec.Params {
		vals := given[ps.Name]
		if len(vals) == 0 {
			vals = []string{ps.Default}
		}
		if len(vals) > 1 && !ps.Sweep {
			return nil, inputf("--%s takes one value; it is not a sweep axis", ps.Name)
		}
		next := make([]map[string]string, 0, len(points)*len(vals))
		for _, pp := range points {
			for _, v := range vals {
				c := make(map[string]string, len(pp)+1)
				for k, x := range pp {
					c[k] = x
				}
				c[ps.Name] = v
				next = append(next, c)
			}
		}
		points = next
	}
	return points, nil
}

// Matrix builds a settings matrix as the command line does: the workload's
// own defaults, then the parameters of a seed-style database string such
// as "a.db?_journal=wal&_sync=0", then the settings given, each a comma
// list (two or more values make an axis). It returns the database path of
// db, empty when db is. Errors in db or given are *InputError.
func Matrix(defaults map[string]string, db string, given map[string]string) (*settings.Matrix, string, error) {
	m := settings.NewMatrix()
	keys := make([]string, 0, len(defaults))
	for k := range defaults {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := m.SetList(k, defaults[k]); err != nil {
			return nil, "", err
		}
	}
	path := ""
	var fromDB map[string]string
	if db != "" {
		d, err := m.ApplyDSN(db)
		if err != nil {
			return nil, "", &InputError{err.Error()}
		}
		path, fromDB = d.Path, d.Set
	}
	for k := range given {
		if settings.Lookup(k) == nil {
			return nil, "", inputf("unknown setting --%s (see 'litebench list settings')", k)
		}
	}
	// A parameter of db and a flag that disagree: neither may win
	// silently. The same value given twice is fine.
	for _, sp := range settings.Specs {
		v, dbv := given[sp.Key], fromDB[sp.Key]
		if v == "" || dbv == "" {
			continue
		}
		probe := settings.NewMatrix()
		if err := probe.SetList(sp.Key, v); err != nil {
			return nil, "", &InputError{err.Error()}
		}
		if len(probe.Axes) > 0 || probe.Base.Get(sp.Key) != dbv {
			return nil, "", inputf("--db %q sets %s %s but --%s asks %s; give it once (drop the parameter or the flag)", db, sp.Key, dbv, sp.Key, v)
		}
	}
	for _, sp := range settings.Specs {
		if v := given[sp.Key]; v != "" {
			if err := m.SetList(sp.Key, v); err != nil {
				return nil, "", &InputError{err.Error()}
			}
		}
	}
	return m, path, nil
}

// Targets resolves a comma list of target names, in order, without blanks
// or repeats.
func Targets(list string) ([]target.Target, error) {
	var ts []target.Target
	seen := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		t, err := target.Get(n)
		if err != nil {
			return nil, inputf("--target: %v", err)
		}
		ts = append(ts, t)
	}
	if len(ts) == 0 {
		return nil, inputf("--target: no target given")
	}
	return ts, nil
}

// resolveTarget is the target a run of w uses: t, unless the workload needs
// another (http's --strategy direct on a database/sql target).
func resolveTarget(w workload.Workload, t target.Target) (target.Target, error) {
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
		return nil, inputf("--direct-target: %v", err)
	}
	return nt, nil
}

// varyingLabel names what sets a cell apart from the others: every
// parameter that takes more than one value across the points, and every
// setting axis.
func varyingLabel(m *settings.Matrix, s settings.Settings, spec *workload.Spec, pp map[string]string, all []map[string]string, eng string) string {
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
		if settings.Applies(k, eng) {
			parts = append(parts, k+"="+s.Get(k))
		}
	}
	return strings.Join(parts, " ")
}

// skipped names the settings of given that engine's cell runs without.
func skipped(given, runs settings.Settings, engine string) []string {
	var notes []string
	for _, sp := range settings.Specs {
		if v := given.Get(sp.Key); v != runs.Get(sp.Key) {
			notes = append(notes, fmt.Sprintf("--%s %s: %s; this %s cell runs without it", sp.Key, v, settings.NotFor(sp.Key, engine), engine))
		}
	}
	return notes
}

// checkApplies refuses a setting given a value (other than the workload's
// default) that no target of the sweep runs: an engine's setting with
// none of its targets, an application-side one every engine ignores.
func checkApplies(spec *workload.Spec, m *settings.Matrix, ts []target.Target) error {
	def := settings.Default()
	for k, v := range spec.SettingDefaults {
		def.Set(k, v)
	}
	given := map[string]bool{}
	for _, s := range m.Points() {
		for _, sp := range settings.Specs {
			if s.Get(sp.Key) != def.Get(sp.Key) {
				given[sp.Key] = true
			}
		}
	}
	for _, sp := range settings.Specs {
		if !given[sp.Key] {
			continue
		}
		var why string
		for _, t := range ts {
			if why = settings.NotFor(sp.Key, t.Engine().Name()); why == "" {
				break
			}
		}
		if why != "" {
			var names []string
			for _, t := range ts {
				names = append(names, t.Name())
			}
			return inputf("%s; no target of --target %s runs it (drop the flag or add such a target)", why, strings.Join(names, ","))
		}
	}
	return nil
}

// cellCommand is the command line that repeats one run of a sweep: the
// workload, the target, every parameter and every setting that differs
// from its default (the workload's own defaults included), the database
// and the limits.
func cellCommand(spec *workload.Spec, t target.Target, pp map[string]string, s settings.Settings, req Request) string {
	parts := []string{"litebench"}
	for _, c := range spec.Command {
		parts = append(parts, shellQuote(c))
	}
	if spec.Command == nil {
		parts = append(parts, spec.Name)
	}
	parts = append(parts, "--target", t.Name())
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
	if req.DBPath != "" {
		parts = append(parts, "--db", shellQuote(req.DBPath))
	}
	if req.Attach {
		parts = append(parts, "--attach")
	}
	if req.Processes > 1 {
		parts = append(parts, "--processes", strconv.Itoa(req.Processes))
	}
	if req.InsertFrom > 0 {
		parts = append(parts, "--from", strconv.FormatInt(req.InsertFrom, 10))
	}
	if req.CPUs > 0 {
		parts = append(parts, "--cpus", strconv.Itoa(req.CPUs))
	}
	if req.Memory != "" {
		parts = append(parts, "--memory", req.Memory)
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
