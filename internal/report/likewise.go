package report

import (
	"sort"
	"strconv"
	"strings"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/stats"
	"github.com/litebench/litebench/internal/units"
)

// The rule of what a summary compares, in one place:
//
//   - Only like is ranked with like: cells of one panel share their
//     workload, their op and whether they ran at a fixed rate (and which
//     rate). A suite
//     section that holds unlike cells is split into panels named by what
//     sets them apart.
//   - A load of reads and writes is ranked by reads and by writes apart,
//     never by their sum.
//   - Cells that ran at a fixed rate did about the work they were asked
//     for: they are ranked by latency (the p99 of response time), never by
//     throughput.
//   - Durable and relaxed cells are never ranked together: a panel that
//     holds both (a sweep of --sync) is ranked class by class, each class
//     named.
//   - The figures a workload declares besides its headline (a scan's time
//     until the query returned and until the first row) are said for every
//     cell, with the whole task's time.

// class is what a cell must share with another to be ranked with it.
type class struct {
	workload string
	op       string  // the first op kind; "read+write" for a load of both
	fixed    bool    // ran at a fixed rate (open loop)
	rate     float64 // that rate (ops/s)
	// durability is the commit durability the settings asked for (or the
	// connection reported): durable, relaxed, unsynced, or "" unknown;
	// durabilityName says it with the setting ("durable: sync=full").
	durability, durabilityName string
}

func (c class) key() string {
	return c.workload + "\x00" + c.op + "\x00" + boolKey(c.fixed) + "\x00" + strconv.FormatFloat(c.rate, 'g', -1, 64)
}

