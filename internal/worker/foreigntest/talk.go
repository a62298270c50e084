// Package foreigntest drives the end-to-end conformance of the workers of
// other languages (workers/java, node, python, rust): each job runs through
// 'litebench worker' on mattn (built from this tree: the reference) and
// through the worker, and the two must agree on what they wrote and report
// what they measured the way the reference does. Each worker's
// conform_test.go names its command line and its jobs, and calls
// Conformance, Refusals, ForeignFiles, Cancel and Describe.
package foreigntest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/settings"
	_ "github.com/litebench/litebench/internal/target/mattn" // resolves workload files for their programs
	"github.com/litebench/litebench/internal/worker"
	"github.com/litebench/litebench/internal/workload"
)

// RefTarget is the reference's target: 'litebench worker' on mattn.
const RefTarget = "mattn"

// Worker is one worker under test: the target it runs, the language its
// hello names, its command line, and how its intervals add up.
type Worker struct {
	Target string
	// Lang is how hello's "lang" begins ("python " of "python 3.12.3").
	Lang string
	Argv []string
	// Intervals: how the interval events add up to the final counts.
	Intervals IntervalRule
	// OwnMetrics are figures this worker reports and the reference does
	// not.
	OwnMetrics []string
	// OwnDDL: the worker creates the tables with CREATE statements of its
	// own wording, so that the schemas' text differs from the reference's.
	OwnDDL bool
	// OwnConns names the jobs in which the worker opens another number of
	// connections than the reference.
	OwnConns []string
}

// IntervalRule says how a worker's interval events add up to its final
// event's counts.
type IntervalRule int

const (
	// IntervalsExact: they cover the whole measured part and add up.
	IntervalsExact IntervalRule = iota
	// IntervalsLoadDone: they add up, but those of a load workload
	// (insert) count its rows in done only: the last interval's done is
	// at most the final's.
	IntervalsLoadDone
	// IntervalsTail: as IntervalsLoadDone, and they cover the measured
	// part but for a last stretch shorter than a tenth of an interval and
	// a tick read before the measured start.
	IntervalsTail
)

// Require skips the test when the worker is not built (missing says what is
// missing and how to build it), or fails it when the environment variable
// env is set (test.sh sets it).
func Require(t *testing.T, env, missing string) {
	t.Helper()
	if missing == "" {
		return
	}
	if os.Getenv(env) != "" {
		t.Fatal(missing)
	}
	t.Skip(missing)
}

var (
	buildOnce sync.Once
	buildDir  string
	lbBinary  string
	buildErr  error
)

