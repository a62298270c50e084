package spec

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/gen"
)

// A Program is a resolved workload (one sweep cell of a workload file or
// of pgbench scripts) compiled into plain data for a worker written in
// another language: everything the parser, templates, resolver and
// dialect decide is done; what is left is what a worker does at run time.
// docs/workload-program.md specifies every member and its semantics.
type Program struct {
	Version int    `json:"version"`
	Name    string `json:"name"`
	// Seed is the run's seed, a decimal string (it may pass 2^53).
	Seed   string         `json:"seed"`
	Tables []ProgramTable `json:"tables"`
	// Init is SQL run once at set-up after the tables are loaded.
	Init []string `json:"init,omitempty"`
	// Vars are the worker's variables, by slot; Value is the value every
	// worker starts with (a literal expression), absent when unset.
	Vars []ProgramVar `json:"vars"`
	// ClientID is the slot of :client_id; Scale the slot of :scale when
	// the worker derives it (rows of pgbench_branches, else 1), or -1.
	ClientID int `json:"client_id"`
	Scale    int `json:"scale"`
	// Statements are the SQL statements steps run, rendered for the
	// engine with positional parameters.
	Statements   []ProgramStmt `json:"statements"`
	Transactions []ProgramTxn  `json:"transactions"`
	// Ops are the result names: the transactions (index = transaction),
	// then the statements with results of their own; Of[k] names the
	// transaction op k is a part of ("" for a transaction).
	Ops    []string       `json:"ops"`
	Of     []string       `json:"of"`
	Load   *ProgramLoad   `json:"load,omitempty"`
	Insert *ProgramInsert `json:"insert,omitempty"`
	Checks []ProgramCheck `json:"checks,omitempty"`
}

// ProgramVersion is the version of the program's format.
const ProgramVersion = 1

// CapProgram is the capability a worker announces in hello when it runs
// programs.
const CapProgram = "program"

// NoProgram is the refusal of a workload file for a target whose worker
// does not run programs.
func NoProgram(target string) error {
	return fmt.Errorf("%s cannot run workload files or scripts: its worker does not run workload programs (no %q capability; docs/workload-program.md); run the file on another target", target, CapProgram)
}

// ProgramTable is a table of the run, in creation order.
type ProgramTable struct {
	Name string `json:"name"`
	// Rows are loaded at set-up: row i of every column's generator under
	// the program's seed.
	Rows   int64    `json:"rows"`
	Create []string `json:"create"`
	// Columns in order: the first is the key.
	Columns []ProgramColumn `json:"columns"`
	// Update are the indexes of the columns an update rewrites.
	Update []int `json:"update"`
}

// ProgramColumn is a column and its generator, as testdata/vectors.json
// of internal/gen writes them: kind and args (docs/data-generation.md §3).
type ProgramColumn struct {
	Name string          `json:"name"`
	Kind string          `json:"kind"`
	Type string          `json:"type"` // int or text
	Args json.RawMessage `json:"args"`
}

// ProgramVar is a variable slot.
type ProgramVar struct {
	Name  string `json:"name"`
	Value *Expr  `json:"value,omitempty"`
}

// ProgramStmt is an SQL statement of the steps.
type ProgramStmt struct {
	SQL string `json:"sql"`
	// Binds are the variable slot of each positional parameter.
	Binds []int `json:"binds"`
	// Into are the slots the first row's columns go to (\gset, into).
	Into []int `json:"into,omitempty"`
	// Read: a query (SELECT, VALUES, EXPLAIN), run on the read pool
	// outside a transaction.
	Read bool   `json:"read,omitempty"`
	At   string `json:"at"`
}

// ProgramTxn is a transaction: an op kind, its steps.
type ProgramTxn struct {
	Name  string        `json:"name"`
	Steps []ProgramStep `json:"steps"`
}

