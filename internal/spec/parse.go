package spec

import (
	"strconv"
	"strings"
)

// The expression language is pgbench's (\set's right-hand side): integer
// and double literals, :variables, + - * / %, comparisons, AND OR NOT,
// IS [NOT] NULL, bitwise & | # ~ << >>, CASE WHEN … THEN … ELSE … END and
// function calls. litebench adds 'string' literals, [lists] and bare
// names, which generator calls (gen = "sha256(rand, hex)") and a few
// functions of its own take as arguments.

type tokKind uint8

const (
	tEOF tokKind = iota
	tInt
	tFloat
	tStr
	tIdent
	tVar
	tOp
)

type token struct {
	kind tokKind
	text string // the operator, identifier, variable name or string value
	i    int64
	f    float64
	off  int
}

// lexer splits an expression; at maps a byte offset onto the file.
type lexer struct {
	src  string
	off  int
	at   func(int) Pos
	dash bool // variable names may hold '-' before a letter (parameters)
	tok  token
}

var twoCharOps = []string{"<=", ">=", "<>", "!=", "<<", ">>"}

func (l *lexer) next() error {
	s := l.src
	for l.off < len(s) && (s[l.off] == ' ' || s[l.off] == '\t' || s[l.off] == '\n' || s[l.off] == '\r') {
		l.off++
	}
	start := l.off
	l.tok = token{off: start}
	if start >= len(s) {
		l.tok.kind = tEOF
		return nil
	}
	c := s[start]
	switch {
	case isDigit(c) || (c == '.' && start+1 < len(s) && isDigit(s[start+1])):
		i := start
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		float := false
		if i < len(s) && s[i] == '.' {
			float = true
			i++
			for i < len(s) && isDigit(s[i]) {
				i++
			}
		}
		if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
			j := i + 1
			if j < len(s) && (s[j] == '+' || s[j] == '-') {
				j++
			}
			if j < len(s) && isDigit(s[j]) {
				float = true
				for i = j; i < len(s) && isDigit(s[i]); i++ {
				}
			}
		}
		text := s[start:i]
		l.off = i
		if float {
			f, err := strconv.ParseFloat(text, 64)
			if err != nil {
				return errorf(l.at(start), "%s is not a number", text)
			}
			l.tok.kind, l.tok.f, l.tok.text = tFloat, f, text
			return nil
		}
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			if text == "9223372036854775808" {
				// Only valid after a unary minus: the parser checks.
				l.tok.kind, l.tok.text = tInt, text
				return nil
			}
			return errorf(l.at(start), "%s is out of range for a 64-bit integer", text)
		}
		l.tok.kind, l.tok.i, l.tok.text = tInt, n, text
		return nil
	case isIdentStart(c):
		i := start
		for i < len(s) && isIdentChar(s[i]) {
			i++
		}
		l.off = i
		l.tok.kind, l.tok.text = tIdent, s[start:i]
		return nil
	case c == ':':
		i := start + 1
		for i < len(s) && (isIdentChar(s[i]) || (l.dash && s[i] == '-' && i+1 < len(s) && isIdentStart(s[i+1]) && i > start+1)) {
			i++
		}
		if i == start+1 {
			return errorf(l.at(start), "':' must be followed by a variable name")
		}
		l.off = i
		l.tok.kind, l.tok.text = tVar, s[start+1:i]
		return nil
	case c == '\'':
		var b strings.Builder
		i := start + 1
		for {
			if i >= len(s) {
				return errorf(l.at(start), "unterminated string: add the closing '")
			}
			if s[i] == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					b.WriteByte('\'')
					i += 2
					continue
				}
				break
			}
			b.WriteByte(s[i])
			i++
		}
		l.off = i + 1
		l.tok.kind, l.tok.text = tStr, b.String()
		return nil
	}
	for _, op := range twoCharOps {
		if strings.HasPrefix(s[start:], op) {
			l.off += 2
			l.tok.kind, l.tok.text = tOp, op
			return nil
		}
	}
	if strings.IndexByte("+-*/%()<>=&|#~,[]", c) >= 0 {
		l.off++
		l.tok.kind, l.tok.text = tOp, string(c)
		return nil
	}
	return errorf(l.at(start), "unexpected %q in an expression", string(c))
}

