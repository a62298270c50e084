package spec

import (
	"strings"
	"time"

	"github.com/litebench/litebench/internal/gen"
)

// Column generators are written as calls: gen = "hex(8)". Each compiles
// to one of package gen's generators (docs/data-generation.md specifies
// them bit for bit); ref() compiles to a uniform_int over the key range
// of the table it refers to.

type genArg struct {
	name string
	kind string // int, float, str, list, ident
	opt  bool
}

type genDef struct {
	args []genArg
	help string
}

var genDefs = map[string]genDef{
	"seq":       {[]genArg{{"start", "int", true}}, "start, start+1, … (row index + start)"},
	"uniform":   {[]genArg{{"lo", "int", false}, {"hi", "int", false}, {"stream", "int", true}}, "uniform integer in [lo, hi]"},
	"zipf":      {[]genArg{{"n", "int", false}, {"theta", "float", false}, {"stream", "int", true}}, "zipfian integer in [0, n), hot values scattered"},
	"latest":    {[]genArg{{"n", "int", false}, {"theta", "float", false}, {"stream", "int", true}}, "zipfian integer in [0, n), the top of the range hot"},
	"const":     {[]genArg{{"value", "any", false}}, "the same integer or text on every row"},
	"timestamp": {[]genArg{{"start", "str", false}, {"step", "any", false}, {"format", "str", true}}, "start + row × step, as rfc3339nano text or unix_ms"},
	"hex":       {[]genArg{{"bytes", "int", false}, {"stream", "int", true}}, "random bytes in lowercase hex"},
	"letters":   {[]genArg{{"len", "int", false}, {"stream", "int", true}}, "random capital letters"},
	"text":      {[]genArg{{"min", "int", false}, {"max", "int", true}, {"stream", "int", true}}, "words of lorem ipsum, min to max bytes"},
	"uuid4":     {[]genArg{{"stream", "int", true}}, "random version 4 UUID"},
	"sha256":    {[]genArg{{"column", "ident", false}, {"hex", "ident", true}}, "SHA-256 of an earlier column, in hex"},
	"choice":    {[]genArg{{"list", "list", false}, {"count", "int", true}, {"sep", "str", true}, {"stream", "int", true}}, "count items of a list"},
	"seq_text":  {[]genArg{{"prefix", "str", false}, {"start", "int", false}, {"suffix", "str", true}}, "prefix, start + row, suffix"},
	"ref":       {[]genArg{{"table", "ident", false}, {"stream", "int", true}}, "the key of a random row of another table"},
}

func genNames() string { return strings.Join(sortedKeys(genDefs), ", ") }

// parseGenCall parses a generator call and checks its name and arguments.
func parseGenCall(t *tmpl) (*ast, error) {
	at := func(k int) Pos { return t.pos }
	if t.n != nil && !t.isTemplate() {
		at = t.n.at
	}
	a, err := parseExpr(t.s, at, false)
	if err != nil {
		return nil, err
	}
	if a.kind == aIdent {
		a = &ast{kind: aCall, pos: a.pos, op: a.op}
	}
	if a.kind != aCall {
		return nil, errorf(a.pos, "gen: expected a generator call such as hex(8) (known: %s)", genNames())
	}
	def, ok := genDefs[a.op]
	if !ok {
		alias := map[string]string{"uniform_int": "uniform", "zipf_int": "zipf", "latest_int": "latest", "sha256_of": "sha256", "zipfian": "zipf", "const_int": "const"}
		if to, ok := alias[a.op]; ok {
			a.op, def = to, genDefs[to]
		} else {
			return nil, errorf(a.pos, "unknown generator %s() (known: %s)", a.op, genNames())
		}
	}
	min := 0
	for _, g := range def.args {
		if !g.opt {
			min++
		}
	}
	if len(a.args) < min || len(a.args) > len(def.args) {
		var names []string
		for _, g := range def.args {
			if g.opt {
				names = append(names, "["+g.name+"]")
			} else {
				names = append(names, g.name)
			}
		}
		return nil, errorf(a.pos, "%s() takes (%s), not %d arguments", a.op, strings.Join(names, ", "), len(a.args))
	}
	for k, x := range a.args {
		g := def.args[k]
		ok := false
		switch g.kind {
		case "int":
			ok = x.kind == aInt || (x.kind == aUnary && x.op == "-" && x.args[0].kind == aInt)
		case "float":
			ok = x.kind == aInt || x.kind == aFloat
		case "str":
			ok = x.kind == aStr
		case "list":
			ok = x.kind == aList
			for _, it := range x.args {
				ok = ok && it.kind == aStr
			}
		case "ident":
			ok = x.kind == aIdent || x.kind == aStr
		case "any":
			ok = x.kind == aInt || x.kind == aStr || (x.kind == aUnary && x.args[0].kind == aInt)
		}
		if !ok {
			want := map[string]string{"int": "a whole number", "float": "a number", "str": "a 'string'", "list": "a list of strings: ['a', 'b']",
				"ident": "a column or table name", "any": "a number or a 'string'"}[g.kind]
			return nil, errorf(x.pos, "%s(): %s must be %s", a.op, g.name, want)
		}
	}
	return a, nil
}

