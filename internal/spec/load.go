package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/gen"
	"github.com/litebench/litebench/internal/loadgen"
	"github.com/litebench/litebench/internal/metrics"
)

// A machine is a Program loaded for execution: what the Go worker runs.
// A workload file, pgbench scripts or a built-in is resolved, compiled to
// its Program (the form workers of other languages receive), and the
// Program, not the source, is what the executors run: its statements,
// steps, expressions and table operations are read back from the
// Program's data here. The tables are the workload's own (their rows,
// generators and the rows claimed while the run goes on), by the
// Program's table index.
type machine struct {
	p      *Program
	seed   uint64
	tables []*tableRun
	// names are the variables' names by slot; vars their values before a
	// transaction runs.
	names []string
	vars  []slot
	// clientID is the slot of :client_id; scale that of :scale when the
	// run derives it, or -1.
	clientID, scale int
	// bufs counts the scratch buffers calls need.
	bufs    int
	txns    []*txnRun
	stmts   []*stmtRun
	tops    []*tableOp
	natives []*nativeOp
	checks  []*checkRun
}

// machine compiles the cell for an engine's dialect and loads the
// Program.
func (w *Workload) machine(d dialect.Dialect) (*machine, error) {
	p, err := w.Program(d)
	if err != nil {
		return nil, err
	}
	return loadProgram(p, w.tables, d, ExplicitTx(w.set.Get("tx")))
}

// loaded is the cell's machine for a dialect, loaded once: set-up reads
// into it what its checks compare with after the run.
func (w *Workload) loaded(d dialect.Dialect) (*machine, error) {
	if w.mach != nil && w.machFor == d.Name() {
		return w.mach, nil
	}
	m, err := w.machine(d)
	if err != nil {
		return nil, err
	}
	w.mach, w.machFor = m, d.Name()
	return m, nil
}

// UseProgram has the cell run the program a job carries (its JSON,
// compiled for d by the controller) rather than the one it compiles: a
// Go worker process runs what workers of other languages are sent. The
// program must be the one the cell compiles to (the same workload,
// parameters, settings and seed, from the same version of litebench).
func (w *Workload) UseProgram(raw json.RawMessage, d dialect.Dialect) error {
	own, err := w.ProgramJSON(d)
	if err != nil {
		return err
	}
	if !bytes.Equal(bytes.TrimSpace(raw), own) {
		return fmt.Errorf("job: its program is not %s compiled for %s (a controller of another version?); send the job without it, or from this version", w.f.Name, d.Name())
	}
	var p Program
	if err := json.Unmarshal(raw, &p); err != nil {
		return fmt.Errorf("job: program: %v", err)
	}
	m, err := loadProgram(&p, w.tables, d, ExplicitTx(w.set.Get("tx")))
	if err != nil {
		return err
	}
	w.mach, w.machFor = m, d.Name()
	return nil
}

// loadConfig is the load model of the program, over cfg (the rest of the
// run's load configuration).
func (m *machine) loadConfig(cfg loadgen.Config) loadgen.Config {
	l := m.p.Load
	cfg.Ops, cfg.Seed = metrics.Ops(m.p.Ops), m.seed
	cfg.Duration, cfg.Warmup, cfg.Count = time.Duration(l.DurationNS), time.Duration(l.WarmupNS), l.Count
	cfg.Rate, cfg.Arrivals, cfg.MaxInflight = l.Rate, loadgen.Arrivals(l.Arrivals), l.MaxInflight
	cfg.Roles = l.Roles
	cfg.Choose = mixChooser(m.seed, l.Mix)
	return cfg
}

