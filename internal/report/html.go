package report

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/litebench/litebench/internal/results"
)

// HTMLMarker starts every report litebench writes; litebench overwrites
// only files that start with it.
const HTMLMarker = "<!DOCTYPE html>\n<!-- litebench report -->"

// WriteHTML writes one self-contained page: inline CSS, SVG charts drawn
// here, a few lines of inline JavaScript for sorting and highlighting;
// nothing is fetched.
func WriteHTML(w io.Writer, rs []*results.Result, o Options) error {
	d := BuildHTMLData(rs, o)
	p := &page{d: &d}
	p.write(len(rs))
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	// The data behind the page, for tools (and tests) that read it back.
	fmt.Fprintf(&p.b, "<script type=\"application/json\" id=\"litebench-data\">%s</script>\n", strings.ReplaceAll(string(data), "</", "<\\/"))
	fmt.Fprintf(&p.b, "<script>%s</script>\n</body></html>\n", js)
	_, err = io.WriteString(w, p.b.String())
	return err
}

// page renders HTMLData.
type page struct {
	d    *HTMLData
	b    strings.Builder
	clip int // numbers the charts' clip paths
}

var esc = html.EscapeString

func (p *page) printf(format string, args ...any) { fmt.Fprintf(&p.b, format, args...) }

func (p *page) write(runs int) {
	d := p.d
	p.printf("%s\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width\">\n", HTMLMarker)
	p.printf("<title>%s</title>\n<style>%s</style></head><body>\n", esc(d.Title), css)
	p.printf("<h1>%s</h1>\n<p class=\"sub\">%d runs in %d cells. Cells are numbered (#1 …) in every chart and in the <a href=\"#cells\">table</a>; a cell's figure is the median of its runs.</p>\n",
		esc(d.Title), runs, len(d.Cells))
	p.summary()
	p.throughput()
	p.latency()
	p.overTime()
	p.cellsTable()
	p.runsAndEnv()
}

func (p *page) summary() {
	d := p.d
	p.printf("<section id=\"summary\"><h2>Summary</h2>\n<ul class=\"findings\">\n")
	for _, g := range d.Groups {
		p.printf("<li>%s</li>\n", esc(g.Sentence))
	}
	p.printf("</ul>\n")
	if len(d.Warnings) > 0 {
		p.printf("<h3>Warnings</h3>\n<ul class=\"warnings\">\n")
		for _, w := range d.Warnings {
			p.printf("<li>%s</li>\n", esc(w))
		}
		p.printf("</ul>\n")
	}
	if len(d.Passed) > 0 {
		p.printf("<h3>Checks passed</h3>\n<ul class=\"passed\">\n")
		for _, w := range d.Passed {
			p.printf("<li>%s</li>\n", esc(w))
		}
		p.printf("</ul>\n")
	}
	p.printf("</section>\n")
}

// figure opens a chart's figure with its title and the group it belongs
// to.
func (p *page) figure(class, id, group, op, title, sub string) {
	p.printf("<figure class=\"panel %s\" id=\"%s\" data-group=\"%s\"", class, id, esc(group))
	if op != "" {
		p.printf(" data-op=\"%s\"", esc(op))
	}
	p.printf("><figcaption><span class=\"title\">%s</span>", esc(title))
	if sub != "" {
		p.printf("<span class=\"facet\">%s</span>", esc(sub))
	}
	p.printf("</figcaption>\n")
}

func (p *page) throughput() {
	p.printf("<section id=\"throughput\"><h2>Throughput</h2>\n")
	for gi, g := range p.d.Groups {
		p.figure("bars", fmt.Sprintf("tp-%d", gi+1), g.Name, "", g.Title, "")
		p.b.WriteString(p.barChart(g))
		p.barLegend(g)
		p.printf("</figure>\n")
	}
	p.printf("</section>\n")
}

// barLegend keys a bar chart: what its colours stand for, its numbered
// labels when they did not fit beside it, and how to read its marks.
func (p *page) barLegend(g Group) {
	p.printf("<ol class=\"legend\">")
	if g.ColourBy != "" {
		for k, v := range g.Colours {
			p.legendItem(-1, g.ColourBy+"="+v, colour(k))
		}
	}
	if g.Keyed {
		for k, i := range g.Cells {
			l := strings.Join(g.Labels[k][1:], " · ")
			_ = i
			p.printf("<li class=\"key\" data-label=\"%s\">%s</li>", esc(g.Labels[k][0]+" "+l), esc(g.Labels[k][0]+" "+l))
		}
	}
	p.printf("</ol>\n<p class=\"how\">%s</p>\n", esc(barHow(p.d, g)))
}

