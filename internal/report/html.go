package report

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"

	"litebench/internal/results"
	"litebench/internal/units"
)

// HTMLMarker starts every report litebench writes; litebench overwrites
// only files that start with it.
const HTMLMarker = "<!DOCTYPE html>\n<!-- litebench report -->"

var palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

func color(i int) string { return palette[i%len(palette)] }

// WriteHTML writes one self-contained page: inline CSS, inline SVG charts
// drawn here, a few lines of inline JavaScript for sorting; nothing is
// fetched.
func WriteHTML(w io.Writer, rs []*results.Result, title string) error {
	d := BuildHTMLData(title, rs)
	var b strings.Builder
	esc := html.EscapeString
	b.WriteString(HTMLMarker + "\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<style>%s</style></head><body>\n", esc(d.Title), css)
	fmt.Fprintf(&b, "<h1>%s</h1>\n<p class=\"sub\">%d runs in %d cells. Throughput in %s; latency in µs (response time for open-loop runs, service time otherwise). Click a column to sort.</p>\n",
		esc(d.Title), len(rs), len(d.Cells), esc(d.Unit))
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "<p class=\"note\">%s</p>\n", esc(n))
	}

	// The sweep table.
	b.WriteString("<h2>Cells</h2>\n<table id=\"cells\" class=\"sortable\"><thead><tr><th>#</th><th>workload</th><th>target</th>")
	for _, c := range d.Columns {
		fmt.Fprintf(&b, "<th>%s</th>", esc(c))
	}
	fmt.Fprintf(&b, "<th>n</th><th>%s</th><th>CI</th><th>spread</th><th>op</th><th>p50 µs</th><th>p99 µs</th><th>errors</th><th>warning</th></tr></thead><tbody>\n", esc(d.Unit))
	for i, c := range d.Cells {
		cls := "cell"
		if c.Best {
			cls += " best"
		}
		fmt.Fprintf(&b, "<tr class=\"%s\"><td>%d</td><td>%s</td><td>%s</td>", cls, i+1, esc(c.Workload), esc(c.Target))
		for _, f := range c.Fields {
			fmt.Fprintf(&b, "<td>%s</td>", esc(f))
		}
		fmt.Fprintf(&b, "<td>%d</td><td data-v=\"%g\">%s</td><td>%s</td><td data-v=\"%g\">%.0f%%</td><td>%s</td><td data-v=\"%g\">%s</td><td data-v=\"%g\">%s</td><td>%s</td><td class=\"warn\">%s</td></tr>\n",
			c.N, c.Median, Num(c.Median), esc(c.CI), c.Spread, 100*c.Spread, esc(c.Op), c.P50, Num(c.P50), c.P99, Num(c.P99), esc(c.Errors), esc(c.Warning))
	}
	b.WriteString("</tbody></table>\n<p class=\"legend\"><span class=\"swatch best\"></span> best " + esc(d.Unit) + " within its group")
	if d.GroupBy != "" {
		b.WriteString(" (same workload and " + esc(d.GroupBy) + ")")
	}
	b.WriteString("</p>\n")

	// Throughput bars.
	fmt.Fprintf(&b, "<h2>Throughput</h2>\n%s\n", barChart(d))

	// Latency curves.
	if len(d.Curves) > 0 {
		b.WriteString("<h2>Latency by percentile</h2>\n")
		for _, cs := range d.Curves {
			fmt.Fprintf(&b, "<h3>%s (%s time)</h3>\n%s\n", esc(cs.Op), cs.Kind, curveChart(cs))
		}
	}

	// Time series.
	if len(d.Series) > 0 {
		b.WriteString("<h2>Over time</h2>\n")
		for _, m := range []struct {
			name string
			get  func(SeriesRun) [][2]float64
			fmt  func(float64) string
		}{
			{"throughput (operations, or rows, per second)", func(s SeriesRun) [][2]float64 { return s.Ops }, Num},
			{"p99 latency (µs), worst op kind", func(s SeriesRun) [][2]float64 { return s.P99 }, Num},
			{"WAL size", func(s SeriesRun) [][2]float64 { return s.WAL }, func(v float64) string { return units.Bytes(int64(v)) }},
		} {
			var lines []line
			for i, s := range d.Series {
				if pts := m.get(s); len(pts) > 1 {
					lines = append(lines, line{label: s.Label, color: color(i), pts: pts})
				}
			}
			if len(lines) > 0 {
				fmt.Fprintf(&b, "<h3>%s</h3>\n%s\n", m.name, lineChart(lines, false, false, "seconds", m.fmt, Num))
			}
		}
	}

	// Reproduce.
	b.WriteString("<h2>Runs and how to repeat them</h2>\n<table id=\"runs\"><thead><tr><th>run</th><th>cell</th><th>status</th><th>env</th><th>command</th></tr></thead><tbody>\n")
	for i, c := range d.Cells {
		for _, r := range c.Runs {
			fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td><td>%s</td><td>%d</td><td><code>%s</code></td></tr>\n", esc(r.RunID), i+1, esc(r.Status), r.Env+1, esc(r.Command))
		}
	}
	b.WriteString("</tbody></table>\n<h2>Environment</h2>\n")
	for i, e := range d.Envs {
		fmt.Fprintf(&b, "<table class=\"env\"><caption>environment %d</caption>", i+1)
		for _, l := range e.Lines {
			fmt.Fprintf(&b, "<tr><th>%s</th><td>%s</td></tr>", esc(l[0]), esc(l[1]))
		}
		b.WriteString("</table>\n")
	}
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	// The data behind the page, for tools (and tests) that read it back.
	fmt.Fprintf(&b, "<script type=\"application/json\" id=\"litebench-data\">%s</script>\n", strings.ReplaceAll(string(data), "</", "<\\/"))
	fmt.Fprintf(&b, "<script>%s</script>\n</body></html>\n", js)
	_, err = io.WriteString(w, b.String())
	return err
}

