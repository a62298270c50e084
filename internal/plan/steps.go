package plan

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/runner"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/workload"
)

// Step is one run of a suite: a workload on a target, with the parameters
// and settings that differ from the workload's defaults, in a section of
// the suite.
type Step struct {
	Section  string
	Label    string
	Workload string
	Params   map[string]string
	Set      map[string]string
	Target   target.Target
}

// StepCells builds one cell per step, in order, numbering the runs with
// ids. A cell's label is "SECTION: LABEL (TARGET)" and its command the
// litebench command line that repeats the step, naming the suite it comes
// from. A step that its workload refuses is an *InputError; an unknown
// workload or setting is a fault of the suite and a plain error.
func StepCells(suite string, ids *IDs, steps []Step) ([]Cell, error) {
	var cells []Cell
	for _, st := range steps {
		wsp, err := workload.Get(st.Workload)
		if err != nil {
			return nil, err
		}
		params := map[string]string{}
		for _, p := range wsp.Params {
			params[p.Name] = p.Default
		}
		for k, v := range st.Params {
			params[k] = v
		}
		set := settings.Default()
		for k, v := range wsp.SettingDefaults {
			if err := set.Set(k, v); err != nil {
				return nil, err
			}
		}
		for k, v := range st.Set {
			if err := set.Set(k, v); err != nil {
				return nil, err
			}
		}
		w, err := wsp.New(params, set)
		if err != nil {
			return nil, &InputError{err.Error()}
		}
		t, err := resolveTarget(w, st.Target)
		if err != nil {
			return nil, err
		}
		cells = append(cells, Cell{Params: params, Spec: runner.Spec{
			RunID: ids.Next(), SweepID: ids.Sweep(),
			Workload: w, Target: t, Settings: set,
			Section: st.Section, Name: fmt.Sprintf("%s (%s)", st.Label, t.Name()),
			Label:   fmt.Sprintf("%s: %s (%s)", st.Section, st.Label, t.Name()),
			Command: stepCommand(suite, t.Name(), st), Notes: inert(w),
		}})
	}
	return cells, nil
}

// stepCommand is the litebench command line that repeats one suite step.
func stepCommand(suite, target string, st Step) string {
	parts := []string{"litebench", st.Workload, "--target", target}
	for _, k := range sortedKeys(st.Params) {
		parts = append(parts, "--"+k, st.Params[k])
	}
	for _, k := range sortedKeys(st.Set) {
		parts = append(parts, "--"+k+"="+st.Set[k])
	}
	return strings.Join(parts, " ") + "  # from 'litebench suite " + suite + "'"
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ErrInterrupted is returned by Suite.Run when a run was interrupted or
// not every step ran.
var ErrInterrupted = errors.New("interrupted")

// Suite runs the steps of a suite, a batch at a time, under one sweep, and
// collects every result.
type Suite struct {
	// Name names the suite in every step's command.
	Name string
	IDs  *IDs
	// Dir is the directory for the runs' bench databases.
	Dir  string
	Exec Executor
	// Check, when set, vets every planned cell before any runs (e.g.
	// against the machine's limits); its error stops the suite.
	Check func(Cell) error
	// Results holds every result so far, in the order the runs ended.
	Results []*results.Result
}

// Run runs steps in order and returns their results. It plans every step
// before running any; it returns ErrInterrupted when a run was
// interrupted or not every step ran.
func (s *Suite) Run(ctx context.Context, steps []Step) ([]*results.Result, error) {
	cells, err := StepCells(s.Name, s.IDs, steps)
	if err != nil {
		return nil, err
	}
	for i := range cells {
		cells[i].Dir = s.Dir
		if s.Check != nil {
			if err := s.Check(cells[i]); err != nil {
				return nil, err
			}
		}
	}
	rs, err := s.Exec.Execute(ctx, cells)
	s.Results = append(s.Results, rs...)
	if err != nil {
		return rs, err
	}
	if OutcomeOf(rs, len(cells)) == Interrupted {
		return rs, ErrInterrupted
	}
	return rs, nil
}
