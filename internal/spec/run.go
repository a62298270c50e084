package spec

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/limits"
	"github.com/litebench/litebench/internal/loadgen"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/units"
	"github.com/litebench/litebench/internal/workload"
)

// Setup creates the tables, loads their rows, runs the init SQL and reads
// what the checks compare against afterwards. None of it is measured.
func (w *Workload) Setup(ctx context.Context, env *workload.Env) error {
	sess := env.Session
	m, err := w.loaded(sess.Dialect())
	if err != nil {
		return err
	}
	if err := m.create(ctx, sess); err != nil {
		return err
	}
	for _, t := range m.tables {
		if t.rows > 0 {
			if err := workload.Preload(ctx, env, t.schema, m.seed, t.rows); err != nil {
				return fmt.Errorf("loading %d rows of %s: %w", t.rows, t.schema.Table, err)
			}
			for _, q := range sess.Dialect().Loaded(t.schema.DDL) {
				if err := sess.DB().Exec(ctx, q, nil); err != nil {
					return fmt.Errorf("after loading %s: %w", t.schema.Table, err)
				}
			}
		}
	}
	for k, q := range m.p.Init {
		if err := sess.DB().Exec(ctx, q, nil); err != nil {
			return fmt.Errorf("init SQL at %s: %w", w.initAt(k), err)
		}
	}
	for _, t := range m.tables {
		if m.p.Insert == nil {
			env.Figure(w.figure("table_rows_before", t), units.Rows, units.None, float64(t.rows))
		}
	}
	if m.scale >= 0 {
		w.scale = 1
		var exists, n int64
		db := sess.DB()
		if db.Query(ctx, sess.Dialect().TableExists("pgbench_branches"), nil, func(r target.Row) error { return r.Scan(&exists) }) == nil && exists == 1 &&
			db.Query(ctx, "SELECT count(*) FROM pgbench_branches", nil, func(r target.Row) error { return r.Scan(&n) }) == nil && n > 0 {
			w.scale = n
		}
	}
	for _, c := range m.checks {
		if c.kind == expectUnchanged {
			v, _, err := c.read(ctx, sess)
			if err != nil {
				return fmt.Errorf("check %q before the run: %w", c.name, err)
			}
			c.base = v
		}
	}
	return nil
}

// initAt is where the init SQL k is written.
func (w *Workload) initAt(k int) Pos {
	if k < len(w.init) {
		return w.init[k].Pos
	}
	return Pos{}
}

// create makes the program's tables (empty).
func (m *machine) create(ctx context.Context, sess *target.Session) error {
	for _, t := range m.p.Tables {
		for _, q := range t.Create {
			if err := sess.DB().Exec(ctx, q, nil); err != nil {
				return fmt.Errorf("create %s: %w", t.Name, err)
			}
		}
	}
	return nil
}

// figure names a per-table figure: plain for a workload of one table.
func (w *Workload) figure(name string, t *tableRun) string {
	if len(w.tables) == 1 {
		return name
	}
	return name + "." + t.t.Name
}

// lookup is a variable's value as text, for the init SQL.
func (w *Workload) lookup(name string) (string, bool) {
	i, ok := w.sc.slots[name]
	if !ok || !w.consts[i].set {
		return "", false
	}
	if i == w.scaleSlot {
		return "1", true
	}
	return w.consts[i].v.str(), true
}

// prepare readies every statement of the run on the pools its steps use.
func (m *machine) prepare(ctx context.Context, sess *target.Session) (func(), error) {
	var all []*target.Statement
	done := func() {
		for _, s := range all {
			s.Close()
		}
	}
	prep := func(q string, side target.Side, at Pos) (*target.Statement, error) {
		st, err := sess.Prepare(ctx, q, side)
		if err != nil {
			return nil, &Error{Pos: at, Msg: "does not prepare: " + err.Error()}
		}
		all = append(all, st)
		return st, nil
	}
	var err error
	for _, s := range m.stmts {
		if s.needRead {
			if s.prep.read, err = prep(s.sql, target.Read, s.at); err != nil {
				done()
				return nil, err
			}
		}
		if s.needWrite {
			if s.prep.write, err = prep(s.sql, target.Write, s.at); err != nil {
				done()
				return nil, err
			}
		}
	}
	for _, op := range m.tops {
		side := target.Write
		if op.kind == opRead {
			side = target.Read
		}
		at := op.t.t.Pos
		if op.stmt {
			at = op.at
		}
		if op.prep, err = prep(op.own, side, at); err != nil {
			done()
			return nil, err
		}
	}
	for _, op := range m.natives {
		if op.prep, err = prep(op.sql, target.Read, op.t.t.Pos); err != nil {
			done()
			return nil, err
		}
	}
	return done, nil
}

