package spec

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/litebench/litebench/internal/gen"
)

// callNode is a function call. Its code gets the evaluated arguments in
// args (a buffer of the node's own, so that nothing is allocated).
type callNode struct {
	name string
	fn   func(x *ectx, n *callNode) (value, error)
	args []enode
	pos  Pos
	// buf is the scratch buffer of a function that makes text.
	buf int
	// The table of key() and rows(), and key()'s distribution.
	table *tableRun
	dist  string
	zipf  *gen.Zipf
}

// A call node holds nothing that changes while it runs (scratch space is
// the executor's, x.bufs[buf]), so the executors of a run share it.
func (n *callNode) eval(x *ectx) (value, error) { return n.fn(x, n) }

func (n *callNode) arg(x *ectx, i int) (value, error) {
	v, err := n.args[i].eval(x)
	if err == nil && v.k == vNull {
		return v, failf(n.pos, "%s(): argument %d is NULL", n.name, i+1)
	}
	return v, err
}

func (n *callNode) intArg(x *ectx, i int) (int64, error) {
	v, err := n.arg(x, i)
	if err != nil {
		return 0, err
	}
	return toInt(v, n.pos)
}

func (n *callNode) floatArg(x *ectx, i int) (float64, error) {
	v, err := n.arg(x, i)
	if err != nil {
		return 0, err
	}
	return toFloat(v, n.pos)
}

type funcDef struct {
	min, max int // arity; max -1 for any number
	fn       func(x *ectx, n *callNode) (value, error)
	text     bool // makes text: needs a scratch buffer
	help     string
}

// funcs are the functions of expressions: pgbench's, then litebench's own.
var funcs map[string]*funcDef

// unsupported are pgbench functions litebench refuses, with the reason.
var unsupported = map[string]string{
	"debug":   "it prints on every transaction; remove it",
	"permute": "not implemented; use hash() or random()",
}

func init() {
	funcs = map[string]*funcDef{
		"abs":                {1, 1, fnAbs, false, "absolute value"},
		"double":             {1, 1, fnDouble, false, "to a double"},
		"int":                {1, 1, fnInt, false, "to an integer, toward zero"},
		"exp":                {1, 1, fnMath(gen.Exp), false, "e to the power x"},
		"ln":                 {1, 1, fnMath(gen.Log), false, "natural logarithm"},
		"sqrt":               {1, 1, fnMath(math.Sqrt), false, "square root"},
		"pow":                {2, 2, fnPow, false, "x to the power y"},
		"power":              {2, 2, fnPow, false, "x to the power y"},
		"pi":                 {0, 0, fnPi, false, "π"},
		"greatest":           {1, -1, fnExtreme(1), false, "largest argument"},
		"least":              {1, -1, fnExtreme(-1), false, "smallest argument"},
		"mod":                {2, 2, fnMod, false, "remainder"},
		"hash":               {1, 2, fnMurmur2, false, "hash_murmur2"},
		"hash_murmur2":       {1, 2, fnMurmur2, false, "MurmurHash2 of an integer"},
		"hash_fnv1a":         {1, 2, fnFNV1a, false, "FNV-1a of an integer"},
		"random":             {2, 2, fnRandom, false, "uniform integer in [lb, ub]"},
		"random_exponential": {3, 3, fnExponential, false, "exponential integer in [lb, ub]"},
		"random_gaussian":    {3, 3, fnGaussian, false, "gaussian integer in [lb, ub]"},
		"random_zipfian":     {3, 3, fnZipfian, false, "zipfian integer in [lb, ub]"},
		"key":                {1, 3, fnKey, true, "key of an existing row of a table"},
		"rows":               {1, 1, fnRows, false, "rows a table holds now"},
		"hex":                {1, 1, fnHex, true, "random bytes in hex"},
		"letters":            {1, 1, fnLetters, true, "random capital letters"},
		"text":               {2, 2, fnText, true, "words of lorem ipsum"},
		"uuid4":              {0, 0, fnUUID4, true, "random UUID"},
		"choice":             {1, -1, fnChoice, false, "one of the arguments"},
	}
}

