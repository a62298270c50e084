package spec

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/loadgen"
	"github.com/litebench/litebench/internal/metrics"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/target/targettest"
	"github.com/litebench/litebench/internal/workload"
)

// executorOn builds worker 0's executor of w over a fake connection, so
// that only litebench's own work is measured.
func executorOn(t testing.TB, w *Workload) (*executor, *targettest.Client) {
	t.Helper()
	c := &targettest.Client{}
	return executorOnClient(t, w, c), c
}

// executorOnClient is executorOn over the fake client c.
func executorOnClient(t testing.TB, w *Workload, c *targettest.Client) *executor {
	t.Helper()
	ctx := context.Background()
	sess, err := target.Open(ctx, targettest.Target(c), engine.Endpoint{}, target.PolicyOf(w.set))
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range w.tables {
		tr.claims = newClaims(tr.rows, 1)
	}
	m, err := w.machine(sess.Dialect())
	if err != nil {
		t.Fatal(err)
	}
	done, err := m.prepare(ctx, sess)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(done)
	e, err := m.newExecutor(ctx, &shared{sess: sess, slots: 1, scale: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	e.Record(metrics.NewRecorder(w.ops))
	return e
}

func parseResolve(t testing.TB, text string, set map[string]string) *Workload {
	t.Helper()
	f, err := ParseFile("test.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	s := settings.Default()
	for k, v := range f.settingDefaults() {
		s.Set(k, v)
	}
	for k, v := range set {
		if err := s.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	w, err := f.Resolve(map[string]string{}, s)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

const kvFile = `
[[table]]
name = "kv"
rows = 1000
columns = [
  { name = "id", type = "integer", primary_key = true, gen = "seq(1)" },
  { name = "v", type = "text", gen = "hex(8)" },
]

[statement.set]
sql = "UPDATE kv SET v = :v WHERE id = :id"

[statement.get]
sql = "SELECT v, id + 1 AS next FROM kv WHERE id = :id"
into = ["got", "next"]

# An integer and a text parameter.
[transaction.upd]
steps = ['\set id random(1, 1000)', '\set v text(5, 20)', "set"]

# A transaction of several statements, with a result read into variables
# and statements timed on their own.
[transaction.tx]
steps = ['\set id key(kv, zipfian)', "BEGIN", "get", '\set v hex(4)', "set", "COMMIT", '\sleep 0 us']
`

// The executor allocates nothing per operation: expressions,
// variables, text values, binding integer and text parameters, reading a
// row into variables, transactions and per-statement timing.
func TestInterpreterAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	for _, prepared := range []bool{true, false} {
		w := parseResolve(t, kvFile, map[string]string{"prepared": strconv.FormatBool(prepared)})
		e, fake := executorOn(t, w)
		for op, name := range []string{"upd", "tx"} {
			e.Do(ctx, op) // first use sizes the buffers
			allocs := testing.AllocsPerRun(200, func() {
				if _, err := e.Do(ctx, op); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			})
			if allocs != 0 {
				t.Errorf("%s prepared=%v: %v allocations per operation, want 0", name, prepared, allocs)
			}
		}
		if fake.Execs.Load() == 0 || fake.Queries.Load() == 0 || fake.Begins.Load() == 0 {
			t.Errorf("the statements did not reach the connection: %d execs, %d queries, %d begins", fake.Execs.Load(), fake.Queries.Load(), fake.Begins.Load())
		}
		// Statements of tx have their own results; upd's one statement is
		// the transaction.
		if got := []string(w.Ops()); len(got) != 6 || got[2] != "tx:begin" || got[3] != "tx:get" || got[5] != "tx:commit" {
			t.Errorf("ops %v", got)
		}
	}
}

// Table operations (the built-ins' reads and writes) of every schema the
// seeds measure allocate nothing either.
func TestTableOpsAllocateNothing(t *testing.T) {
	ctx := context.Background()
	for _, schema := range []string{"bench", "users", "account", "foo", "pages"} {
		for _, c := range []struct {
			kind     string
			op       int
			batch    int
			prepared bool
		}{
			{"insert", 0, 1, true},
			{"insert", 0, 1, false},
			{"insert", 1, 1, true},
			{"insert", 1, 10, true},
			{"insert", 1, 10, false},
			{"update", 1, 1, true},
			{"update", 1, 10, true},
			{"upsert", 1, 1, true},
		} {
			w := resolveBuiltin(t, "mixed", map[string]string{"schema": schema, "write-kind": c.kind, "rows": "100000"},
				map[string]string{"batch": strconv.Itoa(c.batch), "prepared": strconv.FormatBool(c.prepared)})
			name := schema + "/" + c.kind + "/" + w.ops[c.op] + "/batch" + strconv.Itoa(c.batch) + "/prepared=" + strconv.FormatBool(c.prepared)
			e, fake := executorOn(t, w)
			allocs := testing.AllocsPerRun(100, func() {
				if _, err := e.Do(ctx, c.op); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			})
			if allocs != 0 {
				t.Errorf("%s: %v allocations per operation, want 0", name, allocs)
			}
			if c.op == 0 && fake.Queries.Load() == 0 || c.op == 1 && fake.Execs.Load() < int64(c.batch) {
				t.Errorf("%s: queries %d execs %d", name, fake.Queries.Load(), fake.Execs.Load())
			}
		}
	}
}

// A built-in read by an integer key goes through the client's KeyReader
// when its statements are prepared and the client has one, allocating
// nothing; a text key, or a statement run ad hoc, goes through Query.
func TestReadsUseKeyReader(t *testing.T) {
	ctx := context.Background()
	for _, schema := range []string{"bench", "users", "account", "foo", "pages"} {
		for _, prepared := range []bool{true, false} {
			w := resolveBuiltin(t, "read", map[string]string{"schema": schema, "rows": "1000"},
				map[string]string{"prepared": strconv.FormatBool(prepared)})
			c := &targettest.Client{KeyRead: true}
			e := executorOnClient(t, w, c)
			allocs := testing.AllocsPerRun(100, func() {
				if _, err := e.Do(ctx, 0); err != nil {
					t.Fatalf("%s: %v", schema, err)
				}
			})
			if allocs != 0 {
				t.Errorf("%s, prepared %v: %v allocations per read", schema, prepared, allocs)
			}
			want := int64(0)
			if prepared && workload.Schemas[schema].IntKey() {
				want = c.Queries.Load()
			}
			if c.Queries.Load() < 100 || c.KeyReads.Load() != want {
				t.Errorf("%s, prepared %v: %d queries, %d by key, want %d", schema, prepared, c.Queries.Load(), c.KeyReads.Load(), want)
			}
		}
	}
}

// A read that finds no row, or fails, ends as the steps' loop would end
// it: a missing row and a busy database are the operation's errors,
// counted, with no retry; any other error ends the run.
func TestReadErrors(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		fake  *targettest.Client
		check func(error) bool
	}{
		{"missing", &targettest.Client{KeyRead: true, KeyMissing: true}, func(err error) bool { return errors.Is(err, errMissing) }},
		{"busy", &targettest.Client{KeyRead: true, KeyErr: targettest.ErrBusy}, func(err error) bool {
			return errors.Is(err, targettest.ErrBusy) && !loadgen.IsFatal(err)
		}},
		{"other", &targettest.Client{KeyRead: true, KeyErr: errors.New("disk I/O error")}, loadgen.IsFatal},
	} {
		w := resolveBuiltin(t, "read", map[string]string{"rows": "1000"}, nil)
		e := executorOnClient(t, w, c.fake)
		retries, err := e.Do(ctx, 0)
		if !c.check(err) || retries != 0 || c.fake.KeyReads.Load() != 1 {
			t.Errorf("%s: err %v, %d retries, %d reads", c.name, err, retries, c.fake.KeyReads.Load())
		}
	}
}

// A write of several rows binds its prepared statement to the
// transaction once, not per row.
func TestBatchBindsStatementOncePerTransaction(t *testing.T) {
	w := resolveBuiltin(t, "write", nil, map[string]string{"batch": "10"})
	e, fake := executorOn(t, w)
	for range 5 {
		if _, err := e.Do(context.Background(), 1); err != nil {
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

// A busy statement inside BEGIN … COMMIT rolls the transaction back, and
// the busy-retry setting begins it again with the same random numbers.
func TestTransactionRetriesWithTheSameDraws(t *testing.T) {
	w := parseResolve(t, kvFile, map[string]string{"busy-retry": "3"})
	probeSlot := w.sc.slot("probe")
	e, _ := executorOn(t, w)
	fail := 2
	var ids []int64
	idSlot := w.sc.slots["id"]
	orig := e.m.txns[1].steps
	probe := &stepRun{kind: sSet, part: -1, e: &failing{n: &fail, seen: func() { ids = append(ids, e.x.vars[idSlot].v.i) }}, slot: probeSlot}
	e.m.txns[1].steps = append([]*stepRun{orig[0], probe}, orig[1:]...)
	defer func() { e.m.txns[1].steps = orig }()
	retries, err := e.Do(context.Background(), 1)
	if err != nil || retries != 2 {
		t.Fatalf("retries %d, err %v; want 2, nil", retries, err)
	}
	if len(ids) != 3 || ids[0] != ids[1] || ids[1] != ids[2] {
		t.Errorf("keys drawn by the tries: %v, want one key three times", ids)
	}
}

// failing fails with a busy error its first n evaluations.
type failing struct {
	n    *int
	seen func()
}

func (f *failing) eval(*ectx) (value, error) {
	f.seen()
	if *f.n > 0 {
		*f.n--
		return value{}, targettest.ErrBusy
	}
	return ival(0), nil
}

func BenchmarkInterpreter(b *testing.B) {
	for op, name := range []string{"upd", "tx"} {
		b.Run(name, func(b *testing.B) {
			w := parseResolve(b, kvFile, nil)
			e, _ := executorOn(b, w)
			ctx := context.Background()
			b.ReportAllocs()
			loopCPU(b, func() { e.Do(ctx, op) })
		})
	}
}

// The harness's own cost of the built-in read and write operations and
// of the same read written as a statement, over a fake connection.
func BenchmarkOperations(b *testing.B) {
	readSQL := `
include = ["schemas"]
tables = [{ name = "bench", rows = "100000" }]
[statement.get]
sql = "SELECT ID, rand, hash FROM bench WHERE ID = :id"
into = ["k", "rand", "hash"]
[transaction.read]
steps = ['\set id random(0, 99999)', "get"]
`
	for _, c := range []struct {
		name string
		w    func() *Workload
		op   int
	}{
		{"read", func() *Workload { return resolveBuiltin(b, "mixed", map[string]string{"rows": "100000"}, nil) }, 0},
		{"write", func() *Workload { return resolveBuiltin(b, "mixed", map[string]string{"rows": "100000"}, nil) }, 1},
		{"read-sql", func() *Workload { return parseResolve(b, readSQL, nil) }, 0},
	} {
		b.Run(c.name, func(b *testing.B) {
			e, _ := executorOn(b, c.w())
			ctx := context.Background()
			b.ReportAllocs()
			loopCPU(b, func() { e.Do(ctx, c.op) })
		})
	}
}

// A read's integer key worked out from the sequence's start is the
// schema's key of that row, for every built-in schema with an integer key.
func TestTableOpKeyIntIsSchemaKey(t *testing.T) {
	ints := 0
	for name, sc := range workload.Schemas {
		op := &tableOp{t: &tableRun{schema: sc, seed: 7}}
		op.setKey()
		if op.intKey != sc.IntKey() {
			t.Errorf("%s: intKey %v, the schema says %v", name, op.intKey, sc.IntKey())
		}
		if !op.intKey {
			continue
		}
		ints++
		for _, i := range []int64{0, 1, 2, 999, 123456, 1 << 40} {
			if got, want := op.keyInt(i), sc.KeyInt(7, i); got != want {
				t.Errorf("%s: row %d's key %d, want %d", name, i, got, want)
			}
		}
	}
	if ints == 0 {
		t.Error("no schema with an integer key")
	}
}
