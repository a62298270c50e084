package spec

import (
	"strings"

	"github.com/litebench/litebench/internal/dialect"
)

// sqlParam is a :name in a statement's text, bound from the variable of
// that name.
type sqlParam struct {
	name     string
	off, end int // its bytes in the text, colon included
}

// scanParams finds the :names of an SQL text outside quotes, comments and
// '::' casts.
func scanParams(q string) []sqlParam {
	var ps []sqlParam
	for i := 0; i < len(q); i++ {
		if j, ok := skipNoise(q, i); ok {
			i = j
			continue
		}
		switch c := q[i]; {
		case c == ':' && i+1 < len(q) && q[i+1] == ':':
			i++
		case c == ':' && i+1 < len(q) && isIdentChar(q[i+1]) && (i == 0 || !isIdentChar(q[i-1])):
			j := i + 1
			for j < len(q) && isIdentChar(q[j]) {
				j++
			}
			ps = append(ps, sqlParam{name: q[i+1 : j], off: i, end: j})
			i = j - 1
		}
	}
	return ps
}

// skipNoise skips what is not SQL to look into at q[i]: a quoted string
// or name, a -- comment or a /* comment */. It returns the index of the
// last byte skipped, and false when q[i] starts none of them.
func skipNoise(q string, i int) (int, bool) {
	switch c := q[i]; {
	case c == '\'' || c == '"' || c == '`':
		return skipQuoted(q, i), true
	case c == '-' && i+1 < len(q) && q[i+1] == '-':
		for i < len(q) && q[i] != '\n' {
			i++
		}
		return i, true
	case c == '/' && i+1 < len(q) && q[i+1] == '*':
		if e := strings.Index(q[i+2:], "*/"); e >= 0 {
			return i + e + 3, true
		}
		return len(q), true
	}
	return i, false
}

// skipQuoted returns the index of the quote closing the one at i (or the
// end), doubled quotes included.
func skipQuoted(q string, i int) int {
	c := q[i]
	for j := i + 1; j < len(q); j++ {
		if q[j] == c {
			if j+1 < len(q) && q[j+1] == c {
				j++
				continue
			}
			return j
		}
	}
	return len(q)
}

// render replaces the :names of q with the dialect's placeholders, in
// order (each occurrence is its own parameter).
func render(q string, ps []sqlParam, d dialect.Dialect) string {
	if len(ps) == 0 {
		return q
	}
	var b strings.Builder
	last := 0
	for k, p := range ps {
		b.WriteString(q[last:p.off])
		b.WriteString(d.Param(k + 1))
		last = p.end
	}
	b.WriteString(q[last:])
	return b.String()
}

// substitute replaces :names of q with values as text (pgbench's --init
// and simple-protocol substitution); names lookup does not know stay.
func substitute(q string, lookup func(name string) (string, bool)) string {
	ps := scanParams(q)
	var b strings.Builder
	last := 0
	for _, p := range ps {
		v, ok := lookup(p.name)
		if !ok {
			continue
		}
		b.WriteString(q[last:p.off])
		b.WriteString(v)
		last = p.end
	}
	b.WriteString(q[last:])
	return b.String()
}

// firstWords returns the first n words of q, upper-cased, skipping
// comments.
func firstWords(q string, n int) []string {
	var out []string
	i := 0
	for len(out) < n && i < len(q) {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '(' || c == ';':
			i++
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			if e := strings.Index(q[i+2:], "*/"); e >= 0 {
				i += e + 4
			} else {
				i = len(q)
			}
		case isIdentChar(c):
			j := i
			for j < len(q) && isIdentChar(q[j]) {
				j++
			}
			out = append(out, strings.ToUpper(q[i:j]))
			i = j
		default:
			return out
		}
	}
	return out
}

// isRead says whether a statement only reads: SELECT, VALUES, EXPLAIN, or
// WITH … SELECT without a write in it.
func isRead(q string) bool {
	w := firstWords(q, 1)
	if len(w) == 0 {
		return false
	}
	switch w[0] {
	case "SELECT", "VALUES", "EXPLAIN":
		return true
	case "WITH":
		for _, kw := range []string{"INSERT", "UPDATE", "DELETE", "REPLACE"} {
			if containsWord(q, kw) {
				return false
			}
		}
		return true
	}
	return false
}

