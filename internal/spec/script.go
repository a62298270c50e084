package spec

import (
	"strings"
)

type stepKind uint8

const (
	sSet stepKind = iota + 1
	sSleep
	sSQL
	sBegin
	sCommit
	sRollback
	sTable
	sNative
)

// Step is one line of a transaction: a meta-command, an SQL statement,
// transaction control, or an operation litebench runs natively.
type Step struct {
	kind stepKind
	pos  Pos
	// sSet: name := expr
	name string
	expr *ast
	// sSleep: sleep expr × unit
	unitNS int64
	// sSQL
	stmt *Stmt
	// sBegin: the mode written after BEGIN ("" for the setting's)
	mode string
	// sTable, sNative: the operation's fields (templates)
	op     *tmpl
	fields map[string]*tmpl
	text   string // how the step reads, for messages
}

// Stmt is an SQL statement: named in a file's [statement] table, or
// written inline in a transaction.
type Stmt struct {
	Name string // "" when inline
	// SQL is the text as it runs: orig with the files of ATTACH made
	// read-only URIs (see fence.go).
	SQL      string
	orig     string
	Pos      Pos
	at       func(int) Pos
	params   []sqlParam
	dialects map[string]string
	// dialectsOrig are the dialect texts as written (dialects' ATTACH
	// files are made read-only URIs as SQL's are).
	dialectsOrig map[string]string
	read         bool
	// into names the variables a query's first row goes to (\gset).
	into []string
}

func newStmt(name, orig string, at func(int) Pos) *Stmt {
	q := attachReadOnly(orig)
	return &Stmt{Name: name, SQL: q, orig: orig, Pos: at(0), at: at, params: scanParams(q), read: isRead(q)}
}

// source is a text with a way to place its bytes in the file.
type source struct {
	text string
	at   func(int) Pos
}

func fileSource(file, text string) source {
	ls := newLines(file, []byte(text))
	return source{text: text, at: ls.pos}
}

func (s source) sub(off int) source {
	return source{text: s.text[off:], at: func(k int) Pos { return s.at(off + k) }}
}

// Meta-commands of pgbench that litebench does not run.
var unsupportedMeta = map[string]bool{
	"setshell": true, "shell": true, "if": true, "elif": true, "else": true, "endif": true,
	"aset": true, "startpipeline": true, "endpipeline": true, "syncpipeline": true,
	"flushrequest": true, "getresults": true,
}

// parseScript reads pgbench's script syntax: SQL commands ended by ';' (or
// by \gset), meta-commands \set, \sleep and \gset, '--' comments. named
// resolves a line that is only a statement's name (workload files).
func parseScript(src source, named func(string) *Stmt) ([]*Step, error) {
	q := src.text
	var steps []*Step
	var last *Step // the SQL step a \gset may end
	i := 0
	for i < len(q) {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';':
			i++
			continue
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			for i < len(q) && q[i] != '\n' {
				i++
			}
			continue
		case c == '\\':
			end := metaEnd(q, i)
			line := strings.ReplaceAll(q[i+1:end], "\\\n", "  ")
			st, err := parseMeta(src.sub(i+1), line)
			if err != nil {
				return nil, err
			}
			if st.kind == 0 { // \gset standing alone
				return nil, errorf(src.at(i), "\\gset must end an SQL query (in place of its ';')")
			}
			steps = append(steps, st)
			last = nil
			i = end
			continue
		}
		start := i
		end, stop := sqlEnd(q, i)
		text := strings.TrimSpace(q[start:end])
		st, err := sqlStep(src.sub(start), text, named)
		if err != nil {
			return nil, err
		}
		if st != nil {
			steps = append(steps, st)
			last = st
		}
		i = end
		if stop == '\\' { // \gset or \aset ends this query
			mend := metaEnd(q, i)
			line := q[i+1 : mend]
			w := strings.Fields(line)
			if w[0] != "gset" {
				return nil, errorf(src.at(i), "\\%s is not supported (litebench runs \\set, \\sleep and \\gset)", w[0])
			}
			if err := gset(last, w[1:], src.at(i)); err != nil {
				return nil, err
			}
			i = mend
		} else if stop == ';' {
			i++
		}
		_ = last
	}
	return steps, nil
}

// metaEnd is the end of the meta-command starting at i: the end of its
// line, lines ending in a backslash continued.
func metaEnd(q string, i int) int {
	for j := i; j < len(q); j++ {
		if q[j] == '\n' && (j == 0 || q[j-1] != '\\') {
			return j
		}
	}
	return len(q)
}

// sqlEnd finds the end of the SQL command starting at i: an unquoted ';',
// a backslash starting \gset, or the end. It returns where the command
// text stops and what stopped it.
func sqlEnd(q string, i int) (int, byte) {
	for ; i < len(q); i++ {
		if j, ok := skipNoise(q, i); ok {
			i = j
			continue
		}
		switch c := q[i]; {
		case c == ';':
			return i, ';'
		case c == '\\' && i+1 < len(q) && q[i+1] != '\\':
			return i, '\\'
		}
	}
	return len(q), 0
}

