// Package workload defines what a run does: schema, deterministic data, the
// operations and how they are driven. The runner owns timing, progress and
// cancellation; a workload only executes and records.
//
// Workloads issue statements through a target.Session, which applies the
// application-side settings (pool, single writer, write mutex, prepared
// statements, busy retries) the same way for all of them, and build their
// SQL with the engine's dialect, so that they name no engine.
//
// Workloads written as files (the built-ins insert, read, write and mixed
// among them) are package spec's: it registers them here. This package
// keeps the schemas, loading (Load, which allocates nothing per row:
// TestInsertAllocatesNothing), the pages table (SetupPages), and the
// native workloads a file cannot express: scan and paginate. The http
// workload registers here from package httpbench.
package workload

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/metrics"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/units"
)

// Env is what a workload gets from the runner.
type Env struct {
	// Session is the target opened on the run's instance, with the
	// application-side policy of the settings.
	Session  *target.Session
	Instance engine.Instance
	Settings settings.Settings
	// Done counts rows written or read so far; the runner reads it for
	// progress lines. Workloads add to it once per batch, not per row.
	Done atomic.Int64
	// Figures receives workload-specific figures for the result (Figure).
	Figures []Figure
	// Notes receives lines worth showing beside the result.
	Notes []string
	// Recorders are the per-worker recorders; NewRecorder appends one.
	Recorders []*metrics.Recorder
	// End, when set by the workload, ends the measured interval before
	// work that must not count (e.g. a VACUUM after loading).
	End time.Time
	// Excluded is time inside the measured interval that is not the
	// workload's (data generated inline between statements); the runner
	// subtracts it from the elapsed time.
	Excluded time.Duration
	// Start, when set (MarkStart), begins the measured interval after a
	// warm-up.
	Start time.Time
	// Ack, when set, is called after every committed write transaction
	// with its first row index (or key) and its number of rows, from the
	// writing goroutine, right after COMMIT returns.
	Ack func(first, n int64)
	// Abandoned: the run was interrupted while operations were still
	// running (in a busy wait, an fsync) and returned without them: what
	// they use (statements, connections) must not be closed.
	Abandoned bool
	// Attached: the database belongs to another litebench process, which
	// may be writing it; Setup was not run and the data is what it is.
	Attached bool
	// InsertFrom and InsertTo are the row indexes the run's inserts use,
	// from InsertFrom (0: right after the rows loaded before the run) up
	// to InsertTo (0: no end): a range of its own beside other processes
	// writing the same tables.
	InsertFrom, InsertTo int64
	mu                   sync.Mutex
}

// Figure is one workload-specific figure of a run, in a unit of package
// units.
type Figure struct {
	Name   string
	Unit   string
	Better units.Direction
	Value  float64
}

// Figure adds a figure to the run's result: its name, its unit and which
// way is better (units.None for a figure that describes the run rather
// than rates it).
func (e *Env) Figure(name, unit string, better units.Direction, v float64) {
	e.mu.Lock()
	e.Figures = append(e.Figures, Figure{name, unit, better, v})
	e.mu.Unlock()
}

// SetFigure is Figure for a figure that replaces one of the same name
// already added.
func (e *Env) SetFigure(name, unit string, better units.Direction, v float64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := range e.Figures {
		if e.Figures[i].Name == name {
			e.Figures[i] = Figure{name, unit, better, v}
			return
		}
	}
	e.Figures = append(e.Figures, Figure{name, unit, better, v})
}

// NewRecorder returns a fresh recorder for a worker. Workers call it
// before or while running; each recorder belongs to one worker.
func (e *Env) NewRecorder(ops metrics.Ops) *metrics.Recorder {
	r := metrics.NewRecorder(ops)
	e.mu.Lock()
	e.Recorders = append(e.Recorders, r)
	e.mu.Unlock()
	return r
}

// NewLiveRecorder is NewRecorder for a recorder that also feeds the run's
// time series.
func (e *Env) NewLiveRecorder(ops metrics.Ops) *metrics.Recorder {
	r := metrics.NewRecorder(ops)
	r.Live()
	e.mu.Lock()
	e.Recorders = append(e.Recorders, r)
	e.mu.Unlock()
	return r
}

// LiveRecorders returns the recorders so far (for the time-series sampler).
func (e *Env) LiveRecorders() []*metrics.Recorder {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*metrics.Recorder(nil), e.Recorders...)
}