// Run is the measured part: the transactions under the load model, or
// loading the [insert] table.
func (w *Workload) Run(ctx context.Context, env *workload.Env) error {
	sess := env.Session
	m, err := w.loaded(sess.Dialect())
	if err != nil {
		return err
	}
	if m.p.Insert != nil {
		return w.runInsert(ctx, env, m)
	}
	cfg := m.loadConfig(w.cfg)
	// Statements run under a context that cannot be cancelled: a
	// cancellable one makes drivers (mattn, database/sql) start a watcher
	// goroutine per statement, which would be measured. The load engine
	// checks for cancellation between operations.
	stmtCtx := context.WithoutCancel(ctx)
	for _, t := range w.tables {
		t.claims = newClaims(t.rows, w.executors)
		if err := t.setRange(env.InsertFrom, env.InsertTo); err != nil {
			return err
		}
	}
	closeAll, err := m.prepare(stmtCtx, sess)
	if err != nil {
		return err
	}
	defer func() {
		if !env.Abandoned {
			closeAll() // never under an operation still running
		}
	}()
	sh := &shared{sess: sess, slots: w.executors, scale: w.scale, ack: env.Ack}
	cfg.Classify = func(err error) string {
		switch {
		case errors.Is(err, errMissing), errors.Is(err, errNoRow):
			return "missing"
		}
		return sess.Classify(err).String()
	}
	cfg.NewExecutor = func(i int) (loadgen.Executor, error) { return m.newExecutor(stmtCtx, sh, i) }
	st, err := workload.RunLoad(ctx, env, cfg)
	if cfg.Rate > 0 {
		if el := st.End.Sub(st.Start).Seconds(); el > 0 {
			env.Figure("issued_rate", units.OpsPerSecond, units.None, float64(st.Issued)/el)
		}
		env.Figure("executors", "executors", units.None, float64(st.Executors))
	}
	for _, t := range w.tables {
		if n := t.claims.next.Load(); n > t.rows {
			env.Figure(w.figure("rows_inserted", t), units.Rows, units.None, float64(n-t.rows))
		}
	}
	// The tables' row counts after the run, as the SQLite Performance Limits benchmark prints them (not
	// measured: the clock stopped at env.End). Not after an interrupt: they
	// could wait behind writers still running.
	if ctx.Err() != nil {
		return err
	}
	for _, t := range w.tables {
		var n int64
		if cerr := sess.DB().Query(context.WithoutCancel(ctx), "SELECT count(*) FROM "+t.schema.Table, nil, func(r target.Row) error { return r.Scan(&n) }); cerr == nil {
			env.Figure(w.figure("table_rows_after", t), units.Rows, units.None, float64(n))
		}
	}
	if env.InsertFrom > 0 || env.InsertTo > 0 {
		w.rangeFigures(context.WithoutCancel(ctx), env)
	}
	if err != nil || ctx.Err() != nil {
		return err
	}
	return m.verify(ctx, env)
}

func (w *Workload) runInsert(ctx context.Context, env *workload.Env, m *machine) error {
	r := m.p.Insert
	var cpu workload.CPUMeter
	cpu.Start()
	err := workload.Load(ctx, env, env.Session, workload.LoadSpec{
		Schema: m.tables[r.Table].schema, Seed: m.seed, From: 0, To: r.Rows, Workers: r.Workers,
		Batch: env.Settings.Int("batch"), RowsPerStmt: env.Settings.Int("rows-per-stmt"),
		Explicit: ExplicitTx(env.Settings.Get("tx")),
	})
	env.End = time.Now()
	cpu.Report(env)
	if err != nil {
		return err
	}
	if r.Vacuum {
		t := time.Now()
		if err := env.Session.DB().Exec(ctx, env.Session.Dialect().Vacuum(), nil); err != nil {
			return fmt.Errorf("vacuum: %w", err)
		}
		env.Figure("vacuum", units.Seconds, units.Lower, time.Since(t).Seconds())
	}
	if ctx.Err() != nil {
		return nil
	}
	return m.verify(ctx, env)
}

