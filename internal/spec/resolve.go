package spec

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/gen"
	"github.com/litebench/litebench/internal/loadgen"
	"github.com/litebench/litebench/internal/metrics"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/workload"
)

// Workload is one sweep cell of a file's workload: parameters and settings
// bound, tables compiled, transactions compiled to steps over a shared set
// of variables. It implements workload.Workload.
type Workload struct {
	f      *File
	params map[string]string
	set    settings.Settings
	seed   uint64
	tables []*tableRun
	byName map[string]*tableRun
	sc     *scope
	// consts are the variables' values before a transaction runs:
	// parameters and the built-in variables.
	consts  []slot
	txns    []*txnRun
	stmts   []*stmtRun
	tops    []*tableOp
	natives []*nativeOp
	ops     metrics.Ops
	parts   []string
	cfg     loadgen.Config
	ins     *insertRun
	checks  []*checkRun
	init    []*Stmt
	// allow are the files ATTACH may open read-only (--allow-attach).
	allow []string
	// flags name what sets the executor count, for resource checks.
	flags     string
	executors int
	// active says which transactions run (a worker or a weight).
	active []bool
	// scaleSlot is the slot of :scale when no parameter gives it; scale
	// is its value (pgbench's: the rows of pgbench_branches, else 1).
	scaleSlot int
	scale     int64
	// begins are the BEGIN steps of the transactions, whose modes
	// CheckBegin compares with the tx setting.
	begins []*Step
	// mach is the cell's program loaded for the dialect machFor.
	mach    *machine
	machFor string
}

type txnRun struct {
	name  string
	op    int
	steps []*stepRun
}

type stepRun struct {
	kind stepKind
	src  *Step
	at   Pos
	part int // op index of the statement's own result, -1 for none
	slot int
	e    enode
	unit int64
	stmt *stmtRun
	// read: a BEGIN whose block only reads runs on the read pool.
	read bool
	top  *tableOp
	nat  *nativeOp
}

type stmtRun struct {
	s *Stmt
	// sql (rendered for the engine) and at are a loaded statement's.
	sql   string
	at    Pos
	binds []int // variable slot of each :name, in order
	into  []int // slots \gset fills
	read  bool
	prep  preparedStmt
	// needRead and needWrite say on which pools steps run it.
	needRead, needWrite bool
}

type insertRun struct {
	t       *tableRun
	rows    int64
	workers int
	vacuum  bool
}

// Resolve binds a cell's parameter values (every parameter present) and
// settings, and checks what depends on them.
func (f *File) Resolve(p map[string]string, s settings.Settings) (*Workload, error) {
	return f.resolve(p, s, nil, true)
}

// resolve is Resolve with the files ATTACH may open (absolute paths);
// fence says whether to refuse what reaches beyond the run's database
// (not while parsing, before --allow-attach is known).
func (f *File) resolve(p map[string]string, s settings.Settings, allow []string, fence bool) (*Workload, error) {
	w := &Workload{f: f, params: map[string]string{}, set: s, byName: map[string]*tableRun{}, sc: newScope(), allow: allow}
	for _, pr := range f.Params {
		v, ok := p[pr.Name]
		if !ok {
			v = pr.Default
		}
		if err := pr.check(v); err != nil {
			return nil, err
		}
		w.params[pr.Name] = v
	}
	for k := range p {
		if _, ok := w.params[k]; !ok {
			return nil, fmt.Errorf("%s has no parameter --%s (known: %s)", f.Name, k, f.paramNames())
		}
	}
	seed, err := strconv.ParseUint(w.params["seed"], 10, 64)
	if err != nil {
		n, cerr := settings.ParseCount(w.params["seed"])
		if cerr != nil || n < 0 {
			return nil, fmt.Errorf("--seed %q: want a non-negative whole number", w.params["seed"])
		}
		seed = uint64(n)
	}
	w.seed = seed
	if err := w.resolveTables(); err != nil {
		return nil, err
	}
	if err := w.compileVars(); err != nil {
		return nil, err
	}
	if err := w.compileTxns(); err != nil {
		return nil, err
	}
	if f.insert != nil {
		err = w.resolveInsert()
	} else {
		err = w.resolveLoad()
	}
	if err != nil {
		return nil, err
	}
	if err := w.resolveChecks(); err != nil {
		return nil, err
	}
	w.init = f.init
	if fence {
		if err := w.fence(); err != nil {
			return nil, err
		}
	}
	return w, nil
}

