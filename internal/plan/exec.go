package plan

import (
	"context"
	"fmt"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/runner"
)

// Executor runs cells one after another.
type Executor struct {
	// Run executes one run and always returns its result; litebench uses
	// runner.Run.
	Run func(ctx context.Context, sp runner.Spec) *results.Result
	// Start, when set, is called before each run with the spec as it will
	// run: Name is the cell's label, and Label the same numbered
	// "[i/n] …" for progress lines. It may set the spec's output fields
	// (progress writer, series interval, WAL warning). An error stops the
	// execution before the run.
	Start func(sp *runner.Spec) error
	// Done, when set, is called with each result as soon as its run ends,
	// before the next run starts: to save it and print it. An error stops
	// the execution, and that result is not among those returned.
	Done func(sp *runner.Spec, r *results.Result) error
}

// Execute runs cells in order and returns their results. It stops before
// a run once ctx is done and after a run that was interrupted;
// OutcomeOf tells the caller what the results add up to.
func (e Executor) Execute(ctx context.Context, cells []Cell) ([]*results.Result, error) {
	var rs []*results.Result
	for i := range cells {
		if ctx.Err() != nil {
			break
		}
		sp := cells[i].Spec
		if sp.Name == "" {
			sp.Name = sp.Label
		}
		sp.Label = fmt.Sprintf("[%d/%d] %s", i+1, len(cells), sp.Label)
		if e.Start != nil {
			if err := e.Start(&sp); err != nil {
				return rs, err
			}
		}
		r := e.Run(ctx, sp)
		if e.Done != nil {
			if err := e.Done(&sp, r); err != nil {
				return rs, err
			}
		}
		rs = append(rs, r)
		if r.Status == results.StatusInterrupted {
			break
		}
	}
	return rs, nil
}

// Outcome is what the results of an execution add up to.
type Outcome int

const (
	// Completed: every planned run ended, none failed.
	Completed Outcome = iota
	// Failed: every planned run ended, at least one failed.
	Failed
	// Interrupted: a run was interrupted, or fewer ran than were planned.
	Interrupted
)

func (o Outcome) String() string {
	switch o {
	case Completed:
		return "completed"
	case Failed:
		return "failed"
	case Interrupted:
		return "interrupted"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// OutcomeOf maps the statuses of rs, the results of planned runs, to an
// outcome; an interruption outranks a failure.
func OutcomeOf(rs []*results.Result, planned int) Outcome {
	if len(rs) < planned {
		return Interrupted
	}
	failed := false
	for _, r := range rs {
		switch r.Status {
		case results.StatusInterrupted:
			return Interrupted
		case results.StatusFailed:
			failed = true
		}
	}
	if failed {
		return Failed
	}
	return Completed
}