// Demand is what a run holds at once, for the resource checks.
func (w *Workload) Demand(s settings.Settings) limits.Demand {
	if w.ins != nil {
		return workload.LoadDemand(s, w.ins.t.schema, w.ins.workers)
	}
	c := w.cfg
	n := w.executors
	var d limits.Demand
	if c.Rate > 0 {
		d = workload.ExecutorDemand(w.flags, n, len(w.ops), true, c.Warmup > 0)
	} else {
		ops := len(w.ops)
		if len(c.Roles) > 0 && c.Roles[0] >= 0 {
			// A worker of a transaction records its own op kind and its
			// statements.
			ops = 1
			for _, t := range w.txns {
				own := 1
				for _, st := range t.steps {
					if st.part >= 0 {
						own++
					}
				}
				ops = max(ops, own)
			}
		}
		d = workload.ExecutorDemand(w.flags, n, ops, false, c.Warmup > 0)
	}
	d.Conns = workload.PoolBound(s, n)
	if s.Get("writer") == "single" {
		d.Conns++
	}
	return d
}

// Validate checks that every statement prepares, in an in-memory database
// of the target's engine holding the workload's tables (and the tables
// the init SQL creates). It touches no file.
func (w *Workload) Validate(ctx context.Context, t target.Target) error {
	if engine.IsServed(t.Engine()) {
		// No server to ask before the run: a statement that does not
		// prepare fails the run, naming its line.
		return nil
	}
	if x, ok := t.Client().(interface{ Caps() ([]string, error) }); ok && !w.f.builtin {
		// A worker of another language runs a workload file compiled, if
		// it can (the built-ins it knows by name).
		caps, err := x.Caps()
		if err != nil {
			return err
		}
		if !slices.Contains(caps, CapProgram) {
			return NoProgram(t.Name())
		}
	}
	if t.Placement().IsProcess() {
		// The client runs in a worker process of its own: check the
		// statements with an in-process client of the same engine.
		in, err := inProcessOf(t)
		if err != nil {
			return nil // nothing here can check them; the worker will
		}
		t = in
	}
	s := w.set.Clone()
	s.Set("in-memory", "true")
	s.Set("prepared", "true")
	var b [4]byte
	rand.Read(b[:])
	inst, err := t.Engine().Provision(ctx, engine.Request{Settings: s, Name: "check-" + hex.EncodeToString(b[:]), Reuse: true, Keep: true})
	if err != nil {
		return err
	}
	defer inst.Destroy()
	// One pool, statements prepared: the question is only whether they
	// prepare.
	sess, err := target.Open(ctx, t, inst.Endpoint(), target.Policy{Prepared: true})
	if err != nil {
		return err
	}
	defer sess.Close()
	m, err := w.loaded(sess.Dialect())
	if err != nil {
		return err
	}
	if err := m.create(ctx, sess); err != nil {
		return err
	}
	for k, q := range m.p.Init {
		if !creates(q) && !attaches(q) {
			continue
		}
		if err := sess.DB().Exec(ctx, q, nil); err != nil {
			return &Error{Pos: w.initAt(k), Msg: "init SQL fails: " + err.Error()}
		}
	}
	for _, tr := range w.tables {
		tr.claims = newClaims(tr.rows, 1)
	}
	done, err := m.prepare(ctx, sess)
	if err != nil {
		return err
	}
	done()
	for _, c := range m.checks {
		st, err := sess.Prepare(ctx, c.sql, target.Read)
		if err != nil {
			return &Error{Pos: c.at, Msg: "check " + strconv.Quote(c.name) + " does not prepare: " + err.Error()}
		}
		st.Close()
	}
	return nil
}

var createRE = regexp.MustCompile(`(?i)^\s*CREATE\s+(?:TEMP\s+|TEMPORARY\s+|UNIQUE\s+|VIRTUAL\s+)*(TABLE|INDEX|VIEW|TRIGGER)\s+(?:IF\s+NOT\s+EXISTS\s+)?["` + "`" + `\[]?([A-Za-z_][A-Za-z0-9_]*)`)

// creates says whether an SQL command creates a schema object.
func creates(q string) bool { return createRE.MatchString(uncomment(q)) }

// uncomment drops the comments before an SQL command's first word.
func uncomment(q string) string {
	for i := 0; i < len(q); i++ {
		switch q[i] {
		case ' ', '\t', '\n', '\r':
			continue
		}
		j, ok := skipNoise(q, i)
		if !ok || q[i] == '\'' || q[i] == '"' || q[i] == '`' {
			return q[i:]
		}
		i = j
	}
	return ""
}