func (w *Workload) resolveTables() error {
	f := w.f
	selected := f.Tables
	rows := map[*Table]*tmpl{}
	if f.uses != nil {
		selected = nil
		for _, u := range f.uses {
			name, err := u.name.eval(w.params)
			if err != nil {
				return err
			}
			var t *Table
			for _, x := range f.Tables {
				if x.Name == name {
					t = x
				}
			}
			if t == nil {
				var names []string
				for _, x := range f.Tables {
					names = append(names, x.Name)
				}
				return errorf(u.name.pos, "tables: no table %q (known: %s)", name, strings.Join(names, ", "))
			}
			selected = append(selected, t)
			if u.rows != nil {
				rows[t] = u.rows
			}
		}
	}
	for _, t := range selected {
		tr := &tableRun{t: t, seed: w.seed, zipfs: map[float64]*gen.Zipf{}, rowsT: t.rows}
		if r, ok := rows[t]; ok {
			tr.rowsT = r
		}
		if tr.rowsT != nil {
			n, err := tr.rowsT.count(w.params, "rows of "+t.Name, 0)
			if err != nil {
				return err
			}
			tr.rows = n
		}
		w.tables = append(w.tables, tr)
		w.byName[t.Name] = tr
	}
	refs := func(name string) (int64, int64, error) {
		r, ok := w.byName[name]
		if !ok {
			return 0, 0, fmt.Errorf("no table %q among this run's tables", name)
		}
		if r.schema == nil {
			return 0, 0, fmt.Errorf("refer to %s from a table defined after it", name)
		}
		seq, ok := r.schema.Gen.Columns()[0].Gen.(gen.Seq)
		if !ok {
			return 0, 0, fmt.Errorf("%s's key is not a seq(): ref() needs a table keyed by a sequence", name)
		}
		return seq.Start, r.rows, nil
	}
	for _, tr := range w.tables {
		sc, err := compileTable(tr.t, w.params, refs)
		if err != nil {
			return err
		}
		tr.schema = sc
		for _, c := range tr.t.create {
			q, err := c.eval(w.params)
			if err != nil {
				return err
			}
			tr.create = append(tr.create, q)
		}
		if len(tr.create) > 0 && len(tr.t.Indexes) > 0 {
			// The table's own DDL, then its indexes as litebench
			// renders them, unless the DDL makes one of them itself.
			made := map[string]bool{}
			for _, q := range tr.create {
				for _, n := range createdNames(q) {
					made[strings.ToLower(n)] = true
				}
			}
			for _, ix := range tr.t.Indexes {
				if made[strings.ToLower(ix.Name)] {
					return errorf(tr.t.Pos, "table %s: index %s is made both by create and by indexes: drop it from one of them", tr.t.Name, ix.Name)
				}
			}
			tr.create = append(tr.create, dialect.CreateIndexes(sc.DDL)...)
		}
	}
	return nil
}

// compileVars gives every variable a slot and the parameters and
// built-in variables their values.
func (w *Workload) compileVars() error {
	sc := w.sc
	for _, t := range w.tables {
		sc.tables[t.t.Name] = t
	}
	vals := map[int]value{}
	for _, p := range w.f.Params {
		vals[sc.slot(varName(p.Name))] = textValue([]byte(w.params[p.Name]))
	}
	for _, v := range []string{"random_seed", "default_seed"} {
		if i := sc.slot(v); vals[i].k == 0 {
			vals[i] = ival(int64(w.seed))
		}
	}
	sc.slot("client_id")
	w.scaleSlot = -1
	if _, ok := w.params["scale"]; !ok {
		w.scaleSlot = sc.slot("scale")
		vals[w.scaleSlot] = ival(1)
	}
	w.consts = make([]slot, len(sc.names))
	for i, v := range vals {
		w.consts[i].assign(v)
	}
	return nil
}

