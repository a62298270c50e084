package spec

import (
	"regexp"
	"strings"
	"time"

	"github.com/litebench/litebench/internal/settings"
)

// tmpl is a value of a workload file that may depend on parameters: text
// with ${name} or ${expression} in it, where the expression is pgbench's
// with :name for parameters (dashes allowed: ${100 - :write-ratio}).
// Numbers and booleans written without quotes are templates of their
// text.
type tmpl struct {
	s     string
	pos   Pos
	n     *node
	parts []tpart
}

type tpart struct {
	lit  string
	name string // ${name}
	e    *ast   // ${expression}
	pos  Pos
}

var bareParam = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

func (t *tmpl) isTemplate() bool { return len(t.parts) > 0 }

// newTmpl reads a template out of a string (at places its bytes).
func newTmpl(s string, pos Pos, at func(int) Pos) (*tmpl, error) {
	t := &tmpl{s: s, pos: pos}
	if !strings.Contains(s, "${") {
		return t, nil
	}
	i := 0
	for {
		j := strings.Index(s[i:], "${")
		if j < 0 {
			if i < len(s) {
				t.parts = append(t.parts, tpart{lit: s[i:]})
			}
			return t, nil
		}
		j += i
		if j > i {
			t.parts = append(t.parts, tpart{lit: s[i:j]})
		}
		k := strings.IndexByte(s[j:], '}')
		if k < 0 {
			return nil, errorf(at(j), "${ without its closing }")
		}
		k += j
		body := s[j+2 : k]
		off := j + 2
		trimmed := strings.TrimSpace(body)
		p := tpart{pos: at(j)}
		if bareParam.MatchString(trimmed) {
			p.name = trimmed
		} else {
			e, err := parseExpr(body, func(x int) Pos { return at(off + x) }, true)
			if err != nil {
				return nil, err
			}
			p.e = e
		}
		t.parts = append(t.parts, p)
		i = k + 1
	}
}

// checkRefs makes sure every parameter a template names exists.
func (t *tmpl) checkRefs(params map[string]*Param) error {
	for _, p := range t.parts {
		if p.name != "" {
			if _, ok := params[p.name]; !ok {
				return errorf(p.pos, "${%s}: no parameter %s (declare it in [params])", p.name, p.name)
			}
		}
		if p.e != nil {
			if err := checkTmplVars(p.e, params); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkTmplVars(a *ast, params map[string]*Param) error {
	if a.kind == aVar {
		if _, ok := params[a.op]; !ok {
			return errorf(a.pos, "no parameter %s (declare it in [params])", a.op)
		}
	}
	if a.kind == aCall && a.op != "abs" && a.op != "greatest" && a.op != "least" && a.op != "int" && a.op != "double" && a.op != "mod" {
		return errorf(a.pos, "in ${…}, only arithmetic and abs, int, double, greatest, least and mod")
	}
	for _, x := range a.args {
		if err := checkTmplVars(x, params); err != nil {
			return err
		}
	}
	return nil
}

// eval substitutes the parameters' values.
func (t *tmpl) eval(params map[string]string) (string, error) {
	if !t.isTemplate() {
		return t.s, nil
	}
	var b strings.Builder
	for _, p := range t.parts {
		switch {
		case p.name != "":
			b.WriteString(params[p.name])
		case p.e != nil:
			sc := newScope()
			e, err := compileExpr(p.e, sc)
			if err != nil {
				return "", err
			}
			vars := make([]slot, len(sc.names))
			for i, n := range sc.names {
				vars[i].assign(textValue([]byte(params[n])))
			}
			v, err := evalConst(e, vars)
			if err != nil {
				return "", err
			}
			b.WriteString(v.str())
		default:
			b.WriteString(p.lit)
		}
	}
	return b.String(), nil
}

// Typed readings of a template's value.

func (t *tmpl) count(params map[string]string, what string, min int64) (int64, error) {
	s, err := t.eval(params)
	if err != nil {
		return 0, err
	}
	n, err := settings.ParseCount(strings.TrimSpace(s))
	if err != nil || n < min {
		return 0, errorf(t.pos, "%s %q: want a whole number of at least %d", what, s, min)
	}
	return n, nil
}

func (t *tmpl) number(params map[string]string, what string) (float64, error) {
	s, err := t.eval(params)
	if err != nil {
		return 0, err
	}
	v := textValue([]byte(strings.TrimSpace(s)))
	f, err := toFloat(v, t.pos)
	if err != nil {
		return 0, errorf(t.pos, "%s %q: want a number", what, s)
	}
	return f, nil
}

func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d < 0 {
		if err == nil {
			err = errorf(Pos{}, "negative")
		}
		return 0, err
	}
	return d, nil
}
