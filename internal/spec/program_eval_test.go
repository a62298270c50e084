package spec

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/gen"
	"github.com/litebench/litebench/internal/workload"
)

// An Evaluator is one worker's state for running a Program from its data
// alone, tables included (their generators read back from the program's
// JSON): the tests' reference runner of programs, built on the
// executor's own loader of expressions. The tests compare its content
// digests with the Go worker's and write the expression vectors and the
// runner cases from it.
type Evaluator struct {
	p      *Program
	seed   uint64
	x      ectx
	tables []*tableRun
	l      *exprLoader
}

// NewEvaluator prepares worker's variables, its random sequence and the
// program's tables (their rows as loaded at set-up).
func NewEvaluator(p *Program, worker int) (*Evaluator, error) {
	var seed uint64
	if _, err := fmt.Sscan(p.Seed, &seed); err != nil {
		return nil, fmt.Errorf("program seed %q: %v", p.Seed, err)
	}
	e := &Evaluator{p: p, seed: seed}
	for _, t := range p.Tables {
		sc, err := tableSchema(t)
		if err != nil {
			return nil, err
		}
		e.tables = append(e.tables, &tableRun{schema: sc, rows: t.Rows, seed: seed, zipfs: map[float64]*gen.Zipf{}, claims: newClaims(t.Rows, 1)})
	}
	e.l = &exprLoader{tables: e.tables, nodes: map[*Expr]enode{}}
	e.x.vars = make([]slot, len(p.Vars))
	for k, v := range p.Vars {
		if v.Value != nil {
			n, err := e.node(v.Value)
			if err != nil {
				return nil, err
			}
			val, _ := n.eval(&e.x)
			e.x.vars[k].assign(val)
		}
	}
	e.x.vars[p.ClientID].assign(ival(int64(worker)))
	if p.Scale >= 0 {
		e.x.vars[p.Scale].assign(ival(1))
	}
	e.x.rng = gen.SplitMix{State: gen.Draw(seed, gen.StreamKeys, uint64(worker)+1)}
	return e, nil
}

// Eval evaluates x: nil (NULL), bool, int64, float64 or string.
func (e *Evaluator) Eval(x *Expr) (any, error) {
	n, err := e.node(x)
	if err != nil {
		return nil, err
	}
	v, err := n.eval(&e.x)
	if err != nil {
		return nil, err
	}
	return v.export(), nil
}

// export is the value as a Go value.
func (v value) export() any {
	switch v.k {
	case vBool:
		return v.i != 0
	case vInt:
		return v.i
	case vFloat:
		return v.f
	case vText:
		return string(v.s)
	}
	return nil
}

// Set assigns variable slot a value Eval returned (nil is NULL).
func (e *Evaluator) Set(slot int, v any) {
	switch v := v.(type) {
	case nil:
		e.x.vars[slot].assign(value{k: vNull})
	case int64:
		e.x.vars[slot].assign(ival(v))
	case float64:
		e.x.vars[slot].assign(fval(v))
	case bool:
		e.x.vars[slot].assign(bval(v))
	case string:
		e.x.vars[slot].assign(value{k: vText, s: []byte(v)})
	}
}

// SetText assigns variable slot a column's text as \gset reads it: an
// integer written plainly is an integer.
func (e *Evaluator) SetText(slot int, s string) { e.x.vars[slot].assign(textValue([]byte(s))) }

// Var is variable slot's value and whether it is set.
func (e *Evaluator) Var(slot int) (any, bool) {
	s := e.x.vars[slot]
	return s.v.export(), s.set
}

// State is the worker's random sequence's state (a retried transaction
// starts again from the state it began with).
func (e *Evaluator) State() uint64 { return e.x.rng.State }

// Rewind sets the sequence's state.
func (e *Evaluator) Rewind(s uint64) { e.x.rng.State = s }

