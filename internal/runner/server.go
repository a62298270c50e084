package runner

import (
	"context"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/workload"
)

// provision is the instance of a run on a cluster engine (dqlite) and
// what ends it: started here, in the run's directory, and stopped and
// removed when the run ends, whether it ends well, fails or is
// interrupted; unless the spec brings its own (the durability audit's,
// which it strikes and checks itself).
func provision(ctx context.Context, sp Spec) (engine.Instance, func(), error) {
	e := sp.Target.Engine()
	if sp.Instance != nil {
		return sp.Instance, func() {}, nil
	}
	inst, err := e.Provision(ctx, engine.Request{Settings: sp.Settings, Dir: sp.Dir, Name: sp.RunID, Keep: sp.Keep, Kind: workload.DBKind(sp.Workload)})
	if err != nil {
		return nil, nil, err
	}
	return inst, func() { inst.Destroy() }, nil
}

// report adds an instance's own figures and notes to the result, once
// the run is over (a server instance the runner started).
func report(ctx context.Context, sp Spec, inst engine.Instance, r *results.Result) {
	rep, ok := inst.(engine.Reporter)
	if !ok || sp.Instance != nil {
		return
	}
	figs, notes := rep.Report(context.WithoutCancel(ctx))
	for _, f := range figs {
		r.Metrics = append(r.Metrics, results.Metric{Name: f.Name, Unit: f.Unit, Value: f.Value})
	}
	r.Notes = append(r.Notes, notes...)
}
