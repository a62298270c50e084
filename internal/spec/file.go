package spec

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/units"
)

// File is a workload written down: a workload file, or pgbench scripts.
// Parsing checks everything that does not depend on parameter values;
// Resolve (per sweep cell) does the rest.
type File struct {
	Name    string
	Summary string
	// Kind is "file" or "scripts"; Sources are the texts it was read
	// from, what a worker in another process rebuilds it from.
	Kind    string
	Sources []Source
	Pos     Pos

	Params   []*Param
	Settings map[string]string
	load     map[string]*tmpl
	uses     []use
	Tables   []*Table
	init     []*Stmt
	initSub  bool // init's :names are substituted as text (pgbench --init)
	stmts    map[string]*Stmt
	Txns     []*Txn
	mix      []mixEntry
	mixPos   Pos
	hasMix   bool
	Checks   []*Check
	insert   *insertMode
	// assigned are the variables something sets: parameters, \set, \gset
	// and the built-in variables.
	assigned map[string]bool
	builtin  bool
}

// Source is one text a workload was read from.
type Source struct {
	Name string `json:"name"`
	Text string `json:"text"`
	// Weight is a script's weight (-f FILE@W), Init marks --init.
	Weight string `json:"weight,omitempty"`
	Init   bool   `json:"init,omitempty"`
}

// Param is a parameter of a workload: a flag, a sweep axis, and a
// variable of its statements.
type Param struct {
	Name, Default, Help string
	Sweep               bool
	// Type is count (k/m suffixes), int, number, duration, bool or text.
	Type     string
	Min, Max *float64
	Choices  []string
	Pos      Pos
	implicit bool
}

// Table is a table a workload creates and loads.
type Table struct {
	Name    string
	Pos     Pos
	rows    *tmpl
	Columns []*Column
	Indexes []Index
	create  []*tmpl
	update  []string
	key     string
	lib     string // the built-in library it came from
}

// Column is a table's column and its generator.
type Column struct {
	Name    string
	Type    string
	PK      bool
	NotNull bool
	Unique  bool
	gen     *tmpl
	Pos     Pos
}

// Index is a secondary index.
type Index struct {
	Name    string
	Columns []string
	Unique  bool
}

// Txn is a transaction: an operation kind of the workload.
type Txn struct {
	Name    string
	Pos     Pos
	Steps   []*Step
	workers *tmpl
}

type mixEntry struct {
	name   string
	weight *tmpl
	pos    Pos
}

// Check is an invariant verified after the run.
type Check struct {
	Name   string
	Pos    Pos
	stmt   *Stmt
	expect *tmpl
}

// use selects a table for the run, and may set its rows.
type use struct {
	name, rows *tmpl
}

type insertMode struct {
	pos                         Pos
	table, rows, workers, vacuu *tmpl
}

// loadKey describes a key of the load model: its parameter, default and
// help.
type loadKey struct{ name, def, help, typ string }

var mixKeys = []loadKey{
	{"duration", "10s", "length of the measured part (ignored when --count is set)", "duration"},
	{"count", "0", "measured operations in total, instead of --duration (0 = use --duration)", "count"},
	{"warmup", "0s", "run this long first, unrecorded", "duration"},
	{"rate", "0", "open loop: operations per second in total, whatever the target does (0 = closed loop)", "number"},
	{"arrivals", "uniform", "open-loop spacing: uniform or poisson", "text"},
	{"max-inflight", "100", "open loop: most operations in flight at once; later ones wait and their wait counts", "count"},
	{"workers", "1", "closed loop: concurrent workers, each choosing transactions by their weights", "count"},
}

var insertKeys = []loadKey{
	{"rows", "100000", "rows to insert (k/m suffixes: 10k, 1m)", "count"},
	{"workers", "1", "concurrent inserting goroutines; each takes an equal share of the rows", "count"},
	{"vacuum", "false", "VACUUM after loading and report its time (not counted in rows/s)", "bool"},
}

var seedKey = loadKey{"seed", "1", "data and key seed: the same seed gives the same rows and keys", "count"}

