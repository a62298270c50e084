package spec

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"github.com/litebench/litebench/internal/gen"
)

// Values of the expression language: NULL, booleans, 64-bit integers,
// doubles, and text (variables set from a statement's results or from a
// text function). Text bytes belong to whoever made the value (a
// variable's buffer, a call's scratch buffer); an assignment copies them.
type vkind uint8

const (
	vNull vkind = iota + 1
	vBool
	vInt
	vFloat
	vText
)

type value struct {
	k vkind
	i int64 // vInt; vBool is 0 or 1
	f float64
	s []byte
}

func ival(i int64) value   { return value{k: vInt, i: i} }
func fval(f float64) value { return value{k: vFloat, f: f} }
func bval(b bool) value    { return value{k: vBool, i: b2i(b)} }

// str is the value's text form (pgbench's): for messages and templates.
func (v value) str() string {
	switch v.k {
	case vNull:
		return "NULL"
	case vBool:
		if v.i != 0 {
			return "true"
		}
		return "false"
	case vInt:
		return strconv.FormatInt(v.i, 10)
	case vFloat:
		return strconv.FormatFloat(v.f, 'g', -1, 64)
	}
	return string(v.s)
}

// textValue parses text the way pgbench reads a variable: an integer, else
// a double, else it stays text.
func textValue(s []byte) value {
	if n, ok := canonInt(s); ok {
		return ival(n)
	}
	return value{k: vText, s: s}
}

// canonInt parses s as a decimal integer written without leading zeros
// or a plus sign (so that reading it as an integer loses nothing), without
// allocating.
func canonInt(s []byte) (int64, bool) {
	neg := len(s) > 0 && s[0] == '-'
	d := s
	if neg {
		d = s[1:]
	}
	if len(d) == 0 || len(d) > 19 || (d[0] == '0' && len(d) > 1) || (neg && d[0] == '0') {
		return 0, false
	}
	var u uint64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	switch {
	case neg && u <= 1<<63:
		return int64(-u), true
	case !neg && u < 1<<63:
		return int64(u), true
	}
	return 0, false
}

func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// slot is a variable of an executor.
type slot struct {
	v   value
	buf []byte
	set bool
}

// assign stores v, copying text into the variable's own buffer.
func (s *slot) assign(v value) {
	if v.k == vText {
		s.buf = append(s.buf[:0], v.s...)
		v.s = s.buf
	}
	s.v, s.set = v, true
}

// ectx is what an expression evaluates against: one executor's variables,
// its random numbers and scratch space.
type ectx struct {
	vars []slot
	rng  gen.SplitMix
	bufs [][]byte
}

// uniform draws a double in [0, 1) from the executor's sequence.
func (x *ectx) uniform() float64 { return gen.Unit(x.rng.Next()) }

// scope names variables: every name a workload's steps use gets a slot,
// shared by all its transactions (as pgbench's per-client variables).
type scope struct {
	slots map[string]int
	names []string
	// set marks variables that some step assigns, or that are given
	// (parameters, -D, built-in variables).
	set map[string]bool
	// bufs counts the scratch buffers calls need.
	bufs int
	// tables resolves table names for key() and rows().
	tables map[string]*tableRun
	// dash lets variable names hold dashes (parameter templates).
	dash bool
}

func newScope() *scope {
	return &scope{slots: map[string]int{}, set: map[string]bool{}, tables: map[string]*tableRun{}}
}

func (sc *scope) slot(name string) int {
	if i, ok := sc.slots[name]; ok {
		return i
	}
	sc.slots[name] = len(sc.names)
	sc.names = append(sc.names, name)
	return len(sc.names) - 1
}

// enode is a compiled expression.
type enode interface {
	eval(x *ectx) (value, error)
}

type evalError struct {
	pos Pos
	msg string
}

func (e *evalError) Error() string { return e.pos.String() + ": " + e.msg }

func failf(p Pos, format string, a ...any) error {
	return &evalError{p, fmt.Sprintf(format, a...)}
}

type litNode struct{ v value }

func (n *litNode) eval(*ectx) (value, error) { return n.v, nil }

type varNode struct {
	slot int
	name string
	pos  Pos
}

func (n *varNode) eval(x *ectx) (value, error) {
	s := &x.vars[n.slot]
	if !s.set {
		return value{}, failf(n.pos, "variable :%s is not set", n.name)
	}
	return s.v, nil
}

type unaryNode struct {
	op  string
	a   enode
	pos Pos
}

func (n *unaryNode) eval(x *ectx) (value, error) {
	a, err := n.a.eval(x)
	if err != nil {
		return a, err
	}
	if a.k == vNull {
		return a, nil
	}
	switch n.op {
	case "not":
		b, err := toBool(a, n.pos)
		return bval(!b), err
	case "~":
		i, err := toInt(a, n.pos)
		return ival(^i), err
	}
	a, err = toNumber(a, n.pos)
	if err != nil {
		return a, err
	}
	if a.k == vFloat {
		return fval(-a.f), nil
	}
	if a.i == math.MinInt64 {
		return a, failf(n.pos, "bigint out of range")
	}
	return ival(-a.i), nil
}

