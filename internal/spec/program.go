package spec

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/gen"
	"github.com/litebench/litebench/internal/spec/program"
)

// The program's types, as internal/spec/program defines them.
type (
	Program       = program.Program
	ProgramTable  = program.Table
	ProgramColumn = program.Column
	ProgramVar    = program.Var
	ProgramStmt   = program.Stmt
	ProgramTxn    = program.Txn
	ProgramStep   = program.Step
	ProgramOp     = program.Op
	ProgramLoad   = program.Load
	ProgramWeight = program.Weight
	ProgramInsert = program.Insert
	ProgramCheck  = program.Check
	Expr          = program.Expr
)

// ProgramVersion is the version of the program's format.
const ProgramVersion = program.Version

// CapProgram is the capability a worker announces in hello when it runs
// programs.
const CapProgram = program.Cap

// NoProgram is the refusal of a workload file for a target whose worker
// does not run programs.
func NoProgram(target string) error { return program.Refused(target) }

var stepKinds = map[stepKind]string{sSet: "set", sSleep: "sleep", sSQL: "sql", sBegin: "begin", sCommit: "commit", sRollback: "rollback", sTable: "table", sNative: "native"}

var opNamesByKind = map[int]string{opRead: "read", opInsert: "insert", opUpdate: "update", opUpsert: "upsert"}

// Program compiles the cell for an engine's dialect.
func (w *Workload) Program(d dialect.Dialect) (*Program, error) {
	p := &Program{Version: ProgramVersion, Name: w.f.Name, Seed: strconv.FormatUint(w.seed, 10),
		ClientID: w.sc.slots["client_id"], Scale: w.scaleSlot, Ops: append([]string(nil), w.ops...)}
	tables := map[*tableRun]int{}
	for k, t := range w.tables {
		tables[t] = k
		pt, err := programTable(t, d)
		if err != nil {
			return nil, err
		}
		p.Tables = append(p.Tables, pt)
	}
	for _, s := range w.init {
		p.Init = append(p.Init, substitute(s.SQL, w.lookup))
	}
	for k, name := range w.sc.names {
		v := ProgramVar{Name: name}
		if k < len(w.consts) && w.consts[k].set {
			v.Value = literal(w.consts[k].v)
		}
		p.Vars = append(p.Vars, v)
	}
	for k := range w.ops {
		of := ""
		if k < len(w.parts) {
			of = w.parts[k]
		}
		p.Of = append(p.Of, of)
	}
	stmts := map[*stmtRun]int{}
	for k, s := range w.stmts {
		stmts[s] = k
		q := s.s.SQL
		if alt, ok := s.s.dialects[d.Name()]; ok {
			q = alt
		}
		p.Statements = append(p.Statements, ProgramStmt{SQL: render(q, scanParams(q), d), Binds: append([]int{}, s.binds...),
			Into: s.into, Read: s.read, At: s.s.Pos.String()})
	}
	x := &exporter{tables: tables}
	for _, t := range w.txns {
		pt := ProgramTxn{Name: t.name}
		for _, st := range t.steps {
			ps := ProgramStep{Kind: stepKinds[st.kind], At: st.src.pos.String(), Part: st.part}
			switch st.kind {
			case sSet:
				ps.Var, ps.Expr = st.slot, x.expr(st.e)
			case sSleep:
				ps.Expr, ps.UnitNS = x.expr(st.e), st.unit
			case sSQL:
				ps.Stmt = stmts[st.stmt]
			case sBegin:
				ps.Read = st.read
			case sTable:
				op := st.top
				ps.Op = &ProgramOp{Op: opNamesByKind[op.kind], Table: tables[op.t], SQL: op.sql(d), Keys: op.dist, Batch: op.batch, Bind: op.bind}
				if op.zipf != nil {
					ps.Op.Theta = thetaOf(op.t, op.zipf)
				}
			case sNative:
				n := st.nat
				ps.Op = &ProgramOp{Op: n.name, Table: tables[n.t], SQL: n.render(d), Depth: n.depth, Page: n.page}
			}
			pt.Steps = append(pt.Steps, ps)
		}
		p.Transactions = append(p.Transactions, pt)
	}
	if x.err != nil {
		return nil, x.err
	}
	if w.ins != nil {
		p.Insert = &ProgramInsert{Table: tables[w.ins.t], Rows: w.ins.rows, Workers: w.ins.workers, Vacuum: w.ins.vacuum}
	} else {
		c := w.cfg
		p.Load = &ProgramLoad{DurationNS: int64(c.Duration), Count: c.Count, WarmupNS: int64(c.Warmup), Rate: c.Rate,
			Arrivals: string(c.Arrivals), MaxInflight: c.MaxInflight, Roles: c.Roles, Mix: w.mixWeights()}
		if p.Load.Arrivals == "" {
			p.Load.Arrivals = "uniform"
		}
	}
	for _, c := range w.checks {
		kind := map[int]string{expectEq: "eq", expectCmp: "cmp", expectUnchanged: "unchanged", expectEmpty: "empty"}[c.kind]
		p.Checks = append(p.Checks, ProgramCheck{Name: c.c.Name, SQL: c.sql, Expect: kind, Cmp: c.op, Want: c.want, At: c.c.Pos.String()})
	}
	return p, nil
}