const css = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px}h3{font-size:15px}
table{border-collapse:collapse;margin:8px 0}th,td{padding:3px 8px;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}
th{background:#f4f4f4;cursor:pointer}td:nth-child(-n+3){text-align:left}
tr.best td{background:#e6f4e6;font-weight:600}.warn{color:#a15c00;text-align:left;white-space:normal;max-width:380px}
.sub,.legend{color:#555}.note{color:#a15c00}.swatch{display:inline-block;width:12px;height:12px;background:#e6f4e6;border:1px solid #8c8}
table.env th{text-align:left;cursor:default}table.env td{text-align:left;white-space:normal}code{font-size:12px}
svg{background:#fff;border:1px solid #eee;margin:4px 0}svg text{font:11px sans-serif;fill:#333}`

const js = `(function(){
function val(td){var v=td.getAttribute('data-v');if(v!==null)return parseFloat(v);var t=td.textContent.trim();var n=parseFloat(t);return isNaN(n)?t:n;}
document.querySelectorAll('table.sortable').forEach(function(t){
 t.querySelectorAll('th').forEach(function(th,i){th.addEventListener('click',function(){
  var tb=t.tBodies[0],rows=Array.prototype.slice.call(tb.rows),dir=th.getAttribute('data-dir')==='asc'?-1:1;
  rows.sort(function(a,b){var x=val(a.cells[i]),y=val(b.cells[i]);return (x>y?1:x<y?-1:0)*dir;});
  th.setAttribute('data-dir',dir===1?'asc':'desc');rows.forEach(function(r){tb.appendChild(r);});});});});
document.body.setAttribute('data-ready','1');
})();`

type line struct {
	label string
	color string
	pts   [][2]float64
}

const (
	chartW, chartH = 900, 300
	padL, padR     = 70, 200
	padT, padB     = 16, 44
)

func barChart(d HTMLData) string {
	if len(d.Cells) == 0 {
		return ""
	}
	var b strings.Builder
	n := len(d.Cells)
	w := max(chartW, padL+padR+n*14)
	// Suite sections hold different steps: each bar is named under it
	// instead of by a shared legend.
	named := d.GroupBy == "section"
	h, below := chartH, 0
	if named {
		below = 110
		h += below
	}
	fmt.Fprintf(&b, `<svg class="chart bars" width="%d" height="%d" viewBox="0 0 %d %d" role="img">`, w, h, w, h)
	top := 0.0
	for _, c := range d.Cells {
		top = math.Max(top, math.Max(c.Median, c.Hi))
	}
	if top <= 0 {
		top = 1
	}
	top *= 1.08
	plotW := float64(w - padL - padR)
	plotH := float64(chartH - padT - padB)
	y := func(v float64) float64 { return float64(padT) + plotH*(1-v/top) }
	for _, t := range ticks(0, top, 5) {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#eee"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`,
			padL, w-padR, y(t), y(t), padL-6, y(t)+4, Num(t))
	}
	// Clusters by group, in first-appearance order.
	var groups []string
	seen := map[string]bool{}
	for _, c := range d.Cells {
		if !seen[c.Group] {
			seen[c.Group] = true
			groups = append(groups, c.Group)
		}
	}
	slot := plotW / float64(n+len(groups))
	x := float64(padL) + slot/2
	for _, g := range groups {
		gx := x
		k := 0
		for _, c := range d.Cells {
			if c.Group != g {
				continue
			}
			bx := x + 0.1*slot
			bw := 0.8 * slot
			fill := color(k)
			stroke := "none"
			if c.Best {
				stroke = "#2a2"
			}
			fmt.Fprintf(&b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="%s" stroke-width="2"><title>%s: %s %s (n=%d%s)</title></rect>`,
				bx, y(c.Median), bw, y(0)-y(c.Median), fill, stroke, html.EscapeString(c.Label), Num(c.Median), d.Unit, c.N, ciTitle(c))
			if named {
				lx, ly := bx+bw/2+3, chartH-padB+26
				fmt.Fprintf(&b, `<text x="%.1f" y="%d" transform="rotate(55 %.1f %d)">%s</text>`, lx, ly, lx, ly, html.EscapeString(shorten(c.Step, 24)))
			}
			if c.N > 1 {
				cx := bx + bw/2
				fmt.Fprintf(&b, `<path class="errbar" d="M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f" stroke="#000" fill="none"/>`,
					cx, y(c.Lo), y(c.Hi), cx-4, y(c.Lo), cx+4, cx-4, y(c.Hi), cx+4)
			}
			x += slot
			k++
		}
		// Group names fit their cluster's width (about 6 px a character).
		fit := max(int((x-gx)/6), 4)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle"><title>%s</title>%s</text>`, (gx+x)/2, chartH-padB+16, html.EscapeString(g), html.EscapeString(shorten(g, fit)))
		x += slot
	}
	// Legend: a bar's colour is its place within its group, named by the
	// first group's cells.
	ly, k := padT+4, 0
	for _, c := range d.Cells {
		if named || c.Group != groups[0] || ly > chartH-20 {
			continue
		}
		label := c.Label
		switch d.GroupBy {
		case "":
		case "target":
			label = strings.TrimSpace(strings.Replace(label, c.Target, "", 1))
		default:
			label = strings.TrimSpace(strings.Replace(label, d.GroupBy+"="+lastField(c, d), "", 1))
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">%s</text>`, w-padR+10, ly, color(k), w-padR+24, ly+9, html.EscapeString(shorten(label, 28)))
		ly += 15
		k++
	}
	b.WriteString("</svg>")
	return b.String()
}

// lastField is c's value of the grouping field.
func lastField(c HTMLCell, d HTMLData) string {
	if d.GroupBy == "target" {
		return c.Target
	}
	for i, f := range d.Columns {
		if f == d.GroupBy {
			return c.Fields[i]
		}
	}
	return ""
}

func ciTitle(c HTMLCell) string {
	if c.N > 1 {
		return fmt.Sprintf(", %s, range %s–%s", c.CI, Num(c.Min), Num(c.Max))
	}
	return ""
}

func shorten(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// curveChart draws latency against percentile, the percentile axis
// log-scaled in 1/(1-p) as HdrHistogram's plots are.
func curveChart(cs CurveSet) string {
	var lines []line
	for i, l := range cs.Lines {
		var pts [][2]float64
		for _, p := range l.Points {
			pts = append(pts, [2]float64{nines(p[0]), math.Max(p[1], 0.001)})
		}
		lines = append(lines, line{label: l.Label, color: color(i), pts: pts})
	}
	return lineChart(lines, true, true, "percentile", Num, func(x float64) string {
		p := math.Round(1e6*100*(1-math.Pow(10, -x))) / 1e6
		return strconv.FormatFloat(p, 'f', -1, 64) + "%"
	})
}

// nines maps a percentile to log10(1/(1-p)): 0 → 0, 90 → 1, 99 → 2, …
func nines(p float64) float64 {
	p = math.Min(p, 99.9999)
	return math.Log10(1 / (1 - p/100))
}

func lineChart(lines []line, xNines, yLog bool, xName string, yFmt, xFmt func(float64) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart lines" width="%d" height="%d" viewBox="0 0 %d %d" role="img">`, chartW, chartH, chartW, chartH)
	x0, x1 := math.Inf(1), math.Inf(-1)
	y0, y1 := math.Inf(1), math.Inf(-1)
	for _, l := range lines {
		for _, p := range l.pts {
			x0, x1 = math.Min(x0, p[0]), math.Max(x1, p[0])
			y0, y1 = math.Min(y0, p[1]), math.Max(y1, p[1])
		}
	}
	if x1 <= x0 {
		x1 = x0 + 1
	}
	if !yLog {
		y0 = 0
	}
	if y1 <= y0 {
		y1 = y0 + 1
	}
	ly := func(v float64) float64 {
		if yLog {
			return math.Log10(math.Max(v, 1e-3))
		}
		return v
	}
	plotW := float64(chartW - padL - padR)
	plotH := float64(chartH - padT - padB)
	sx := func(v float64) float64 { return float64(padL) + plotW*(v-x0)/(x1-x0) }
	sy := func(v float64) float64 {
		lo, hi := ly(y0), ly(y1)
		if hi <= lo {
			hi = lo + 1
		}
		return float64(padT) + plotH*(1-(ly(v)-lo)/(hi-lo))
	}
	var yt []float64
	if yLog {
		for e := math.Floor(math.Log10(math.Max(y0, 1e-3))); e <= math.Ceil(math.Log10(y1)); e++ {
			yt = append(yt, math.Pow(10, e))
		}
	} else {
		yt = ticks(0, y1, 5)
	}
	for _, t := range yt {
		if t < y0*0.999 || t > y1*1.001 {
			continue
		}
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#eee"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`,
			padL, chartW-padR, sy(t), sy(t), padL-6, sy(t)+4, yFmt(t))
	}
	var xt []float64
	if xNines {
		for k := 0.0; k <= math.Ceil(x1); k++ {
			xt = append(xt, k)
		}
	} else {
		xt = ticks(x0, x1, 8)
	}
	for _, t := range xt {
		if t < x0-1e-9 || t > x1+1e-9 {
			continue
		}
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#eee"/><text x="%.1f" y="%d" text-anchor="middle">%s</text>`,
			sx(t), sx(t), padT, chartH-padB, sx(t), chartH-padB+14, xFmt(t))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`, float64(padL)+plotW/2, chartH-6, xName)
	for i, l := range lines {
		var d strings.Builder
		for j, p := range l.pts {
			cmd := "L"
			if j == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%.1f %.1f", cmd, sx(p[0]), sy(p[1]))
		}
		fmt.Fprintf(&b, `<path class="curve" d="%s" stroke="%s" fill="none" stroke-width="1.6"><title>%s</title></path>`, d.String(), l.color, html.EscapeString(l.label))
		if ly := padT + 4 + 15*i; ly < chartH-20 {
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">%s</text>`, chartW-padR+10, ly, l.color, chartW-padR+24, ly+9, html.EscapeString(shorten(l.label, 28)))
		}
	}
	b.WriteString("</svg>")
	return b.String()
}

// ticks returns about n round values from lo to hi.
func ticks(lo, hi float64, n int) []float64 {
	if hi <= lo {
		return []float64{lo}
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*mag {
			step = m * mag
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		out = append(out, v)
	}
	return out
}
