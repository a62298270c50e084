package spec

import (
	"strconv"
	"strings"

	"github.com/litebench/litebench/internal/settings"
)

// decoder reads the sections of a workload file into a File.
type decoder struct {
	f *File
}

func (d *decoder) str(n *node) (string, error) {
	if n.kind != nString {
		return "", errorf(n.pos, "%s: expected a string, found %s", n.name, n.kind)
	}
	return n.str, nil
}

func (d *decoder) boolean(n *node) (bool, error) {
	if n.kind != nBool {
		return false, errorf(n.pos, "%s: expected true or false, found %s", n.name, n.kind)
	}
	return n.b, nil
}

func (d *decoder) strList(n *node) ([]string, error) {
	if n.kind != nArray {
		return nil, errorf(n.pos, "%s: expected a list of strings, found %s", n.name, n.kind)
	}
	var out []string
	for _, it := range n.items {
		if it.kind != nString {
			return nil, errorf(it.pos, "%s: expected a string, found %s", n.name, it.kind)
		}
		out = append(out, it.str)
	}
	return out, nil
}

// tmpl reads a scalar that may hold ${…}.
func (d *decoder) tmpl(n *node) (*tmpl, error) {
	switch n.kind {
	case nString:
		t, err := newTmpl(n.str, n.pos, n.at)
		if t != nil {
			t.n = n
		}
		return t, err
	case nInt:
		return &tmpl{s: strconv.FormatInt(n.i, 10), pos: n.pos}, nil
	case nFloat:
		return &tmpl{s: strconv.FormatFloat(n.f, 'g', -1, 64), pos: n.pos}, nil
	case nBool:
		return &tmpl{s: strconv.FormatBool(n.b), pos: n.pos}, nil
	}
	return nil, errorf(n.pos, "%s: expected a value, found %s", n.name, n.kind)
}