func (w *Workload) compileTxns() error {
	stmts := map[*Stmt]*stmtRun{}
	for i, t := range w.f.Txns {
		tr := &txnRun{name: t.Name, op: i}
		w.ops = append(w.ops, t.Name)
		w.parts = append(w.parts, "")
		w.txns = append(w.txns, tr)
	}
	for i, t := range w.f.Txns {
		tr := w.txns[i]
		sqls := 0
		for _, st := range t.Steps {
			if st.kind == sSQL || st.kind == sBegin || st.kind == sCommit || st.kind == sRollback {
				sqls++
			}
		}
		labels := map[string]bool{}
		var open *stepRun
		for k, st := range t.Steps {
			r := &stepRun{kind: st.kind, src: st, part: -1}
			var err error
			switch st.kind {
			case sSet:
				r.slot = w.sc.slot(st.name)
				r.e, err = compileExpr(st.expr, w.sc)
			case sSleep:
				r.e, err = compileExpr(st.expr, w.sc)
				r.unit = st.unitNS
			case sSQL:
				r.stmt = w.stmtRun(st.stmt, stmts)
				switch {
				case open != nil && open.read, open == nil && r.stmt.read:
					r.stmt.needRead = true
				default:
					r.stmt.needWrite = true
				}
			case sCommit, sRollback:
				open = nil
			case sBegin:
				open = r
				r.read = true
				for _, x := range t.Steps[k+1:] {
					if x.kind == sCommit || x.kind == sRollback {
						break
					}
					if x.kind == sSQL && !x.stmt.read {
						r.read = false
					}
				}
				w.begins = append(w.begins, st)
			case sTable:
				if r.top, err = w.tableOp(st, t); err == nil {
					r.top.idx = len(w.tops)
					w.tops = append(w.tops, r.top)
				}
			case sNative:
				if r.nat, err = w.nativeOp(st); err == nil {
					w.natives = append(w.natives, r.nat)
				}
			}
			if err != nil {
				return err
			}
			if sqls > 1 && r.kind != sSet && r.kind != sSleep && r.kind != sTable && r.kind != sNative {
				label := partLabel(st)
				if labels[label] {
					label += "@" + strconv.Itoa(st.pos.Line)
				}
				labels[label] = true
				r.part = len(w.ops)
				w.ops = append(w.ops, t.Name+":"+label)
				w.parts = append(w.parts, t.Name)
			}
			tr.steps = append(tr.steps, r)
		}
	}
	return nil
}

// partLabel names a statement's own result: the statement's name, begin,
// commit or rollback, or the line it is written on.
func partLabel(st *Step) string {
	switch st.kind {
	case sBegin:
		return "begin"
	case sCommit:
		return "commit"
	case sRollback:
		return "rollback"
	}
	if st.stmt.Name != "" {
		return st.stmt.Name
	}
	return strconv.Itoa(st.pos.Line)
}

func (w *Workload) stmtRun(s *Stmt, seen map[*Stmt]*stmtRun) *stmtRun {
	if r, ok := seen[s]; ok {
		return r
	}
	r := &stmtRun{s: s, read: s.read}
	for _, p := range s.params {
		r.binds = append(r.binds, w.sc.slot(p.name))
	}
	for _, v := range s.into {
		r.into = append(r.into, w.sc.slot(v))
	}
	seen[s] = r
	w.stmts = append(w.stmts, r)
	return r
}

// CheckBegin refuses a BEGIN whose mode the tx setting does not give, on
// an engine that begins transactions as the setting says (SQLite). An
// engine that does not run --tx (PostgreSQL, MariaDB) begins each
// transaction its own way: a BEGIN IMMEDIATE there is the engine's
// read-write transaction (docs/engines.md).
func (w *Workload) CheckBegin(engine string) error {
	if !settings.Applies("tx", engine) {
		return nil
	}
	return w.checkBegins()
}

func (w *Workload) checkBegins() error {
	tx := w.set.Get("tx")
	for _, st := range w.begins {
		if st.mode != "" && st.mode != tx {
			return errorf(st.pos, "BEGIN %s needs --tx %s (the tx setting is %s; litebench begins transactions as the setting says)",
				strings.ToUpper(st.mode), st.mode, tx)
		}
	}
	return nil
}

