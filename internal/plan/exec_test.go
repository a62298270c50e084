package plan

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/runner"
	"github.com/litebench/litebench/internal/target"
)

// fakeRunner stands in for runner.Run: it records the specs it was given
// and returns the status that status gives a run id.
type fakeRunner struct {
	ran    []runner.Spec
	status func(runID string) string
	after  func(n int) // called after each run, with the runs so far
}

func (f *fakeRunner) run(ctx context.Context, sp runner.Spec) *results.Result {
	f.ran = append(f.ran, sp)
	st := results.StatusOK
	if f.status != nil {
		st = f.status(sp.RunID)
	}
	if f.after != nil {
		f.after(len(f.ran))
	}
	return &results.Result{RunID: sp.RunID, SweepID: sp.SweepID, Section: sp.Section, Label: sp.Name, Status: st}
}

func cellsOf(t *testing.T, n int) []Cell {
	t.Helper()
	p, err := Build(Request{Workload: spec(t, "insert"), Targets: targets(t, "alpha"), Repeat: n, IDs: NewIDs("s")})
	if err != nil {
		t.Fatal(err)
	}
	return p.Cells
}

func TestExecuteRunsCellsInOrder(t *testing.T) {
	cells := cellsOf(t, 3)
	f := &fakeRunner{}
	var started, done []string
	x := Executor{
		Run: f.run,
		Start: func(sp *runner.Spec) error {
			started = append(started, sp.Label)
			sp.Interval = time.Minute // output fields set here reach the runner
			return nil
		},
		Done: func(sp *runner.Spec, r *results.Result) error {
			done = append(done, sp.Label+" "+r.RunID)
			return nil
		},
	}
	rs, err := x.Execute(context.Background(), cells)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 || len(f.ran) != 3 || OutcomeOf(rs, len(cells)) != Completed {
		t.Fatalf("%d results of %d runs, outcome %s", len(rs), len(f.ran), OutcomeOf(rs, len(cells)))
	}
	want := []string{"[1/3] insert alpha #1", "[2/3] insert alpha #2", "[3/3] insert alpha #3"}
	for i, sp := range f.ran {
		if sp.Label != want[i] || sp.Name != cells[i].Label || sp.RunID != cells[i].RunID || sp.Interval != time.Minute {
			t.Errorf("run %d: label %q name %q id %s interval %s", i, sp.Label, sp.Name, sp.RunID, sp.Interval)
		}
		if rs[i].RunID != cells[i].RunID || rs[i].Label != cells[i].Label {
			t.Errorf("result %d is run %s %q", i, rs[i].RunID, rs[i].Label)
		}
		if started[i] != want[i] || done[i] != want[i]+" "+cells[i].RunID {
			t.Errorf("hooks saw %q and %q", started[i], done[i])
		}
	}
	if cells[0].Label != "insert alpha #1" || cells[0].Name != "" {
		t.Errorf("Execute changed the caller's cells: %q %q", cells[0].Label, cells[0].Name)
	}
}

func TestExecuteStops(t *testing.T) {
	errSave := errors.New("disk full")
	for _, c := range []struct {
		name    string
		setup   func(f *fakeRunner, x *Executor, cancel func())
		runs    int
		results int
		err     error
		outcome Outcome
	}{
		{"after an interrupted run", func(f *fakeRunner, x *Executor, cancel func()) {
			f.status = func(id string) string {
				if id == "s.2" {
					return results.StatusInterrupted
				}
				return results.StatusOK
			}
		}, 2, 2, nil, Interrupted},
		{"when the context ends", func(f *fakeRunner, x *Executor, cancel func()) {
			f.after = func(n int) {
				if n == 1 {
					cancel()
				}
			}
		}, 1, 1, nil, Interrupted},
		{"when a result cannot be saved", func(f *fakeRunner, x *Executor, cancel func()) {
			x.Done = func(sp *runner.Spec, r *results.Result) error {
				if r.RunID == "s.2" {
					return errSave
				}
				return nil
			}
		}, 2, 1, errSave, Interrupted},
		{"when a run cannot start", func(f *fakeRunner, x *Executor, cancel func()) {
			x.Start = func(sp *runner.Spec) error { return errSave }
		}, 0, 0, errSave, Interrupted},
		{"never when runs fail", func(f *fakeRunner, x *Executor, cancel func()) {
			f.status = func(id string) string {
				if id == "s.1" {
					return results.StatusFailed
				}
				return results.StatusOK
			}
		}, 3, 3, nil, Failed},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			f := &fakeRunner{}
			x := Executor{Run: f.run}
			c.setup(f, &x, cancel)
			cells := cellsOf(t, 3)
			rs, err := x.Execute(ctx, cells)
			if len(f.ran) != c.runs || len(rs) != c.results || !errors.Is(err, c.err) {
				t.Errorf("%d runs, %d results, error %v; want %d, %d, %v", len(f.ran), len(rs), err, c.runs, c.results, c.err)
			}
			if o := OutcomeOf(rs, len(cells)); o != c.outcome {
				t.Errorf("outcome %s, want %s", o, c.outcome)
			}
		})
	}
}