func (d *decoder) tmplList(n *node) ([]*tmpl, error) {
	if n.kind != nArray {
		return nil, errorf(n.pos, "%s: expected a list, found %s", n.name, n.kind)
	}
	var out []*tmpl
	for _, it := range n.items {
		t, err := d.tmpl(it)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func (d *decoder) table(n *node, what string) error {
	if n.kind != nTable {
		return errorf(n.pos, "%s: expected a table, found %s", what, n.kind)
	}
	return nil
}

// include merges a built-in library's tables and statements.
func (d *decoder) include(n *node, name string) error {
	text, ok := Library(name)
	if !ok {
		return errorf(n.pos, "include %q: no such built-in library (known: %s)", name, strings.Join(LibraryNames(), ", "))
	}
	lib := &File{}
	root, err := parseTOML(name+".toml", []byte(text))
	if err != nil {
		return err
	}
	lib.stmts = map[string]*Stmt{}
	ld := &decoder{f: lib}
	if err := ld.tables(root.get("table")); err != nil {
		return err
	}
	if err := ld.statements(root.get("statement")); err != nil {
		return err
	}
	if err := root.unknown("a library", "table", "statement"); err != nil {
		return err
	}
	for _, t := range lib.Tables {
		t.lib = name
		d.f.Tables = append(d.f.Tables, t)
	}
	for k, s := range lib.stmts {
		d.f.stmts[k] = s
	}
	return nil
}

// uses reads tables = ["NAME", { name = "NAME", rows = N }, …].
func (d *decoder) uses(n *node) error {
	if n == nil {
		return nil
	}
	if n.kind != nArray {
		return errorf(n.pos, "tables: expected a list of table names (or { name = …, rows = … })")
	}
	d.f.uses = []use{}
	for _, it := range n.items {
		var u use
		var err error
		if it.kind == nTable {
			x := it.get("name")
			if x == nil {
				return errorf(it.pos, "tables: an entry needs the table's name")
			}
			if u.name, err = d.tmpl(x); err != nil {
				return err
			}
			if x := it.get("rows"); x != nil {
				if u.rows, err = d.tmpl(x); err != nil {
					return err
				}
			}
			if err := it.unknown("a tables entry", "name", "rows"); err != nil {
				return err
			}
		} else if u.name, err = d.tmpl(it); err != nil {
			return err
		}
		d.f.uses = append(d.f.uses, u)
	}
	return nil
}

var paramTypes = []string{"count", "int", "number", "duration", "bool", "text"}

func (d *decoder) params(n *node) error {
	if n == nil {
		return nil
	}
	if err := d.table(n, "params"); err != nil {
		return err
	}
	for _, name := range n.keys {
		v := n.vals[name]
		if !bareParam.MatchString(name) {
			return errorf(v.key, "parameter %q: a name is letters, digits, '-' and '_'", name)
		}
		p := &Param{Name: name, Sweep: true, Pos: v.key}
		if v.kind != nTable {
			t, err := d.tmpl(v)
			if err != nil {
				return err
			}
			p.Default = t.s
		} else {
			if err := d.param(v, p); err != nil {
				return err
			}
		}
		d.f.Params = append(d.f.Params, p)
	}
	return nil
}

func (d *decoder) param(v *node, p *Param) error {
	if x := v.get("default"); x != nil {
		t, err := d.tmpl(x)
		if err != nil {
			return err
		}
		p.Default = t.s
	} else {
		return errorf(v.key, "parameter %s needs a default", p.Name)
	}
	var err error
	if x := v.get("help"); x != nil {
		if p.Help, err = d.str(x); err != nil {
			return err
		}
	}
	if x := v.get("sweep"); x != nil {
		if p.Sweep, err = d.boolean(x); err != nil {
			return err
		}
	}
	if x := v.get("type"); x != nil {
		if p.Type, err = d.str(x); err != nil {
			return err
		}
		ok := false
		for _, t := range paramTypes {
			ok = ok || t == p.Type
		}
		if !ok {
			return errorf(x.pos, "type %q: want one of %s", p.Type, strings.Join(paramTypes, ", "))
		}
	}
	for _, k := range []string{"min", "max"} {
		x := v.get(k)
		if x == nil {
			continue
		}
		var f float64
		switch x.kind {
		case nInt:
			f = float64(x.i)
		case nFloat:
			f = x.f
		default:
			return errorf(x.pos, "%s: expected a number, found %s", k, x.kind)
		}
		if k == "min" {
			p.Min = &f
		} else {
			p.Max = &f
		}
	}
	if x := v.get("choices"); x != nil {
		if p.Choices, err = d.strList(x); err != nil {
			return err
		}
	}
	return v.unknown("a parameter", "default", "help", "sweep", "type", "min", "max", "choices")
}

func (d *decoder) settings(n *node) error {
	if n == nil {
		return nil
	}
	if err := d.table(n, "settings"); err != nil {
		return err
	}
	for _, k := range n.keys {
		v := n.vals[k]
		if settings.Lookup(k) == nil {
			return errorf(v.key, "unknown setting %q (see 'litebench list settings')", k)
		}
		t, err := d.tmpl(v)
		if err != nil {
			return err
		}
		if t.isTemplate() {
			return errorf(v.pos, "settings are not templates: a sweep gives them on the command line (--%s a,b)", k)
		}
		if err := settings.Default().Set(k, t.s); err != nil {
			return errorf(v.pos, "%v", err)
		}
		d.f.Settings[k] = t.s
	}
	return nil
}

func (d *decoder) loadModel(n *node) error {
	if n == nil {
		return nil
	}
	if err := d.table(n, "load"); err != nil {
		return err
	}
	var known []string
	for _, k := range mixKeys {
		known = append(known, strings.ReplaceAll(k.name, "-", "_"))
	}
	for _, k := range n.keys {
		v := n.vals[k]
		name := strings.ReplaceAll(k, "_", "-")
		ok := false
		for _, m := range mixKeys {
			ok = ok || m.name == name
		}
		if !ok {
			return errorf(v.key, "[load] has no key %q (known: %s)", k, strings.Join(known, ", "))
		}
		t, err := d.tmpl(v)
		if err != nil {
			return err
		}
		d.f.load[name] = t
	}
	return nil
}

var columnTypes = map[string]bool{"int": true, "integer": true, "text": true, "blob": true}

func (d *decoder) tables(n *node) error {
	if n == nil {
		return nil
	}
	if n.kind != nArray {
		return errorf(n.pos, "table: write each table as [[table]]")
	}
	for _, tn := range n.items {
		if err := d.table(tn, "table"); err != nil {
			return err
		}
		t := &Table{Pos: tn.key}
		x := tn.get("name")
		if x == nil {
			return errorf(tn.key, "a [[table]] needs a name")
		}
		var err error
		if t.Name, err = d.str(x); err != nil {
			return err
		}
		if !isName(t.Name) || strings.Contains(t.Name, ".") {
			return errorf(x.pos, "table name %q: use letters, digits and _", t.Name)
		}
		for _, o := range d.f.Tables {
			if strings.EqualFold(o.Name, t.Name) {
				return errorf(x.pos, "table %s is defined twice (also at %s)", t.Name, o.Pos)
			}
		}
		if x := tn.get("rows"); x != nil {
			if t.rows, err = d.tmpl(x); err != nil {
				return err
			}
		}
		if err := d.columns(tn, t); err != nil {
			return err
		}
		if err := d.indexes(tn, t); err != nil {
			return err
		}
		if x := tn.get("create"); x != nil {
			if x.kind == nString {
				x = &node{kind: nArray, items: []*node{x}, pos: x.pos, name: "create"}
			}
			if t.create, err = d.tmplList(x); err != nil {
				return err
			}
		}
		if x := tn.get("update"); x != nil {
			if t.update, err = d.strList(x); err != nil {
				return err
			}
			for k, c := range t.update {
				if t.column(c) == nil {
					return errorf(x.items[k].pos, "update: no column %q in %s", c, t.Name)
				}
			}
		}
		if x := tn.get("key"); x != nil {
			if t.key, err = d.str(x); err != nil {
				return err
			}
			if t.column(t.key) == nil {
				return errorf(x.pos, "key: no column %q in %s", t.key, t.Name)
			}
		}
		if err := tn.unknown("a table", "name", "rows", "columns", "indexes", "create", "update", "key"); err != nil {
			return err
		}
		d.f.Tables = append(d.f.Tables, t)
	}
	return nil
}

func (t *Table) column(name string) *Column {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func (d *decoder) columns(tn *node, t *Table) error {
	x := tn.get("columns")
	if x == nil || x.kind != nArray || len(x.items) == 0 {
		p := tn.key
		if x != nil {
			p = x.pos
		}
		return errorf(p, "table %s: list its columns: columns = [{ name = \"id\", type = \"integer\", primary_key = true, gen = \"seq(1)\" }, …]", t.Name)
	}
	for _, cn := range x.items {
		if err := d.table(cn, "a column"); err != nil {
			return err
		}
		c := &Column{Pos: cn.pos}
		nn := cn.get("name")
		if nn == nil {
			return errorf(cn.pos, "a column needs a name")
		}
		var err error
		if c.Name, err = d.str(nn); err != nil {
			return err
		}
		if !isName(c.Name) || strings.Contains(c.Name, ".") {
			return errorf(nn.pos, "column name %q: use letters, digits and _", c.Name)
		}
		if t.column(c.Name) != nil {
			return errorf(nn.pos, "column %s appears twice in %s", c.Name, t.Name)
		}
		if tt := cn.get("type"); tt != nil {
			if c.Type, err = d.str(tt); err != nil {
				return err
			}
			c.Type = strings.ToLower(c.Type)
			if !columnTypes[c.Type] {
				return errorf(tt.pos, "column type %q: want int, integer (SQLite's rowid key), text or blob", c.Type)
			}
		}
		for _, k := range []struct {
			key string
			dst *bool
		}{{"primary_key", &c.PK}, {"not_null", &c.NotNull}, {"unique", &c.Unique}} {
			if b := cn.get(k.key); b != nil {
				if *k.dst, err = d.boolean(b); err != nil {
					return err
				}
			}
		}
		if g := cn.get("gen"); g != nil {
			if g.kind != nString {
				return errorf(g.pos, "gen: expected a generator such as \"seq(1)\" or \"hex(8)\", found %s", g.kind)
			}
			if c.gen, err = d.tmpl(g); err != nil {
				return err
			}
			if !c.gen.isTemplate() {
				if _, err := parseGenCall(c.gen); err != nil {
					return err
				}
			}
		}
		if err := cn.unknown("a column", "name", "type", "primary_key", "not_null", "unique", "gen"); err != nil {
			return err
		}
		t.Columns = append(t.Columns, c)
	}
	return nil
}

func (d *decoder) indexes(tn *node, t *Table) error {
	x := tn.get("indexes")
	if x == nil {
		return nil
	}
	if x.kind != nArray {
		return errorf(x.pos, "indexes: expected a list of { name = …, columns = […] }")
	}
	for _, in := range x.items {
		if err := d.table(in, "an index"); err != nil {
			return err
		}
		var ix Index
		nn := in.get("name")
		cs := in.get("columns")
		if nn == nil || cs == nil {
			return errorf(in.pos, "an index needs a name and columns")
		}
		var err error
		if ix.Name, err = d.str(nn); err != nil {
			return err
		}
		if ix.Columns, err = d.strList(cs); err != nil {
			return err
		}
		for k, c := range ix.Columns {
			if t.column(c) == nil {
				return errorf(cs.items[k].pos, "index %s: no column %q in %s", ix.Name, c, t.Name)
			}
		}
		if u := in.get("unique"); u != nil {
			if ix.Unique, err = d.boolean(u); err != nil {
				return err
			}
		}
		if err := in.unknown("an index", "name", "columns", "unique"); err != nil {
			return err
		}
		t.Indexes = append(t.Indexes, ix)
	}
	return nil
}

func (d *decoder) statements(n *node) error {
	if n == nil {
		return nil
	}
	if err := d.table(n, "statement"); err != nil {
		return err
	}
	for _, name := range n.keys {
		v := n.vals[name]
		if !isName(name) || strings.Contains(name, ".") {
			return errorf(v.key, "statement name %q: use letters, digits and _", name)
		}
		if v.kind == nString {
			v = &node{kind: nTable, pos: v.pos, key: v.key, vals: map[string]*node{"sql": v}, keys: []string{"sql"}, used: map[string]bool{}}
		}
		if err := d.table(v, "statement "+name); err != nil {
			return err
		}
		q := v.get("sql")
		if q == nil || q.kind != nString || strings.TrimSpace(q.str) == "" {
			return errorf(v.key, "statement %s needs its sql = \"…\"", name)
		}
		st := newStmt(name, q.str, q.at)
		if c, _ := control(q.str); c != ctlNone {
			return errorf(q.pos, "statement %s: write BEGIN and COMMIT as steps of a transaction, not as statements", name)
		}
		if x := v.get("side"); x != nil {
			s, err := d.str(x)
			if err != nil {
				return err
			}
			switch s {
			case "read", "write":
				st.read = s == "read"
			default:
				return errorf(x.pos, "side %q: want read or write", s)
			}
		}
		if x := v.get("into"); x != nil {
			into, err := d.strList(x)
			if err != nil {
				return err
			}
			for k, name := range into {
				if !isName(name) || strings.Contains(name, ".") {
					return errorf(x.items[k].pos, "into: %q is not a variable name", name)
				}
			}
			st.into = into
		}
		if x := v.get("dialect"); x != nil {
			if err := d.table(x, "dialect"); err != nil {
				return err
			}
			st.dialects, st.dialectsOrig = map[string]string{}, map[string]string{}
			for _, k := range x.keys {
				s, err := d.str(x.vals[k])
				if err != nil {
					return err
				}
				if paramNames(scanParams(s)) != paramNames(st.params) {
					return errorf(x.vals[k].pos, "dialect %s: bind the same :names in the same order as sql (%s)", k, paramNames(st.params))
				}
				st.dialects[k], st.dialectsOrig[k] = attachReadOnly(s), s
			}
		}
		if err := v.unknown("a statement", "sql", "side", "into", "dialect"); err != nil {
			return err
		}
		d.f.stmts[name] = st
	}
	return nil
}

func (d *decoder) initSQL(n *node) error {
	if n.kind != nString {
		return errorf(n.pos, "init: expected SQL text, found %s", n.kind)
	}
	cmds, err := splitSQL(source{text: n.str, at: n.at})
	if err != nil {
		return err
	}
	d.f.init = append(d.f.init, cmds...)
	d.f.initSub = true
	return nil
}

// paramNames lists a statement's :names in order, for messages and
// comparisons.
func paramNames(ps []sqlParam) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(":" + p.name)
	}
	return b.String()
}

// splitSQL splits an SQL text into its commands (no meta-commands).
func splitSQL(src source) ([]*Stmt, error) {
	var out []*Stmt
	q := src.text
	for i := 0; i < len(q); {
		end, stop := sqlEnd(q, i)
		if stop == '\\' {
			return nil, errorf(src.at(end), "meta-commands are not run here: this is plain SQL")
		}
		text := strings.TrimSpace(q[i:end])
		if text != "" {
			lead := i + strings.Index(q[i:end], text)
			out = append(out, newStmt("", text, src.sub(lead).at))
		}
		i = end + 1
	}
	return out, nil
}

func (d *decoder) insertMode(n *node) error {
	if n == nil {
		return nil
	}
	if err := d.table(n, "insert"); err != nil {
		return err
	}
	m := &insertMode{pos: n.key}
	for _, k := range []struct {
		key string
		dst **tmpl
	}{{"table", &m.table}, {"rows", &m.rows}, {"workers", &m.workers}, {"vacuum", &m.vacuu}} {
		if x := n.get(k.key); x != nil {
			t, err := d.tmpl(x)
			if err != nil {
				return err
			}
			*k.dst = t
		}
	}
	if m.table == nil {
		return errorf(n.key, "[insert] needs the table it inserts into: table = \"NAME\"")
	}
	if err := n.unknown("[insert]", "table", "rows", "workers", "vacuum"); err != nil {
		return err
	}
	for _, k := range []struct {
		name string
		t    *tmpl
	}{{"rows", m.rows}, {"workers", m.workers}, {"vacuum", m.vacuu}} {
		if k.t != nil {
			d.f.load[k.name] = k.t
		}
	}
	d.f.insert = m
	return nil
}

func (d *decoder) transactions(n *node) error {
	if n == nil {
		return nil
	}
	if err := d.table(n, "transaction"); err != nil {
		return err
	}
	for _, name := range n.keys {
		v := n.vals[name]
		if !nameRE.MatchString(name) {
			return errorf(v.key, "transaction name %q: use letters, digits, '-', '_' and '.'", name)
		}
		if err := d.table(v, "transaction "+name); err != nil {
			return err
		}
		t := &Txn{Name: name, Pos: v.key}
		st, sc := v.get("steps"), v.get("script")
		switch {
		case st != nil && sc != nil:
			return errorf(sc.key, "transaction %s: give steps or a script, not both", name)
		case sc != nil:
			if sc.kind != nString {
				return errorf(sc.pos, "script: expected pgbench script text, found %s", sc.kind)
			}
			steps, err := parseScript(source{text: sc.str, at: sc.at}, d.named)
			if err != nil {
				return err
			}
			t.Steps = steps
		case st != nil:
			if st.kind != nArray {
				return errorf(st.pos, "steps: expected a list of statement names, SQL, meta-commands or { op = … } tables")
			}
			if err := d.steps(st, t); err != nil {
				return err
			}
		default:
			return errorf(v.key, "transaction %s needs steps = [ … ] or a script", name)
		}
		if x := v.get("workers"); x != nil {
			w, err := d.tmpl(x)
			if err != nil {
				return err
			}
			t.workers = w
		}
		if err := v.unknown("a transaction", "steps", "script", "workers"); err != nil {
			return err
		}
		if err := checkSteps(t); err != nil {
			return err
		}
		d.f.Txns = append(d.f.Txns, t)
	}
	return nil
}

func (d *decoder) named(name string) *Stmt { return d.f.stmts[name] }

var opNames = []string{"read", "insert", "update", "upsert"}

func (d *decoder) steps(n *node, t *Txn) error {
	var last *Step
	for _, it := range n.items {
		switch it.kind {
		case nString:
			s := strings.TrimSpace(it.str)
			if strings.HasPrefix(s, "\\gset") {
				if err := gset(last, strings.Fields(s)[1:], it.pos); err != nil {
					return err
				}
				continue
			}
			steps, err := parseScript(source{text: it.str, at: it.at}, d.named)
			if err != nil {
				return err
			}
			if len(steps) == 0 {
				return errorf(it.pos, "an empty step")
			}
			t.Steps = append(t.Steps, steps...)
			last = steps[len(steps)-1]
		case nTable:
			st, err := d.opStep(it)
			if err != nil {
				return err
			}
			t.Steps = append(t.Steps, st)
			last = nil
		default:
			return errorf(it.pos, "a step is a string (a statement's name, SQL or a meta-command) or { op = … }, not %s", it.kind)
		}
	}
	return nil
}

// Native operations a step may call, with their fields.
var natives = map[string][]string{
	"scan_verify":     {"table"},
	"paginate_offset": {"table", "depth", "page"},
	"paginate_keyset": {"table", "depth", "page"},
}

func nativeNames() string { return strings.Join(sortedKeys(natives), ", ") }

// opStep reads { op = "read", table = "T", keys = "uniform", theta = 0.99 }
// or { native = "scan_verify", table = "T" }.
func (d *decoder) opStep(n *node) (*Step, error) {
	st := &Step{pos: n.pos, fields: map[string]*tmpl{}}
	if x := n.get("native"); x != nil {
		name, err := d.str(x)
		if err != nil {
			return nil, err
		}
		fields, ok := natives[name]
		if !ok {
			return nil, errorf(x.pos, "native %q: no such operation (known: %s)", name, nativeNames())
		}
		st.kind, st.text = sNative, name
		for _, k := range fields {
			y := n.get(k)
			if y == nil {
				return nil, errorf(n.pos, "native %s needs %s", name, strings.Join(fields, ", "))
			}
			if st.fields[k], err = d.tmpl(y); err != nil {
				return nil, err
			}
		}
		return st, n.unknown("native "+name, append([]string{"native"}, fields...)...)
	}
	x := n.get("op")
	if x == nil {
		return nil, errorf(n.pos, "a step table needs op = %q (or native = …)", strings.Join(opNames, "|"))
	}
	var err error
	if st.op, err = d.tmpl(x); err != nil {
		return nil, err
	}
	if !st.op.isTemplate() {
		if err := checkOp(st.op.s, x.pos); err != nil {
			return nil, err
		}
	}
	st.kind, st.text = sTable, st.op.s
	for _, k := range []string{"table", "keys", "theta", "statement"} {
		if y := n.get(k); y != nil {
			if st.fields[k], err = d.tmpl(y); err != nil {
				return nil, err
			}
		}
	}
	if st.fields["table"] == nil {
		return nil, errorf(n.pos, "op %s needs table = \"NAME\"", st.op.s)
	}
	if s := st.fields["statement"]; s != nil && d.f.stmts[s.s] == nil {
		return nil, errorf(s.pos, "statement %q: no such [statement]", s.s)
	}
	return st, n.unknown("an op step", "op", "table", "keys", "theta", "statement")
}

func checkOp(op string, p Pos) error {
	for _, o := range opNames {
		if o == op {
			return nil
		}
	}
	return errorf(p, "op %q: want %s", op, strings.Join(opNames, ", "))
}

// checkSteps checks a transaction's BEGIN and COMMIT pairs and where
// table operations stand.
func checkSteps(t *Txn) error {
	var open *Step
	sqls := 0
	for _, st := range t.Steps {
		switch st.kind {
		case sBegin:
			if open != nil {
				return errorf(st.pos, "BEGIN inside the transaction begun at line %d", open.pos.Line)
			}
			open = st
		case sCommit, sRollback:
			if open == nil {
				return errorf(st.pos, "%s without BEGIN", strings.ToUpper(firstWord(st.text)))
			}
			open = nil
		case sTable, sNative:
			if open != nil {
				return errorf(st.pos, "%s runs its own transactions: put it outside BEGIN … COMMIT", st.text)
			}
		}
		if st.kind == sSQL || st.kind == sTable || st.kind == sNative {
			sqls++
		}
	}
	if open != nil {
		return errorf(open.pos, "BEGIN is never committed: end the transaction with COMMIT or END")
	}
	if sqls == 0 {
		return errorf(t.Pos, "transaction %s runs no SQL: add a statement", t.Name)
	}
	return nil
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return strings.TrimSuffix(f[0], ";")
	}
	return s
}