// mixChooser chooses operation seq's transaction by the mix's weights
// (docs/workload-program.md, Running).
func mixChooser(seed uint64, mix []ProgramWeight) func(uint64) int {
	total := 0.0
	for _, x := range mix {
		total += x.Weight
	}
	if total <= 0 || len(mix) == 0 {
		first := 0
		if len(mix) > 0 {
			first = mix[0].Txn
		}
		return func(uint64) int { return first }
	}
	thr := make([]float64, len(mix))
	acc, scale := 0.0, 10000/total
	for i, x := range mix {
		acc += x.Weight
		thr[i] = acc * scale
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

// loadProgram loads p over tables (p.Tables[k] is tables[k]). explicit
// begins a transaction around a single-row table write too (the tx
// setting).
func loadProgram(p *Program, tables []*tableRun, d dialect.Dialect, explicit bool) (*machine, error) {
	if p.Version != ProgramVersion {
		return nil, fmt.Errorf("program version %d, want %d", p.Version, ProgramVersion)
	}
	if len(p.Tables) != len(tables) {
		return nil, fmt.Errorf("program: %d tables, the run has %d", len(p.Tables), len(tables))
	}
	for k, t := range p.Tables {
		if t.Name != tables[k].schema.Table {
			return nil, fmt.Errorf("program: table %d is %s, the run's is %s", k, t.Name, tables[k].schema.Table)
		}
	}
	seed, err := strconv.ParseUint(p.Seed, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("program seed %q: %v", p.Seed, err)
	}
	m := &machine{p: p, seed: seed, tables: tables, clientID: p.ClientID, scale: p.Scale}
	l := &exprLoader{tables: tables, nodes: map[*Expr]enode{}}
	m.vars = make([]slot, len(p.Vars))
	for k, v := range p.Vars {
		m.names = append(m.names, v.Name)
		if v.Value == nil {
			continue
		}
		n, err := l.node(v.Value)
		if err != nil {
			return nil, err
		}
		val, err := n.eval(&ectx{})
		if err != nil {
			return nil, fmt.Errorf("program: variable %s: %v", v.Name, err)
		}
		m.vars[k].assign(val)
	}
	if m.clientID < 0 || m.clientID >= len(m.vars) || m.scale >= len(m.vars) {
		return nil, fmt.Errorf("program: client_id %d or scale %d is not a variable's slot", m.clientID, m.scale)
	}
	for _, s := range p.Statements {
		for _, sl := range append(append([]int(nil), s.Binds...), s.Into...) {
			if sl < 0 || sl >= len(m.vars) {
				return nil, fmt.Errorf("program: statement at %s: no variable slot %d", s.At, sl)
			}
		}
		m.stmts = append(m.stmts, &stmtRun{sql: s.SQL, at: Pos{File: s.At}, binds: s.Binds, into: s.Into, read: s.Read})
	}
	for k, t := range p.Transactions {
		tr := &txnRun{name: t.Name, op: k}
		var open *stepRun
		for _, ps := range t.Steps {
			r := &stepRun{at: Pos{File: ps.At}, part: ps.Part}
			var err error
			switch ps.Kind {
			case "set":
				r.kind, r.slot = sSet, ps.Var
				if r.slot < 0 || r.slot >= len(m.vars) {
					return nil, fmt.Errorf("program: %s: no variable slot %d", ps.At, r.slot)
				}
				r.e, err = l.node(ps.Expr)
			case "sleep":
				r.kind, r.unit = sSleep, ps.UnitNS
				r.e, err = l.node(ps.Expr)
			case "sql":
				r.kind = sSQL
				if ps.Stmt < 0 || ps.Stmt >= len(m.stmts) {
					return nil, fmt.Errorf("program: %s: no statement %d", ps.At, ps.Stmt)
				}
				r.stmt = m.stmts[ps.Stmt]
				// A statement runs on the read pool in a transaction that
				// only reads, or outside one when it is a query.
				if open != nil && open.read || open == nil && r.stmt.read {
					r.stmt.needRead = true
				} else {
					r.stmt.needWrite = true
				}
			case "begin":
				r.kind, r.read = sBegin, ps.Read
				open = r
			case "commit", "rollback":
				r.kind = sCommit
				if ps.Kind == "rollback" {
					r.kind = sRollback
				}
				open = nil
			case "table":
				r.kind = sTable
				if r.top, err = m.tableOp(ps, d, explicit); err == nil {
					r.top.idx = len(m.tops)
					m.tops = append(m.tops, r.top)
				}
			case "native":
				r.kind = sNative
				if r.nat, err = m.nativeOp(ps); err == nil {
					m.natives = append(m.natives, r.nat)
				}
			default:
				err = fmt.Errorf("program: %s: unknown step %q", ps.At, ps.Kind)
			}
			if err != nil {
				return nil, err
			}
			tr.steps = append(tr.steps, r)
		}
		m.txns = append(m.txns, tr)
	}
	m.bufs = l.bufs
	for _, c := range p.Checks {
		kind, ok := map[string]int{"eq": expectEq, "cmp": expectCmp, "unchanged": expectUnchanged, "empty": expectEmpty}[c.Expect]
		if !ok {
			return nil, fmt.Errorf("program: check %s: unknown expectation %q", c.Name, c.Expect)
		}
		op := c.Cmp
		if kind == expectEq {
			op = "="
		}
		m.checks = append(m.checks, &checkRun{name: c.Name, at: Pos{File: c.At}, sql: c.SQL, kind: kind, op: op, want: c.Want})
	}
	if p.Insert != nil && (p.Insert.Table < 0 || p.Insert.Table >= len(tables)) {
		return nil, fmt.Errorf("program: insert into table %d of %d", p.Insert.Table, len(tables))
	}
	if p.Insert == nil && p.Load == nil {
		return nil, fmt.Errorf("program: neither load nor insert")
	}
	return m, nil
}

// tableOp loads a table operation.
func (m *machine) tableOp(ps ProgramStep, d dialect.Dialect, explicit bool) (*tableOp, error) {
	po := ps.Op
	if po == nil || po.Table < 0 || po.Table >= len(m.tables) {
		return nil, fmt.Errorf("program: %s: a table operation without its table", ps.At)
	}
	t := m.tables[po.Table]
	op := &tableOp{kind: -1, t: t, dist: po.Keys, batch: max(po.Batch, 1), bind: po.Bind, own: po.SQL, at: Pos{File: ps.At}}
	for k, name := range opNamesByKind {
		if name == po.Op {
			op.kind = k
		}
	}
	if op.kind < 0 {
		return nil, fmt.Errorf("program: %s: unknown table operation %q", ps.At, po.Op)
	}
	if op.dist == "" {
		op.dist = gen.KeysUniform
	}
	if op.dist != gen.KeysUniform {
		op.zipf = t.zipf(po.Theta)
	}
	if op.kind != opRead {
		op.explicit = explicit
	}
	op.setKey()
	op.updIdx = m.p.Tables[po.Table].Update
	// SQL other than the dialect's for the operation is a statement of
	// the file's, bound column by column (Bind).
	op.stmt = po.SQL != op.sql(d)
	return op, nil
}

// nativeOp loads a native operation.
func (m *machine) nativeOp(ps ProgramStep) (*nativeOp, error) {
	po := ps.Op
	if po == nil || po.Table < 0 || po.Table >= len(m.tables) {
		return nil, fmt.Errorf("program: %s: a native operation without its table", ps.At)
	}
	op := &nativeOp{name: po.Op, t: m.tables[po.Table], depth: po.Depth, page: po.Page, sql: po.SQL, rand: -1, hash: -1}
	for k, c := range m.p.Tables[po.Table].Columns {
		switch c.Name {
		case "rand":
			op.rand = k
		case "hash":
			op.hash = k
		}
	}
	switch op.name {
	case "scan_verify", "paginate_offset", "paginate_keyset":
	default:
		return nil, fmt.Errorf("program: %s: unknown native operation %q", ps.At, op.name)
	}
	return op, nil
}

// exprLoader compiles a Program's expressions into evaluable ones.
type exprLoader struct {
	tables []*tableRun
	nodes  map[*Expr]enode
	// bufs counts the scratch buffers calls need.
	bufs int
}

// node compiles x (once).
func (l *exprLoader) node(x *Expr) (enode, error) {
	if x == nil {
		return nil, fmt.Errorf("program: an expression is missing")
	}
	if n, ok := l.nodes[x]; ok {
		return n, nil
	}
	n, err := l.compile(x)
	if err != nil {
		return nil, err
	}
	l.nodes[x] = n
	return n, nil
}

func (l *exprLoader) compile(x *Expr) (enode, error) {
	at := Pos{File: x.At}
	args := make([]enode, len(x.A))
	for k, a := range x.A {
		n, err := l.node(a)
		if err != nil {
			return nil, err
		}
		args[k] = n
	}
	need := func(n int) error {
		if len(args) != n {
			return fmt.Errorf("program: %s: %s %s takes %d operands, not %d", x.At, x.Op, x.Fn, n, len(args))
		}
		return nil
	}
	switch x.Op {
	case "int":
		i, err := strconv.ParseInt(x.V, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("program: int %q: %v", x.V, err)
		}
		return &litNode{ival(i)}, nil
	case "float":
		return &litNode{fval(x.F)}, nil
	case "bool":
		return &litNode{bval(x.B)}, nil
	case "null":
		return &litNode{value{k: vNull}}, nil
	case "text":
		return &litNode{value{k: vText, s: []byte(x.S)}}, nil
	case "var":
		return &varNode{slot: x.Slot, name: x.Name, pos: at}, nil
	case "unary":
		if err := need(1); err != nil {
			return nil, err
		}
		return &unaryNode{op: x.Fn, a: args[0], pos: at}, nil
	case "binary":
		if err := need(2); err != nil {
			return nil, err
		}
		return &binaryNode{op: x.Fn, a: args[0], b: args[1], pos: at}, nil
	case "is":
		if err := need(1); err != nil {
			return nil, err
		}
		return &isNode{what: x.Fn, not: x.Not, a: args[0], pos: at}, nil
	case "case":
		c := &caseNode{pos: at}
		for k := 0; k+1 < len(args); k += 2 {
			c.whens, c.thens = append(c.whens, args[k]), append(c.thens, args[k+1])
		}
		if x.Else != nil {
			n, err := l.node(x.Else)
			if err != nil {
				return nil, err
			}
			c.els = n
		}
		return c, nil
	case "call":
		def, ok := funcs[x.Fn]
		if !ok {
			return nil, fmt.Errorf("program: unknown function %s()", x.Fn)
		}
		if x.Fn != "key" && x.Fn != "rows" && (len(args) < def.min || def.max >= 0 && len(args) > def.max) {
			return nil, fmt.Errorf("program: %s: %s() with %d arguments", x.At, x.Fn, len(args))
		}
		n := &callNode{name: x.Fn, fn: def.fn, args: args, pos: at, buf: -1}
		if def.text {
			n.buf = l.bufs
			l.bufs++
		}
		if x.Fn == "key" || x.Fn == "rows" {
			if x.Table < 0 || x.Table >= len(l.tables) {
				return nil, fmt.Errorf("program: %s(): no table %d", x.Fn, x.Table)
			}
			n.table, n.dist = l.tables[x.Table], x.Dist
			if x.Fn == "key" && n.dist == "" {
				n.dist = gen.KeysUniform
			}
			if x.Fn == "key" && n.dist != gen.KeysUniform {
				n.zipf = n.table.zipf(x.Theta)
			}
		}
		return n, nil
	}
	return nil, fmt.Errorf("program: unknown expression %q", x.Op)
}