// NextKey is the row index a table operation picks among n rows.
func (e *Evaluator) NextKey(table int, dist string, theta float64, n int64) int64 {
	var z *gen.Zipf
	if dist != gen.KeysUniform {
		z = e.tables[table].zipf(theta)
	}
	return nextKey(&e.x, dist, z, n)
}

// Visible is how many rows of a table exist now; Inserted records n rows
// inserted past them (one worker: every insert is committed when it
// returns).
func (e *Evaluator) Visible(table int) int64 { return e.tables[table].claims.visible.Load() }

// Claim reserves n new rows of a table and returns the first.
func (e *Evaluator) Claim(table, n int) int64 {
	c := e.tables[table].claims
	first := c.claim(0, n)
	c.release(0)
	return first
}

// Row is row i of a table under seed; Key its key.
func (e *Evaluator) Row(table int, seed uint64, i int64) []any {
	sc := e.tables[table].schema
	row := make([]any, len(sc.Columns))
	var a workload.Arena
	sc.Row(seed, i, row, &a)
	return row
}

// Key is row i's key.
func (e *Evaluator) Key(table int, i int64) any {
	var a workload.Arena
	return e.tables[table].schema.Key(e.seed, i, &a)
}

// Seed is the program's seed.
func (e *Evaluator) Seed() uint64 { return e.seed }

// node compiles x (once) with the executor's loader.
func (e *Evaluator) node(x *Expr) (enode, error) {
	n, err := e.l.node(x)
	for len(e.x.bufs) < e.l.bufs {
		e.x.bufs = append(e.x.bufs, nil)
	}
	return n, err
}

// IsEvalError says whether err is an expression's failure (which stops a
// run) rather than the database's.
func IsEvalError(err error) bool {
	var ee *evalError
	return errors.As(err, &ee)
}

// tableSchema builds the table's schema from its program form.
func tableSchema(t ProgramTable) (*workload.Schema, error) {
	var cols []gen.Column
	ddl := dialect.Table{Name: t.Name}
	for _, c := range t.Columns {
		g, err := decodeGen(c.Kind, c.Args)
		if err != nil {
			return nil, fmt.Errorf("table %s column %s: %v", t.Name, c.Name, err)
		}
		cols = append(cols, gen.Column{Name: c.Name, Gen: g})
		ddl.Columns = append(ddl.Columns, dialect.Column{Name: c.Name})
	}
	gt, err := gen.Compile(cols)
	if err != nil {
		return nil, fmt.Errorf("table %s: %v", t.Name, err)
	}
	var update []string
	for _, k := range t.Update {
		update = append(update, t.Columns[k].Name)
	}
	return workload.NewSchema(ddl, update, gt), nil
}

// decodeGen reads a generator from its kind and JSON arguments.
func decodeGen(kind string, args json.RawMessage) (gen.Generator, error) {
	d, ok := genDecoders[kind]
	if !ok {
		return nil, fmt.Errorf("unknown generator %q", kind)
	}
	return d(args)
}

var genDecoders = map[string]func(json.RawMessage) (gen.Generator, error){
	"seq": decodeAs[gen.Seq], "uniform_int": decodeAs[gen.UniformInt], "zipf_int": decodeAs[gen.ZipfInt],
	"latest_int": decodeAs[gen.LatestInt], "const_int": decodeAs[gen.ConstInt], "timestamp": decodeAs[gen.Timestamp],
	"hex": decodeAs[gen.Hex], "letters": decodeAs[gen.Letters], "text": decodeAs[gen.Text], "uuid4": decodeAs[gen.UUID4],
	"sha256_of": decodeAs[gen.SHA256Of], "choice": decodeAs[gen.Choice], "const": decodeAs[gen.Const], "seq_text": decodeAs[gen.SeqText],
}

func decodeAs[T gen.Generator](args json.RawMessage) (gen.Generator, error) {
	var x T
	err := json.Unmarshal(args, &x)
	return x, err
}
