package workload

import (
	"context"
	"testing"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/metrics"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/target/targettest"
)

// Inserting allocates nothing per transaction or per row either, with one
// row or several per statement, in transactions or autocommit.
func TestInsertAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	for _, schema := range []string{"bench", "users", "account"} {
		for _, c := range []struct{ batch, rps int }{{100, 1}, {100, 7}, {1, 1}, {3, 3}} {
			s := settings.Default()
			fake := &targettest.Client{}
			sess, err := target.Open(ctx, targettest.Target(fake), engine.Endpoint{}, target.PolicyOf(s))
			if err != nil {
				t.Fatal(err)
			}
			sc := Schemas[schema]
			ins := &inserter{sess: sess, w: sess.Writer(), rec: metrics.NewRecorder(InsertOps),
				ls:    LoadSpec{Schema: sc, Seed: 1, Batch: c.batch, RowsPerStmt: c.rps},
				src:   NewInlineSource(sc, 1, 0, 1<<40),
				stmts: map[int]*target.Statement{}}
			start := int64(0)
			allocs := testing.AllocsPerRun(50, func() {
				if err := ins.tx(ctx, start, c.batch); err != nil {
					t.Fatal(err)
				}
				start += int64(c.batch)
			})
			if allocs != 0 {
				t.Errorf("%s, batch %d, %d rows per statement: %v allocations per transaction, want 0", schema, c.batch, c.rps, allocs)
			}
			if want := int64(51 * ((c.batch + c.rps - 1) / c.rps)); fake.Execs.Load() != want {
				t.Errorf("%s: %d statements, want %d", schema, fake.Execs.Load(), want)
			}
		}
	}
}