func boolKey(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// classOf is the class of a cell whose representative run is r, which
// ran at the fixed rate wanted (0: closed loop).
func classOf(r *results.Result, wanted float64) class {
	c := class{workload: r.Workload, fixed: wanted > 0, rate: wanted}
	if o := MainOp(r); o != nil {
		c.op = o.Name
	}
	if mixedOps(r) {
		c.op = "read+write"
	}
	c.durability, c.durabilityName = durabilityOf(r)
	return c
}

// mixedOps reports whether r both read and wrote.
func mixedOps(r *results.Result) bool {
	rd, wr := r.Op("read"), r.Op("write")
	return rd != nil && wr != nil && rd.Count > 0 && wr.Count > 0
}

// synchronousNames are PRAGMA synchronous's values by number.
var synchronousNames = map[string]string{"0": "off", "1": "normal", "2": "full", "3": "extra"}

// durabilityOf is the class of commit durability r ran with: by its sync
// setting, or, where it left the driver's default, by the synchronous
// level its connection reported.
func durabilityOf(r *results.Result) (string, string) {
	v, how := r.Settings["sync"], "sync="
	if v == "" || v == "default" {
		if s, ok := r.InForce["synchronous"]; ok {
			v, how = synchronousNames[s], "synchronous in force="
		}
	}
	switch v {
	case "full", "extra":
		return "durable", "durable: " + how + v
	case "normal":
		return "relaxed", "relaxed: " + how + v
	case "off":
		return "unsynced", "unsynced: " + how + v
	}
	return "", ""
}

// byDurability parts g's cells by durability class (in the order of the
// cells' numbers), each part a group named by its class; a group of one
// class is itself.
func (b *builder) byDurability(g *Group) []*Group {
	var out []*Group
	idx := map[string]int{}
	for _, i := range sortedInts(g.Cells) {
		c := b.d.Cells[i].class
		k, ok := idx[c.durability]
		if !ok {
			k = len(out)
			idx[c.durability] = k
			out = append(out, &Group{Name: orText(c.durabilityName, "sync at the driver's default"), Unit: g.Unit, Better: g.Better})
		}
		out[k].Cells = append(out[k].Cells, i)
	}
	if len(out) == 1 {
		return []*Group{g}
	}
	return out
}

// nameApart names the groups that share a section (or workload) and a unit
// by what their classes differ in: "languages · scan", "outgrow · mixed".
func (b *builder) nameApart(base []string) {
	d := b.d
	byBase := map[string][]int{}
	for gi := range d.Groups {
		byBase[base[gi]] = append(byBase[base[gi]], gi)
	}
	for _, gs := range byBase {
		if len(gs) < 2 {
			continue
		}
		var vary [3]bool
		first := b.groupClass(gs[0])
		for _, gi := range gs[1:] {
			c := b.groupClass(gi)
			vary[0] = vary[0] || c.workload != first.workload
			vary[1] = vary[1] || c.op != first.op
			vary[2] = vary[2] || c.fixed != first.fixed
		}
		// The rate names a panel apart from one of its workload and op
		// at another rate.
		rateApart := map[int]bool{}
		for _, gi := range gs {
			for _, gj := range gs {
				ci, cj := b.groupClass(gi), b.groupClass(gj)
				if ci.workload == cj.workload && ci.op == cj.op && ci.fixed && cj.fixed && ci.rate != cj.rate {
					rateApart[gi] = true
				}
			}
		}
		for _, gi := range gs {
			c := b.groupClass(gi)
			var parts []string
			if vary[0] {
				parts = append(parts, c.workload)
			}
			if vary[1] && !vary[0] && c.op != "?" {
				parts = append(parts, c.op)
			}
			switch {
			case c.op == "?":
			case rateApart[gi]:
				parts = append(parts, "at "+value(c.rate, units.OpsPerSecond))
			case vary[2]:
				parts = append(parts, map[bool]string{true: "fixed rate", false: "closed loop"}[c.fixed])
			}
			d.Groups[gi].Name = join(d.Groups[gi].Name, strings.Join(parts, " · "))
		}
	}
}

// groupClass is the class of group gi: of its first cell with a run that
// finished, or of its first cell.
func (b *builder) groupClass(gi int) class { return b.classOfCells(b.d.Groups[gi].Cells) }

func (b *builder) classOfCells(cells []int) class {
	for _, i := range cells {
		if b.d.Cells[i].rep != nil {
			return b.d.Cells[i].class
		}
	}
	return b.d.Cells[cells[0]].class
}

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// measure is a figure cells are ranked by: the headline (label ""), an op
// kind's rate, or an op kind's p99 response time.
type measure struct {
	label  string
	unit   string
	better string
	med    map[int]float64
	vals   map[int][]float64
	ci     map[int]string
}

func (m *measure) has(i int) bool { _, ok := m.med[i]; return ok }

// headlineMeasure is the cells' headline.
func (b *builder) headlineMeasure(g *Group) *measure {
	m := &measure{unit: g.Unit, better: g.Better, med: map[int]float64{}, vals: map[int][]float64{}, ci: map[int]string{}}
	for _, i := range g.Cells {
		if c := b.d.Cells[i]; c.N > 0 {
			m.med[i], m.vals[i], m.ci[i] = c.Median, c.values, c.CI
		}
	}
	return m
}

// measures are what group g is ranked by, per the rule above.
func (b *builder) measures(g *Group) []*measure {
	c0 := b.classOfCells(g.Cells)
	var ops []string
	if c0.op == "read+write" {
		ops = []string{"read", "write"}
	}
	if !c0.fixed && ops == nil {
		return []*measure{b.headlineMeasure(g)}
	}
	if ops == nil {
		ops = []string{c0.op}
	}
	var out []*measure
	for _, op := range ops {
		m := &measure{med: map[int]float64{}, vals: map[int][]float64{}, ci: map[int]string{}}
		if c0.fixed {
			m.label, m.unit, m.better = op+" p99 response time", units.Microseconds, string(units.Lower)
		} else {
			m.label, m.unit, m.better = op+"s", op+"s/s", string(units.Higher)
		}
		for _, i := range g.Cells {
			var vs []float64
			for _, r := range b.d.Cells[i].oks {
				o := r.Op(op)
				switch {
				case o == nil || o.Count == 0:
				case c0.fixed:
					vs = append(vs, o.Felt()["p99"])
				case r.Elapsed > 0:
					vs = append(vs, float64(o.Count)/r.Elapsed)
				}
			}
			if len(vs) > 0 {
				s := stats.Summarise(vs)
				m.med[i], m.vals[i], m.ci[i] = s.Median, vs, s.CI()
			}
		}
		out = append(out, m)
	}
	return out
}

// figures says, for every cell of g that finished, the figures its
// workload declares besides the headline, and the whole task's time where
// the task was a fixed amount of work ("query returned: #1 43 µs, #2 46
// µs; …").
func (b *builder) figures(g *Group) string {
	var names []string
	unitOf := map[string]string{}
	var cells []int
	for _, i := range g.Cells {
		c := b.d.Cells[i]
		if len(c.oks) == 0 {
			continue
		}
		cells = append(cells, i)
		for _, m := range c.oks[0].Metrics[1:] {
			if m.Better != "" && m.Name != results.WantedRate && !contains(names, m.Name) {
				names = append(names, m.Name)
				unitOf[m.Name] = m.Unit
			}
		}
	}
	if len(names) == 0 || len(cells) > maxListed {
		return ""
	}
	keys := b.keyOf(g.Cells)
	num := func(i int) string { return strings.SplitN(keys[i], " ", 2)[0] }
	var parts []string
	for _, n := range names {
		var each []string
		for _, i := range cells {
			var vs []float64
			for _, r := range b.d.Cells[i].oks {
				if v, ok := r.Metric(n); ok {
					vs = append(vs, v)
				}
			}
			if len(vs) > 0 {
				each = append(each, num(i)+" "+value(stats.Summarise(vs).Median, unitOf[n]))
			}
		}
		if len(each) > 0 {
			parts = append(parts, strings.ReplaceAll(n, "_", " ")+": "+strings.Join(each, ", "))
		}
	}
	whole := true
	for _, i := range cells {
		p := b.d.Cells[i].oks[0].Params
		whole = whole && p["duration"] == "" && (p["rate"] == "" || p["rate"] == "0")
	}
	if whole {
		var each []string
		for _, i := range cells {
			var vs []float64
			for _, r := range b.d.Cells[i].oks {
				vs = append(vs, r.Elapsed)
			}
			each = append(each, num(i)+" "+value(stats.Summarise(vs).Median, units.Seconds))
		}
		parts = append(parts, "whole task: "+strings.Join(each, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	s := strings.Join(parts, "; ")
	return " " + strings.ToUpper(s[:1]) + s[1:] + "."
}

// passedCheck reports whether a run's note says a check passed.
func passedCheck(note string) bool {
	return strings.HasPrefix(note, `check "`) && strings.Contains(note, `" passed`)
}

// partialLast reports whether the last sample of a series covers a
// shorter interval than the samples before it (the run ended part way
// into it): its rate is not comparable with theirs.
func partialLast(s []results.Point) bool {
	n := len(s)
	if n < 2 {
		return false
	}
	var ds []float64
	prev := 0.0
	for _, p := range s[:n-1] {
		ds = append(ds, p.T-prev)
		prev = p.T
	}
	sort.Float64s(ds)
	return s[n-1].T-s[n-2].T < 0.5*ds[len(ds)/2]
}