func containsWord(q, w string) bool {
	u := strings.ToUpper(q)
	for i := 0; ; {
		j := strings.Index(u[i:], w)
		if j < 0 {
			return false
		}
		j += i
		if (j == 0 || !isIdentChar(u[j-1])) && (j+len(w) == len(u) || !isIdentChar(u[j+len(w)])) {
			return true
		}
		i = j + len(w)
	}
}

// Transaction control a script may write as SQL.
const (
	ctlNone = iota
	ctlBegin
	ctlCommit
	ctlRollback
)

// control recognises BEGIN, START TRANSACTION, COMMIT, END and ROLLBACK,
// and a BEGIN's mode (DEFERRED, IMMEDIATE, EXCLUSIVE, or "").
func control(q string) (int, string) {
	w := firstWords(q, 3)
	if len(w) == 0 {
		return ctlNone, ""
	}
	switch w[0] {
	case "BEGIN":
		if len(w) > 1 && w[1] != "TRANSACTION" && w[1] != "WORK" {
			return ctlBegin, w[1]
		}
		return ctlBegin, ""
	case "START":
		if len(w) > 1 && w[1] == "TRANSACTION" {
			return ctlBegin, ""
		}
	case "COMMIT", "END":
		return ctlCommit, ""
	case "ROLLBACK", "ABORT":
		return ctlRollback, ""
	}
	return ctlNone, ""
}

// selectNames returns the names of a SELECT's result columns, as pgbench's
// \gset stores them: an alias after AS, else a bare (or table-qualified)
// column name; ok is false when a column has neither.
func selectNames(q string) (names []string, bad int, ok bool) {
	u := strings.ToUpper(q)
	start := -1
	for i := 0; i < len(q); i++ {
		switch q[i] {
		case '\'', '"', '`':
			i = skipQuoted(q, i)
			continue
		}
		if strings.HasPrefix(u[i:], "SELECT") && (i == 0 || !isIdentChar(u[i-1])) && (i+6 == len(u) || !isIdentChar(u[i+6])) {
			start = i + 6
			break
		}
	}
	if start < 0 {
		return nil, 0, false
	}
	for _, kw := range []string{"DISTINCT", "ALL"} {
		rest := strings.TrimLeft(u[start:], " \t\n\r")
		if strings.HasPrefix(rest, kw+" ") {
			start = len(u) - len(rest) + len(kw)
		}
	}
	depth, from := 0, start
	var items []string
	var offs []int
	end := len(q)
scan:
	for i := start; i < len(q); i++ {
		switch c := q[i]; {
		case c == '\'' || c == '"' || c == '`':
			i = skipQuoted(q, i)
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			items, offs = append(items, q[from:i]), append(offs, from)
			from = i + 1
		case c == ';':
			end = i
			break scan
		case depth == 0 && isIdentStart(c) && (i == 0 || !isIdentChar(q[i-1])):
			for _, kw := range []string{"FROM", "WHERE", "GROUP", "ORDER", "LIMIT", "UNION", "HAVING", "WINDOW", "INTO"} {
				if strings.HasPrefix(u[i:], kw) && (i+len(kw) == len(u) || !isIdentChar(u[i+len(kw)])) {
					end = i
					break scan
				}
			}
		}
	}
	items, offs = append(items, q[from:end]), append(offs, from)
	for k, it := range items {
		it = strings.TrimSpace(it)
		f := strings.Fields(it)
		name := ""
		switch {
		case len(f) >= 3 && strings.EqualFold(f[len(f)-2], "AS"):
			name = f[len(f)-1]
		case len(f) == 1 && isName(f[0]):
			name = f[0]
			if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
				name = name[dot+1:]
			}
		}
		name = strings.Trim(name, "\"`")
		if name == "" || !isName(name) || name == "*" {
			return nil, offs[k], false
		}
		names = append(names, name)
	}
	return names, 0, true
}

func isName(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentChar(s[i]) && s[i] != '.' {
			return false
		}
	}
	return true
}
