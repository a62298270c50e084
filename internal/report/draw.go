package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/litebench/litebench/internal/units"
)

// Chart sizes: throughput panels span the page, the others share it two
// by two.
const (
	barChartW = 960.0
	rowH      = 20.0
	lineW     = 470.0
	lineH     = 300.0
	colGap    = 12.0
	inset     = 6.0 // marks keep this far from a plot's edges
)

// colWidths are the widths of label columns: the widest of each column's
// header and values, and a gap.
func colWidths(cols []string, rows [][]string) []float64 {
	ws := make([]float64, len(cols))
	for c, h := range cols {
		ws[c] = textWidth(h, fontPx)
		for _, r := range rows {
			ws[c] = math.Max(ws[c], textWidth(r[c], fontPx))
		}
		ws[c] += colGap
	}
	return ws
}

func labelColumnsWidth(cols []string, rows [][]string) float64 {
	w := 0.0
	for _, x := range colWidths(cols, rows) {
		w += x
	}
	return w
}

// axisTitle names what an axis shows and its unit: "throughput
// (rows/s), higher is better, log scale".
func axisTitle(name, unit, better string, log bool) string {
	u := unit
	switch unit {
	case units.Microseconds, units.Seconds:
		u = "seconds"
	case "":
		u = ""
	}
	s := name
	if u != "" {
		s += " (" + u + ")"
	}
	if better != "" {
		s += ", " + better + " is better"
	}
	if log {
		s += ", log scale"
	}
	return s
}

// barValue is what the right-hand column says of a cell.
func barValue(c HTMLCell) string {
	if c.N == 0 {
		return "no run finished ok"
	}
	s := value(c.Median, c.Unit)
	if c.CI != "" {
		s += " " + c.CI
	}
	if c.Best {
		s += " ★"
	}
	return s
}

// barChart draws a group's cells as one row each: labels left, a bar (or,
// on a log scale, a dot) for the median with its interval, the figure
// right.
func (p *page) barChart(g Group) string {
	d := p.d
	cols, rows := g.Columns, g.Labels
	if g.Keyed {
		cols = cols[:1]
		rows = make([][]string, len(g.Labels))
		for k, r := range g.Labels {
			rows[k] = r[:1]
		}
	}
	widths := colWidths(cols, rows)
	vals := make([]string, len(g.Cells))
	valW := textWidth(g.Unit, fontPx)
	var vs []float64
	for k, i := range g.Cells {
		c := d.Cells[i]
		vals[k] = barValue(c)
		valW = math.Max(valW, textWidth(vals[k], fontPx))
		if c.N > 0 {
			vs = append(vs, c.Median, c.Lo, c.Hi)
			if c.Wanted > 0 {
				vs = append(vs, c.Wanted)
			}
		}
	}
	const top, headY = 24.0, 15.0
	plotH := rowH * float64(len(g.Cells))
	x0 := 4 + labelColumnsWidth(cols, rows)
	x1 := barChartW - valW - 2*colGap
	ax := valueAxis(vs, g.Log, g.Unit)
	lo := x0
	if g.Log {
		lo += inset
	}
	sc := ax.scale(lo, x1-inset)
	s := &svg{w: barChartW, h: top + plotH + 44}
	p.clip++
	s.open("bars", g.Title, p.clip, x0, top, x1-x0, plotH)
	x := 4.0
	for c, h := range cols {
		s.text(x, headY, "start", "colhead", h)
		x += widths[c]
	}
	s.text(barChartW-4, headY, "end", "colhead", "median")
	s.xTicks(sc, ax.ticks, func(v float64) string { return tick(v, g.Unit) }, top, top+plotH)
	var marks strings.Builder
	for k, i := range g.Cells {
		c := d.Cells[i]
		cy := top + (float64(k)+0.5)*rowH
		cls := "rowlabel"
		if c.Best {
			cls += " best"
		}
		s.printf(`<g class="row" data-cell="%d">`, i)
		x := 4.0
		for col := range cols {
			s.text(x, cy+4, "start", cls, rows[k][col])
			x += widths[col]
		}
		s.printf("</g>")
		s.text(barChartW-4, cy+4, "end", cls+" val", vals[k])
		if c.N == 0 {
			continue
		}
		fill := colour(max(g.Colour[k], 0))
		tip := esc(fmt.Sprintf("#%d %s: %s (n=%d%s)", c.Index, strings.Join(g.Labels[k][1:], " "), value(c.Median, c.Unit), c.N, rangeNote(c)))
		xm := sc.px(c.Median)
		if g.Log {
			fmt.Fprintf(&marks, `<line class="mark stem" data-cell="%d" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>`, i, x0, xm, cy, cy)
			fmt.Fprintf(&marks, `<circle class="mark dot" data-cell="%d" cx="%.1f" cy="%.1f" r="4.5" fill="%s"><title>%s</title></circle>`, i, xm, cy, fill, tip)
		} else {
			fmt.Fprintf(&marks, `<rect class="mark bar" data-cell="%d" x="%.1f" y="%.1f" width="%.1f" height="12" fill="%s"><title>%s</title></rect>`,
				i, sc.px(0), cy-6, xm-sc.px(0), fill, tip)
		}
		if c.N > 1 {
			a, b := sc.px(c.Lo), sc.px(c.Hi)
			fmt.Fprintf(&marks, `<path class="mark ci" data-cell="%d" d="M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fV%.1f"/>`, i, a, cy, b, a, cy-4, cy+4, b, cy-4, cy+4)
		}
		if c.Wanted > 0 {
			xw := sc.px(c.Wanted)
			fmt.Fprintf(&marks, `<path class="mark wanted" data-cell="%d" d="M%.1f %.1fV%.1f"><title>wanted %s</title></path>`, i, xw, cy-8, cy+8, esc(value(c.Wanted, units.OpsPerSecond)))
		}
	}
	s.printf(`<g clip-path="url(#clip%d)">%s</g>`, p.clip, marks.String())
	name := "throughput"
	if !units.IsRate(g.Unit) {
		name = "headline"
	}
	s.text((x0+x1)/2, top+plotH+36, "middle", "axis-title x", axisTitle(name, g.Unit, g.Better, g.Log))
	return s.close()
}

