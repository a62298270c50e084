package workload

import (
	"context"
	"testing"
	"time"

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
		for _, c := range []struct {
			batch, rps int
			repeat     bool
		}{{100, 1, false}, {100, 7, false}, {1, 1, false}, {3, 3, false}, {100, 1, true}, {100, 7, true}} {
			s := settings.Default()
			fake := &targettest.Client{Repeat: c.repeat}
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
			if c.repeat && fake.Repeats.Load() != 51 {
				t.Errorf("%s: %d Repeat calls for 51 transactions", schema, fake.Repeats.Load())
			}
		}
	}
}

// Every transaction records one begin, one insert latency per statement
// and one commit; the insert count is the rows, and the transaction's
// parts add up to no more than it took.
func TestInsertRecordsEachPart(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		batch, rps, n int
		repeat        bool
	}{{100, 1, 100, false}, {100, 7, 100, false}, {1, 1, 1, false}, {3, 3, 3, false}, {100, 1, 100, true}, {100, 7, 100, true}} {
		s := settings.Default()
		fake := &targettest.Client{Repeat: c.repeat}
		sess, err := target.Open(ctx, targettest.Target(fake), engine.Endpoint{}, target.PolicyOf(s))
		if err != nil {
			t.Fatal(err)
		}
		sc := Schemas["bench"]
		rec := metrics.NewRecorder(InsertOps)
		ins := &inserter{sess: sess, w: sess.Writer(), rec: rec,
			ls:    LoadSpec{Schema: sc, Seed: 1, Batch: c.batch, RowsPerStmt: c.rps},
			src:   NewInlineSource(sc, 1, 0, 1<<40),
			stmts: map[int]*target.Statement{}}
		const txs = 5
		t0 := time.Now()
		for k := range txs {
			if err := ins.tx(ctx, int64(k*c.n), c.n); err != nil {
				t.Fatal(err)
			}
		}
		took := time.Since(t0)
		m := metrics.Merge(InsertOps, []*metrics.Recorder{rec})
		stmts := int64(txs * ((c.n + c.rps - 1) / c.rps))
		explicit := c.n > c.rps
		var sum float64
		for _, o := range m {
			sum += float64(o.Service.TotalCount()) * o.Service.Mean()
			switch o.Name {
			case "insert":
				if o.Count != txs*int64(c.n) || o.Service.TotalCount() != stmts {
					t.Errorf("batch %d × %d: %d rows in %d latencies, want %d in %d", c.batch, c.rps, o.Count, o.Service.TotalCount(), txs*c.n, stmts)
				}
			case "begin", "commit":
				if !explicit || o.Count != txs || o.Service.TotalCount() != txs {
					t.Errorf("batch %d × %d: %s counted %d", c.batch, c.rps, o.Name, o.Count)
				}
			}
		}
		if want := 1 + 2*btoi(explicit); len(m) != want {
			t.Errorf("batch %d × %d: %d op kinds recorded, want %d", c.batch, c.rps, len(m), want)
		}
		if sum > float64(took)*1.01 {
			t.Errorf("batch %d × %d: the parts' latencies add up to %v, more than the %v taken", c.batch, c.rps, time.Duration(sum), took)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
