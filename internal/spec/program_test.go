package spec_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/gen"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/spec"
	"github.com/litebench/litebench/internal/target"
	_ "github.com/litebench/litebench/internal/target/mattn"
	"github.com/litebench/litebench/internal/worker"
	"github.com/litebench/litebench/internal/workload"
)

// programCase is a workload and a single-worker job of it.
type programCase struct {
	name   string
	def    *workload.Definition // nil: a built-in
	params map[string]string
	// deterministic: the rows it writes depend on the seed only, so the
	// Go worker and the reference agree on the content digest.
	deterministic bool
}

func fileDef(t *testing.T, path string) *workload.Definition {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return &workload.Definition{Kind: "file", Sources: []workload.DefSource{{Name: filepath.Base(path), Text: string(b)}}}
}

func scriptsDef(t *testing.T, init string, defines []string, scripts ...string) *workload.Definition {
	t.Helper()
	d := &workload.Definition{Kind: "scripts"}
	for k, s := range scripts {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		d.Sources = append(d.Sources, workload.DefSource{Name: filepath.Base(s), Text: string(b), Weight: strconv.Itoa(k + 1)})
	}
	b, err := os.ReadFile(init)
	if err != nil {
		t.Fatal(err)
	}
	d.Sources = append(d.Sources, workload.DefSource{Name: filepath.Base(init), Text: string(b), Init: true})
	for _, v := range defines {
		d.Sources = append(d.Sources, workload.DefSource{Name: "-D", Text: v})
	}
	return d
}

// ProgramCases are every workload file of the repository (examples, the
// program tests' own, the built-ins) with a small single-worker job.
func ProgramCases(t *testing.T) []programCase {
	ex := "../../examples/"
	td := "testdata/program/"
	small := map[string]string{"count": "300"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{"count": "300"}
		for k := 0; k < len(kv); k += 2 {
			m[kv[k]] = kv[k+1]
		}
		return m
	}
	return []programCase{
		{"kv", fileDef(t, td+"kv.toml"), with("keys", "1000"), true},
		{"queue", fileDef(t, td+"gset.toml"), small, true},
		{"ledger", fileDef(t, td+"weighted.toml"), with("seed", "7"), true},
		{"tpcb-like", scriptsDef(t, ex+"pgbench/init.sql", []string{"scale=1"}, td+"tpcb-like.sql", ex+"pgbench/select.sql"), small, true},
		// datetime('now') and CURRENT_TIMESTAMP make their rows depend on
		// the clock.
		{"bank", fileDef(t, ex+"bank.toml"), with("accounts", "500"), false},
		{"tpcb", scriptsDef(t, ex+"pgbench/init.sql", nil, ex+"pgbench/tpcb.sql"), small, false},
		{"pagination", fileDef(t, ex+"pagination.toml"), with("rows", "2000", "depth", "500", "count", "20"), true},
		{"insert", nil, map[string]string{"rows": "2000", "schema": "users"}, true},
		{"read", nil, with("rows", "1000", "schema", "account", "keys", "zipfian"), true},
		{"write", nil, with("rows", "1000", "schema", "bench", "write-kind", "update", "keys", "latest"), true},
		{"write", nil, with("rows", "1000", "schema", "pages", "write-kind", "upsert"), true},
		{"mixed", nil, with("rows", "1000", "schema", "foo", "readers", "0", "writers", "1", "write-ratio", "40"), true},
	}
}

func (c programCase) job(t *testing.T, path string) *worker.Job {
	name := c.name
	if c.def != nil {
		name = "x"
	}
	return &worker.Job{RunID: "program", Workload: name, Spec: c.def, Params: c.params, Target: "mattn", Path: path, Digest: true,
		Settings: map[string]string{"journal": "wal", "sync": "off", "batch": "3"}}
}

// program resolves the case's job and compiles it.
func (c programCase) program(t *testing.T, j *worker.Job) *spec.Program {
	t.Helper()
	wl, _, err := worker.Resolve(j)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	w, ok := wl.(*spec.Workload)
	if !ok {
		t.Fatalf("%s is a %T, not a workload file", c.name, wl)
	}
	p, err := w.Program(dialect.SQLite)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	return p
}

// Every workload file compiles to a program that survives JSON, and the
// reference evaluator running the program from its JSON alone writes what
// the Go worker (which runs the program it compiles) writes for the same
// seed: equal content digests.
func TestProgramMatchesGoWorker(t *testing.T) {
	ctx := context.Background()
	for _, c := range ProgramCases(t) {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if d := os.Getenv("PROGRAM_KEEP"); d != "" {
				dir = d
			}
			j := c.job(t, filepath.Join(dir, "interp.db"))
			p := c.program(t, j)
			b, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			var back spec.Program
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if b2, _ := json.Marshal(&back); !bytes.Equal(b, b2) {
				t.Fatalf("the program changes through JSON:\n%s\n%s", b, b2)
			}
			l := worker.NewLocal()
			defer l.Close()
			setup, err := l.Setup(ctx, j)
			if err != nil {
				t.Fatal(err)
			}
			fin, err := l.Run(ctx, func(worker.Event) {})
			if err != nil || fin.Status != "ok" {
				t.Fatalf("go worker: %v %s %s", err, fin.Status, fin.Error)
			}
			refSetup, refFinal := runReference(t, &back, filepath.Join(dir, "ref.db"))
			if setup.Digest != refSetup {
				t.Errorf("after set-up: go worker %s, reference %s", setup.Digest, refSetup)
			}
			if c.deterministic && fin.Digest != refFinal {
				t.Errorf("after the run: go worker %s, reference %s", fin.Digest, refFinal)
			}
			if fin.Digest == setup.Digest && c.name != "pagination" && c.name != "read" {
				t.Errorf("the run wrote nothing")
			}
		})
	}
}