// rangeNote is a tooltip's account of a repeated cell's spread.
func rangeNote(c HTMLCell) string {
	if c.N < 2 {
		return ""
	}
	s := ", range " + si(c.Min) + "–" + si(c.Max)
	if c.CI != "" {
		s = ", " + c.CI + s
	}
	return s
}

// line is one line of a line chart, in data coordinates.
type line struct {
	cell   int
	colour string
	class  string // extra classes: "service" is dashed
	key    string
	pts    [][2]float64
	cps    []float64
	warns  []Marker
	wanted float64
}

// lineSpec is a line chart: its axes, their titles and labels, its lines.
type lineSpec struct {
	label  string
	x, y   axis
	xLabel func(float64) string
	yLabel func(float64) string
	xTitle string
	yTitle string
	xInset float64
	lines  []line
}

// lineChart draws lines over a grid, with markers under and over them
// where lines have them.
func (p *page) lineChart(ls lineSpec) string {
	yw := yTickWidth(ls.y.ticks, ls.yLabel)
	x0 := 8 + 16 + yw + 8
	lastLabel := ls.xLabel(ls.x.ticks[len(ls.x.ticks)-1])
	x1 := lineW - math.Max(12, textWidth(lastLabel, fontPx)/2+4)
	y0, y1 := 10.0, lineH-42
	sx := ls.x.scale(x0+ls.xInset, x1-ls.xInset)
	sy := ls.y.scale(y1-4, y0+4) // room for points and markers at the ends
	s := &svg{w: lineW, h: lineH}
	p.clip++
	s.open("lines", ls.label, p.clip, x0, y0, x1-x0, y1-y0)
	s.yTicks(sy, ls.y.ticks, ls.yLabel, x0, x1)
	s.xTicks(sx, ls.x.ticks, ls.xLabel, y0, y1)
	s.printf(`<g clip-path="url(#clip%d)">`, p.clip)
	for _, l := range ls.lines {
		if l.wanted > 0 {
			y := sy.px(l.wanted)
			s.printf(`<path class="mark wanted" data-cell="%d" d="M%.1f %.1fH%.1f"><title>%s wanted</title></path>`, l.cell, x0, y, x1, esc(l.key))
		}
	}
	marked := map[int]bool{} // a run's markers are drawn once, in its first line's colour
	for _, l := range ls.lines {
		pts := make([][2]float64, len(l.pts))
		for k, pt := range l.pts {
			pts[k] = [2]float64{sx.px(pt[0]), sy.px(pt[1])}
		}
		if len(pts) == 1 { // one value: a point, not a line
			s.printf(`<circle class="mark point" data-cell="%d" fill="%s" cx="%.1f" cy="%.1f" r="3.5"><title>%s</title></circle>`, l.cell, l.colour, pts[0][0], pts[0][1], esc(l.key))
		} else {
			s.printf(`<path class="mark line %s" data-cell="%d" stroke="%s" d="%s"><title>%s</title></path>`, l.class, l.cell, l.colour, path(pts), esc(l.key))
		}
		if marked[l.cell] {
			continue
		}
		marked[l.cell] = true
		for _, t := range l.cps {
			x := sx.px(t)
			s.printf(`<path class="mark cp" data-cell="%d" fill="%s" d="M%.1f %.1fl4 7h-8z"><title>%s: checkpoint completed by %s s</title></path>`, l.cell, l.colour, x, y1-8, esc(l.key), sig3(t))
		}
		for _, w := range l.warns {
			x := sx.px(w.T)
			s.printf(`<path class="mark warn" data-cell="%d" d="M%.1f %.1fl4 5l-4 5l-4 -5z"><title>%s at %s s: %s</title></path>`, l.cell, x, y0+1, esc(l.key), sig3(w.T), esc(w.Text))
		}
	}
	s.printf("</g>")
	s.text((x0+x1)/2, lineH-6, "middle", "axis-title x", ls.xTitle)
	cy := (y0 + y1) / 2
	size := ""
	if textWidth(ls.yTitle, fontPx) > y1-y0-4 {
		size = ` font-size="10"`
	}
	s.printf(`<text x="16" y="%.1f" text-anchor="middle" class="axis-title y" transform="rotate(-90 16 %.1f)"%s>%s</text>`, cy, cy, size, esc(ls.yTitle))
	return s.close()
}

