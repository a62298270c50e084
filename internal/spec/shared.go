package spec

import (
	"context"
	"errors"
	"fmt"

	"github.com/litebench/litebench/internal/gen"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/units"
	"github.com/litebench/litebench/internal/workload"
)

// Several processes on one database: each runs the workload with a range
// of rows of its own for its inserts (workload.Env's InsertFrom and
// InsertTo), and reads the rows loaded before the run and those it
// inserted itself, never another process's (which it cannot know to be
// committed). Only table operations take a range: a workload whose
// transactions write with SQL of their own, load a table ([insert]) or
// check the tables' contents afterwards cannot run so.

// SharedError is nil when the workload can run beside other processes
// writing the same database, each in its own range of rows; otherwise it
// says why not.
func (w *Workload) SharedError() error {
	if w.ins != nil {
		return fmt.Errorf("%s loads rows 0 to %d of %s, which every process would insert alike", w.Name(), w.ins.rows-1, w.ins.t.schema.Table)
	}
	if len(w.checks) > 0 {
		return fmt.Errorf("%s checks the tables after the run ([check] %q), which the other processes write too", w.Name(), w.checks[0].c.Name)
	}
	for k, t := range w.txns {
		if k < len(w.active) && !w.active[k] {
			continue
		}
		for _, st := range t.steps {
			if st.kind == sSQL && st.stmt != nil && !st.stmt.read {
				return fmt.Errorf("%s: transaction %s writes with SQL of its own, whose keys litebench cannot give each process a range of; write with table operations (op = \"insert\")", w.Name(), t.name)
			}
		}
	}
	return nil
}

// Inserts reports whether any transaction that runs inserts rows (or
// upserts, which may).
func (w *Workload) Inserts() bool {
	for k, t := range w.txns {
		if k < len(w.active) && !w.active[k] {
			continue
		}
		for _, st := range t.steps {
			if st.top != nil && (st.top.kind == opInsert || st.top.kind == opUpsert) {
				return true
			}
		}
	}
	return false
}

// IsRange reports whether err is an insert past the end of the run's
// range of rows.
func IsRange(err error) bool { return errors.Is(err, errRange) }

// RowsInRangeFigure names the figure of the rows a table holds after the
// run in the range of rows the run inserted into (rows_in_range, or
// rows_in_range.TABLE when the file has several tables): what this
// process's inserts committed, counted in the database.
const RowsInRangeFigure = "rows_in_range"

// rangeFigures counts, after a run given a range of rows, the rows each
// table holds in it, for tables whose key is a sequence (its keys in
// the order of its rows).
func (w *Workload) rangeFigures(ctx context.Context, env *workload.Env) {
	for _, t := range w.tables {
		if _, ok := t.schema.Gen.Columns()[0].Gen.(gen.Seq); !ok || !t.schema.IntKey() {
			continue
		}
		lo := t.schema.KeyInt(t.seed, t.from)
		hi := t.schema.KeyInt(t.seed, t.at(t.claims.next.Load()))
		q := fmt.Sprintf("SELECT count(*) FROM %s WHERE %s >= %d AND %s < %d", t.schema.Table, t.schema.KeyCol, lo, t.schema.KeyCol, hi)
		var n int64
		if err := env.Session.DB().Query(ctx, q, nil, func(r target.Row) error { return r.Scan(&n) }); err == nil {
			env.Figure(w.figure(RowsInRangeFigure, t), units.Rows, units.None, float64(n))
		}
	}
}