func (w *Workload) resolveLoad() error {
	f := w.f
	lp := map[string]string{}
	for _, k := range mixKeys {
		if t, ok := f.load[k.name]; ok && t.isTemplate() {
			v, err := t.eval(w.params)
			if err != nil {
				return err
			}
			lp[k.name] = v
		} else if v, ok := w.params[k.name]; ok {
			lp[k.name] = v
		} else {
			lp[k.name] = k.def
		}
	}
	cfg, err := workload.LoadConfig(lp, w.ops, w.seed)
	if err != nil {
		return err
	}
	// Weights: the [mix], or 1 each.
	weights := make([]float64, len(f.Txns))
	order := make([]int, 0, len(f.Txns))
	if f.hasMix {
		for _, m := range f.mix {
			k := w.txnIndex(m.name)
			x, err := m.weight.number(w.params, "weight of "+m.name)
			if err != nil {
				return err
			}
			if x < 0 {
				return errorf(m.pos, "weight of %s is %v: want 0 or more", m.name, x)
			}
			weights[k] = x
			order = append(order, k)
		}
	} else {
		for k := range weights {
			weights[k] = 1
			order = append(order, k)
		}
	}
	total := 0.0
	for _, k := range order {
		total += weights[k]
	}
	choose := func(seq uint64) int { return order[0] }
	if total > 0 {
		thr := make([]float64, len(order))
		acc, scale := 0.0, 10000/total
		for i, k := range order {
			acc += weights[k]
			thr[i] = acc * scale
		}
		seed := w.seed
		choose = func(seq uint64) int {
			x := float64(gen.Draw(seed, gen.StreamOps, seq) % 10000)
			for i, t := range thr {
				if x < t {
					return order[i]
				}
			}
			return order[len(order)-1]
		}
	}
	cfg.Choose = choose
	roles := false
	for _, t := range f.Txns {
		roles = roles || t.workers != nil
	}
	var flags []string
	active := make([]bool, len(f.Txns))
	if roles {
		for k, t := range f.Txns {
			n := int64(0)
			if t.workers != nil {
				if n, err = t.workers.count(w.params, "workers of "+t.Name, 0); err != nil {
					return err
				}
				if p := t.workers.parts; len(p) == 1 && p[0].name != "" {
					flags = append(flags, fmt.Sprintf("--%s %d", p[0].name, n))
				}
			}
			for range n {
				cfg.Roles = append(cfg.Roles, k)
			}
			active[k] = n > 0
		}
		if cfg.Rate == 0 && len(cfg.Roles) == 0 {
			list := strings.Join(flags, " ")
			if list == "" {
				list = "workers 0"
			}
			return fmt.Errorf("%s: nothing to run; give at least one transaction a worker", list)
		}
	} else {
		n, err := settings.ParseCount(w.params["workers"])
		if err != nil || n < 1 {
			return fmt.Errorf("--workers %q: want a whole number of at least 1", w.params["workers"])
		}
		for range n {
			cfg.Roles = append(cfg.Roles, loadgen.AnyOp)
		}
		flags = append(flags, fmt.Sprintf("--workers %d", n))
	}
	if cfg.Rate > 0 || !roles {
		if total == 0 {
			return errorf(f.mixPos, "every weight is 0: give at least one transaction a weight above 0")
		}
		for k := range active {
			active[k] = weights[k] > 0
		}
	}
	w.executors = len(cfg.Roles)
	w.flags = strings.Join(flags, " ")
	if cfg.Rate > 0 {
		w.executors = cfg.MaxInflight
		w.flags = fmt.Sprintf("--max-inflight %d", cfg.MaxInflight)
	}
	w.cfg = cfg
	w.active = active
	for k, tr := range w.txns {
		if !active[k] {
			continue
		}
		for _, st := range tr.steps {
			if st.top == nil || st.top.kind == opInsert || st.top.t.rows > 0 {
				continue
			}
			flag := "rows of " + st.top.t.t.Name + " 0"
			if r := st.top.t.rowsT; r != nil && len(r.parts) == 1 && r.parts[0].name != "" {
				flag = "--" + r.parts[0].name + " 0"
			}
			return fmt.Errorf("%s: reads and updates need rows to pick from; load some with --rows N", flag)
		}
	}
	return nil
}