// nines is where percentile p (0 … 100) falls on the latency charts' x
// axis: log10(1/(1-p)), so that 90%, 99% and 99.9% are equally spaced.
func nines(p float64) float64 {
	p = math.Min(p, 100*(1-math.Pow(10, -curveDecade)))
	return math.Log10(1 / (1 - p/100))
}

// ninesLabel names a point of the percentile axis: 0%, 50%, 99.9%.
func ninesLabel(x float64) string {
	p := 100 * (1 - math.Pow(10, -x))
	return strconv.FormatFloat(math.Round(p*1e4)/1e4, 'f', -1, 64) + "%"
}

func (p *page) curveChart(cp CurvePanel) string {
	top := 1.0
	var ys []float64
	var lines []line
	for k, cv := range cp.Lines {
		for _, kind := range []struct {
			pts   [][2]float64
			class string
			name  string
		}{{cv.Response, "response", "response time"}, {cv.Service, "service", "service time"}} {
			if kind.pts == nil {
				continue
			}
			l := line{cell: cv.Cell, colour: colour(k), key: cv.Key + " · " + kind.name}
			if cp.Open {
				l.class = kind.class
			}
			for _, pt := range kind.pts {
				x := nines(pt[0])
				top = math.Max(top, x)
				l.pts = append(l.pts, [2]float64{x, pt[1]})
				ys = append(ys, pt[1])
			}
			lines = append(lines, l)
		}
	}
	// The axis ends about where the data does (the percentile the largest
	// count resolves), at 1/(1-p) round to 1, 2 or 5. Its labels are 50%,
	// 90%, 99%, …
	top = math.Min(math.Log10(round125(math.Pow(10, top), true)), curveDecade)
	xa := axis{lo: 0, hi: top, ticks: []float64{math.Log10(2)}}
	for t := 1.0; t <= top+1e-9; t++ {
		xa.ticks = append(xa.ticks, t)
	}
	ya := valueAxis(ys, cp.Log, units.Microseconds)
	return p.lineChart(lineSpec{label: cp.Title, x: xa, y: ya, xLabel: ninesLabel, yLabel: func(v float64) string { return tick(v, units.Microseconds) },
		xTitle: "percentile (log scale of 1/(1−p))", yTitle: axisTitle(cp.Op+" latency", units.Microseconds, "", cp.Log), xInset: inset, lines: lines})
}

func (p *page) seriesChart(sp SeriesPanel) string {
	var xs, ys []float64
	var lines []line
	for k, l := range sp.Lines {
		ln := line{cell: l.Cell, colour: colour(k), key: l.Key, pts: l.Points, cps: l.Checkpoints, warns: l.Warnings, wanted: l.Wanted}
		for _, pt := range l.Points {
			xs, ys = append(xs, pt[0]), append(ys, pt[1])
		}
		if l.Wanted > 0 {
			ys = append(ys, l.Wanted)
		}
		for _, t := range l.Checkpoints {
			xs = append(xs, t)
		}
		for _, w := range l.Warnings {
			xs = append(xs, w.T)
		}
		lines = append(lines, ln)
	}
	xa := valueAxis(append(xs, 0), false, units.Seconds)
	ya := valueAxis(ys, sp.Log, sp.Unit)
	name := map[string]string{"ops_per_s": "throughput", "p99_us": "p99 latency", "wal_bytes": "WAL size"}[sp.Figure]
	return p.lineChart(lineSpec{label: sp.Title, x: xa, y: ya, xLabel: sig3, yLabel: func(v float64) string { return tick(v, sp.Unit) },
		xTitle: "time since the measured start (s)", yTitle: axisTitle(name, sp.Unit, "", sp.Log), xInset: inset, lines: lines})
}