// ref runs a program on one connection, as one worker.
type ref struct {
	t     *testing.T
	ctx   context.Context
	p     *spec.Program
	sess  *target.Session
	w     *target.Writer
	ev    *spec.Evaluator
	stmts []*target.Statement
	ops   map[*spec.ProgramOp]*target.Statement
	tx    bool
}

// runReference sets the program up on a new database and runs its
// operations; it returns the content digests after set-up and at the end.
func runReference(t *testing.T, p *spec.Program, path string) (string, string) {
	ctx := context.Background()
	tgt, err := target.Get("mattn")
	if err != nil {
		t.Fatal(err)
	}
	s := settings.Default()
	inst, err := tgt.Engine().Provision(ctx, engine.Request{Settings: s, Path: path, Name: "ref", Reuse: true, Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := target.Open(ctx, tgt, inst.Endpoint(), target.Policy{Prepared: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	ev, err := spec.NewEvaluator(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := &ref{t: t, ctx: ctx, p: p, sess: sess, w: sess.Writer(), ev: ev, ops: map[*spec.ProgramOp]*target.Statement{}}
	db := sess.DB()
	for k, tb := range p.Tables {
		for _, q := range tb.Create {
			r.must(db.Exec(ctx, q, nil))
		}
		if tb.Rows > 0 && (p.Insert == nil || p.Insert.Table != k) {
			r.load(k, 0, tb.Rows)
		}
	}
	for _, q := range p.Init {
		r.must(db.Exec(ctx, q, nil))
	}
	setup := r.digest()
	if p.Insert != nil {
		r.load(p.Insert.Table, 0, p.Insert.Rows)
		return setup, r.digest()
	}
	if p.Scale >= 0 {
		var n int64
		if db.Query(ctx, "SELECT count(*) FROM pgbench_branches", nil, func(row target.Row) error { return row.Scan(&n) }) == nil && n > 0 {
			ev.Set(p.Scale, n)
		}
	}
	for _, st := range p.Statements {
		r.stmts = append(r.stmts, r.prepare(st.SQL))
	}
	choose := mixChooser(ev.Seed(), p.Load.Mix)
	for seq := int64(0); seq < p.Load.Count; seq++ {
		op := p.Load.Roles[0]
		if op < 0 {
			op = choose(uint64(seq))
		}
		r.run(&p.Transactions[op])
	}
	for _, st := range r.stmts {
		st.Close()
	}
	for _, st := range r.ops {
		st.Close()
	}
	return setup, r.digest()
}

func (r *ref) must(err error) {
	if err != nil {
		r.t.Helper()
		r.t.Fatal(err)
	}
}

func (r *ref) digest() string {
	d, err := worker.Digest(r.ctx, r.sess.DB(), r.sess.Dialect())
	r.must(err)
	return d
}

func (r *ref) prepare(q string) *target.Statement {
	st, err := r.sess.Prepare(r.ctx, q, target.Write)
	r.must(err)
	return st
}

func args(vals ...any) *target.Args {
	var a target.Args
	for _, v := range vals {
		a.Add(v)
	}
	return &a
}

// load inserts rows [from, to) of table k in one transaction.
func (r *ref) load(k int, from, to int64) {
	tb := r.p.Tables[k]
	st := r.prepare(insertSQL(tb))
	defer st.Close()
	w := r.w
	r.must(w.Begin(r.ctx))
	for i := from; i < to; i++ {
		r.must(w.Exec(r.ctx, st, args(r.ev.Row(k, r.ev.Seed(), i)...)))
	}
	r.must(w.Commit())
}

func insertSQL(tb spec.ProgramTable) string {
	var cols []string
	for _, c := range tb.Columns {
		cols = append(cols, c.Name)
	}
	return dialect.SQLite.Insert(tb.Name, cols, 1)
}

// mixChooser is the mix's choice of operation seq's transaction
// (docs/workload-program.md).
func mixChooser(seed uint64, mix []spec.ProgramWeight) func(uint64) int {
	total := 0.0
	for _, m := range mix {
		total += m.Weight
	}
	thr := make([]float64, len(mix))
	acc := 0.0
	for i, m := range mix {
		acc += m.Weight
		thr[i] = acc * (10000 / total)
	}
	return func(seq uint64) int {
		x := float64(gen.Draw(seed, gen.StreamOps, seq) % 10000)
		for i, t := range thr {
			if x < t {
				return mix[i].Txn
			}
		}
		return mix[len(mix)-1].Txn
	}
}

// run runs a transaction once; an SQL error (a constraint, a missing row)
// ends it, as it ends an operation of the Go worker.
func (r *ref) run(t *spec.ProgramTxn) {
	w := r.w
	for k := range t.Steps {
		err := r.step(&t.Steps[k])
		if spec.IsEvalError(err) {
			r.t.Fatalf("%s: %v", t.Name, err)
		}
		if err != nil {
			if r.tx {
				w.Rollback()
				r.tx = false
			}
			return
		}
	}
}

var errMissing = errors.New("missing")

func (r *ref) step(s *spec.ProgramStep) error {
	w := r.w
	switch s.Kind {
	case "set":
		v, err := r.ev.Eval(s.Expr)
		if err == nil {
			r.ev.Set(s.Var, v)
		}
		return err
	case "sleep":
		_, err := r.ev.Eval(s.Expr) // no sleeping in a test
		return err
	case "begin":
		r.tx = true
		return w.Begin(r.ctx)
	case "commit", "rollback":
		r.tx = false
		if s.Kind == "commit" {
			return w.Commit()
		}
		return w.Rollback()
	case "sql":
		return r.sql(&r.p.Statements[s.Stmt])
	case "table":
		return r.table(s.Op)
	}
	return nil // native operations read, and draw nothing
}

func (r *ref) sql(st *spec.ProgramStmt) error {
	w := r.w
	var a target.Args
	for _, slot := range st.Binds {
		v, ok := r.ev.Var(slot)
		if !ok {
			r.t.Fatalf("%s: variable %s is not set", st.At, r.p.Vars[slot].Name)
		}
		switch v := v.(type) {
		case bool:
			a.Int(map[bool]int64{true: 1}[v])
		case nil:
			a.Null()
		default:
			a.Add(v)
		}
	}
	prep := r.stmts[indexOf(r.p.Statements, st)]
	if len(st.Into) == 0 {
		return w.Query(r.ctx, prep, &a, func(target.Row) error { return nil })
	}
	found := false
	err := w.Query(r.ctx, prep, &a, func(row target.Row) error {
		if found {
			return nil
		}
		found = true
		bufs := make([][]byte, len(st.Into))
		dest := make([]any, len(st.Into))
		for k := range bufs {
			dest[k] = &bufs[k]
		}
		if err := row.Scan(dest...); err != nil {
			return err
		}
		for k, slot := range st.Into {
			if bufs[k] == nil {
				r.ev.Set(slot, nil)
			} else {
				r.ev.SetText(slot, string(bufs[k]))
			}
		}
		return nil
	})
	if err == nil && !found {
		return errMissing
	}
	return err
}

func indexOf(sts []spec.ProgramStmt, st *spec.ProgramStmt) int {
	for k := range sts {
		if &sts[k] == st {
			return k
		}
	}
	return -1
}

func (r *ref) table(op *spec.ProgramOp) error {
	st, ok := r.ops[op]
	if !ok {
		st = r.prepare(op.SQL)
		r.ops[op] = st
	}
	w := r.w
	ev := r.ev
	seed := ev.Seed()
	if op.Op == "read" {
		i := ev.NextKey(op.Table, op.Keys, op.Theta, ev.Visible(op.Table))
		return w.Query(r.ctx, st, args(ev.Key(op.Table, i)), func(target.Row) error { return nil })
	}
	idx := make([]int64, op.Batch)
	if op.Op == "insert" {
		first := ev.Claim(op.Table, op.Batch)
		for k := range idx {
			idx[k] = first + int64(k)
		}
	} else {
		span := ev.Visible(op.Table)
		if op.Op == "upsert" {
			span += span / 10
		}
		for k := range idx {
			idx[k] = ev.NextKey(op.Table, op.Keys, op.Theta, span)
		}
	}
	write := func(i int64) error {
		rowSeed := seed
		if op.Op == "update" {
			rowSeed++
		}
		row := ev.Row(op.Table, rowSeed, i)
		var vals []any
		switch {
		case op.Bind != nil:
			for _, c := range op.Bind {
				if c < 0 {
					vals = append(vals, ev.Key(op.Table, i))
				} else {
					vals = append(vals, row[c])
				}
			}
		case op.Op == "update":
			for _, c := range r.p.Tables[op.Table].Update {
				vals = append(vals, row[c])
			}
			vals = append(vals, ev.Key(op.Table, i))
		default:
			vals = row
		}
		return w.Exec(r.ctx, st, args(vals...))
	}
	if len(idx) == 1 {
		return write(idx[0])
	}
	r.must(w.Begin(r.ctx))
	for _, i := range idx {
		if err := write(i); err != nil {
			w.Rollback()
			return err
		}
	}
	return w.Commit()
}