func TestOutcomeOf(t *testing.T) {
	r := func(statuses ...string) []*results.Result {
		var rs []*results.Result
		for _, s := range statuses {
			rs = append(rs, &results.Result{Status: s})
		}
		return rs
	}
	ok, failed, intr := results.StatusOK, results.StatusFailed, results.StatusInterrupted
	for _, c := range []struct {
		rs      []*results.Result
		planned int
		want    Outcome
	}{
		{nil, 0, Completed},
		{r(ok, ok), 2, Completed},
		{r(ok, failed), 2, Failed},
		{r(failed, intr), 2, Interrupted},
		{r(ok), 2, Interrupted},
		{r(failed), 2, Interrupted},
	} {
		if got := OutcomeOf(c.rs, c.planned); got != c.want {
			t.Errorf("%d results of %d planned: %s, want %s", len(c.rs), c.planned, got, c.want)
		}
	}
}

func TestStepCells(t *testing.T) {
	alpha, gamma := targets(t, "alpha")[0], targets(t, "gamma")[0]
	ids := NewIDs("s")
	ids.Next() // an earlier section ran s.1
	cells, err := StepCells("quick", ids, []Step{
		{Section: "ladder", Label: "+ WAL", Workload: "insert", Params: map[string]string{"rows": "50", "schema": "users"},
			Set: map[string]string{"journal": "wal", "batch": "1"}, Target: alpha},
		{Section: "load", Label: "reads", Workload: "read", Target: gamma},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 2 {
		t.Fatalf("%d cells", len(cells))
	}
	a, b := cells[0], cells[1]
	if a.RunID != "s.2" || b.RunID != "s.3" || a.SweepID != "s" {
		t.Errorf("run ids %s %s sweep %s", a.RunID, b.RunID, a.SweepID)
	}
	if a.Label != "ladder: + WAL (alpha)" || b.Label != "load: reads (gamma)" {
		t.Errorf("labels %q %q", a.Label, b.Label)
	}
	if want := "litebench insert --target alpha --rows 50 --schema users --batch=1 --journal=wal  # from 'litebench suite quick'"; a.Command != want {
		t.Errorf("command\n %s\nwant\n %s", a.Command, want)
	}
	// Parameters and settings not given take the workload's defaults.
	if a.Params["seed"] != "1" || a.Params["rows"] != "50" || a.Settings.Get("journal") != "wal" || a.Settings.Get("sync") != "default" {
		t.Errorf("insert cell: params %v settings %s", a.Params, a.Settings)
	}
	if b.Settings.Get("batch") != "1" || b.Target.Name() != "gamma" {
		t.Errorf("read cell: batch %s (read's default is 1) on %s", b.Settings.Get("batch"), b.Target.Name())
	}

	_, err = StepCells("quick", ids, []Step{{Workload: "insert", Params: map[string]string{"rows": "0"}, Target: alpha}})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "--rows") {
		t.Errorf("rows 0: %v, want an input error", err)
	}
	_, err = StepCells("quick", ids, []Step{{Workload: "nosuch", Target: alpha}})
	if err == nil || errors.As(err, &ie) {
		t.Errorf("unknown workload: %v, want a plain error (a fault of the suite)", err)
	}
}

// A suite runs batches of steps under one sweep, numbering runs across
// them and collecting every result; a batch that stops short says so.
func TestSuiteRun(t *testing.T) {
	alpha, beta := targets(t, "alpha")[0], targets(t, "beta")[0]
	f := &fakeRunner{}
	s := &Suite{Name: "quick", IDs: NewIDs("s"), Dir: t.TempDir(), Exec: Executor{Run: f.run}}
	step := func(label string, tg target.Target) Step {
		return Step{Section: "sec", Label: label, Workload: "insert", Params: map[string]string{"rows": "10"}, Target: tg}
	}
	rs, err := s.Run(context.Background(), []Step{step("one", alpha), step("one", beta)})
	if err != nil || len(rs) != 2 {
		t.Fatalf("%d results, %v", len(rs), err)
	}
	f.status = func(id string) string {
		if id == "s.4" {
			return results.StatusInterrupted
		}
		return results.StatusOK
	}
	rs, err = s.Run(context.Background(), []Step{step("two", alpha), step("three", alpha), step("four", alpha)})
	if !errors.Is(err, ErrInterrupted) || len(rs) != 2 {
		t.Errorf("%d results, %v; want 2 and ErrInterrupted", len(rs), err)
	}
	var ids, labels []string
	for _, r := range s.Results {
		ids = append(ids, r.RunID)
		labels = append(labels, r.Section+": "+r.Label)
	}
	if strings.Join(ids, " ") != "s.1 s.2 s.3 s.4" {
		t.Errorf("run ids %v", ids)
	}
	if strings.Join(labels, "|") != "sec: one (alpha)|sec: one (beta)|sec: two (alpha)|sec: three (alpha)" {
		t.Errorf("labels %v", labels)
	}
	for _, sp := range f.ran {
		if sp.Dir != s.Dir {
			t.Errorf("run %s in %q, want the suite's %q", sp.RunID, sp.Dir, s.Dir)
		}
	}
}