func barHow(d *HTMLData, g Group) string {
	var s []string
	repeated, wanted := false, false
	for _, i := range g.Cells {
		repeated = repeated || d.Cells[i].N > 1
		wanted = wanted || d.Cells[i].Wanted > 0
	}
	if g.Log {
		s = append(s, "dots: each cell's median on a log scale (the values span more than 10×)")
	} else {
		s = append(s, "bars: each cell's median")
	}
	if repeated {
		s = append(s, "whiskers: its 95% confidence interval (or the range of its runs when they are too few for one)")
	}
	if wanted {
		s = append(s, "tick: the rate an open-loop cell asked for")
	}
	s = append(s, "★ best in the panel")
	return strings.Join(s, "; ") + "."
}

func (p *page) latency() {
	if len(p.d.Latency) == 0 {
		return
	}
	p.printf("<section id=\"latency\"><h2>Latency by percentile</h2>\n<p class=\"sub\">Each op kind of each cell, from the HdrHistogram of the cell's median run: the percentile axis is log-scaled in 1/(1−p), so the tail gets the room it needs. Open-loop runs show response time (from each operation's scheduled start) beside service time (from its actual start).</p>\n")
	group := ""
	for k, cp := range p.d.Latency {
		if cp.Group != group {
			if group != "" {
				p.printf("</div>\n")
			}
			group = cp.Group
			p.printf("<h3>%s</h3>\n<div class=\"grid\">\n", esc(group))
		}
		p.figure("curves", fmt.Sprintf("lat-%d", k+1), cp.Group, cp.Op, cp.Title, cp.Facet)
		p.b.WriteString(p.curveChart(cp))
		p.curveLegend(cp)
		p.printf("</figure>\n")
	}
	p.printf("</div>\n</section>\n")
}

// legendItem is one legend entry: a swatch and the label in full (its
// data-label lets a test check nothing of it was lost); hovering it
// highlights cell's marks (cell < 0 for none).
func (p *page) legendItem(cell int, label, col string) {
	p.printf("<li")
	if cell >= 0 {
		p.printf(" data-cell=\"%d\"", cell)
	}
	p.printf(" data-label=\"%s\"><span class=\"sw\" style=\"background:%s\"></span>%s</li>", esc(label), col, esc(label))
}

func (p *page) curveLegend(cp CurvePanel) {
	p.printf("<ol class=\"legend\">")
	for k, cv := range cp.Lines {
		l := cv.Key
		if cv.Wanted > 0 {
			l += fmt.Sprintf(" — wanted %s ops/s, achieved %s ops/s", si(cv.Wanted), si(cv.Achieved))
			if cv.Late > 0 {
				l += fmt.Sprintf(", %d late", cv.Late)
			}
		}
		p.legendItem(cv.Cell, l, colour(k))
	}
	p.printf("</ol>\n")
	if cp.Open {
		p.printf("<p class=\"how\">solid: response time, from the scheduled start; dashed: service time, from the actual start.</p>\n")
	}
}

func (p *page) overTime() {
	if len(p.d.Series) == 0 {
		return
	}
	p.printf("<section id=\"series\"><h2>Over time</h2>\n<p class=\"sub\">The median run of each cell, sample by sample (time since the measured start). ▲ a checkpoint completed by then (the WAL restarted); ◆ the run warned, or counted errors (hover for what).</p>\n")
	group, facet := "", ""
	for k, sp := range p.d.Series {
		if sp.Group != group || sp.Facet != facet {
			if k > 0 {
				p.printf("</div>\n")
			}
			if sp.Group != group {
				p.printf("<h3>%s</h3>\n", esc(sp.Group))
			}
			if sp.Facet != "" {
				p.printf("<h4>%s</h4>\n", esc(sp.Facet))
			}
			group, facet = sp.Group, sp.Facet
			p.printf("<div class=\"grid\">\n")
		}
		p.figure("series", fmt.Sprintf("ts-%d", k+1), sp.Group, sp.Figure, sp.Title, "")
		p.b.WriteString(p.seriesChart(sp))
		p.printf("<ol class=\"legend\">")
		wanted := 0.0
		for j, l := range sp.Lines {
			p.legendItem(l.Cell, l.Key, colour(j))
			wanted = max(wanted, l.Wanted)
		}
		p.printf("</ol>\n")
		if wanted > 0 {
			p.printf("<p class=\"how\">dashed line: the rate the open-loop run asked for (%s).</p>\n", esc(value(wanted, sp.Unit)))
		}
		p.printf("</figure>\n")
	}
	p.printf("</div>\n</section>\n")
}

