package spec

import (
	"context"
	"testing"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/target/targettest"
)

// The executor runs what the program says: an expression changed in the
// program (not in the source) is what runs.
func TestExecutorRunsTheProgram(t *testing.T) {
	ctx := context.Background()
	w := parseResolve(t, kvFile, nil)
	p, err := w.Program(dialect.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	upd := p.Transactions[0]
	if upd.Name != "upd" || upd.Steps[0].Kind != "set" || upd.Steps[2].Kind != "sql" {
		t.Fatalf("transaction %s: steps %+v", upd.Name, upd.Steps)
	}
	upd.Steps[0].Expr = &Expr{Op: "binary", Fn: "+", A: []*Expr{{Op: "int", V: "700"}, {Op: "int", V: "77"}}}
	m, err := loadProgram(p, w.tables, dialect.SQLite, false)
	if err != nil {
		t.Fatal(err)
	}
	c := &targettest.Client{}
	sess, err := target.Open(ctx, targettest.Target(c), engine.Endpoint{}, target.PolicyOf(w.set))
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range w.tables {
		tr.claims = newClaims(tr.rows, 1)
	}
	done, err := m.prepare(ctx, sess)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	e, err := m.newExecutor(ctx, &shared{sess: sess, slots: 1, scale: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Do(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if v := e.x.vars[upd.Steps[0].Var]; !v.set || v.v.k != vInt || v.v.i != 777 {
		t.Errorf(":id is %+v, want the program's 700 + 77", v.v)
	}
	if c.Execs.Load() != 1 {
		t.Errorf("%d statements run, want the program's one", c.Execs.Load())
	}
}
