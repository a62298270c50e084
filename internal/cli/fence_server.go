package cli

import (
	"context"
	"time"

	"github.com/litebench/litebench/internal/engine"
	sweep "github.com/litebench/litebench/internal/plan"
)

// fencer is a served engine that can keep a workload's SQL to litebench's
// database on a user's server: by a user made for each run, when the
// --dsn user may make one, or else by refusing database-level statements.
type fencer interface {
	CanFence(ctx context.Context, dsn string) (ok bool, why string, err error)
	Refused(q string) string
}

// sqlChecker is a workload whose SQL is the user's (a file, scripts).
type sqlChecker interface {
	CheckSQL(refused func(q string) string) error
}

// fenceServed decides, before anything runs, how each --dsn server's runs
// keep the workload's SQL to their own database (see engine.Fence): a
// database-level statement is refused here, naming its file and line,
// when the --dsn user cannot make a user for the run.
func fenceServed(cells []sweep.Cell, sv *engine.Servers) error {
	done := map[string]bool{}
	for _, cell := range cells {
		e := cell.Target.Engine()
		dsn := sv.DSN(e.Name())
		if dsn == "" || done[e.Name()] {
			continue
		}
		done[e.Name()] = true
		fe, ok := e.(fencer)
		if !ok {
			continue
		}
		var stmts error
		for _, c := range cells {
			if w, ok := c.Workload.(sqlChecker); ok && c.Target.Engine().Name() == e.Name() {
				if stmts = w.CheckSQL(fe.Refused); stmts != nil {
					break
				}
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		can, why, err := fe.CanFence(ctx, dsn)
		cancel()
		if err != nil {
			// The server does not answer now: the run tries to make its
			// user, and fails if it cannot and a statement is refused.
			can = true
		}
		if !can && stmts != nil {
			return usagef("%v: a database-level statement, and %s, so litebench cannot keep the workload's SQL to its own database on %s; remove the statement, or give the user that privilege", stmts, why, engine.Redact(dsn))
		}
		sv.SetFence(e.Name(), engine.Fence{Role: can, Why: why, Statements: stmts})
	}
	return nil
}