// Main runs the tests and removes the litebench Litebench built.
func Main(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// Litebench is this tree's litebench, built once (LITEBENCH_BIN names one
// already built).
func Litebench(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if b := os.Getenv("LITEBENCH_BIN"); b != "" {
			lbBinary = b
			return
		}
		dir, err := os.MkdirTemp("", "litebench-conform")
		if err != nil {
			buildErr = err
			return
		}
		buildDir = dir
		lbBinary = filepath.Join(dir, "litebench")
		if out, err := exec.Command("go", "build", "-o", lbBinary, "github.com/litebench/litebench/cmd/litebench").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return lbBinary
}

// Reference is 'litebench worker' built from this tree. Its intervals may
// leave out a tick read before the measured start and a short last stretch.
func Reference(t *testing.T) Worker {
	return Worker{Target: RefTarget, Lang: "go1.", Argv: []string{Litebench(t), "worker"}, Intervals: IntervalsTail}
}

// Abs is the absolute path of elems joined, from the test's directory.
func Abs(t *testing.T, elems ...string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(elems...))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Root is the repository's root directory.
func Root(t *testing.T) string {
	t.Helper()
	dir := Abs(t, ".")
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}

// Case is one job the reference and the worker run.
type Case struct {
	Name     string
	Workload string
	// File is a workload file (from the repository's root): the reference
	// interprets it, the worker runs the program litebench compiles from it.
	File     string
	Params   map[string]string
	Settings map[string]string
	// Digest: the final content must be the reference's; Same: moreover the
	// job is deterministic, so the counts per op and the acks are too.
	Digest, Same bool
	// RacyConns: how many connections open depends on how the job's
	// operations overlap.
	RacyConns bool
	// MayFail: operations may fail by timing (busy under contention), so
	// that what is done and the rows written are not the reference's, nor
	// the rows inserted all written.
	MayFail  bool
	Interval time.Duration
	Acks     bool
	// Before runs between set-up and run on the job's database; the
	// function it returns runs after the run.
	Before func(t *testing.T, path string) func()
}

// Without is cases but those named.
func Without(cases []Case, names ...string) []Case {
	var out []Case
	for _, c := range cases {
		if !slices.Contains(names, c.Name) {
			out = append(out, c)
		}
	}
	return out
}

// NewJob is the job a controller sends for c to target tgt: every setting,
// the workload's own defaults applied, on a new file (or an in-memory
// database), with the program of its workload file compiled for SQLite
// unless tgt is the reference.
func NewJob(t *testing.T, c Case, tgt string) *worker.Job {
	t.Helper()
	s := settings.Default()
	if spec, err := workload.Get(c.Workload); err == nil {
		for k, v := range spec.SettingDefaults {
			if err := s.Set(k, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	for k, v := range c.Settings {
		if err := s.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	p := map[string]string{}
	for k, v := range c.Params {
		p[k] = v
	}
	path := filepath.Join(t.TempDir(), "bench.db")
	if s.Bool("in-memory") {
		path = "conform-" + c.Name
	}
	j := &worker.Job{RunID: c.Name, Workload: c.Workload, Params: p, Settings: s.WorkerMap("sqlite"), Target: tgt,
		Path: path, Digest: true, Acks: c.Acks, IntervalNS: int64(c.Interval)}
	if c.File == "" {
		return j
	}
	b, err := os.ReadFile(filepath.Join(Root(t), c.File))
	if err != nil {
		t.Fatal(err)
	}
	j.Workload = strings.TrimSuffix(filepath.Base(c.File), ".toml")
	j.Spec = &workload.Definition{Kind: "file", Sources: []workload.DefSource{{Name: filepath.Base(c.File), Text: string(b)}}}
	if tgt != RefTarget {
		pg, ok := resolve(t, j).(worker.Programmed)
		if !ok {
			t.Fatalf("%s compiles to no program", c.File)
		}
		if j.Program, err = pg.ProgramJSON(dialect.SQLite); err != nil {
			t.Fatalf("%s: %v", c.File, err)
		}
	}
	return j
}

// resolve builds a job's workload as litebench does, from a copy (Resolve
// completes the job it is given).
func resolve(t *testing.T, j *worker.Job) workload.Workload {
	t.Helper()
	cp := *j
	cp.Target = RefTarget
	cp.Settings, cp.Params = map[string]string{}, map[string]string{}
	for k, v := range j.Settings {
		cp.Settings[k] = v
	}
	for k, v := range j.Params {
		cp.Params[k] = v
	}
	wl, _, err := worker.Resolve(&cp)
	if err != nil {
		t.Fatalf("%s: %v", j.Workload, err)
	}
	return wl
}

// PartsOf names, for a workload file's statements with results of their
// own, the transaction each is a part of (none without a file).
func PartsOf(t *testing.T, c Case) map[string]string {
	t.Helper()
	m := map[string]string{}
	if c.File == "" {
		return m
	}
	wl := resolve(t, NewJob(t, c, RefTarget))
	p, ok := wl.(workload.Parted)
	if !ok {
		t.Fatalf("%s has no parts (%T)", c.File, wl)
	}
	for k, name := range wl.Ops() {
		if of := p.PartOf(k); of != "" {
			m[name] = of
		}
	}
	return m
}

// Talk is what one worker said about one job.
type Talk struct {
	Job                 *worker.Job
	Hello, Setup, Final worker.Event
	Intervals, Acks     []worker.Event
	// OwnCPU: the final event carried the worker's own process_cpu.
	OwnCPU bool
}

// Options change how Converse drives a worker.
type Options struct {
	// Before runs between set-up and run (Case.Before).
	Before func(t *testing.T, path string) func()
	// Cancel cancels the run at the first interval with operations done.
	Cancel bool
}

// Converse starts argv, says hello, sets job up and runs it, collecting
// the events, and closes the worker.
func Converse(t *testing.T, argv []string, job *worker.Job, o Options) (*Talk, error) {
	t.Helper()
	p, err := worker.StartCommand(argv[0], argv[1:]...)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tk := &Talk{Job: job}
	if tk.Hello, err = p.Hello(ctx); err != nil {
		return tk, err
	}
	if tk.Setup, err = p.Setup(ctx, job); err != nil {
		return tk, err
	}
	if o.Before != nil {
		defer o.Before(t, job.Path)()
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	tk.Final, err = p.Run(runCtx, func(e worker.Event) {
		switch e.T {
		case worker.TInterval:
			tk.Intervals = append(tk.Intervals, e)
			if o.Cancel && e.Done > 0 {
				stop()
			}
		case worker.TAck:
			tk.Acks = append(tk.Acks, e)
		}
	})
	tk.OwnCPU = p.OwnCPU
	return tk, err
}

// OpenDB opens the SQLite database at path through mattn, waiting up to
// five seconds for a lock.
func OpenDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// Exec runs q on the database at path.
func Exec(t *testing.T, path, q string) {
	t.Helper()
	db := OpenDB(t, path)
	defer db.Close()
	if _, err := db.Exec(q); err != nil {
		t.Fatal(err)
	}
}