func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isIdentStart(c byte) bool { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
func isIdentChar(c byte) bool  { return isIdentStart(c) || isDigit(c) }

// ast is a parsed expression.
type ast struct {
	kind astKind
	pos  Pos
	op   string // operator, function or identifier name, variable name
	i    int64
	f    float64
	s    string
	args []*ast // operands, call arguments, list items; CASE: when, then, …, [else]
	els  bool   // CASE has an ELSE (the last arg)
}

type astKind uint8

const (
	aInt astKind = iota + 1
	aFloat
	aStr
	aBool
	aNull
	aIdent
	aVar
	aList
	aCall
	aUnary
	aBinary
	aIs // IS [NOT] NULL/TRUE/FALSE: op is "null", "true", "false"; i is 1 for NOT
	aCase
)

// parser is a precedence-climbing parser of pgbench's grammar.
type parser struct {
	lx lexer
}

func parseExpr(src string, at func(int) Pos, dash bool) (*ast, error) {
	p := &parser{lx: lexer{src: src, at: at, dash: dash}}
	if err := p.lx.next(); err != nil {
		return nil, err
	}
	if p.lx.tok.kind == tEOF {
		return nil, errorf(at(0), "expected an expression")
	}
	e, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if p.lx.tok.kind != tEOF {
		return nil, errorf(p.pos(), "unexpected %s after the expression", p.describe())
	}
	return e, nil
}

func (p *parser) pos() Pos { return p.lx.at(p.lx.tok.off) }

func (p *parser) describe() string {
	t := p.lx.tok
	switch t.kind {
	case tEOF:
		return "end"
	case tStr:
		return strconv.Quote(t.text)
	case tVar:
		return ":" + t.text
	}
	return strconv.Quote(t.text)
}

func (p *parser) isKeyword(kw string) bool {
	return p.lx.tok.kind == tIdent && strings.EqualFold(p.lx.tok.text, kw)
}

func (p *parser) isOp(op string) bool { return p.lx.tok.kind == tOp && p.lx.tok.text == op }

func (p *parser) expect(op string) error {
	if !p.isOp(op) {
		return errorf(p.pos(), "expected %q, found %s", op, p.describe())
	}
	return p.lx.next()
}

// Binding powers, lowest first, after pgbench's exprparse.y.
const (
	precOr = iota + 1
	precAnd
	precNot
	precIs
	precCmp
	precBit
	precAdd
	precMul
	precUnary
)

func (p *parser) binaryOp() (string, int) {
	t := p.lx.tok
	switch t.kind {
	case tIdent:
		switch strings.ToUpper(t.text) {
		case "OR":
			return "or", precOr
		case "AND":
			return "and", precAnd
		case "IS", "ISNULL", "NOTNULL":
			return strings.ToLower(t.text), precIs
		}
	case tOp:
		switch t.text {
		case "=", "<>", "!=", "<", ">", "<=", ">=":
			return t.text, precCmp
		case "|", "#", "&", "<<", ">>":
			return t.text, precBit
		case "+", "-":
			return t.text, precAdd
		case "*", "/", "%":
			return t.text, precMul
		}
	}
	return "", 0
}

func (p *parser) expr(min int) (*ast, error) {
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		op, prec := p.binaryOp()
		if prec == 0 || prec < min {
			return left, nil
		}
		pos := p.pos()
		if err := p.lx.next(); err != nil {
			return nil, err
		}
		switch op {
		case "isnull", "notnull":
			n := int64(0)
			if op == "notnull" {
				n = 1
			}
			left = &ast{kind: aIs, pos: pos, op: "null", i: n, args: []*ast{left}}
			continue
		case "is":
			not := int64(0)
			if p.isKeyword("NOT") {
				not = 1
				if err := p.lx.next(); err != nil {
					return nil, err
				}
			}
			what := ""
			for _, kw := range []string{"NULL", "TRUE", "FALSE"} {
				if p.isKeyword(kw) {
					what = strings.ToLower(kw)
				}
			}
			if what == "" {
				return nil, errorf(p.pos(), "expected NULL, TRUE or FALSE after IS, found %s", p.describe())
			}
			if err := p.lx.next(); err != nil {
				return nil, err
			}
			left = &ast{kind: aIs, pos: pos, op: what, i: not, args: []*ast{left}}
			continue
		}
		next := prec + 1 // left associative
		if prec == precCmp {
			next = prec + 1 // and not chained: checked below
		}
		right, err := p.expr(next)
		if err != nil {
			return nil, err
		}
		left = &ast{kind: aBinary, pos: pos, op: op, args: []*ast{left, right}}
		if prec == precCmp {
			if op2, prec2 := p.binaryOp(); prec2 == precCmp {
				return nil, errorf(p.pos(), "comparisons do not chain: put parentheses around %q", op+" … "+op2)
			}
		}
	}
}

