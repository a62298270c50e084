package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"litebench/internal/results"
	"litebench/internal/stats"
	"litebench/internal/units"
)

// Field reads a run's value of a field: a label (target, workload,
// engine, client, placement, a setting or a parameter), section or a
// version (see results.Result.Get).
func Field(r *results.Result, k string) (string, bool) { return r.Get(k) }

// Cond is one "key=value" of --where / --vs.
type Cond struct{ Key, Value string }

// ParseConds parses "k=v,k2=v2".
func ParseConds(s string) ([]Cond, error) {
	var out []Cond
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%q: want key=value[,key=value] (keys: target, workload, any setting or parameter)", s)
		}
		out = append(out, Cond{strings.TrimSpace(k), strings.TrimSpace(v)})
	}
	return out, nil
}

// Match reports whether r satisfies every condition.
func Match(r *results.Result, conds []Cond) bool {
	for _, c := range conds {
		if v, ok := Field(r, c.Key); !ok || v != c.Value {
			return false
		}
	}
	return true
}

func fields(rs []*results.Result) []string {
	seen := map[string]bool{"target": true, "workload": true}
	out := []string{"workload", "target"}
	for _, r := range rs {
		for _, m := range []map[string]string{r.Settings, r.Params} {
			for k := range m {
				if !seen[k] {
					seen[k] = true
					out = append(out, k)
				}
			}
		}
	}
	sort.Strings(out[2:])
	return out
}

// metric is one figure compared per cell.
type metric struct {
	name   string
	higher bool // higher is better
	get    func(*results.Result) (float64, bool)
}

func metricsOf(rs []*results.Result) []metric {
	higher := len(rs) == 0 || rs[0].Headline().Better != units.Lower
	ms := []metric{{HeadlineName(rs), higher, func(r *results.Result) (float64, bool) {
		return r.Headline().Value, r.Status == results.StatusOK
	}}}
	seen := map[string]bool{}
	for _, r := range rs {
		for _, o := range r.Ops {
			if seen[o.Name] || o.Count == 0 {
				continue
			}
			seen[o.Name] = true
			name := o.Name
			for _, p := range []string{"p50", "p99"} {
				p := p
				ms = append(ms, metric{name + " " + p + " µs", false, func(r *results.Result) (float64, bool) {
					op := r.Op(name)
					if op == nil || op.Count == 0 || r.Status != results.StatusOK {
						return 0, false
					}
					l := op.Felt()
					v, ok := l[p]
					return v, ok
				}})
			}
		}
	}
	return ms
}

// Compare pairs the cells of a and b and tests every metric. Fields that
// take one value on each side, different between the sides, are what is
// compared; cells are matched on every other field.
func Compare(a, b []*results.Result) (*Table, error) {
	if len(a) == 0 || len(b) == 0 {
		return nil, fmt.Errorf("nothing to compare: side A has %d runs, side B %d", len(a), len(b))
	}
	all := append(append([]*results.Result(nil), a...), b...)
	var compared, match, vary []string
	for _, f := range fields(all) {
		va, vb := values(a, f), values(b, f)
		switch {
		case len(va) == 1 && len(vb) == 1 && va[0] != vb[0]:
			compared = append(compared, f)
		default:
			match = append(match, f)
			if len(union(va, vb)) > 1 {
				vary = append(vary, f)
			}
		}
	}
	key := func(r *results.Result) string {
		var sb strings.Builder
		for _, f := range match {
			v, _ := Field(r, f)
			sb.WriteString(f + "=" + v + ";")
		}
		return sb.String()
	}
	type cell struct {
		label string
		a, b  []*results.Result
	}
	var cells []*cell
	idx := map[string]*cell{}
	for side, rs := range [][]*results.Result{a, b} {
		for _, r := range rs {
			k := key(r)
			c, ok := idx[k]
			if !ok {
				var parts []string
				for _, f := range vary {
					v, _ := Field(r, f)
					parts = append(parts, f+"="+v)
				}
				c = &cell{label: strings.Join(parts, " ")}
				idx[k] = c
				cells = append(cells, c)
			}
			if side == 0 {
				c.a = append(c.a, r)
			} else {
				c.b = append(c.b, r)
			}
		}
	}
	sideName := func(rs []*results.Result) string {
		var parts []string
		for _, f := range compared {
			v, _ := Field(rs[0], f)
			parts = append(parts, f+"="+v)
		}
		if len(parts) == 0 {
			return rs[0].SweepID
		}
		return strings.Join(parts, " ")
	}
	t := &Table{Title: fmt.Sprintf("A: %s  vs  B: %s (Mann-Whitney U, %.0f%% confidence; ~ = no significant difference)", sideName(a), sideName(b), 100*stats.Confidence),
		Headers: []string{"cell", "metric", "A", "B", "change", "p", "n"},
		Right:   []bool{false, false, true, true, true, true, true}}
	ms := metricsOf(all)
	paired := 0
	for _, c := range cells {
		if len(c.a) == 0 || len(c.b) == 0 {
			continue
		}
		paired++
		label := c.label
		if label == "" {
			label = "(all)"
		}
		for _, m := range ms {
			va, vb := collect(c.a, m), collect(c.b, m)
			if len(va) == 0 || len(vb) == 0 {
				continue
			}
			cmp := stats.Compare(va, vb)
			delta := cmp.Delta
			if delta != "~" && delta != "?" {
				better := (cmp.Pct > 0) == m.higher
				if better {
					delta += " better"
				} else {
					delta += " worse"
				}
			}
			p := "-"
			if cmp.P > 0 {
				p = strconv.FormatFloat(cmp.P, 'f', 3, 64)
			}
			t.Rows = append(t.Rows, []string{label, m.name, Num(cmp.A.Median) + ciSuffix(cmp.A), Num(cmp.B.Median) + ciSuffix(cmp.B),
				delta, p, fmt.Sprintf("%d+%d", len(va), len(vb))})
			label = ""
		}
	}
	if paired == 0 {
		return nil, fmt.Errorf("no cell of A matches a cell of B (they differ in more than one field); narrow them with --where/--vs")
	}
	t.Notes = append(t.Notes, "With fewer than 4 runs per side a difference can never be significant at 95%: use --repeat 5 or more for claims.")
	return t, nil
}

func collect(rs []*results.Result, m metric) []float64 {
	var out []float64
	for _, r := range rs {
		if v, ok := m.get(r); ok {
			out = append(out, v)
		}
	}
	return out
}

func values(rs []*results.Result, f string) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range rs {
		v, _ := Field(r, f)
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func union(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range append(append([]string(nil), a...), b...) {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// ciSuffix is " ±x%", or nothing when too few runs bound the median.
func ciSuffix(s stats.Summary) string {
	c := s.CI()
	if c == "" || c == "±∞" {
		return ""
	}
	return " " + c
}