func (p *page) cellsTable() {
	d := p.d
	wanted := false
	for _, c := range d.Cells {
		wanted = wanted || c.Wanted > 0
	}
	p.printf("<section id=\"cells\"><h2>Cells</h2>\n<p class=\"sub\">One row per cell; click a column to sort. CI is the 95%% confidence interval of the median (it needs %d runs); spread is (max−min)/median.</p>\n", minCIRuns)
	// The group is a column where it is not the workload (suite sections).
	groups := false
	for _, c := range d.Cells {
		groups = groups || c.Group != c.Workload
	}
	p.printf("<div class=\"wide\"><table class=\"sortable\"><thead><tr><th>#</th>")
	if groups {
		p.printf("<th>group</th>")
	}
	p.printf("<th>workload</th><th>target</th>")
	for _, c := range d.Columns {
		p.printf("<th>%s</th>", esc(c))
	}
	p.printf("<th>n</th><th>%s</th><th>CI</th><th>spread</th>", esc(d.Unit))
	if wanted {
		p.printf("<th>wanted/s</th><th>achieved/s</th>")
	}
	p.printf("<th>op</th><th>p50</th><th>p99</th><th>errors</th><th>warning</th></tr></thead><tbody>\n")
	for _, c := range d.Cells {
		cls := "cell"
		if c.Best {
			cls += " best"
		}
		p.printf("<tr class=\"%s\" id=\"cell-%d\"><td>%d</td>", cls, c.Index, c.Index)
		if groups {
			p.printf("<td>%s</td>", esc(c.Group))
		}
		p.printf("<td>%s</td><td>%s</td>", esc(c.Workload), esc(c.Target))
		for _, f := range c.Fields {
			p.printf("<td>%s</td>", esc(f))
		}
		med := "-"
		if c.N > 0 {
			med = value(c.Median, c.Unit)
		}
		n := itoa(c.N)
		if c.N < c.Runs {
			n += " of " + itoa(c.Runs)
		}
		p.printf("<td>%s</td><td data-v=\"%g\">%s</td><td>%s</td><td data-v=\"%g\">%.0f%%</td>", n, c.Median, esc(med), esc(c.CI), c.Spread, 100*c.Spread)
		if wanted {
			if c.Wanted > 0 {
				p.printf("<td data-v=\"%g\">%s</td><td data-v=\"%g\">%s</td>", c.Wanted, si(c.Wanted), c.Achieved, si(c.Achieved))
			} else {
				p.printf("<td></td><td></td>")
			}
		}
		p50, p99 := "-", "-"
		if c.Op != "" {
			p50, p99 = duration(c.P50), duration(c.P99)
		}
		p.printf("<td>%s</td><td data-v=\"%g\">%s</td><td data-v=\"%g\">%s</td><td>%s</td><td class=\"warn\"><span>%s</span></td></tr>\n",
			esc(c.Op), c.P50, p50, c.P99, p99, esc(c.Errors), esc(c.Warning))
	}
	p.printf("</tbody></table></div>\n</section>\n")
}

func (p *page) runsAndEnv() {
	d := p.d
	p.printf("<section id=\"runs\"><h2>Runs and how to repeat them</h2>\n<div class=\"wide\"><table><thead><tr><th>run</th><th>cell</th><th>status</th><th>env</th><th>command</th></tr></thead><tbody>\n")
	for _, c := range d.Cells {
		for _, r := range c.RunInfo {
			p.printf("<tr><td>%s</td><td>#%d</td><td>%s</td><td>%d</td><td><code>%s</code></td></tr>\n", esc(r.RunID), c.Index, esc(r.Status), r.Env+1, esc(r.Command))
		}
	}
	p.printf("</tbody></table></div>\n</section>\n<section id=\"env\"><h2>Environment</h2>\n")
	for i, e := range d.Envs {
		p.printf("<table class=\"env\"><caption>environment %d</caption>", i+1)
		for _, l := range e.Lines {
			p.printf("<tr><th>%s</th><td>%s</td></tr>", esc(l[0]), esc(l[1]))
		}
		p.printf("</table>\n")
	}
	p.printf("</section>\n")
}