func intOf(a *ast) int64 {
	if a.kind == aUnary {
		return -a.args[0].i
	}
	return a.i
}

func floatOf(a *ast) float64 {
	if a.kind == aInt {
		return float64(a.i)
	}
	return a.f
}

func nameOf(a *ast) string {
	if a.kind == aStr {
		return a.s
	}
	return a.op
}

// keyRange is what ref() needs of the table it refers to: its key's
// first value and how many rows it loads.
type keyRange func(table string) (start, rows int64, err error)

// compileGen turns a parsed generator call into package gen's generator.
func compileGen(a *ast, refs keyRange) (gen.Generator, error) {
	arg := func(k int) *ast {
		if k < len(a.args) {
			return a.args[k]
		}
		return nil
	}
	optInt := func(k int, def int64) int64 {
		if x := arg(k); x != nil {
			return intOf(x)
		}
		return def
	}
	stream := func(k int) uint64 { return uint64(optInt(k, 0)) }
	switch a.op {
	case "seq":
		return gen.Seq{Start: optInt(0, 0)}, nil
	case "uniform":
		return gen.UniformInt{Lo: intOf(a.args[0]), Hi: intOf(a.args[1]), Stream: stream(2)}, nil
	case "zipf":
		return gen.ZipfInt{N: intOf(a.args[0]), Theta: floatOf(a.args[1]), Stream: stream(2)}, nil
	case "latest":
		return gen.LatestInt{N: intOf(a.args[0]), Theta: floatOf(a.args[1]), Stream: stream(2)}, nil
	case "const":
		if x := a.args[0]; x.kind == aStr {
			return gen.Const{Value: x.s}, nil
		}
		return gen.ConstInt{Value: intOf(a.args[0])}, nil
	case "timestamp":
		start, err := time.Parse(time.RFC3339Nano, a.args[0].s)
		if err != nil {
			return nil, errorf(a.args[0].pos, "timestamp(): start %q: want an RFC 3339 time such as '2024-01-01T00:00:00Z'", a.args[0].s)
		}
		var step time.Duration
		if x := a.args[1]; x.kind == aStr {
			if step, err = time.ParseDuration(x.s); err != nil {
				return nil, errorf(x.pos, "timestamp(): step %q: want a duration such as '1ms'", x.s)
			}
		} else {
			step = time.Duration(intOf(x))
		}
		format := gen.RFC3339Nano
		if x := arg(2); x != nil {
			format = x.s
		}
		return gen.Timestamp{Start: start.UTC(), Step: step, Format: format}, nil
	case "hex":
		return gen.Hex{Bytes: int(intOf(a.args[0])), Stream: stream(1)}, nil
	case "letters":
		return gen.Letters{Len: int(intOf(a.args[0])), Stream: stream(1)}, nil
	case "text":
		lo := int(intOf(a.args[0]))
		return gen.Text{Min: lo, Max: int(optInt(1, int64(lo))), Stream: stream(2)}, nil
	case "uuid4":
		return gen.UUID4{Stream: stream(0)}, nil
	case "sha256":
		decode := false
		if x := arg(1); x != nil {
			if nameOf(x) != "hex" {
				return nil, errorf(x.pos, "sha256(): the second argument is hex (hash the bytes a hex column encodes), not %q", nameOf(x))
			}
			decode = true
		}
		return gen.SHA256Of{Column: nameOf(a.args[0]), DecodeHex: decode}, nil
	case "choice":
		var list []string
		for _, it := range a.args[0].args {
			list = append(list, it.s)
		}
		sep := ""
		if x := arg(2); x != nil {
			sep = x.s
		}
		return gen.Choice{List: list, Count: int(optInt(1, 1)), Sep: sep, Stream: stream(3)}, nil
	case "seq_text":
		suffix := ""
		if x := arg(2); x != nil {
			suffix = x.s
		}
		return gen.SeqText{Prefix: a.args[0].s, Start: intOf(a.args[1]), Suffix: suffix}, nil
	case "ref":
		start, rows, err := refs(nameOf(a.args[0]))
		if err != nil {
			return nil, errorf(a.args[0].pos, "ref(): %v", err)
		}
		if rows < 1 {
			return nil, errorf(a.pos, "ref(%s): that table loads no rows to refer to", nameOf(a.args[0]))
		}
		return gen.UniformInt{Lo: start, Hi: start + rows - 1, Stream: stream(1)}, nil
	}
	return nil, errorf(a.pos, "unknown generator %s()", a.op)
}