// createdNames is the name of the table, index, view or trigger an SQL
// command creates.
func createdNames(q string) []string {
	if m := createRE.FindStringSubmatch(uncomment(q)); m != nil {
		return []string{m[2]}
	}
	return nil
}

// Checks: invariants read with a query after the run.

const (
	expectEq = iota
	expectCmp
	expectUnchanged
	expectEmpty
)

type checkRun struct {
	c *Check
	// name and at are a loaded check's.
	name string
	at   Pos
	sql  string
	kind int
	op   string
	want string
	base string
}

// parseExpect reads an expectation: a value (equal), a comparison such as
// "> 0", "unchanged" or "empty".
func parseExpect(s string, p Pos) (kind int, op string, err error) {
	t := strings.TrimSpace(s)
	switch strings.ToLower(t) {
	case "unchanged":
		return expectUnchanged, "", nil
	case "empty":
		return expectEmpty, "", nil
	case "":
		return 0, "", errorf(p, "expect: give a value, a comparison such as \"> 0\", \"unchanged\" or \"empty\"")
	}
	for _, o := range []string{"<=", ">=", "!=", "<>", "=", "<", ">"} {
		if strings.HasPrefix(t, o) {
			if strings.TrimSpace(t[len(o):]) == "" {
				return 0, "", errorf(p, "expect %q: compare with a value, such as \"%s 0\"", s, o)
			}
			return expectCmp, o, nil
		}
	}
	return expectEq, "=", nil
}

func (w *Workload) resolveChecks() error {
	for _, c := range w.f.Checks {
		s, err := c.expect.eval(w.params)
		if err != nil {
			return err
		}
		kind, op, err := parseExpect(s, c.expect.pos)
		if err != nil {
			return err
		}
		want := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), op))
		q := substitute(c.stmt.SQL, w.lookup)
		w.checks = append(w.checks, &checkRun{c: c, name: c.Name, at: c.Pos, sql: q, kind: kind, op: op, want: want})
	}
	return nil
}

// read returns the first column of the check's first row, and whether
// there was a row.
func (c *checkRun) read(ctx context.Context, sess *target.Session) (string, bool, error) {
	var b []byte
	found := false
	err := sess.DB().Query(context.WithoutCancel(ctx), c.sql, nil, func(r target.Row) error {
		if found {
			return nil
		}
		found = true
		return r.Scan(&b)
	})
	return string(b), found, err
}

// verify runs the checks: each passes or fails; a failure fails the run.
func (m *machine) verify(ctx context.Context, env *workload.Env) error {
	var failed []string
	for _, c := range m.checks {
		got, found, err := c.read(ctx, env.Session)
		if err != nil {
			return fmt.Errorf("check %q: %w", c.name, err)
		}
		ok, want := false, c.want
		switch c.kind {
		case expectEmpty:
			ok, want = !found, "no row"
			if found {
				got = "a row"
			}
		case expectUnchanged:
			ok, want = got == c.base, c.base+" (unchanged)"
		default:
			if !found {
				got = "no row"
			} else {
				ok = compareText(got, c.op, c.want)
			}
			if c.op != "=" {
				want = c.op + " " + c.want
			}
		}
		if ok {
			env.Notes = append(env.Notes, fmt.Sprintf("check %q passed: %s", c.name, got))
			continue
		}
		msg := fmt.Sprintf("check %q failed: got %s, want %s (%s)", c.name, got, want, c.at)
		env.Notes = append(env.Notes, msg)
		failed = append(failed, msg)
	}
	if len(failed) > 0 {
		return errors.New(strings.Join(failed, "; "))
	}
	return nil
}

// compareText compares a result with a wanted value: as numbers when both
// are, else as text (= and != only).
func compareText(got, op, want string) bool {
	g, gerr := strconv.ParseFloat(strings.TrimSpace(got), 64)
	x, werr := strconv.ParseFloat(strings.TrimSpace(want), 64)
	c := 0
	if gerr == nil && werr == nil {
		c = compareFloat(g, x)
	} else {
		switch op {
		case "=":
			return got == want
		case "!=", "<>":
			return got != want
		}
		c = strings.Compare(got, want)
	}
	return cmp(op, c).i == 1
}

// inProcessOf is an in-process target of t's engine.
func inProcessOf(t target.Target) (target.Target, error) {
	for _, n := range target.InProcessNames() {
		if c, err := target.Get(n); err == nil && c.Engine().Name() == t.Engine().Name() {
			return c, nil
		}
	}
	return nil, fmt.Errorf("no in-process client speaks %s", t.Engine().Name())
}