// Built-in variables every transaction may read.
var builtinVars = []string{"client_id", "scale", "random_seed", "default_seed"}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// ParseFile reads a workload file. name is how messages name the file.
func ParseFile(name string, data []byte) (*File, error) {
	f := &File{Kind: "file", Sources: []Source{{Name: name, Text: string(data)}}}
	if err := f.parse(name, data); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *File) parse(name string, data []byte) error {
	root, err := parseTOML(name, data)
	if err != nil {
		return err
	}
	f.Pos = Pos{File: name, Line: 1, Col: 1}
	f.Settings = map[string]string{}
	f.load = map[string]*tmpl{}
	f.stmts = map[string]*Stmt{}
	f.assigned = map[string]bool{}
	f.Name = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	d := &decoder{f: f}
	if n := root.get("name"); n != nil {
		if f.Name, err = d.str(n); err != nil {
			return err
		}
		if !nameRE.MatchString(f.Name) {
			return errorf(n.pos, "name %q: use letters, digits, '-', '_' and '.'", f.Name)
		}
	}
	if n := root.get("summary"); n != nil {
		if f.Summary, err = d.str(n); err != nil {
			return err
		}
	}
	if n := root.get("include"); n != nil {
		items, err := d.strList(n)
		if err != nil {
			return err
		}
		for k, lib := range items {
			if err := d.include(n.items[k], lib); err != nil {
				return err
			}
		}
	}
	steps := []func(*node) error{d.params, d.settings, d.loadModel, d.tables, d.statements}
	keys := []string{"params", "settings", "load", "table", "statement"}
	for k, fn := range steps {
		if err := fn(root.get(keys[k])); err != nil {
			return err
		}
	}
	if err := d.uses(root.get("tables")); err != nil {
		return err
	}
	if n := root.get("init"); n != nil {
		if err := d.initSQL(n); err != nil {
			return err
		}
	}
	if err := d.insertMode(root.get("insert")); err != nil {
		return err
	}
	if err := d.transactions(root.get("transaction")); err != nil {
		return err
	}
	if err := d.mixTable(root.get("mix")); err != nil {
		return err
	}
	if err := d.checks(root.get("check")); err != nil {
		return err
	}
	if err := root.unknown("a workload file", "name", "summary", "include", "tables", "init", "params", "settings", "load",
		"insert", "table", "statement", "transaction", "mix", "check"); err != nil {
		return err
	}
	return f.finish()
}

// finish checks what spans sections and adds the implicit parameters.
func (f *File) finish() error {
	if f.insert == nil && len(f.Txns) == 0 {
		return errorf(f.Pos, "nothing to run: add a [transaction.NAME] (or an [insert] section)")
	}
	if f.insert != nil && len(f.Txns) > 0 {
		return errorf(f.insert.pos, "[insert] measures loading alone: remove it or the transactions")
	}
	declared := map[string]*Param{}
	for _, p := range f.Params {
		declared[p.Name] = p
	}
	keys := mixKeys
	if f.insert != nil {
		keys = insertKeys
	}
	roles := false
	for _, t := range f.Txns {
		roles = roles || t.workers != nil
	}
	for _, k := range append(append([]loadKey{}, keys...), seedKey) {
		if k.name == "workers" && roles && f.insert == nil {
			if t, ok := f.load["workers"]; ok {
				return errorf(t.pos, "[load] workers: the transactions name their own workers; remove this")
			}
			continue
		}
		t, given := f.load[k.name]
		if given && t.isTemplate() {
			continue
		}
		if p, ok := declared[k.name]; ok {
			if given {
				return errorf(t.pos, "%s is a parameter already: give its default in [params]", k.name)
			}
			if p.Type == "" {
				p.Type = k.typ
			}
			continue
		}
		def := k.def
		if given {
			def = t.s
		}
		p := &Param{Name: k.name, Default: def, Help: k.help, Sweep: k.name != "seed" && k.name != "warmup" && k.name != "vacuum",
			Type: k.typ, Pos: f.Pos, implicit: true}
		if given {
			p.Pos = t.pos
		}
		f.Params = append(f.Params, p)
		declared[k.name] = p
	}
	for _, p := range f.Params {
		if err := p.check(p.Default); err != nil {
			return errorf(p.Pos, "default of %s: %v", p.Name, err)
		}
		f.assigned[varName(p.Name)] = true
	}
	for _, v := range builtinVars {
		f.assigned[v] = true
	}
	for _, t := range f.Txns {
		for _, st := range t.Steps {
			switch st.kind {
			case sSet:
				f.assigned[st.name] = true
			case sSQL:
				for _, v := range st.stmt.into {
					f.assigned[v] = true
				}
			}
		}
	}
	for _, t := range f.templates() {
		if err := t.checkRefs(declared); err != nil {
			return err
		}
	}
	if err := f.checkVars(); err != nil {
		return err
	}
	// Everything else is checked by resolving the defaults.
	s := settings.Default()
	for k, v := range f.settingDefaults() {
		s.Set(k, v)
	}
	w, err := f.resolve(map[string]string{}, s, nil, false)
	if err != nil {
		return err
	}
	return w.checkBegins()
}