func (d *decoder) mixTable(n *node) error {
	if n == nil {
		return nil
	}
	if err := d.table(n, "mix"); err != nil {
		return err
	}
	d.f.hasMix, d.f.mixPos = true, n.key
	for _, k := range n.keys {
		v := n.vals[k]
		found := false
		for _, t := range d.f.Txns {
			found = found || t.Name == k
		}
		if !found {
			return errorf(v.key, "mix: no transaction %q", k)
		}
		w, err := d.tmpl(v)
		if err != nil {
			return err
		}
		d.f.mix = append(d.f.mix, mixEntry{name: k, weight: w, pos: v.pos})
	}
	allZero := len(d.f.mix) > 0
	for _, m := range d.f.mix {
		if m.weight.isTemplate() {
			allZero = false
			continue
		}
		f, err := strconv.ParseFloat(m.weight.s, 64)
		if err != nil || f < 0 {
			return errorf(m.pos, "weight %q: want a number of at least 0", m.weight.s)
		}
		allZero = allZero && f == 0
	}
	if allZero {
		return errorf(n.key, "every weight is 0: give at least one transaction a weight above 0")
	}
	return nil
}

func (d *decoder) checks(n *node) error {
	if n == nil {
		return nil
	}
	if n.kind != nArray {
		return errorf(n.pos, "check: write each check as [[check]]")
	}
	for k, cn := range n.items {
		if err := d.table(cn, "check"); err != nil {
			return err
		}
		c := &Check{Pos: cn.key, Name: "check " + strconv.Itoa(k+1)}
		if x := cn.get("name"); x != nil {
			var err error
			if c.Name, err = d.str(x); err != nil {
				return err
			}
		}
		q := cn.get("sql")
		if q == nil || q.kind != nString {
			return errorf(cn.key, "a check needs sql = \"SELECT …\"")
		}
		c.stmt = newStmt(c.Name, q.str, q.at)
		x := cn.get("expect")
		if x == nil {
			return errorf(cn.key, "check %q needs expect = 0, \"unchanged\", \"empty\" or a comparison such as \"> 0\"", c.Name)
		}
		t, err := d.tmpl(x)
		if err != nil {
			return err
		}
		if _, _, err := parseExpect(t.s, x.pos); err != nil && !t.isTemplate() {
			return err
		}
		c.expect = t
		if err := cn.unknown("a check", "name", "sql", "expect"); err != nil {
			return err
		}
		d.f.Checks = append(d.f.Checks, c)
	}
	return nil
}