type binaryNode struct {
	op   string
	a, b enode
	pos  Pos
}

func (n *binaryNode) eval(x *ectx) (value, error) {
	a, err := n.a.eval(x)
	if err != nil {
		return a, err
	}
	switch n.op {
	case "and", "or":
		return n.logic(x, a)
	}
	b, err := n.b.eval(x)
	if err != nil {
		return b, err
	}
	if a.k == vNull || b.k == vNull {
		return value{k: vNull}, nil
	}
	switch n.op {
	case "|", "#", "&", "<<", ">>":
		ai, err := toInt(a, n.pos)
		if err != nil {
			return a, err
		}
		bi, err := toInt(b, n.pos)
		if err != nil {
			return b, err
		}
		switch n.op {
		case "|":
			return ival(ai | bi), nil
		case "#":
			return ival(ai ^ bi), nil
		case "&":
			return ival(ai & bi), nil
		case "<<":
			return ival(ai << uint64(bi&63)), nil
		}
		return ival(ai >> uint64(bi&63)), nil
	}
	if a, err = toNumber(a, n.pos); err != nil {
		return a, err
	}
	if b, err = toNumber(b, n.pos); err != nil {
		return b, err
	}
	if a.k == vInt && b.k == vInt {
		return n.ints(a.i, b.i)
	}
	af, bf := a.f, b.f
	if a.k == vInt {
		af = float64(a.i)
	}
	if b.k == vInt {
		bf = float64(b.i)
	}
	switch n.op {
	case "+":
		return fval(af + bf), nil
	case "-":
		return fval(af - bf), nil
	case "*":
		return fval(af * bf), nil
	case "/":
		return fval(af / bf), nil
	case "%":
		return a, failf(n.pos, "%% wants integers")
	}
	return cmp(n.op, compareFloat(af, bf)), nil
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmp(op string, c int) value {
	switch op {
	case "=":
		return bval(c == 0)
	case "<>", "!=":
		return bval(c != 0)
	case "<":
		return bval(c < 0)
	case "<=":
		return bval(c <= 0)
	case ">":
		return bval(c > 0)
	}
	return bval(c >= 0)
}

func (n *binaryNode) ints(a, b int64) (value, error) {
	switch n.op {
	case "+":
		s := a + b
		if (a >= 0) == (b >= 0) && (s >= 0) != (a >= 0) {
			return value{}, failf(n.pos, "bigint out of range")
		}
		return ival(s), nil
	case "-":
		d := a - b
		if (a >= 0) != (b >= 0) && (d >= 0) != (a >= 0) {
			return value{}, failf(n.pos, "bigint out of range")
		}
		return ival(d), nil
	case "*":
		p := a * b
		if a != 0 && (p/a != b || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64)) {
			return value{}, failf(n.pos, "bigint out of range")
		}
		return ival(p), nil
	case "/", "%":
		if b == 0 {
			return value{}, failf(n.pos, "division by zero")
		}
		if b == -1 {
			if n.op == "%" {
				return ival(0), nil
			}
			if a == math.MinInt64 {
				return value{}, failf(n.pos, "bigint out of range")
			}
			return ival(-a), nil
		}
		if n.op == "/" {
			return ival(a / b), nil
		}
		return ival(a % b), nil
	}
	c := 0
	if a < b {
		c = -1
	} else if a > b {
		c = 1
	}
	return cmp(n.op, c), nil
}

// logic is AND and OR with SQL's three values: b is evaluated only when a
// does not decide.
func (n *binaryNode) logic(x *ectx, a value) (value, error) {
	and := n.op == "and"
	if a.k != vNull {
		ab, err := toBool(a, n.pos)
		if err != nil {
			return a, err
		}
		if ab != and {
			return bval(ab), nil
		}
	}
	b, err := n.b.eval(x)
	if err != nil {
		return b, err
	}
	if b.k == vNull {
		return value{k: vNull}, nil
	}
	bb, err := toBool(b, n.pos)
	if err != nil {
		return b, err
	}
	if a.k == vNull {
		if bb != and {
			return bval(bb), nil
		}
		return value{k: vNull}, nil
	}
	return bval(bb), nil
}

type isNode struct {
	what string
	not  bool
	a    enode
	pos  Pos
}

func (n *isNode) eval(x *ectx) (value, error) {
	a, err := n.a.eval(x)
	if err != nil {
		return a, err
	}
	var r bool
	switch n.what {
	case "null":
		r = a.k == vNull
	default:
		if a.k != vNull {
			b, err := toBool(a, n.pos)
			if err != nil {
				return a, err
			}
			r = b == (n.what == "true")
		}
	}
	return bval(r != n.not), nil
}