func funcNames() string { return strings.Join(sortedKeys(funcs), ", ") }

// sortedKeys lists a map's keys in order, for messages.
func sortedKeys[V any](m map[string]V) []string {
	n := make([]string, 0, len(m))
	for k := range m {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

func compileCall(a *ast, sc *scope) (enode, error) {
	if why, ok := unsupported[a.op]; ok {
		return nil, errorf(a.pos, "%s() is not supported: %s", a.op, why)
	}
	def, ok := funcs[a.op]
	if !ok {
		return nil, errorf(a.pos, "unknown function %s() (known: %s)", a.op, funcNames())
	}
	if len(a.args) < def.min || (def.max >= 0 && len(a.args) > def.max) {
		want := "no argument"
		switch {
		case def.max < 0:
			want = "at least 1 argument"
		case def.min == def.max && def.min == 1:
			want = "1 argument"
		case def.min == def.max:
			want = itoa(def.min) + " arguments"
		default:
			want = itoa(def.min) + " to " + itoa(def.max) + " arguments"
		}
		return nil, errorf(a.pos, "%s() takes %s, not %d", a.op, want, len(a.args))
	}
	n := &callNode{name: a.op, fn: def.fn, pos: a.pos, buf: -1}
	if def.text {
		n.buf = sc.bufs
		sc.bufs++
	}
	args := a.args
	switch a.op {
	case "key", "rows":
		if err := n.bindTable(a, sc); err != nil {
			return nil, err
		}
		args = nil
	case "hash", "hash_murmur2", "hash_fnv1a":
		if len(args) == 1 {
			args = append(args, &ast{kind: aVar, pos: a.pos, op: "default_seed"})
		}
	}
	for _, x := range args {
		e, err := compileExpr(x, sc)
		if err != nil {
			return nil, err
		}
		n.args = append(n.args, e)
	}
	return n, nil
}

func itoa(i int) string { return strconv.Itoa(i) }

// bindTable resolves key()'s and rows()'s constant arguments: a table
// name, a distribution and its theta.
func (n *callNode) bindTable(a *ast, sc *scope) error {
	name, err := constName(a.args[0], "table")
	if err != nil {
		return err
	}
	t, ok := sc.tables[name]
	if !ok {
		return errorf(a.args[0].pos, "%s(): no table %q in this workload (tables: %s)", a.op, name, strings.Join(sortedKeys(sc.tables), ", "))
	}
	n.table = t
	if a.op == "rows" {
		return nil
	}
	n.dist = gen.KeysUniform
	theta := 0.99
	if len(a.args) > 1 {
		if n.dist, err = constName(a.args[1], "distribution"); err != nil {
			return err
		}
	}
	if len(a.args) > 2 {
		switch x := a.args[2]; x.kind {
		case aFloat:
			theta = x.f
		case aInt:
			theta = float64(x.i)
		default:
			return errorf(x.pos, "key(): theta must be a number, such as 0.99")
		}
	}
	switch n.dist {
	case gen.KeysUniform:
	case gen.KeysZipfian, gen.KeysLatest:
		if !(theta > 0 && theta < 1) {
			return errorf(a.pos, "key(): theta %v: want a number between 0 and 1 (exclusive)", theta)
		}
		n.zipf = t.zipf(theta)
	default:
		return errorf(a.args[1].pos, "key(): distribution %q: want uniform, zipfian or latest", n.dist)
	}
	return nil
}

// constName reads a name given as a bare word or a 'string'.
func constName(a *ast, what string) (string, error) {
	switch a.kind {
	case aIdent:
		return a.op, nil
	case aStr:
		return a.s, nil
	}
	return "", errorf(a.pos, "expected a %s name", what)
}

func fnAbs(x *ectx, n *callNode) (value, error) {
	v, err := n.arg(x, 0)
	if err != nil {
		return v, err
	}
	if v, err = toNumber(v, n.pos); err != nil {
		return v, err
	}
	if v.k == vFloat {
		return fval(math.Abs(v.f)), nil
	}
	if v.i == math.MinInt64 {
		return v, failf(n.pos, "bigint out of range")
	}
	if v.i < 0 {
		v.i = -v.i
	}
	return v, nil
}

func fnDouble(x *ectx, n *callNode) (value, error) {
	f, err := n.floatArg(x, 0)
	return fval(f), err
}

func fnInt(x *ectx, n *callNode) (value, error) {
	i, err := n.intArg(x, 0)
	return ival(i), err
}

func fnMath(f func(float64) float64) func(x *ectx, n *callNode) (value, error) {
	return func(x *ectx, n *callNode) (value, error) {
		a, err := n.floatArg(x, 0)
		return fval(f(a)), err
	}
}

func fnPow(x *ectx, n *callNode) (value, error) {
	a, b, err := n.floats(x)
	return fval(gen.Pow(a, b)), err
}

// floats reads two double arguments; ints two integers.
func (n *callNode) floats(x *ectx) (a, b float64, err error) {
	if a, err = n.floatArg(x, 0); err == nil {
		b, err = n.floatArg(x, 1)
	}
	return
}

func (n *callNode) ints(x *ectx) (a, b int64, err error) {
	if a, err = n.intArg(x, 0); err == nil {
		b, err = n.intArg(x, 1)
	}
	return
}

func fnPi(*ectx, *callNode) (value, error) { return fval(math.Pi), nil }

// fnExtreme is greatest (sign 1) and least (-1): a double if any argument
// is one, else an integer; NULL arguments are skipped.
func fnExtreme(sign int) func(x *ectx, n *callNode) (value, error) {
	return func(x *ectx, n *callNode) (value, error) {
		best := value{k: vNull}
		float := false
		for _, a := range n.args {
			v, err := a.eval(x)
			if err != nil {
				return v, err
			}
			if v.k == vNull {
				continue
			}
			if v, err = toNumber(v, n.pos); err != nil {
				return v, err
			}
			float = float || v.k == vFloat
			if best.k == vNull || compareNum(v, best)*sign > 0 {
				best = v
			}
		}
		if float && best.k == vInt {
			best = fval(float64(best.i))
		}
		return best, nil
	}
}

func compareNum(a, b value) int {
	if a.k == vInt && b.k == vInt {
		switch {
		case a.i < b.i:
			return -1
		case a.i > b.i:
			return 1
		}
		return 0
	}
	af, bf := a.f, b.f
	if a.k == vInt {
		af = float64(a.i)
	}
	if b.k == vInt {
		bf = float64(b.i)
	}
	return compareFloat(af, bf)
}

func fnMod(x *ectx, n *callNode) (value, error) {
	a, b, err := n.ints(x)
	if err != nil {
		return value{}, err
	}
	if b == 0 {
		return value{}, failf(n.pos, "division by zero")
	}
	if b == -1 {
		return ival(0), nil
	}
	return ival(a % b), nil
}

// pgbench's hash constants.
const (
	fnvPrime      = 0x100000001b3
	fnvOffset     = 0xcbf29ce484222325
	mm2Mul        = 0xc6a4a7935bd1e995
	mm2MulTimes8  = 0x35253c9ade8f4ca8
	mm2Rot        = 47
	gaussianMin   = 2.0
	zipfianMin    = 1.001
	zipfianMax    = 1000.0
	maxTextLength = 1 << 20
)

// HashFNV1a is pgbench's hash_fnv1a of an integer.
func HashFNV1a(val int64, seed uint64) int64 {
	r := uint64(fnvOffset) ^ seed
	for range 8 {
		r ^= uint64(val & 0xff)
		val >>= 8
		r *= fnvPrime
	}
	return int64(r)
}

// HashMurmur2 is pgbench's hash_murmur2 (and hash) of an integer.
func HashMurmur2(val int64, seed uint64) int64 {
	r := seed ^ mm2MulTimes8
	k := uint64(val)
	k *= mm2Mul
	k ^= k >> mm2Rot
	k *= mm2Mul
	r ^= k
	r *= mm2Mul
	r ^= r >> mm2Rot
	r *= mm2Mul
	r ^= r >> mm2Rot
	return int64(r)
}

func hashArgs(x *ectx, n *callNode) (int64, uint64, error) {
	v, s, err := n.ints(x)
	return v, uint64(s), err
}

func fnMurmur2(x *ectx, n *callNode) (value, error) {
	v, s, err := hashArgs(x, n)
	return ival(HashMurmur2(v, s)), err
}

func fnFNV1a(x *ectx, n *callNode) (value, error) {
	v, s, err := hashArgs(x, n)
	return ival(HashFNV1a(v, s)), err
}

// bounds reads lb and ub and checks that the range is not empty.
func (n *callNode) bounds(x *ectx) (lb, ub int64, err error) {
	if lb, ub, err = n.ints(x); err != nil {
		return
	}
	if ub < lb {
		err = failf(n.pos, "%s(%d, %d): empty range; the upper bound must not be below the lower", n.name, lb, ub)
	}
	return
}

// inRange maps r in [0, 1) onto [lb, ub] as pgbench does: lb + the
// integer part of (ub − lb + 1)·r.
func inRange(lb, ub int64, r float64) int64 {
	span := float64(uint64(ub-lb) + 1)
	if uint64(ub-lb) == math.MaxUint64 {
		span = 1 << 64
	}
	off := uint64(span * r)
	if off > uint64(ub-lb) { // rounding up at the top of a huge range
		off = uint64(ub - lb)
	}
	return lb + int64(off)
}

// Random draws: see docs/workload-files.md for their exact definitions.

// RandomUniform is random(lb, ub) for a uniform u in [0, 1).
func RandomUniform(lb, ub int64, u float64) int64 { return inRange(lb, ub, u) }

// RandomExponential is random_exponential(lb, ub, p) for a uniform u in
// [0, 1).
func RandomExponential(lb, ub int64, p, u float64) int64 {
	cut := gen.Exp(-p)
	uniform := 1 - u
	r := -gen.Log(cut+float64((1-cut)*uniform)) / p
	return inRange(lb, ub, r)
}

// Normal is a standard normal value by Marsaglia's polar method, drawing
// pairs of uniforms from next until one falls inside the unit circle.
func Normal(next func() float64) float64 {
	for {
		v1 := 2*next() - 1
		v2 := 2*next() - 1
		s := float64(v1*v1) + float64(v2*v2)
		if s > 0 && s < 1 {
			return v1 * math.Sqrt(-2*gen.Log(s)/s)
		}
	}
}

// RandomGaussian is random_gaussian(lb, ub, p), drawing from next.
func RandomGaussian(lb, ub int64, p float64, next func() float64) int64 {
	var z float64
	for {
		z = Normal(next)
		if z >= -p && z < p {
			break
		}
	}
	return inRange(lb, ub, (z+p)/(p*2))
}

// RandomZipfian is random_zipfian(lb, ub, s), drawing from next: Devroye's
// rejection method, as pgbench.
func RandomZipfian(lb, ub int64, s float64, next func() float64) int64 {
	n := float64(uint64(ub-lb) + 1)
	if ub == lb {
		return lb
	}
	b := gen.Pow(2, s-1)
	for {
		u, v := next(), next()
		x := math.Floor(gen.Pow(u, -1/(s-1)))
		t := gen.Pow(1+1/x, s-1)
		if float64(float64(v*x)*(t-1))/(b-1) <= t/b && x <= n {
			return lb - 1 + int64(x)
		}
	}
}

func fnRandom(x *ectx, n *callNode) (value, error) {
	lb, ub, err := n.bounds(x)
	if err != nil {
		return value{}, err
	}
	return ival(RandomUniform(lb, ub, x.uniform())), nil
}

// boundsParam reads lb, ub and a distribution's parameter.
func (n *callNode) boundsParam(x *ectx) (lb, ub int64, p float64, err error) {
	if lb, ub, err = n.bounds(x); err == nil {
		p, err = n.floatArg(x, 2)
	}
	return
}

func fnExponential(x *ectx, n *callNode) (value, error) {
	lb, ub, p, err := n.boundsParam(x)
	if err != nil {
		return value{}, err
	}
	if !(p > 0) {
		return value{}, failf(n.pos, "random_exponential(): parameter %v must be greater than 0", p)
	}
	return ival(RandomExponential(lb, ub, p, x.uniform())), nil
}

func fnGaussian(x *ectx, n *callNode) (value, error) {
	lb, ub, p, err := n.boundsParam(x)
	if err != nil {
		return value{}, err
	}
	if !(p >= gaussianMin) {
		return value{}, failf(n.pos, "random_gaussian(): parameter %v must be at least %v", p, gaussianMin)
	}
	return ival(RandomGaussian(lb, ub, p, x.uniform)), nil
}

func fnZipfian(x *ectx, n *callNode) (value, error) {
	lb, ub, s, err := n.boundsParam(x)
	if err != nil {
		return value{}, err
	}
	if !(s >= zipfianMin && s <= zipfianMax) {
		return value{}, failf(n.pos, "random_zipfian(): parameter %v must be from %v to %v", s, zipfianMin, zipfianMax)
	}
	return ival(RandomZipfian(lb, ub, s, x.uniform)), nil
}

// nextKey picks a row index in [0, n) as gen.KeyGen.Next does, from the
// executor's sequence.
func nextKey(x *ectx, dist string, z *gen.Zipf, n int64) int64 {
	if n <= 1 {
		return 0
	}
	u := x.uniform()
	switch dist {
	case gen.KeysZipfian:
		return gen.Scatter(z.Rank(u), n)
	case gen.KeysLatest:
		return max(n-1-z.Rank(u), 0)
	}
	return int64(u * float64(n))
}

func fnKey(x *ectx, n *callNode) (value, error) {
	t := n.table
	i := t.at(nextKey(x, n.dist, n.zipf, t.claims.visible.Load()))
	return t.keyValue(x, n.buf, i), nil
}

func fnRows(x *ectx, n *callNode) (value, error) {
	return ival(n.table.claims.visible.Load()), nil
}

// textArg reads a length argument of a text function.
func (n *callNode) length(x *ectx, i int) (int, error) {
	l, err := n.intArg(x, i)
	if err == nil && (l < 0 || l > maxTextLength) {
		err = failf(n.pos, "%s(): length %d: want 0 to %d", n.name, l, maxTextLength)
	}
	return int(l), err
}

// textOf returns the call's scratch buffer filled by app with a fresh draw.
func (n *callNode) textOf(x *ectx, app func(dst []byte, d uint64) []byte) value {
	b := app(x.bufs[n.buf][:0], x.rng.Next())
	x.bufs[n.buf] = b
	return value{k: vText, s: b}
}

func fnHex(x *ectx, n *callNode) (value, error) {
	l, err := n.length(x, 0)
	if err != nil || l == 0 {
		return value{k: vText}, err
	}
	return n.textOf(x, func(dst []byte, d uint64) []byte { return gen.Hex{Bytes: l}.Append(dst, d, 0) }), nil
}

func fnLetters(x *ectx, n *callNode) (value, error) {
	l, err := n.length(x, 0)
	if err != nil {
		return value{}, err
	}
	return n.textOf(x, func(dst []byte, d uint64) []byte { return gen.Letters{Len: l}.Append(dst, d, 0) }), nil
}

func fnText(x *ectx, n *callNode) (value, error) {
	lo, err := n.length(x, 0)
	hi := 0
	if err == nil {
		hi, err = n.length(x, 1)
	}
	if err != nil {
		return value{}, err
	}
	if hi < lo {
		return value{}, failf(n.pos, "text(%d, %d): the maximum is below the minimum", lo, hi)
	}
	return n.textOf(x, func(dst []byte, d uint64) []byte { return gen.Text{Min: lo, Max: hi}.Append(dst, d, 0) }), nil
}

func fnUUID4(x *ectx, n *callNode) (value, error) {
	return n.textOf(x, func(dst []byte, d uint64) []byte { return gen.UUID4{}.Append(dst, d, 0) }), nil
}

func fnChoice(x *ectx, n *callNode) (value, error) {
	k := int(x.rng.Next() % uint64(len(n.args)))
	return n.args[k].eval(x)
}