// ProgramStep is one step; Kind says which members are set.
type ProgramStep struct {
	// Kind: set, sleep, sql, begin, commit, rollback, table, native.
	Kind string `json:"kind"`
	At   string `json:"at"`
	// Part is the op index of the step's own result, -1 for none.
	Part int `json:"part"`
	// set: Var := Expr; sleep: Expr × UnitNS nanoseconds.
	Var    int   `json:"var,omitempty"`
	Expr   *Expr `json:"expr,omitempty"`
	UnitNS int64 `json:"unit_ns,omitempty"`
	// sql: the statement's index.
	Stmt int `json:"stmt,omitempty"`
	// begin: the transaction only reads (runs on the read pool).
	Read bool `json:"read,omitempty"`
	// table, native: the operation.
	Op *ProgramOp `json:"op,omitempty"`
}

// ProgramOp is a table operation (read, insert, update, upsert) or a
// native one (scan_verify, paginate_offset, paginate_keyset).
type ProgramOp struct {
	Op    string `json:"op"`
	Table int    `json:"table"`
	SQL   string `json:"sql"`
	// Keys picks rows (uniform, zipfian, latest) with Theta.
	Keys  string  `json:"keys,omitempty"`
	Theta float64 `json:"theta,omitempty"`
	// Batch is how many rows a write writes (one transaction when more
	// than one).
	Batch int `json:"batch,omitempty"`
	// Bind, for a statement of the file's: each parameter's column index
	// in the row, -1 for the row's key.
	Bind []int `json:"bind,omitempty"`
	// Depth and Page of a paginate operation.
	Depth int64 `json:"depth,omitempty"`
	Page  int64 `json:"page,omitempty"`
}

// ProgramLoad is the load model of a workload of transactions.
type ProgramLoad struct {
	DurationNS int64   `json:"duration_ns"`
	Count      int64   `json:"count"`
	WarmupNS   int64   `json:"warmup_ns"`
	Rate       float64 `json:"rate"`
	Arrivals   string  `json:"arrivals"`
	// MaxInflight bounds the open loop's executors.
	MaxInflight int `json:"max_inflight"`
	// Roles is the closed loop: one worker per entry, running that
	// transaction, or -1 to choose each operation by the mix.
	Roles []int `json:"roles"`
	// Mix is the weights in their order.
	Mix []ProgramWeight `json:"mix"`
}

// ProgramWeight is a transaction's weight.
type ProgramWeight struct {
	Txn    int     `json:"txn"`
	Weight float64 `json:"weight"`
}

// ProgramInsert is a workload that measures loading a table.
type ProgramInsert struct {
	Table   int   `json:"table"`
	Rows    int64 `json:"rows"`
	Workers int   `json:"workers"`
	Vacuum  bool  `json:"vacuum"`
}

// ProgramCheck is an invariant read after the run.
type ProgramCheck struct {
	Name string `json:"name"`
	SQL  string `json:"sql"`
	// Expect: eq, cmp (Cmp names the comparison), unchanged, empty.
	Expect string `json:"expect"`
	Cmp    string `json:"cmp,omitempty"`
	Want   string `json:"want,omitempty"`
	At     string `json:"at"`
}

// Expr is an expression: Op says which members are set.
//
//	int (V, decimal string), float (F), bool (B), null, text (S)
//	var (Slot, Name)
//	unary (Fn: - ~ not; A[0]), binary (Fn; A[0], A[1]),
//	is (Fn: null, true, false; Not; A[0]), case (A: when, then, …; Else)
//	call (Fn; A; Table, Dist, Theta for key() and rows())
type Expr struct {
	Op    string  `json:"op"`
	V     string  `json:"v,omitempty"`
	F     float64 `json:"f,omitempty"`
	B     bool    `json:"b,omitempty"`
	S     string  `json:"s,omitempty"`
	Slot  int     `json:"slot,omitempty"`
	Name  string  `json:"name,omitempty"`
	Fn    string  `json:"fn,omitempty"`
	Not   bool    `json:"not,omitempty"`
	A     []*Expr `json:"a,omitempty"`
	Else  *Expr   `json:"else,omitempty"`
	Table int     `json:"table,omitempty"`
	Dist  string  `json:"dist,omitempty"`
	Theta float64 `json:"theta,omitempty"`
	At    string  `json:"at,omitempty"`
}

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