type caseNode struct {
	whens, thens []enode
	els          enode
	pos          Pos
}

func (n *caseNode) eval(x *ectx) (value, error) {
	for i, w := range n.whens {
		c, err := w.eval(x)
		if err != nil {
			return c, err
		}
		if c.k == vNull {
			continue
		}
		b, err := toBool(c, n.pos)
		if err != nil {
			return c, err
		}
		if b {
			return n.thens[i].eval(x)
		}
	}
	if n.els != nil {
		return n.els.eval(x)
	}
	return value{k: vNull}, nil
}

func toBool(v value, p Pos) (bool, error) {
	switch v.k {
	case vBool, vInt:
		return v.i != 0, nil
	case vFloat:
		return v.f != 0, nil
	case vText:
		switch strings.ToLower(unsafeString(v.s)) {
		case "true", "t", "yes", "on", "1":
			return true, nil
		case "false", "f", "no", "off", "0":
			return false, nil
		}
	}
	return false, failf(p, "%q is not a boolean", v.str())
}

// toNumber reads an integer or a double out of v (text is parsed).
func toNumber(v value, p Pos) (value, error) {
	switch v.k {
	case vInt, vFloat:
		return v, nil
	case vBool:
		return v, failf(p, "a boolean is not a number")
	case vText:
		s := strings.TrimSpace(unsafeString(v.s))
		if n, ok := canonInt([]byte(s)); ok {
			return ival(n), nil
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return fval(f), nil
		}
		return v, failf(p, "%q is not a number", s)
	}
	return v, failf(p, "NULL is not a number")
}

func toInt(v value, p Pos) (int64, error) {
	v, err := toNumber(v, p)
	if err != nil {
		return 0, err
	}
	if v.k == vFloat {
		if math.IsNaN(v.f) || v.f < -9.2233720368547758e18 || v.f >= 9.2233720368547758e18 {
			return 0, failf(p, "%v is out of range for an integer", v.f)
		}
		return int64(v.f), nil
	}
	return v.i, nil
}

func toFloat(v value, p Pos) (float64, error) {
	v, err := toNumber(v, p)
	if err != nil {
		return 0, err
	}
	if v.k == vInt {
		return float64(v.i), nil
	}
	return v.f, nil
}

// compileExpr turns a parsed expression into an evaluable one, resolving
// variables to slots and functions to their code.
func compileExpr(a *ast, sc *scope) (enode, error) {
	switch a.kind {
	case aInt:
		return &litNode{ival(a.i)}, nil
	case aFloat:
		return &litNode{fval(a.f)}, nil
	case aBool:
		return &litNode{bval(a.i != 0)}, nil
	case aNull:
		return &litNode{value{k: vNull}}, nil
	case aStr:
		return &litNode{value{k: vText, s: []byte(a.s)}}, nil
	case aVar:
		return &varNode{slot: sc.slot(a.op), name: a.op, pos: a.pos}, nil
	case aIdent:
		return nil, errorf(a.pos, "unexpected name %q: write a variable as :%s, or call a function with ()", a.op, a.op)
	case aList:
		return nil, errorf(a.pos, "a [list] is only an argument of choice()")
	case aUnary:
		x, err := compileExpr(a.args[0], sc)
		return &unaryNode{op: a.op, a: x, pos: a.pos}, err
	case aBinary:
		l, err := compileExpr(a.args[0], sc)
		if err != nil {
			return nil, err
		}
		r, err := compileExpr(a.args[1], sc)
		return &binaryNode{op: a.op, a: l, b: r, pos: a.pos}, err
	case aIs:
		x, err := compileExpr(a.args[0], sc)
		return &isNode{what: a.op, not: a.i == 1, a: x, pos: a.pos}, err
	case aCase:
		c := &caseNode{pos: a.pos}
		args := a.args
		if a.els {
			e, err := compileExpr(args[len(args)-1], sc)
			if err != nil {
				return nil, err
			}
			c.els, args = e, args[:len(args)-1]
		}
		for i := 0; i < len(args); i += 2 {
			w, err := compileExpr(args[i], sc)
			if err != nil {
				return nil, err
			}
			t, err := compileExpr(args[i+1], sc)
			if err != nil {
				return nil, err
			}
			c.whens, c.thens = append(c.whens, w), append(c.thens, t)
		}
		return c, nil
	case aCall:
		return compileCall(a, sc)
	}
	return nil, errorf(a.pos, "unexpected expression")
}

// evalConst evaluates an expression that uses no variable or random
// function (a parameter template), with vars holding the given values.
func evalConst(e enode, vars []slot) (value, error) {
	x := &ectx{vars: vars}
	v, err := e.eval(x)
	var ee *evalError
	if errors.As(err, &ee) {
		return v, &Error{Pos: ee.pos, Msg: ee.msg}
	}
	return v, err
}