// templates lists every value that may name parameters.
func (f *File) templates() []*tmpl {
	var out []*tmpl
	add := func(ts ...*tmpl) {
		for _, t := range ts {
			if t != nil {
				out = append(out, t)
			}
		}
	}
	for _, t := range f.load {
		add(t)
	}
	for _, u := range f.uses {
		add(u.name, u.rows)
	}
	for _, t := range f.Tables {
		add(t.rows)
		add(t.create...)
		for _, c := range t.Columns {
			add(c.gen)
		}
	}
	for _, t := range f.Txns {
		add(t.workers)
		for _, st := range t.Steps {
			add(st.op)
			for _, x := range st.fields {
				add(x)
			}
		}
	}
	for _, m := range f.mix {
		add(m.weight)
	}
	for _, c := range f.Checks {
		add(c.expect)
	}
	if m := f.insert; m != nil {
		add(m.table, m.rows, m.workers, m.vacuu)
	}
	return out
}

// varName is how a statement refers to a parameter: dashes become
// underscores.
func varName(param string) string { return strings.ReplaceAll(param, "-", "_") }

// checkVars finds :names that nothing sets.
func (f *File) checkVars() error {
	stmts := func(s *Stmt) error {
		for _, p := range s.params {
			if !f.assigned[p.name] {
				return errorf(s.at(p.off), "unbound parameter :%s: set it with \\set, a [params] entry or -D %s=VALUE", p.name, p.name)
			}
		}
		return nil
	}
	for _, t := range f.Txns {
		for _, st := range t.Steps {
			if st.kind == sSQL {
				if err := stmts(st.stmt); err != nil {
					return err
				}
			}
			if st.expr != nil {
				if err := checkExprVars(st.expr, f.assigned); err != nil {
					return err
				}
			}
		}
	}
	for _, c := range f.Checks {
		if err := stmts(c.stmt); err != nil {
			return err
		}
	}
	return nil
}

func checkExprVars(a *ast, set map[string]bool) error {
	if a.kind == aVar && !set[a.op] {
		return errorf(a.pos, "variable :%s is never set: set it with \\set, a [params] entry or -D %s=VALUE", a.op, a.op)
	}
	for _, x := range a.args {
		if err := checkExprVars(x, set); err != nil {
			return err
		}
	}
	return nil
}

// check validates a value of the parameter, naming the flag.
func (p *Param) check(v string) error {
	bad := func(want string) error { return fmt.Errorf("--%s %q: want %s", p.Name, v, want) }
	var num float64
	switch p.Type {
	case "", "text":
		if len(p.Choices) > 0 {
			for _, c := range p.Choices {
				if v == c {
					return nil
				}
			}
			return bad("one of " + strings.Join(p.Choices, ", "))
		}
		return nil
	case "count":
		n, err := settings.ParseCount(v)
		if err != nil {
			return bad("a whole number (k/m suffixes allowed)" + p.rangeText())
		}
		num = float64(n)
	case "int":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return bad("a whole number" + p.rangeText())
		}
		num = float64(n)
	case "number":
		x, err := units.ParseNumber(v)
		if err != nil {
			return bad("a number" + p.rangeText())
		}
		num = x
	case "duration":
		if _, err := parseDuration(v); err != nil {
			return bad("a duration such as 500ms, 10s or 2m")
		}
		return nil
	case "bool":
		if _, err := strconv.ParseBool(v); err != nil {
			return bad("true or false")
		}
		return nil
	}
	if (p.Min != nil && num < *p.Min) || (p.Max != nil && num > *p.Max) {
		return bad("a number" + p.rangeText())
	}
	return nil
}

func (p *Param) rangeText() string {
	switch {
	case p.Min != nil && p.Max != nil:
		return " from " + fmtNum(*p.Min) + " to " + fmtNum(*p.Max)
	case p.Min != nil:
		return " of at least " + fmtNum(*p.Min)
	case p.Max != nil:
		return " of at most " + fmtNum(*p.Max)
	}
	return ""
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// paramNames lists parameter names, for messages.
func (f *File) paramNames() string {
	var n []string
	for _, p := range f.Params {
		n = append(n, p.Name)
	}
	sort.Strings(n)
	return strings.Join(n, ", ")
}