func (w *Workload) txnIndex(name string) int {
	for k, t := range w.f.Txns {
		if t.Name == name {
			return k
		}
	}
	return -1
}

func (w *Workload) resolveInsert() error {
	m := w.f.insert
	name, err := m.table.eval(w.params)
	if err != nil {
		return err
	}
	t, ok := w.byName[name]
	if !ok {
		return errorf(m.table.pos, "[insert] table %q: not one of this run's tables", name)
	}
	if t.rows > 0 {
		return errorf(t.t.Pos, "table %s loads %d rows before [insert] inserts its rows: give it no rows", name, t.rows)
	}
	r := &insertRun{t: t}
	get := func(key string) (string, error) {
		if tt := m.field(key); tt != nil && tt.isTemplate() {
			return tt.eval(w.params)
		}
		return w.params[key], nil
	}
	v, err := get("rows")
	if err != nil {
		return err
	}
	if r.rows, err = settings.ParseCount(v); err != nil || r.rows < 1 {
		return fmt.Errorf("--rows %q: want a whole number of at least 1", v)
	}
	if v, err = get("workers"); err != nil {
		return err
	}
	n, err := settings.ParseCount(v)
	if err != nil || n < 1 {
		return fmt.Errorf("--workers %q: want a whole number of at least 1", v)
	}
	r.workers = int(n)
	if v, err = get("vacuum"); err != nil {
		return err
	}
	if r.vacuum, err = strconv.ParseBool(v); err != nil {
		return fmt.Errorf("--vacuum %q: want true or false", v)
	}
	if err := workload.CheckRowsPerStmt(t.schema, w.set.Int("rows-per-stmt")); err != nil {
		return err
	}
	w.ins = r
	w.ops = workload.InsertOps
	w.parts = nil
	w.executors = r.workers
	return nil
}

func (m *insertMode) field(key string) *tmpl {
	switch key {
	case "rows":
		return m.rows
	case "workers":
		return m.workers
	}
	return m.vacuu
}

// Params are the cell's parameter values.
func (w *Workload) Params() map[string]string { return w.params }

// Name is the workload's name.
func (w *Workload) Name() string { return w.f.Name }

// Ops are the transactions, then the statements with results of their
// own.
func (w *Workload) Ops() metrics.Ops { return w.ops }

// PartOf names the transaction a statement's op belongs to.
func (w *Workload) PartOf(op int) string {
	if op < len(w.parts) {
		return w.parts[op]
	}
	return ""
}

// Total is the planned count, for progress.
func (w *Workload) Total() int64 {
	if w.ins != nil {
		return w.ins.rows
	}
	return w.cfg.Count
}

// Unit is what the headline counts.
func (w *Workload) Unit() string {
	if w.ins != nil {
		return "row"
	}
	return "op"
}

// Tables names the tables and indexes the workload creates, for the
// ownership of its bench database.
func (w *Workload) Tables() []string {
	var out []string
	for _, t := range w.tables {
		out = append(out, t.schema.DDL.Name)
		if len(t.create) == 0 {
			for _, ix := range t.schema.DDL.Indexes {
				out = append(out, ix.Name)
			}
		}
		for _, q := range t.create {
			out = append(out, createdNames(q)...)
		}
	}
	for _, s := range w.init {
		out = append(out, createdNames(s.SQL)...)
	}
	sort.Strings(out)
	return out
}

// Definition is what rebuilds the workload in a worker process: nil for
// a built-in, which workers know by name.
func (w *Workload) Definition() *workload.Definition {
	if w.f.builtin {
		return nil
	}
	d := &workload.Definition{Kind: w.f.Kind}
	for _, s := range w.f.Sources {
		d.Sources = append(d.Sources, workload.DefSource{Name: s.Name, Text: s.Text, Weight: s.Weight, Init: s.Init})
	}
	for _, p := range w.allow {
		d.Sources = append(d.Sources, workload.DefSource{Name: AllowAttachSource, Text: p})
	}
	return d
}
