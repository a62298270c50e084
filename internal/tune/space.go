// Package tune searches a space of settings for the cell that serves a
// workload best while keeping the durability the user needs.
//
// The space is a list of axes, each a setting (or a pair of settings that
// only mean something together, SQLite's journal mode and synchronous
// level) with the values it may take. Every cell has a documented
// durability class (package audit's oracle); cells whose class is below
// the requirement are pruned before anything runs. The search (Search)
// is a pure function of an "evaluate one run of this cell" callback, so
// that it can be tested against a known response surface.
package tune

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/litebench/litebench/internal/audit"
	"github.com/litebench/litebench/internal/settings"
)

// Any is the durability requirement that accepts every class.
const Any = "any"

// Axis is one dimension of the space: the keys it sets and the tuples of
// values it takes (one value per key).
type Axis struct {
	Keys   []string
	Values [][]string
}

// Name is the axis' keys joined by '+'.
func (a Axis) Name() string { return strings.Join(a.Keys, "+") }

// Label renders value tuple i: "wal/normal".
func (a Axis) Label(i int) string { return strings.Join(a.Values[i], "/") }

// Cell is a point of the space: the index of each axis' value tuple.
type Cell []int

// Space is the settings a tune searches, over a base that holds every
// other setting.
type Space struct {
	Base settings.Settings
	Axes []Axis
	// Class is a cell's documented durability class (one of
	// audit.Classes); nil means every cell is of the strongest class.
	Class func(settings.Settings) string
	// Require is the weakest class a cell may have (Any for every cell).
	Require string

	classes map[string]string
}

// Settings returns the settings of cell c.
func (sp *Space) Settings(c Cell) settings.Settings {
	s := sp.Base.Clone()
	for i, a := range sp.Axes {
		for j, k := range a.Keys {
			s.Set(k, a.Values[c[i]][j])
		}
	}
	return s
}

// Key names cell c: "journal=wal sync=normal cache-size=-65536 …", axes in
// order. Equal settings give equal keys.
func (sp *Space) Key(c Cell) string {
	var parts []string
	for i, a := range sp.Axes {
		for j, k := range a.Keys {
			parts = append(parts, k+"="+a.Values[c[i]][j])
		}
	}
	return strings.Join(parts, " ")
}

// Size is the number of cells, pruned or not.
func (sp *Space) Size() int {
	n := 1
	for _, a := range sp.Axes {
		n *= len(a.Values)
	}
	return n
}

// ClassOf is c's documented class.
func (sp *Space) ClassOf(c Cell) string {
	if sp.Class == nil {
		return audit.SurvivesPowerLoss
	}
	// A class depends on the journal mode and synchronous level alone.
	key := ""
	for i, a := range sp.Axes {
		for j, k := range a.Keys {
			if k == "journal" || k == "sync" {
				key += k + "=" + a.Values[c[i]][j] + " "
			}
		}
	}
	if cl, ok := sp.classes[key]; ok {
		return cl
	}
	s := sp.Base.Clone()
	for i, a := range sp.Axes {
		for j, k := range a.Keys {
			if k == "journal" || k == "sync" {
				s.Set(k, a.Values[c[i]][j])
			}
		}
	}
	if sp.classes == nil {
		sp.classes = map[string]string{}
	}
	cl := sp.Class(s)
	sp.classes[key] = cl
	return cl
}

// Eligible reports whether c's documented class meets the requirement.
func (sp *Space) Eligible(c Cell) bool { return Meets(sp.ClassOf(c), sp.Require) }

// Cells lists every cell, first axis outermost.
func (sp *Space) Cells() []Cell {
	out := []Cell{{}}
	for _, a := range sp.Axes {
		next := make([]Cell, 0, len(out)*len(a.Values))
		for _, c := range out {
			for v := range a.Values {
				next = append(next, append(append(Cell(nil), c...), v))
			}
		}
		out = next
	}
	return out
}

// EligibleCells lists the cells that meet the requirement.
func (sp *Space) EligibleCells() []Cell {
	var out []Cell
	for _, c := range sp.Cells() {
		if sp.Eligible(c) {
			out = append(out, c)
		}
	}
	return out
}