func (p *parser) unary() (*ast, error) {
	t := p.lx.tok
	pos := p.pos()
	switch {
	case t.kind == tOp && (t.text == "-" || t.text == "+" || t.text == "~"):
		if err := p.lx.next(); err != nil {
			return nil, err
		}
		if t.text == "-" && p.lx.tok.kind == tInt && p.lx.tok.text == "9223372036854775808" {
			if err := p.lx.next(); err != nil {
				return nil, err
			}
			return &ast{kind: aInt, pos: pos, i: -1 << 63}, nil
		}
		a, err := p.expr(precUnary)
		if err != nil {
			return nil, err
		}
		if t.text == "+" {
			return a, nil
		}
		return &ast{kind: aUnary, pos: pos, op: t.text, args: []*ast{a}}, nil
	case p.isKeyword("NOT"):
		if err := p.lx.next(); err != nil {
			return nil, err
		}
		a, err := p.expr(precNot)
		if err != nil {
			return nil, err
		}
		return &ast{kind: aUnary, pos: pos, op: "not", args: []*ast{a}}, nil
	}
	return p.primary()
}

func (p *parser) primary() (*ast, error) {
	t := p.lx.tok
	pos := p.pos()
	advance := func(a *ast) (*ast, error) { return a, p.lx.next() }
	switch t.kind {
	case tInt:
		if t.text == "9223372036854775808" {
			return nil, errorf(pos, "%s is out of range for a 64-bit integer", t.text)
		}
		return advance(&ast{kind: aInt, pos: pos, i: t.i})
	case tFloat:
		return advance(&ast{kind: aFloat, pos: pos, f: t.f})
	case tStr:
		return advance(&ast{kind: aStr, pos: pos, s: t.text})
	case tVar:
		return advance(&ast{kind: aVar, pos: pos, op: t.text})
	case tOp:
		switch t.text {
		case "(":
			if err := p.lx.next(); err != nil {
				return nil, err
			}
			e, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			return e, p.expect(")")
		case "[":
			if err := p.lx.next(); err != nil {
				return nil, err
			}
			l := &ast{kind: aList, pos: pos}
			for !p.isOp("]") {
				e, err := p.expr(0)
				if err != nil {
					return nil, err
				}
				l.args = append(l.args, e)
				if !p.isOp(",") {
					break
				}
				if err := p.lx.next(); err != nil {
					return nil, err
				}
			}
			return l, p.expect("]")
		}
	case tIdent:
		switch strings.ToUpper(t.text) {
		case "TRUE", "FALSE":
			return advance(&ast{kind: aBool, pos: pos, i: b2i(strings.EqualFold(t.text, "TRUE"))})
		case "NULL":
			return advance(&ast{kind: aNull, pos: pos})
		case "CASE":
			return p.caseExpr()
		}
		if err := p.lx.next(); err != nil {
			return nil, err
		}
		if !p.isOp("(") {
			return &ast{kind: aIdent, pos: pos, op: t.text}, nil
		}
		if err := p.lx.next(); err != nil {
			return nil, err
		}
		c := &ast{kind: aCall, pos: pos, op: strings.ToLower(t.text)}
		for !p.isOp(")") {
			e, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			c.args = append(c.args, e)
			if !p.isOp(",") {
				break
			}
			if err := p.lx.next(); err != nil {
				return nil, err
			}
		}
		return c, p.expect(")")
	}
	if t.kind == tEOF {
		return nil, errorf(pos, "expected an operand, found the end of the expression")
	}
	return nil, errorf(pos, "expected an operand, found %s", p.describe())
}

func (p *parser) caseExpr() (*ast, error) {
	c := &ast{kind: aCase, pos: p.pos()}
	if err := p.lx.next(); err != nil {
		return nil, err
	}
	for p.isKeyword("WHEN") {
		if err := p.lx.next(); err != nil {
			return nil, err
		}
		w, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		if !p.isKeyword("THEN") {
			return nil, errorf(p.pos(), "expected THEN, found %s", p.describe())
		}
		if err := p.lx.next(); err != nil {
			return nil, err
		}
		th, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		c.args = append(c.args, w, th)
	}
	if len(c.args) == 0 {
		return nil, errorf(p.pos(), "expected WHEN after CASE, found %s", p.describe())
	}
	if p.isKeyword("ELSE") {
		if err := p.lx.next(); err != nil {
			return nil, err
		}
		e, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		c.args, c.els = append(c.args, e), true
	}
	if !p.isKeyword("END") {
		return nil, errorf(p.pos(), "expected END to close CASE, found %s", p.describe())
	}
	return c, p.lx.next()
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
