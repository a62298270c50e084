package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/units"
)

// HTMLData is everything the HTML report shows, computed from the runs
// alone (no clock, no randomness), so it can be checked against a golden
// file and embedded as JSON in the page.
type HTMLData struct {
	Title string `json:"title"`
	// Unit names the headline column: the unit every run's headline
	// shares, or "throughput".
	Unit string `json:"unit"`
	// Columns are the labels that vary among the runs: the cells table's
	// identifying columns.
	Columns []string   `json:"columns"`
	Cells   []HTMLCell `json:"cells"`
	// Groups are the throughput panels, one per suite section or workload,
	// each with its best cell and the speed-up over its baseline: the
	// summary at the top of the page.
	Groups []Group `json:"groups"`
	// Warnings say in words what a reader must know before trusting the
	// figures.
	Warnings []string `json:"warnings,omitempty"`
	// Passed are the checks the runs passed (a workload's checks), each
	// with the cells that passed it.
	Passed  []string      `json:"passed,omitempty"`
	Latency []CurvePanel  `json:"latency"`
	Series  []SeriesPanel `json:"series"`
	Envs    []EnvInfo     `json:"envs"`
}

// HTMLCell is one cell: the runs of one point of the sweep.
type HTMLCell struct {
	// Index numbers the cell from 1, as the table, the charts and the
	// legends do.
	Index int    `json:"index"`
	Label string `json:"label"`
	// Section and Step are a suite step's section and own name.
	Section  string   `json:"section,omitempty"`
	Step     string   `json:"step,omitempty"`
	Workload string   `json:"workload"`
	Target   string   `json:"target"`
	Fields   []string `json:"fields"` // values of HTMLData.Columns
	Group    string   `json:"group"`
	// Unit and Better are the headline's.
	Unit   string  `json:"unit"`
	Better string  `json:"better,omitempty"`
	N      int     `json:"n"` // runs that finished ok
	Runs   int     `json:"runs_total"`
	Median float64 `json:"median"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	CI     string  `json:"ci"`
	Spread float64 `json:"spread"`
	// Warning is the statistics' reason to doubt the median.
	Warning string  `json:"warning,omitempty"`
	Op      string  `json:"op"`
	P50     float64 `json:"p50_us"`
	P99     float64 `json:"p99_us"`
	Errors  string  `json:"errors"`
	// Wanted is the rate an open-loop cell asked for, Achieved what its
	// median run did.
	Wanted   float64   `json:"wanted,omitempty"`
	Achieved float64   `json:"achieved,omitempty"`
	Best     bool      `json:"best"`
	RunInfo  []RunInfo `json:"runs"`

	labels map[string]string // every label's value, for grouping
	values []float64         // headlines of the runs that finished ok
	rep    *results.Result   // the run that stands for the cell in charts
	// control: the cell is the control its workload compares with (say,
	// serving a file instead of querying a database).
	control bool
	// oks are the runs that finished ok; class is what the cell must share
	// with others to be ranked with them (likewise.go).
	oks   []*results.Result
	class class
}

// RunInfo is what reproduces a run.
type RunInfo struct {
	RunID   string `json:"run_id"`
	Status  string `json:"status"`
	Command string `json:"command"`
	Env     int    `json:"env"`
}

// Group is one throughput panel: the cells of a suite section, or of a
// workload outside suites, with one headline unit.
type Group struct {
	Name   string `json:"name"`
	Unit   string `json:"unit"`
	Better string `json:"better,omitempty"`
	// Cells are the panel's rows (indexes into HTMLData.Cells) in the
	// order drawn: cells that differ only in the coloured label side by
	// side.
	Cells []int `json:"cells"`
	// Columns head the labels drawn left of the bars; Labels[i] are row
	// i's. A report whose labels are too wide for columns numbers its
	// rows instead and keys them below the chart (Keyed).
	Columns []string   `json:"columns"`
	Labels  [][]string `json:"labels"`
	Keyed   bool       `json:"keyed,omitempty"`
	// ColourBy is the label the bars' colours stand for, Colours its
	// values in palette order, Colour each row's.
	ColourBy string   `json:"colour_by,omitempty"`
	Colours  []string `json:"colours,omitempty"`
	Colour   []int    `json:"colour"`
	Log      bool     `json:"log"`
	// Best is the best cell, Baseline what its speed-up is over (-1 for
	// none), named BaselineName.
	Best         int     `json:"best"`
	Baseline     int     `json:"baseline"`
	BaselineName string  `json:"baseline_name,omitempty"`
	Speedup      float64 `json:"speedup,omitempty"`
	// SpeedupLo and SpeedupHi bound the speed-up with 95% confidence (0
	// when the runs are too few for an interval).
	SpeedupLo float64 `json:"speedup_lo,omitempty"`
	SpeedupHi float64 `json:"speedup_hi,omitempty"`
	Title     string  `json:"title"`
	Sentence  string  `json:"summary"`
}

// CurvePanel is one chart of latency by percentile: one op kind in the
// cells of one group (or a facet of them, at most maxSeries lines).
type CurvePanel struct {
	Group string `json:"group"`
	Op    string `json:"op"`
	Facet string `json:"facet,omitempty"`
	Title string `json:"title"`
	// Open: the cells ran open loop, so each has a response-time curve
	// beside its service-time curve.
	Open  bool    `json:"open"`
	Log   bool    `json:"log"`
	Lines []Curve `json:"lines"`
}

// Curve is one cell's latency (µs) at each percentile, from the histogram
// of the run that stands for the cell.
type Curve struct {
	Cell     int          `json:"cell"`
	Key      string       `json:"key"`
	Run      string       `json:"run_id"`
	Count    int64        `json:"count"`
	Service  [][2]float64 `json:"service"`
	Response [][2]float64 `json:"response,omitempty"`
	Wanted   float64      `json:"wanted,omitempty"`
	Achieved float64      `json:"achieved,omitempty"`
	Late     int64        `json:"late,omitempty"`
}

// SeriesPanel is one time-series chart: one figure over time for the
// cells of one group (or a facet of them).
type SeriesPanel struct {
	Group  string `json:"group"`
	Facet  string `json:"facet,omitempty"`
	Figure string `json:"figure"` // ops_per_s, p99_us or wal_bytes
	Unit   string `json:"unit"`
	Title  string `json:"title"`
	Log    bool   `json:"log"`
	// Rate is what the lines count per second (ops/s, rows/s).
	Lines []SeriesLine `json:"lines"`
}

// SeriesLine is one run's figure over time, downsampled.
type SeriesLine struct {
	Cell   int          `json:"cell"`
	Key    string       `json:"key"`
	Run    string       `json:"run_id"`
	Points [][2]float64 `json:"points"`
	// Checkpoints are the times by which a checkpoint had completed (the
	// WAL's checkpoint sequence moved); Warnings where the run warned.
	Checkpoints []float64 `json:"checkpoints,omitempty"`
	Warnings    []Marker  `json:"warnings,omitempty"`
	// Wanted is the open-loop rate asked for (ops/s panels only).
	Wanted float64 `json:"wanted,omitempty"`
	// Partial: the last point covers a shorter interval than the others
	// (the run ended part way into it); it is drawn, never headlined.
	Partial bool `json:"partial,omitempty"`
}

// Marker is a moment of a run worth pointing at.
type Marker struct {
	T    float64 `json:"t"`
	Text string  `json:"text"`
}

// EnvInfo is one distinct environment fingerprint.
type EnvInfo struct {
	Lines [][2]string `json:"lines"`
}

// Limits that keep a report of thousands of runs small.
const (
	maxSeriesPoint = 300
	maxListed      = 8 // items a warning names before "and N more"
)

// Options are what a report needs besides the runs.
type Options struct {
	Title string
	// Defaults are every setting's default value: the cell whose
	// settings are all at their defaults is the baseline of a sweep's
	// speed-up.
	Defaults map[string]string
}

// BuildHTMLData computes the report's content.
func BuildHTMLData(rs []*results.Result, o Options) HTMLData {
	d := HTMLData{Title: o.Title, Unit: HeadlineName(rs)}
	b := &builder{d: &d, opt: o}
	b.cells(rs)
	b.groups()
	b.latency()
	b.series()
	b.warnings(rs)
	return d
}

type builder struct {
	d      *HTMLData
	opt    Options
	fields []string // every label key in display order
	params []string // the workloads' parameters among them
}

func (b *builder) cells(rs []*results.Result) {
	d := b.d
	params, sets := results.LabelOrder(rs)
	b.params = params
	b.fields = append(append([]string{"target", "engine", "placement"}, params...), sets...)
	// A field is a column only if it takes two values among the runs that
	// have it (a parameter one workload lacks does not vary by that alone).
	for _, f := range b.fields {
		if f == "target" {
			continue
		}
		seen := map[string]bool{}
		for _, r := range rs {
			if v, ok := Field(r, f); ok {
				seen[v] = true
			}
		}
		if len(seen) > 1 {
			d.Columns = append(d.Columns, f)
		}
	}
	multiTarget := len(values(rs, "target")) > 1
	envIdx := map[string]int{}
	for i, c := range results.Cells(rs) {
		r0 := c.Runs[0]
		hc := HTMLCell{Index: i + 1, Workload: r0.Workload, Target: r0.Target, Section: r0.Section,
			Unit: r0.Headline().Unit, Better: string(r0.Headline().Better), Runs: len(c.Runs), labels: map[string]string{}}
		for _, l := range r0.Labels() {
			hc.labels[l.Key] = l.Value
		}
		if a := r0.Audit; a != nil && a.Class != "" {
			// An audited cell's durability class, for the warnings.
			hc.labels["durability"] = a.Fault + ": " + a.Class
		}
		var parts []string
		if multiTarget {
			parts = append(parts, r0.Target)
		}
		for _, f := range d.Columns {
			v, ok := Field(r0, f)
			hc.Fields = append(hc.Fields, v)
			if ok {
				parts = append(parts, f+"="+v)
			}
		}
		hc.Label = strings.Join(parts, " ")
		if r0.Section != "" {
			hc.Step = strings.TrimSuffix(r0.Label, " ("+r0.Target+")")
			hc.Label = r0.Section + ": " + r0.Label
		}
		if hc.Label == "" {
			hc.Label = r0.Workload + " " + r0.Target
		}
		hc.Group = r0.Workload
		if r0.Section != "" {
			hc.Group = r0.Section
		}
		for _, r := range c.Runs {
			ek := envKey(r.Env)
			ei, ok := envIdx[ek]
			if !ok {
				ei = len(d.Envs)
				envIdx[ek] = ei
				d.Envs = append(d.Envs, envInfo(r.Env))
			}
			hc.RunInfo = append(hc.RunInfo, RunInfo{RunID: r.RunID, Status: r.Status, Command: r.Command, Env: ei})
		}
		f := summariseCell(c)
		s := f.tp
		hc.N, hc.Median, hc.Min, hc.Max, hc.Spread = s.N, s.Median, s.Min, s.Max, s.Spread
		hc.Lo, hc.Hi = finite(s.Lo, s.Min), finite(s.Hi, s.Max)
		hc.CI = s.CI()
		if len(s.Warnings) > 0 && s.N > 1 {
			hc.Warning = s.Warnings[len(s.Warnings)-1]
		}
		hc.Op, hc.P50, hc.P99 = f.op, f.p50, f.p99
		hc.Errors = ErrorCell(f.errs)
		hc.values = f.values
		hc.rep = representative(c.Runs)
		if r := hc.rep; r != nil && r.Control != nil {
			v, _ := r.Get(r.Control.Key)
			hc.control = v == r.Control.Value
		}
		if hc.rep != nil {
			if v, ok := hc.rep.Metric(results.WantedRate); ok {
				hc.Wanted, hc.Achieved = v, achieved(hc.rep)
			}
		}
		for _, r := range c.Runs {
			if r.Status == results.StatusOK {
				hc.oks = append(hc.oks, r)
			}
		}
		if hc.rep != nil {
			hc.class = classOf(hc.rep, hc.Wanted)
		} else {
			hc.class = class{workload: r0.Workload, op: "?"} // joins a panel of its workload (groups)
			hc.class.durability, hc.class.durabilityName = durabilityOf(r0)
		}
		d.Cells = append(d.Cells, hc)
	}
}

// representative is the run that stands for its cell in the charts: of
// the runs that finished ok, the one with the median headline (the lower
// of the two middle ones), or nil.
func representative(runs []*results.Result) *results.Result {
	var ok []*results.Result
	for _, r := range runs {
		if r.Status == results.StatusOK {
			ok = append(ok, r)
		}
	}
	if len(ok) == 0 {
		return nil
	}
	sort.SliceStable(ok, func(i, j int) bool { return ok[i].Headline().Value < ok[j].Headline().Value })
	return ok[(len(ok)-1)/2]
}

// achieved is the rate of operations a run completed.
func achieved(r *results.Result) float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	var n int64
	for _, o := range r.Ops {
		n += o.Count
	}
	return float64(n) / r.Elapsed
}

func finite(v, alt float64) float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return alt
	}
	return v
}

// label is cell i's value of field f, or "" when it has none.
func (b *builder) label(i int, f string) string { return b.d.Cells[i].labels[f] }

// varying are the fields (display order) that take more than one value
// among cells.
func (b *builder) varying(cells []int) []string {
	var out []string
	for _, f := range b.fields {
		for _, i := range cells[min(1, len(cells)):] {
			if b.label(i, f) != b.label(cells[0], f) {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// stepped reports whether every cell is a suite step.
func (b *builder) stepped(cells []int) bool {
	for _, i := range cells {
		if b.d.Cells[i].Step == "" {
			return false
		}
	}
	return len(cells) > 0
}

// named reports whether cells are best told apart by their steps' names:
// suite steps whose names are short enough to head a row (the rusqlite inserts benchmark's
// "+ journal_mode=WAL"); long names that list settings give way to the
// labels that vary.
func (b *builder) named(cells []int) bool {
	if !b.stepped(cells) {
		return false
	}
	for _, i := range cells {
		if textWidth(b.d.Cells[i].Step, fontPx) > maxStepWidth {
			return false
		}
	}
	return true
}

// maxStepWidth is the widest step name drawn as a row's label (pixels).
const maxStepWidth = 0.3 * barChartW

// keys name each of cells apart from the others: suite steps by their
// step's name (and target, where targets differ), other cells by the
// labels that vary among them ("mattn journal=wal"); a lone cell by its
// own label.
func (b *builder) keys(cells []int) []string {
	out := make([]string, len(cells))
	vary := b.varying(cells)
	stepped := b.named(cells)
	multiTarget := false
	for _, f := range vary {
		if f == "target" {
			multiTarget = true
		}
	}
	for k, i := range cells {
		c := b.d.Cells[i]
		var parts []string
		switch {
		case stepped:
			parts = append(parts, c.Step)
			if multiTarget {
				parts = append(parts, "("+c.Target+")")
			}
		default:
			for _, f := range vary {
				if f == "target" {
					parts = append(parts, c.Target)
				} else {
					parts = append(parts, f+"="+b.label(i, f))
				}
			}
		}
		out[k] = strings.Join(parts, " ")
		if out[k] == "" {
			out[k] = loneName(c)
		}
	}
	return out
}

// loneName names a cell that nothing sets apart from others: its step, or
// its workload and target.
func loneName(c HTMLCell) string {
	if c.Step != "" {
		return c.Step + " (" + c.Target + ")"
	}
	return c.Workload + " " + c.Target
}

// keyOf maps each of cells to its key (see keys), "#n" first.
func (b *builder) keyOf(cells []int) map[int]string {
	m := map[int]string{}
	for k, key := range b.keys(cells) {
		m[cells[k]] = "#" + itoa(b.d.Cells[cells[k]].Index) + " " + key
	}
	return m
}

// facet is some cells of a group drawn in one panel, and the labels they
// share that set them apart from the group's other facets.
type facet struct {
	cells []int
	name  string
}

// facets splits cells into panels of at most maxSeries: by the label
// whose values part them into the fewest panels that are small enough
// (or else the smallest largest part, split again), and, where no label
// parts them, in runs of maxSeries.
func (b *builder) facets(cells []int, name string) []facet {
	if len(cells) <= maxSeries {
		return []facet{{cells, name}}
	}
	type split struct {
		field string
		parts [][]int
		big   int
	}
	var best *split
	for _, f := range b.varying(cells) {
		idx := map[string]int{}
		var parts [][]int
		for _, i := range cells {
			v := b.label(i, f)
			k, ok := idx[v]
			if !ok {
				k = len(parts)
				idx[v] = k
				parts = append(parts, nil)
			}
			parts[k] = append(parts[k], i)
		}
		s := &split{field: f, parts: parts}
		for _, p := range parts {
			s.big = max(s.big, len(p))
		}
		fits := func(x *split) bool { return x.big <= maxSeries }
		switch {
		case best == nil:
			best = s
		case fits(s) && (!fits(best) || len(s.parts) < len(best.parts)):
			best = s
		case !fits(s) && !fits(best) && s.big < best.big:
			best = s
		}
	}
	var out []facet
	if best == nil || best.big == len(cells) {
		for k := 0; k < len(cells); k += maxSeries {
			part := cells[k:min(k+maxSeries, len(cells))]
			out = append(out, facet{part, join(name, "part "+itoa(k/maxSeries+1)+" of "+itoa((len(cells)+maxSeries-1)/maxSeries))})
		}
		return out
	}
	for _, p := range best.parts {
		v := b.label(p[0], best.field)
		if best.field != "target" {
			v = best.field + "=" + v
		}
		out = append(out, b.facets(p, join(name, v))...)
	}
	return out
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + " · " + b
}

func itoa(n int) string { return strconv.Itoa(n) }

// groups builds the throughput panels and their summaries.
func (b *builder) groups() {
	d := b.d
	idx := map[string]int{}
	var base []string
	add := func(i int, k, key string) {
		g, ok := idx[key]
		if !ok {
			g = len(d.Groups)
			idx[key] = g
			c := d.Cells[i]
			d.Groups = append(d.Groups, Group{Name: c.Group, Unit: c.Unit, Better: c.Better})
			base = append(base, k)
		}
		d.Groups[g].Cells = append(d.Groups[g].Cells, i)
	}
	for i, c := range d.Cells {
		if c.rep != nil {
			k := c.Section + "\x00" + c.Group + "\x00" + c.Unit
			add(i, k, k+"\x00"+c.class.key())
		}
	}
	// A cell with no run that finished goes beside its workload's other
	// cells.
	for i, c := range d.Cells {
		if c.rep != nil {
			continue
		}
		k := c.Section + "\x00" + c.Group + "\x00" + c.Unit
		key := k + "\x00" + c.class.key()
		for gi, gb := range base {
			if gb == k && d.Cells[d.Groups[gi].Cells[0]].Workload == c.Workload {
				key = k + "\x00" + d.Cells[d.Groups[gi].Cells[0]].class.key()
				break
			}
		}
		add(i, k, key)
	}
	// In the cells' order.
	for gi := range d.Groups {
		sort.Ints(d.Groups[gi].Cells)
	}
	order := make([]int, len(d.Groups))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(x, y int) bool { return d.Groups[order[x]].Cells[0] < d.Groups[order[y]].Cells[0] })
	groups, bases := make([]Group, len(order)), make([]string, len(order))
	for k, gi := range order {
		groups[k], bases[k] = d.Groups[gi], base[gi]
	}
	d.Groups, base = groups, bases
	b.nameApart(base)
	// Groups of one name are told apart: a suite section named like a
	// workload by "(suite)", one name in several units by its unit.
	names := map[string]int{}
	for _, g := range d.Groups {
		names[g.Name]++
	}
	for gi := range d.Groups {
		g := &d.Groups[gi]
		if names[g.Name] > 1 && d.Cells[g.Cells[0]].Section != "" {
			g.Name += " (suite)"
		}
	}
	names = map[string]int{}
	for _, g := range d.Groups {
		names[g.Name]++
	}
	for gi := range d.Groups {
		g := &d.Groups[gi]
		if names[g.Name] > 1 {
			g.Name += " (" + g.Unit + ")"
		}
		for _, i := range g.Cells {
			d.Cells[i].Group = g.Name
		}
		b.layoutGroup(g)
		b.bestOf(g)
	}
}

// layoutGroup orders a panel's rows, chooses its label columns and
// colours, and its scale.
func (b *builder) layoutGroup(g *Group) {
	cells := g.Cells
	vary := b.varying(cells)
	stepped := b.named(cells)
	var cols []string
	switch {
	case stepped:
		cols = []string{"step"}
		if contains(vary, "target") {
			cols = append(cols, "target")
		}
	case len(vary) == 0:
		cols = []string{"cell"}
	default:
		cols = vary
	}
	// The colour stands for the target where targets differ, or else the
	// first column of at most maxSeries values.
	g.ColourBy = ""
	for _, f := range cols {
		if f == "step" || f == "cell" {
			continue
		}
		if n := len(b.distinct(cells, f)); n > 1 && n <= maxSeries && (f == "target" || g.ColourBy == "") {
			g.ColourBy = f
			if f == "target" {
				break
			}
		}
	}
	if g.ColourBy != "" {
		g.Colours = b.distinct(cells, g.ColourBy)
		// Cells that differ only in the coloured label go side by side,
		// in the order the rest first appears.
		rest := func(i int) string {
			var k []string
			for _, f := range append(vary, "step") {
				if f != g.ColourBy {
					k = append(k, b.label(i, f)+"\x00"+b.d.Cells[i].Step)
				}
			}
			return strings.Join(k, "\x01")
		}
		order := map[string]int{}
		for _, i := range cells {
			if _, ok := order[rest(i)]; !ok {
				order[rest(i)] = len(order)
			}
		}
		sorted := append([]int(nil), cells...)
		sort.SliceStable(sorted, func(x, y int) bool { return order[rest(sorted[x])] < order[rest(sorted[y])] })
		g.Cells = sorted
	}
	g.Columns = append([]string{"#"}, cols...)
	for _, i := range g.Cells {
		c := b.d.Cells[i]
		row := []string{"#" + itoa(c.Index)}
		for _, f := range cols {
			switch f {
			case "step":
				row = append(row, c.Step)
			case "cell":
				row = append(row, loneName(c))
			default:
				row = append(row, b.label(i, f))
			}
		}
		g.Labels = append(g.Labels, row)
		ci := -1
		if g.ColourBy != "" {
			ci = indexOf(g.Colours, b.label(i, g.ColourBy))
		}
		g.Colour = append(g.Colour, ci)
	}
	// Labels wider than about 45% of the chart become a numbered key.
	if labelColumnsWidth(g.Columns, g.Labels) > 0.45*barChartW {
		g.Keyed = true
	}
	var vs []float64
	for _, i := range g.Cells {
		c := b.d.Cells[i]
		if c.N > 0 {
			vs = append(vs, c.Median, c.Lo, c.Hi)
		}
	}
	g.Log = spansDecade(vs)
}

// distinct are the values of f among cells, in order of appearance.
func (b *builder) distinct(cells []int, f string) []string {
	var out []string
	for _, i := range cells {
		if v := b.label(i, f); !contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func contains(xs []string, x string) bool { return indexOf(xs, x) >= 0 }

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

// better reports whether a is a better headline than b in direction dir.
func better(a, b float64, dir string) bool {
	if dir == string(units.Lower) {
		return a < b
	}
	return a > b
}

// bestOf finds the group's best cell and its baseline, and says so.
func (b *builder) bestOf(g *Group) {
	b.best(g)
	// The best is measured against the workload's control, where it has
	// one.
	if ms := b.measures(g); g.Best < 0 || len(ms) != 1 || ms[0].label != "" {
		return
	}
	keys := b.keyOf(g.Cells)
	for _, i := range g.Cells {
		if c := b.d.Cells[i]; c.control && c.N > 0 && i != g.Best {
			g.Sentence += fmt.Sprintf(" It reaches %.0f%% of the control, %s at %s.", 100*b.d.Cells[g.Best].Median/c.Median, keys[i], value(c.Median, g.Unit))
			return
		}
	}
}

// eligible reports whether cell i can be a group's best or baseline: it
// has a run that finished, and it is not the control (unless every cell
// is).
func (b *builder) eligible(g *Group, i int) bool {
	c := b.d.Cells[i]
	if c.N == 0 {
		return false
	}
	if !c.control {
		return true
	}
	for _, j := range g.Cells {
		if !b.d.Cells[j].control && b.d.Cells[j].N > 0 {
			return false
		}
	}
	return true
}

func (b *builder) best(g *Group) {
	g.Best, g.Baseline = -1, -1
	parts := b.byDurability(g)
	var titles, sentences []string
	first := true
	for _, part := range parts {
		for _, m := range b.measures(part) {
			tag := m.label
			if len(parts) > 1 {
				tag = part.Name
				if m.label != "" {
					tag += " · " + m.label
				}
			}
			r := b.rank(part, g.Name, tag, m)
			if first {
				g.Best, g.Baseline, g.BaselineName = r.best, r.base, r.baseName
				g.Speedup, g.SpeedupLo, g.SpeedupHi = r.speedup, r.lo, r.hi
				first = false
			}
			titles, sentences = append(titles, r.title), append(sentences, r.sentence)
		}
	}
	if g.Best >= 0 {
		b.d.Cells[g.Best].Best = true
	}
	g.Title = g.Name + ": " + strings.Join(titles, "; ")
	g.Sentence = strings.Join(sentences, " ") + b.figures(g)
}

// ranking is a group's ranking by one measure, in words.
type ranking struct {
	best, base      int
	baseName        string
	speedup, lo, hi float64
	title, sentence string
}

// rank finds the best of g's cells by m and the baseline it is measured
// against, and says so, naming the panel name and tag (the durability
// class and the measure, where the panel is ranked by several).
func (b *builder) rank(g *Group, name, tag string, m *measure) ranking {
	rk := ranking{best: -1, base: -1}
	for _, i := range g.Cells {
		if b.eligibleBy(g, i, m) && (rk.best < 0 || better(m.med[i], m.med[rk.best], m.better)) {
			rk.best = i
		}
	}
	word := "best"
	if m.better == string(units.Higher) && units.IsRate(m.unit) {
		word = "fastest"
	}
	lead := ""
	if tag != "" {
		name += " (" + tag + ")"
		lead = tag + ": "
	}
	if rk.best < 0 {
		rk.title = lead + "no run finished"
		rk.sentence = name + ": no run finished."
		if m.label != "" {
			rk.title, rk.sentence = lead+"no run measured it", name+": no run measured it."
		}
		return rk
	}
	best := b.d.Cells[rk.best]
	keys := b.keyOf(g.Cells)
	bare := strings.TrimPrefix(keys[rk.best], "#"+itoa(best.Index)+" ")
	fig := value(m.med[rk.best], m.unit)
	if ci := m.ci[rk.best]; ci != "" && ci != "±∞" {
		fig += " " + ci
	}
	alone := true
	for _, i := range g.Cells {
		alone = alone && (i == rk.best || !b.eligibleBy(g, i, m))
	}
	if alone {
		rk.title = lead + value(m.med[rk.best], m.unit)
		rk.sentence = name + ": " + keys[rk.best] + ", " + fig + "."
		if len(g.Cells) == 1 {
			rk.sentence = name + ": one cell, " + keys[rk.best] + ", " + fig + "."
		}
		return rk
	}
	base, bname := b.baseline(g, m, rk.best)
	rk.base, rk.baseName = base, bname
	head := name + ": " + word + " is " + keys[rk.best] + " at " + fig
	if base == rk.best {
		rk.title = lead + bare + " is " + word + ", and it is " + bname
		rk.sentence = head + ", which is " + bname + "."
		return rk
	}
	if !m.has(base) || m.med[base] == 0 || m.med[rk.best] == 0 {
		rk.title = lead + bare + " is " + word
		rk.sentence = head + "."
		return rk
	}
	rk.speedup = m.med[rk.best] / m.med[base]
	if m.better == string(units.Lower) {
		rk.speedup = m.med[base] / m.med[rk.best]
	}
	interval := ""
	if lo, hi, ok := ratioCI(m.vals[base], m.vals[rk.best]); ok {
		if m.better == string(units.Lower) {
			lo, hi = 1/hi, 1/lo
		}
		rk.lo, rk.hi = lo, hi
		interval = " (95% interval " + times(lo) + "–" + times(hi) + ")"
	} else if nb, nt := len(m.vals[base]), len(m.vals[rk.best]); nb > 1 || nt > 1 {
		interval = fmt.Sprintf(" (no interval with %d+%d runs; --repeat %d gives one)", nb, nt, minCIRuns)
	}
	over := "over " + bname
	if m.better == string(units.Lower) {
		over = "better than " + bname
	}
	rk.title = lead + bare + " is " + word + ", " + times(rk.speedup) + " " + over
	rk.sentence = head + ", " + times(rk.speedup) + " " + over + interval + "."
	return rk
}

// eligibleBy reports whether cell i can be ranked by m: it is eligible
// and has the measure.
func (b *builder) eligibleBy(g *Group, i int, m *measure) bool {
	return m.has(i) && b.eligible(g, i)
}

// times renders a ratio: ×1.08, ×4.2, ×109.
func times(r float64) string {
	switch {
	case r >= 100:
		return "×" + strconv.FormatFloat(r, 'f', 0, 64)
	case r >= 10:
		return "×" + strconv.FormatFloat(r, 'f', 1, 64)
	}
	return "×" + strconv.FormatFloat(r, 'f', 2, 64)
}

// baseline is what a group's best cell is measured against, and its name.
// Its peers are the cells of the same target (and, outside suites, the
// same parameters): among them, the cell whose settings are all at their
// defaults; or else the first, which in a suite section is the step the
// section starts from ("driver defaults") and in a sweep the first value
// of each list. With no peer (only targets differ) it is the worst cell.
func (b *builder) baseline(g *Group, m *measure, best int) (int, string) {
	keys := b.keyOf(g.Cells)
	same := []string{"workload", "target", "engine", "placement"}
	if !b.stepped(g.Cells) {
		same = append(same, b.params...)
	}
	var peers []int
	for _, i := range sortedInts(g.Cells) {
		ok := b.eligibleBy(g, i, m)
		for _, f := range same {
			ok = ok && b.label(i, f) == b.label(best, f)
		}
		if ok {
			peers = append(peers, i)
		}
	}
	if len(peers) > 1 {
		for _, i := range peers {
			if b.atDefaults(i) {
				if i == best {
					return i, "the defaults"
				}
				return i, "the defaults (" + keys[i] + ")"
			}
		}
		first := "the sweep's first cell"
		if b.stepped(g.Cells) {
			first = "the section's first step"
		}
		if peers[0] != best {
			return peers[0], first + ", " + keys[peers[0]]
		}
		return best, first
	}
	worst := -1
	for _, i := range g.Cells {
		if b.eligibleBy(g, i, m) && (worst < 0 || better(m.med[worst], m.med[i], m.better)) {
			worst = i
		}
	}
	return worst, "the slowest, " + keys[worst]
}

func sortedInts(xs []int) []int {
	out := append([]int(nil), xs...)
	sort.Ints(out)
	return out
}

// atDefaults reports whether every setting of cell i that has a known
// default is at it.
func (b *builder) atDefaults(i int) bool {
	if len(b.opt.Defaults) == 0 {
		return false
	}
	r := b.d.Cells[i].rep
	if r == nil {
		return false
	}
	for k, v := range r.Settings {
		if def, ok := b.opt.Defaults[k]; ok && def != v {
			return false
		}
	}
	return true
}

func envKey(e results.Env) string {
	var b strings.Builder
	for _, l := range envInfo(e).Lines {
		b.WriteString(l[0] + "=" + l[1] + ";")
	}
	return b.String()
}

func envInfo(e results.Env) EnvInfo {
	var ls [][2]string
	add := func(k, v string) {
		if strings.TrimSpace(v) != "" {
			ls = append(ls, [2]string{k, v})
		}
	}
	add("target", e.Target+" ("+e.API+", "+e.Module+")")
	add("SQLite", e.SQLiteVersion)
	add("OS", e.OS+" "+e.Kernel+" "+e.Arch)
	add("CPU", e.CPUModel)
	add("cores / GOMAXPROCS", itoa(e.Cores)+" / "+itoa(e.GOMAXPROCS))
	add("file system", e.Filesystem)
	add("Go", e.GoVersion)
	add("litebench", e.Litebench)
	add("host", e.Hostname)
	var lk []string
	for k := range e.Limits {
		lk = append(lk, k)
	}
	sort.Strings(lk)
	for _, k := range lk {
		add("limit "+k, e.Limits[k])
	}
	if len(e.CompileOptions) > 0 {
		add("compile options", strings.Join(e.CompileOptions, " "))
	}
	return EnvInfo{Lines: ls}
}

// LTTB downsamples points to at most n with Largest-Triangle-Three-Buckets
// (Steinarsson), which keeps the peaks and dips a plot needs.
func LTTB(pts [][2]float64, n int) [][2]float64 {
	if n < 3 || len(pts) <= n {
		return pts
	}
	out := make([][2]float64, 0, n)
	out = append(out, pts[0])
	every := float64(len(pts)-2) / float64(n-2)
	a := 0
	for i := 0; i < n-2; i++ {
		lo := int(math.Floor(float64(i)*every)) + 1
		hi := int(math.Floor(float64(i+1)*every)) + 1
		nlo, nhi := hi, int(math.Floor(float64(i+2)*every))+1
		if nhi > len(pts) {
			nhi = len(pts)
		}
		var ax, ay float64
		for _, p := range pts[nlo:nhi] {
			ax += p[0]
			ay += p[1]
		}
		if k := float64(nhi - nlo); k > 0 {
			ax /= k
			ay /= k
		}
		best, bestArea := lo, -1.0
		for j := lo; j < hi && j < len(pts); j++ {
			area := math.Abs((pts[a][0]-ax)*(pts[j][1]-pts[a][1]) - (pts[a][0]-pts[j][0])*(ay-pts[a][1]))
			if area > bestArea {
				best, bestArea = j, area
			}
		}
		out = append(out, pts[best])
		a = best
	}
	return append(out, pts[len(pts)-1])
}