// sqlStep turns one SQL command into a step.
func sqlStep(src source, text string, named func(string) *Stmt) (*Step, error) {
	if text == "" {
		return nil, nil
	}
	pos := src.at(0)
	switch ctl, mode := control(text); ctl {
	case ctlBegin:
		switch mode {
		case "", "DEFERRED", "IMMEDIATE", "EXCLUSIVE":
		default:
			return nil, errorf(pos, "BEGIN %s is not supported: write BEGIN, BEGIN DEFERRED, BEGIN IMMEDIATE or BEGIN EXCLUSIVE (the mode is the tx setting)", mode)
		}
		return &Step{kind: sBegin, pos: pos, mode: strings.ToLower(mode), text: text}, nil
	case ctlCommit:
		return &Step{kind: sCommit, pos: pos, text: text}, nil
	case ctlRollback:
		return &Step{kind: sRollback, pos: pos, text: text}, nil
	}
	if named != nil && isName(text) && !strings.Contains(text, ".") && !oneWordSQL[strings.ToUpper(text)] {
		if st := named(text); st != nil {
			return &Step{kind: sSQL, pos: pos, stmt: st, text: text}, nil
		}
		return nil, errorf(pos, "no statement called %q: name one from [statement], or write SQL", text)
	}
	return &Step{kind: sSQL, pos: pos, stmt: newStmt("", text, src.at), text: text}, nil
}

// oneWordSQL are commands a step may write alone that are not a
// statement's name.
var oneWordSQL = map[string]bool{"VACUUM": true, "ANALYZE": true, "REINDEX": true}

// gset makes st's first row set variables named after its columns.
func gset(st *Step, args []string, at Pos) error {
	if st == nil || st.kind != sSQL {
		return errorf(at, "\\gset must end an SQL query (in place of its ';')")
	}
	prefix := ""
	if len(args) > 1 {
		return errorf(at, "\\gset takes at most a prefix, not %q", strings.Join(args, " "))
	}
	if len(args) == 1 {
		prefix = args[0]
	}
	names, off, ok := selectNames(st.stmt.SQL)
	if !ok {
		return errorf(st.stmt.at(off), "\\gset: name this result column with AS, so that it names a variable")
	}
	s := *st.stmt
	s.into = nil
	for _, n := range names {
		s.into = append(s.into, prefix+n)
	}
	st.stmt = &s
	return nil
}

// parseMeta reads a meta-command (without its backslash).
func parseMeta(src source, line string) (*Step, error) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return nil, errorf(src.at(0), "a backslash must start a meta-command such as \\set")
	}
	pos := src.at(-1)
	name := f[0]
	switch {
	case name == "set":
		if len(f) < 3 {
			return nil, errorf(pos, "\\set wants a variable name and an expression: \\set aid random(1, 100000)")
		}
		v := f[1]
		if !isName(v) || strings.Contains(v, ".") {
			return nil, errorf(pos, "\\set %s: a variable name is letters, digits and _", v)
		}
		off := strings.Index(line, v) + len(v)
		e, err := parseExpr(line[off:], func(k int) Pos { return src.at(off + k) }, false)
		if err != nil {
			return nil, err
		}
		return &Step{kind: sSet, pos: pos, name: v, expr: e, text: "\\" + strings.TrimSpace(line)}, nil
	case name == "sleep":
		if len(f) < 2 || len(f) > 3 {
			return nil, errorf(pos, "\\sleep wants a number or a :variable, and a unit: us, ms or s (the default)")
		}
		unit := int64(1e9)
		if len(f) == 3 {
			switch f[2] {
			case "us":
				unit = 1e3
			case "ms":
				unit = 1e6
			case "s":
			default:
				return nil, errorf(pos, "\\sleep unit %q: want us, ms or s", f[2])
			}
		}
		off := strings.Index(line, f[1])
		e, err := parseExpr(f[1], func(k int) Pos { return src.at(off + k) }, false)
		if err != nil {
			return nil, err
		}
		if e.kind != aInt && e.kind != aVar {
			return nil, errorf(src.at(off), "\\sleep wants a whole number or a :variable, not %q", f[1])
		}
		return &Step{kind: sSleep, pos: pos, expr: e, unitNS: unit, text: "\\" + strings.TrimSpace(line)}, nil
	case name == "gset":
		return &Step{}, nil
	case unsupportedMeta[name]:
		return nil, errorf(pos, "\\%s is not supported (litebench runs \\set, \\sleep and \\gset)", name)
	}
	return nil, errorf(pos, "unknown meta-command \\%s (litebench runs \\set, \\sleep and \\gset)", name)
}