// Find returns the cell whose settings match s on every axis (ok false if
// a value of s is not among an axis' values).
func (sp *Space) Find(s settings.Settings) (Cell, bool) {
	c := make(Cell, len(sp.Axes))
	for i, a := range sp.Axes {
		found := false
		for v, tuple := range a.Values {
			match := true
			for j, k := range a.Keys {
				if s.Get(k) != tuple[j] {
					match = false
				}
			}
			if match {
				c[i], found = v, true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return c, true
}

// Start returns the cell of s: on each axis the value s has, or the
// axis' first value where s's is not among them.
func (sp *Space) Start(s settings.Settings) Cell {
	c := make(Cell, len(sp.Axes))
	for i, a := range sp.Axes {
		for v, tuple := range a.Values {
			match := true
			for j, k := range a.Keys {
				if s.Get(k) != tuple[j] {
					match = false
				}
			}
			if match {
				c[i] = v
				break
			}
		}
	}
	return c
}

// rank is a class's place, 0 the strongest.
func rank(class string) int {
	for i, c := range audit.Classes {
		if c == class {
			return i
		}
	}
	return len(audit.Classes)
}

// Meets reports whether class is at least as strong as require.
func Meets(class, require string) bool {
	return require == Any || require == "" || rank(class) <= rank(require)
}

// Stronger reports whether class a is stronger than class b.
func Stronger(a, b string) bool { return rank(a) < rank(b) }

// CheckRequire validates a --durability value.
func CheckRequire(v string) error {
	if v == Any {
		return nil
	}
	for _, c := range audit.Classes {
		if c == v {
			return nil
		}
	}
	return fmt.Errorf("--durability %q: want %s or any", v, strings.Join(audit.Classes, ", "))
}

// SQLiteClass is the documented class of SQLite settings, where a
// journal mode or synchronous level left at "default" is what eff says
// the target runs (the driver's build decides: mattn's makes WAL's
// default synchronous NORMAL).
func SQLiteClass(eff func(journal string) (string, string)) func(settings.Settings) string {
	return func(s settings.Settings) string {
		j, sy := s.Get("journal"), s.Get("sync")
		dj, ds := eff(j)
		if j == "default" {
			j = dj
		}
		if sy == "default" {
			sy = ds
		}
		e, err := audit.Lookup(j, sy)
		if err != nil {
			return audit.MayCorruptClass
		}
		return e.Class()
	}
}

// ServerClass is the class of a server engine's cell by --sync, as the
// engines map it (docs/engines.md): off turns fsync off (a crash of the
// machine may corrupt), normal acknowledges commits before they are on
// disk (a power cut may lose the latest), full and extra (and the
// server's default) wait for the disk.
func ServerClass(s settings.Settings) string {
	switch s.Get("sync") {
	case "off":
		return audit.SurvivesProcessCrash
	case "normal":
		return audit.MayLoseAcknowledged
	}
	return audit.SurvivesPowerLoss
}

// DefaultAxes are the settings a tune of an engine varies, with the
// values tried, before --space narrows or widens them. None of them
// changes what a workload does: only how it is stored and issued.
// "default" stands for the target's own value.
func DefaultAxes(engine string) []Axis {
	var axes []Axis
	single := func(key string, vals ...string) {
		a := Axis{Keys: []string{key}}
		for _, v := range vals {
			a.Values = append(a.Values, []string{v})
		}
		axes = append(axes, a)
	}
	if engine == "sqlite" {
		axes = append(axes, JournalSync([]string{"delete", "truncate", "persist", "wal", "memory", "off"}, []string{"off", "normal", "full", "extra"}))
		single("cache-size", "default", "-65536")
		single("mmap-size", "default", "268435456")
		single("temp-store", "default", "memory")
		single("page-size", "default", "16384")
		single("locking-mode", "default", "exclusive")
		single("busy-timeout", "5000", "30000")
		single("tx", "deferred", "immediate")
	} else {
		single("sync", "full", "normal", "off")
	}
	single("pool", "0", "1", "4")
	single("writer", "pool", "single")
	single("write-mutex", "false", "true")
	single("prepared", "true", "false")
	single("busy-retry", "none", "backoff:1ms..100ms")
	return axes
}

// VaryAxes are the settings that change the application's transactions,
// which a tune varies only when asked (--vary).
var VaryAxes = map[string][]string{
	"batch":         {"1", "10", "100", "1000"},
	"rows-per-stmt": {"1", "10", "100"},
}

// JournalSync is the joint axis of SQLite's journal mode and synchronous
// level: the durability of a cell is a property of the pair.
func JournalSync(journals, syncs []string) Axis {
	a := Axis{Keys: []string{"journal", "sync"}}
	for _, j := range journals {
		for _, s := range syncs {
			a.Values = append(a.Values, []string{j, s})
		}
	}
	return a
}

// ParseSpace applies a --space value such as 'journal=wal,delete;
// sync=normal,full;cache-size=default,64MiB' to axes: each KEY=LIST
// replaces that setting's values (journal and sync replace their half of
// the joint axis), adds an axis for a setting not yet varied, and
// KEY=VALUE with one value fixes it (no axis). Values are canonicalised.
func ParseSpace(axes []Axis, spec string) ([]Axis, error) {
	out := append([]Axis(nil), axes...)
	for _, part := range strings.Split(spec, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		key, list, ok := strings.Cut(part, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.TrimSpace(list) == "" {
			return nil, fmt.Errorf("--space %q: want KEY=V1,V2;KEY=V…, e.g. 'journal=wal,delete;sync=normal,full'", spec)
		}
		sp := settings.Lookup(key)
		if sp == nil {
			return nil, fmt.Errorf("--space: unknown setting %q (see 'litebench list settings')", key)
		}
		if key == "in-memory" || key == "placement" || key == "shared-cache" || key == "conn-per-op" {
			return nil, fmt.Errorf("--space: %s changes what the workload does or where it runs, not how it is stored; give it as --%s", key, key)
		}
		var vals []string
		for _, raw := range strings.Split(list, ",") {
			s := settings.Default()
			if err := s.Set(key, raw); err != nil {
				return nil, fmt.Errorf("--space: %v", err)
			}
			if v := s.Get(key); !contains(vals, v) {
				vals = append(vals, v)
			}
		}
		out = setAxis(out, key, vals)
	}
	return out, nil
}

func contains(vs []string, v string) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

// valuesOf returns the values axis a gives key.
func valuesOf(a Axis, key string) []string {
	var vals []string
	for j, k := range a.Keys {
		if k != key {
			continue
		}
		for _, t := range a.Values {
			if !contains(vals, t[j]) {
				vals = append(vals, t[j])
			}
		}
	}
	return vals
}

// SetAxis gives key the values vals in axes: its half of the joint
// journal and sync axis, its own axis, or a new one.
func SetAxis(axes []Axis, key string, vals []string) []Axis { return setAxis(axes, key, vals) }

// setAxis gives key the values vals in axes.
func setAxis(axes []Axis, key string, vals []string) []Axis {
	for i, a := range axes {
		if len(a.Keys) == 2 && (a.Keys[0] == key || a.Keys[1] == key) {
			j, s := valuesOf(a, "journal"), valuesOf(a, "sync")
			if key == "journal" {
				j = vals
			} else {
				s = vals
			}
			axes[i] = JournalSync(j, s)
			return axes
		}
		if len(a.Keys) == 1 && a.Keys[0] == key {
			axes[i] = single(key, vals)
			return axes
		}
	}
	if key == "journal" || key == "sync" {
		// A server engine's --sync has no journal to pair with.
		for i, a := range axes {
			if len(a.Keys) == 1 && (a.Keys[0] == "journal" || a.Keys[0] == "sync") {
				axes[i] = single(key, vals)
				return axes
			}
		}
	}
	return append(axes, single(key, vals))
}

func single(key string, vals []string) Axis {
	a := Axis{Keys: []string{key}}
	for _, v := range vals {
		a.Values = append(a.Values, []string{v})
	}
	return a
}

// Fixed removes from axes every axis of one value and returns those
// values, to be set in the base.
func Fixed(axes []Axis) (varied []Axis, fixed map[string]string) {
	fixed = map[string]string{}
	for _, a := range axes {
		if len(a.Values) == 1 {
			for j, k := range a.Keys {
				fixed[k] = a.Values[0][j]
			}
			continue
		}
		varied = append(varied, a)
	}
	return varied, fixed
}

// Explain renders the space: each axis and its values, its size, and
// how many cells the requirement prunes.
func (sp *Space) Explain() string {
	var b strings.Builder
	for _, a := range sp.Axes {
		var vals []string
		for i := range a.Values {
			vals = append(vals, a.Label(i))
		}
		fmt.Fprintf(&b, "  %-22s %s\n", a.Name(), strings.Join(vals, ", "))
	}
	all := sp.Size()
	el := len(sp.EligibleCells())
	req := sp.Require
	if req == "" {
		req = Any
	}
	fmt.Fprintf(&b, "size: %d cells; durability %s prunes %d, leaving %d\n", all, req, all-el, el)
	return b.String()
}

// ClassCounts counts the cells of each class, strongest first.
func (sp *Space) ClassCounts() []string {
	n := map[string]int{}
	for _, c := range sp.Cells() {
		n[sp.ClassOf(c)]++
	}
	var out []string
	for _, cl := range audit.Classes {
		if n[cl] > 0 {
			out = append(out, cl+": "+strconv.Itoa(n[cl]))
		}
	}
	return out
}