// MarkStart says the measured part starts at t (after a warm-up); the
// runner measures from there and resets progress.
func (e *Env) MarkStart(t time.Time) {
	e.mu.Lock()
	e.Start = t
	e.mu.Unlock()
}

// Started returns the measured start set by MarkStart, or zero.
func (e *Env) Started() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.Start
}

// Workload is one kind of benchmark.
type Workload interface {
	Name() string
	Ops() metrics.Ops
	// Params returns the workload's own parameters, for results.
	Params() map[string]string
	// Total is the planned number of rows, for progress (0 if unknown).
	Total() int64
	// Setup creates the schema and loads data. It is not measured.
	Setup(ctx context.Context, env *Env) error
	// Run is the measured part.
	Run(ctx context.Context, env *Env) error
}

// Param describes a workload parameter (a flag of the workload's command).
type Param struct {
	Name    string
	Default string
	Help    string
	// Sweep is true when a comma list makes the parameter a sweep axis.
	Sweep bool
}

// Spec describes a workload kind.
type Spec struct {
	Name    string
	Summary string
	// Kind is "native" for a workload written in Go, "file" for one
	// written as a workload file (built in or not), "scripts" for pgbench
	// scripts.
	Kind   string
	Params []Param
	// Command is how a command line names the workload ("run my.toml");
	// nil means its name.
	Command []string
	// SettingDefaults replaces settings' defaults for this workload (the
	// user's flags still win), e.g. one row per write instead of 1000.
	SettingDefaults map[string]string
	// New builds the workload from parameter values (defaults filled in);
	// it validates them against the settings of the run.
	New func(p map[string]string, s settings.Settings) (Workload, error)
	// AllowAttach, set for workloads of SQL (files and scripts), names
	// the existing database files their ATTACH statements may open,
	// read-only (--allow-attach); every other ATTACH, DETACH, VACUUM INTO
	// and load_extension() is refused when New resolves the workload.
	AllowAttach func(paths []string) error
}

var specs = map[string]*Spec{}

// Register adds a workload kind.
func Register(s *Spec) {
	if s.Kind == "" {
		s.Kind = "native"
	}
	specs[s.Name] = s
}

// Definition is what rebuilds a workload defined by files in another
// process: the texts it was read from (a worker job carries it).
type Definition struct {
	// Kind is "file" or "scripts".
	Kind    string      `json:"kind"`
	Sources []DefSource `json:"sources"`
}

// DefSource is one text of a definition.
type DefSource struct {
	Name string `json:"name"`
	Text string `json:"text"`
	// Weight is a script's weight (-f FILE@W); Init marks --init SQL.
	Weight string `json:"weight,omitempty"`
	Init   bool   `json:"init,omitempty"`
}

// Defined is a workload built from a definition rather than registered
// by name.
type Defined interface {
	Definition() *Definition
}

// Parted is a workload some of whose op kinds are parts of others (the
// statements of a transaction): PartOf names the whole, "" for a whole.
// A part's results count in neither rates nor totals.
type Parted interface {
	PartOf(op int) string
}

// Get returns the workload kind called name.
func Get(name string) (*Spec, error) {
	if s, ok := specs[name]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("unknown workload %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Names lists registered workload kinds.
func Names() []string {
	var n []string
	for k := range specs {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Param helpers shared by workloads.

func pInt(p map[string]string, name string, lo int64) (int64, error) {
	n, err := settings.ParseCount(p[name])
	if err != nil || n < lo {
		return 0, fmt.Errorf("--%s %q: want a whole number of at least %d", name, p[name], lo)
	}
	return n, nil
}

// IntParam is parameter name as a whole number of at least lo (a count
// such as 10k allowed), for workloads registered from other packages.
func IntParam(p map[string]string, name string, lo int64) (int64, error) { return pInt(p, name, lo) }

// SeedParam is the --seed parameter, for workloads registered from other
// packages.
func SeedParam(p map[string]string) (uint64, error) { return pSeed(p) }

func pSchema(p map[string]string) (*Schema, error) {
	s, ok := Schemas[p["schema"]]
	if !ok {
		var names []string
		for k := range Schemas {
			names = append(names, k)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("--schema %q: unknown schema (known: %s)", p["schema"], strings.Join(names, ", "))
	}
	return s, nil
}

func pSeed(p map[string]string) (uint64, error) {
	n, err := strconv.ParseUint(p["seed"], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("--seed %q: want a non-negative whole number", p["seed"])
	}
	return n, nil
}