const css = `body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;color:#222;max-width:1160px;padding:0 16px}
h1{font-size:22px}h2{font-size:18px;margin-top:36px;border-bottom:1px solid #ddd}h3{font-size:15px;margin:20px 0 6px}h4{font-size:14px;font-weight:normal;color:#555;margin:10px 0 0}
.wide{overflow-x:auto;max-width:100%}
a{color:#0a5ea8}.sub,.how{color:#555}.how{font-size:12px;margin:2px 0 0}
ul.findings li{margin:3px 0}ul.warnings li{color:#8a4b00;margin:3px 0}
table{border-collapse:collapse;margin:8px 0}th,td{padding:3px 8px;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}
th{background:#f4f4f4}table.sortable th{cursor:pointer}#cells td{text-align:left}#cells td[data-v]{text-align:right}
tr.best td{background:#e6f4e6}.warn{color:#8a4b00;text-align:left}.warn span{display:inline-block;min-width:200px;max-width:320px;white-space:normal}
table.env th{text-align:left}table.env td{text-align:left;white-space:normal}code{font-size:12px}
#runs td{text-align:left}
figure.panel{margin:12px 0 20px}figcaption{margin:0 0 4px}figcaption .title{font-weight:600;display:block}figcaption .facet{color:#555;font-size:13px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(470px,1fr));gap:4px 20px}
svg.chart{display:block;max-width:100%;height:auto;background:#fff}
svg.chart text{font-family:"DejaVu Sans",Verdana,sans-serif;font-size:12px;fill:#333}
svg.chart .axis-title{fill:#222}svg.chart .colhead{font-weight:normal;fill:#555}svg.chart .best{fill:#1b7a1b}
.plot-area{fill:none;stroke:#bbb}.grid line,line.grid{stroke:#eee}
.mark.line{fill:none;stroke-width:1.8}.mark.line.service{stroke-dasharray:5 3}.mark.ci{stroke:#222;fill:none}.mark.stem{stroke:#999}
.mark.wanted{stroke:#222;stroke-dasharray:3 2;fill:none}.mark.warn{fill:#c00}
figure.hl .mark[data-cell]{opacity:.2}figure.hl .mark.on{opacity:1}figure.hl .mark.line.on{stroke-width:3}
ol.legend{list-style:none;padding:0;margin:4px 0;display:flex;flex-wrap:wrap;gap:2px 14px;font-size:12px}
ol.legend li{white-space:normal;overflow-wrap:anywhere}ol.legend li.key{flex-basis:100%}
.sw{display:inline-block;width:10px;height:10px;margin-right:5px;vertical-align:baseline}`

const js = `(function(){
function val(td){var v=td.getAttribute('data-v');if(v!==null)return parseFloat(v);var t=td.textContent.trim();var n=parseFloat(t);return isNaN(n)?t:n;}
document.querySelectorAll('table.sortable').forEach(function(t){
 t.querySelectorAll('th').forEach(function(th,i){th.addEventListener('click',function(){
  var tb=t.tBodies[0],rows=Array.prototype.slice.call(tb.rows),dir=th.getAttribute('data-dir')==='asc'?-1:1;
  rows.sort(function(a,b){var x=val(a.cells[i]),y=val(b.cells[i]);return (x>y?1:x<y?-1:0)*dir;});
  th.setAttribute('data-dir',dir===1?'asc':'desc');rows.forEach(function(r){tb.appendChild(r);});});});});
document.querySelectorAll('figure.panel').forEach(function(f){
 function on(c){f.classList.add('hl');f.querySelectorAll('.mark[data-cell="'+c+'"]').forEach(function(m){m.classList.add('on');});}
 function off(){f.classList.remove('hl');f.querySelectorAll('.mark.on').forEach(function(m){m.classList.remove('on');});}
 f.querySelectorAll('[data-cell]').forEach(function(e){var c=e.getAttribute('data-cell');
  e.addEventListener('mouseenter',function(){on(c);});e.addEventListener('mouseleave',off);});});
document.body.setAttribute('data-ready','1');
})();`