// ProgramJSON is the cell's program for a dialect, as JSON.
func (w *Workload) ProgramJSON(d dialect.Dialect) (json.RawMessage, error) {
	p, err := w.Program(d)
	if err != nil {
		return nil, err
	}
	return json.Marshal(p)
}

// mixWeights are the [mix]'s weights in its order, or 1 each.
func (w *Workload) mixWeights() []ProgramWeight {
	var out []ProgramWeight
	if !w.f.hasMix {
		for k := range w.f.Txns {
			out = append(out, ProgramWeight{Txn: k, Weight: 1})
		}
		return out
	}
	for _, m := range w.f.mix {
		x, _ := m.weight.number(w.params, "weight of "+m.name) // checked by Resolve
		out = append(out, ProgramWeight{Txn: w.txnIndex(m.name), Weight: x})
	}
	return out
}

func programTable(t *tableRun, d dialect.Dialect) (ProgramTable, error) {
	sc := t.schema
	pt := ProgramTable{Name: sc.Table, Rows: t.rows, Create: t.create}
	if len(pt.Create) == 0 {
		pt.Create = d.Create(sc.DDL)
	}
	for k, c := range sc.Gen.Columns() {
		args, err := json.Marshal(c.Gen)
		if err != nil {
			return pt, err
		}
		typ := "int"
		if sc.Gen.IsText(k) {
			typ = "text"
		}
		pt.Columns = append(pt.Columns, ProgramColumn{Name: c.Name, Kind: c.Gen.Kind(), Type: typ, Args: args})
	}
	pt.Update = []int{}
	for _, u := range sc.UpdateCols {
		for k, c := range sc.Columns {
			if c == u {
				pt.Update = append(pt.Update, k)
			}
		}
	}
	return pt, nil
}

// thetaOf is the theta a table's zipfian was prepared with.
func thetaOf(t *tableRun, z *gen.Zipf) float64 {
	for theta, x := range t.zipfs {
		if x == z {
			return theta
		}
	}
	return 0
}

// literal is a value as an expression.
func literal(v value) *Expr {
	switch v.k {
	case vInt:
		return &Expr{Op: "int", V: strconv.FormatInt(v.i, 10)}
	case vFloat:
		return &Expr{Op: "float", F: v.f}
	case vBool:
		return &Expr{Op: "bool", B: v.i != 0}
	case vText:
		return &Expr{Op: "text", S: string(v.s)}
	}
	return &Expr{Op: "null"}
}

type exporter struct {
	tables map[*tableRun]int
	err    error
}

func (x *exporter) exprs(ns []enode) []*Expr {
	out := make([]*Expr, len(ns))
	for k, n := range ns {
		out[k] = x.expr(n)
	}
	return out
}

func (x *exporter) expr(n enode) *Expr {
	switch n := n.(type) {
	case *litNode:
		return literal(n.v)
	case *varNode:
		return &Expr{Op: "var", Slot: n.slot, Name: n.name, At: n.pos.String()}
	case *unaryNode:
		return &Expr{Op: "unary", Fn: n.op, A: x.exprs([]enode{n.a}), At: n.pos.String()}
	case *binaryNode:
		return &Expr{Op: "binary", Fn: n.op, A: x.exprs([]enode{n.a, n.b}), At: n.pos.String()}
	case *isNode:
		return &Expr{Op: "is", Fn: n.what, Not: n.not, A: x.exprs([]enode{n.a}), At: n.pos.String()}
	case *caseNode:
		e := &Expr{Op: "case", At: n.pos.String()}
		for k := range n.whens {
			e.A = append(e.A, x.expr(n.whens[k]), x.expr(n.thens[k]))
		}
		if n.els != nil {
			e.Else = x.expr(n.els)
		}
		return e
	case *callNode:
		e := &Expr{Op: "call", Fn: n.name, A: x.exprs(n.args), At: n.pos.String()}
		if n.table != nil {
			e.Table = x.tables[n.table]
			if n.name == "key" {
				e.Dist = n.dist
				if n.zipf != nil {
					e.Theta = thetaOf(n.table, n.zipf)
				}
			}
		}
		return e
	}
	if x.err == nil {
		x.err = fmt.Errorf("program: expression %T has no program form", n)
	}
	return &Expr{Op: "null"}
}
