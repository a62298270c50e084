package workload

import (
	"context"
	"strconv"
	"testing"

	"litebench/internal/engine"
	"litebench/internal/metrics"
	"litebench/internal/settings"
	"litebench/internal/target"
	"litebench/internal/target/targettest"
)

// executorOn builds a mixed workload's executor over a fake connection, so
// that only litebench's own work is measured.
func executorOn(t testing.TB, schema, kind string, batch int, prepared bool) (*executor, *targettest.Client) {
	t.Helper()
	sp, err := Get("mixed")
	if err != nil {
		t.Fatal(err)
	}
	p := map[string]string{}
	for _, x := range sp.Params {
		p[x.Name] = x.Default
	}
	p["schema"], p["write-kind"], p["rows"] = schema, kind, "100000"
	s := settings.Default()
	s.Set("batch", strconv.Itoa(batch))
	s.Set("prepared", strconv.FormatBool(prepared))
	wl, err := newOps("mixed", p, s)
	if err != nil {
		t.Fatal(err)
	}
	w := wl.(*opsW)
	c := &targettest.Client{}
	ctx := context.Background()
	sess, err := target.Open(ctx, targettest.Target(c), engine.Endpoint{}, target.PolicyOf(s))
	if err != nil {
		t.Fatal(err)
	}
	sh, err := w.newShared(ctx, sess, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sh.close)
	e, err := newExecutor(sh, ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	return e, c
}

// Measurement must not allocate per operation: reads and writes of every
// schema the seeds measure, generated, bound and scanned with nothing new
// on the heap (a fake connection, so only litebench's own work counts).
func TestExecutorAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	for _, schema := range []string{"bench", "users", "account", "foo", "pages"} {
		for _, c := range []struct {
			kind     string
			op       int
			batch    int
			prepared bool
		}{
			{"insert", opRead, 1, true},
			{"insert", opRead, 1, false},
			{"insert", opWrite, 1, true},
			{"insert", opWrite, 10, true},
			{"insert", opWrite, 10, false},
			{"update", opWrite, 1, true},
			{"update", opWrite, 10, true},
			{"upsert", opWrite, 1, true},
		} {
			name := schema + "/" + c.kind + "/" + rwOps[c.op] + "/batch" + strconv.Itoa(c.batch) + "/prepared=" + strconv.FormatBool(c.prepared)
			e, fake := executorOn(t, schema, c.kind, c.batch, c.prepared)
			allocs := testing.AllocsPerRun(100, func() {
				if _, err := e.Do(ctx, c.op); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			})
			if allocs != 0 {
				t.Errorf("%s: %v allocations per operation, want 0", name, allocs)
			}
			// The operations did reach the connection.
			if c.op == opRead && fake.Queries.Load() == 0 || c.op == opWrite && fake.Execs.Load() < int64(c.batch) {
				t.Errorf("%s: queries %d execs %d", name, fake.Queries.Load(), fake.Execs.Load())
			}
		}
	}
}

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
			ins := &inserter{sess: sess, w: sess.Writer(), rec: metrics.NewRecorder(insertOps),
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

// A transaction binds its prepared statement once, not per row.
func TestBatchBindsStatementOncePerTransaction(t *testing.T) {
	e, fake := executorOn(t, "bench", "insert", 10, true)
	for i := 0; i < 5; i++ {
		if _, err := e.Do(context.Background(), opWrite); err != nil {
			t.Fatal(err)
		}
	}
	if fake.Begins.Load() != 5 || fake.Binds.Load() != 5 || fake.Execs.Load() != 50 {
		t.Errorf("begins %d binds %d execs %d, want 5, 5, 50", fake.Begins.Load(), fake.Binds.Load(), fake.Execs.Load())
	}
}

// Inserts in flight hold back what reads may pick; finished ones (even
// failed) release it, in any order.
func TestClaimsKeepReadsOnCommittedRows(t *testing.T) {
	c := newClaims(100, 3)
	a := c.claim(0, 10) // rows 100-109
	b := c.claim(1, 5)  // rows 110-114
	if a != 100 || b != 110 || c.visible.Load() != 100 {
		t.Fatalf("claims %d %d, visible %d", a, b, c.visible.Load())
	}
	c.release(1)
	if v := c.visible.Load(); v != 100 {
		t.Errorf("the later insert finished first: visible %d, want 100", v)
	}
	d := c.claim(2, 1) // row 115
	c.release(0)
	if v := c.visible.Load(); v != d {
		t.Errorf("visible %d, want %d (the insert still in flight)", v, d)
	}
	c.release(2)
	if v := c.visible.Load(); v != 116 {
		t.Errorf("visible %d, want 116", v)
	}
}

func BenchmarkExecutor(b *testing.B) {
	for op, name := range rwOps {
		b.Run(name, func(b *testing.B) {
			e, _ := executorOn(b, "bench", "insert", 1, true)
			ctx := context.Background()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				e.Do(ctx, op)
			}
		})
	}
}
