package spec

import (
	"fmt"
	"sort"
	"strings"
)

// CheckSQL applies refused to every SQL text the workload's file holds
// (init, named and inline statements with their dialect variants, the
// tables' create statements, checks) and to its parameters' values, which
// may be spliced into them, and returns the first it names as an error
// naming the file, line and statement (nil when none). A built-in
// workload's SQL is litebench's own and is not checked.
func (w *Workload) CheckSQL(refused func(q string) string) error {
	if w.f.builtin {
		return nil
	}
	type text struct {
		pos Pos
		q   string
	}
	var all []text
	addStmt := func(st *Stmt) {
		if st == nil {
			return
		}
		all = append(all, text{st.Pos, st.SQL})
		for _, k := range sortedKeys(st.dialects) {
			all = append(all, text{st.Pos, st.dialects[k]})
		}
	}
	for _, st := range w.f.init {
		addStmt(st)
	}
	var named []*Stmt
	for _, st := range w.f.stmts {
		named = append(named, st)
	}
	sort.Slice(named, func(i, j int) bool { return before(named[i].Pos, named[j].Pos) })
	for _, st := range named {
		addStmt(st)
	}
	for _, t := range w.f.Tables {
		for _, c := range t.create {
			all = append(all, text{c.pos, c.s})
		}
	}
	for _, tx := range w.f.Txns {
		for _, s := range tx.Steps {
			addStmt(s.stmt)
		}
	}
	for _, c := range w.f.Checks {
		addStmt(c.stmt)
	}
	for _, t := range all {
		if what := refused(t.q); what != "" {
			return fmt.Errorf("%s: %q is %s", t.pos, sqlLine(t.q), what)
		}
	}
	for _, k := range sortedKeys(w.params) {
		if what := refused(w.params[k]); what != "" {
			return fmt.Errorf("--%s %q is %s", k, sqlLine(w.params[k]), what)
		}
	}
	return nil
}

func before(a, b Pos) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.Col < b.Col
}

// sqlLine is q's start on one line, for messages.
func sqlLine(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	if len(q) > 60 {
		q = q[:57] + "..."
	}
	return q
}
