package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/results"
)

var screenshots = flag.Bool("screenshots", false, "write screenshots of the representative reports under testdata/screenshots/ (or set LITEBENCH_SCREENSHOTS=1)")

func wantScreenshots() bool { return *screenshots || os.Getenv("LITEBENCH_SCREENSHOTS") != "" }

// checkLayout looks at the page as a reader would, after it has been laid
// out and painted: for every chart, its axis titles, the cells it draws,
// its series and colours, marks that leave the plot, text that leaves the
// chart or runs into other text or into the plot; legend entries that are
// cut or differ from their labels; and how long the page took to load.
const checkLayout = `(async () => {
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const nav = performance.getEntriesByType('navigation')[0];
  const out = {ready: document.body.getAttribute('data-ready') === '1', load: nav ? nav.loadEventEnd : -1,
    frame: performance.now(), charts: [], problems: [], legends: 0, findings: document.querySelectorAll('#summary ul.findings li').length,
    warnings: [...document.querySelectorAll('#summary ul.warnings li')].map(e => e.textContent),
    rows: document.querySelectorAll('#cells tr.cell').length};
  const tol = 1.5;
  const inside = (a, b) => a.left >= b.left - tol && a.right <= b.right + tol && a.top >= b.top - tol && a.bottom <= b.bottom + tol;
  const overlap = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const at = r => '[' + [r.left, r.top, r.width, r.height].map(v => v.toFixed(0)).join(' ') + ']';
  document.querySelectorAll('svg.chart').forEach((svg, n) => {
    const fig = svg.closest('figure');
    const id = fig ? fig.id : 'chart' + n;
    const plot = svg.querySelector('.plot-area').getBoundingClientRect();
    const box = svg.getBoundingClientRect();
    const title = sel => { const e = svg.querySelector(sel); return e ? e.textContent : ''; };
    const c = {id, kind: svg.classList.contains('bars') ? 'bars' : 'lines', group: fig.dataset.group || '', op: fig.dataset.op || '',
      xTitle: title('.axis-title.x'), yTitle: title('.axis-title.y'), colheads: [...svg.querySelectorAll('.colhead')].map(e => e.textContent),
      cells: [], colours: [], marks: {}, lines: 0};
    const cells = new Set(), colours = new Set();
    svg.querySelectorAll('[data-cell]').forEach(e => cells.add(+e.dataset.cell));
    svg.querySelectorAll('.mark').forEach(m => {
      const kind = [...m.classList].filter(k => k !== 'mark').join(' ');
      c.marks[kind] = (c.marks[kind] || 0) + 1;
      const r = m.getBoundingClientRect();
      if (!inside(r, plot)) out.problems.push(id + ': ' + kind + ' of cell ' + m.dataset.cell + ' at ' + at(r) + ' leaves its plot ' + at(plot));
      if (m.classList.contains('line')) { c.lines++; colours.add(m.getAttribute('stroke')); }
      if (m.classList.contains('point')) { c.lines++; colours.add(m.getAttribute('fill')); }
      if (m.classList.contains('bar') || m.classList.contains('dot')) colours.add(m.getAttribute('fill'));
    });
    c.cells = [...cells].sort((a, b) => a - b);
    c.colours = [...colours];
    const texts = [...svg.querySelectorAll('text')].map(e => ({e, r: e.getBoundingClientRect()}));
    texts.forEach(({e, r}) => {
      if (!inside(r, box)) out.problems.push(id + ': text "' + e.textContent + '" at ' + at(r) + ' leaves the chart ' + at(box));
      if (overlap(r, plot)) out.problems.push(id + ': text "' + e.textContent + '" at ' + at(r) + ' is drawn over the plot ' + at(plot));
      if (e.textContent.includes('…')) out.problems.push(id + ': text "' + e.textContent + '" is cut short');
    });
    for (let i = 0; i < texts.length; i++)
      for (let j = i + 1; j < texts.length; j++)
        if (overlap(texts[i].r, texts[j].r))
          out.problems.push(id + ': "' + texts[i].e.textContent + '" ' + at(texts[i].r) + ' runs into "' + texts[j].e.textContent + '" ' + at(texts[j].r));
    out.charts.push(c);
  });
  document.querySelectorAll('ol.legend li').forEach(li => {
    out.legends++;
    const f = li.closest('figure').getBoundingClientRect(), r = li.getBoundingClientRect();
    if (li.scrollWidth > li.clientWidth + 1) out.problems.push('legend entry cut: ' + li.textContent);
    if (li.dataset.label !== undefined && li.textContent.trim() !== li.dataset.label) out.problems.push('legend entry "' + li.textContent + '" is not its label "' + li.dataset.label + '"');
    if (li.textContent.includes('…')) out.problems.push('legend entry cut short: ' + li.textContent);
    if (!inside(r, f)) out.problems.push('legend entry "' + li.textContent + '" leaves its figure');
  });
  const width = document.documentElement.clientWidth;
  document.querySelectorAll('figure.panel').forEach(f => {
    if (f.getBoundingClientRect().right > width + 1) out.problems.push(f.id + ' is wider than the page');
  });
  return out;
})()`

type layout struct {
	Ready      bool
	Load       float64 // ms from navigation to the end of the load event
	Frame      float64 // ms from navigation to the second frame after it
	Findings   int
	Warnings   []string
	Rows       int
	Legends    int
	Problems   []string
	Charts     []chartInfo
	Screenshot string
}

type chartInfo struct {
	ID, Kind, Group, Op string
	XTitle, YTitle      string
	Colheads            []string
	Cells               []int
	Colours             []string
	Marks               map[string]int
	Lines               int
}

// renderPage writes the report of rs to a file in dir.
func renderPage(t *testing.T, dir, name string, rs []*results.Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTML(&b, rs, Options{Title: "litebench: " + name, Defaults: testDefaults}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".html")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// look opens a page and returns what checkLayout saw, with a screenshot
// when asked for.
func look(t *testing.T, b *browser, path, name string) layout {
	t.Helper()
	b.open(t, path)
	var l layout
	b.eval(t, checkLayout, &l)
	if wantScreenshots() {
		b.screenshot(t, 1280, filepath.Join("testdata", "screenshots", name+".png"))
	}
	return l
}

// The representative reports, checked as a person would look at them: every
// chart has titled axes with units, keeps its marks in its plot and its
// text apart, draws at most eight series in colours of the palette, and
// every cell (and every op kind of every cell) is drawn.
func TestReportsInBrowser(t *testing.T) {
	b := startBrowser(t, 1280)
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		rs   []*results.Result
	}{
		{"quick-suite", quickSuite()},
		{"sweep-36-cells", sweep36(6)},
		{"go-sqlite-bench", goSQLiteBench()},
		{"open-loop-mixed", openLoop()},
		{"real-runs", fixture(t)}, // runs litebench made: inserts, a scan, open loop, HTTP, suite steps
	} {
		t.Run(c.name, func(t *testing.T) {
			l := look(t, b, renderPage(t, dir, c.name, c.rs), c.name)
			checkPage(t, l, c.rs)
		})
	}
}

func checkPage(t *testing.T, l layout, rs []*results.Result) {
	t.Helper()
	if !l.Ready {
		t.Error("the page's script did not run")
	}
	for _, p := range l.Problems {
		t.Error(p)
	}
	cells := results.Cells(rs)
	if l.Rows != len(cells) {
		t.Errorf("%d rows in the cells table, want %d", l.Rows, len(cells))
	}
	d := BuildHTMLData(rs, Options{Defaults: testDefaults})
	if l.Findings != len(d.Groups) || l.Findings == 0 {
		t.Errorf("%d findings in the summary, want one per group (%d)", l.Findings, len(d.Groups))
	}
	inBars := map[int]bool{}
	curves := map[string]bool{} // cell|op
	for _, c := range l.Charts {
		if !strings.Contains(c.XTitle, "(") {
			t.Errorf("%s: x axis title %q names no unit", c.ID, c.XTitle)
		}
		switch c.Kind {
		case "bars":
			if len(c.Colheads) < 2 {
				t.Errorf("%s: rows are not headed: %q", c.ID, c.Colheads)
			}
			for _, i := range c.Cells {
				inBars[i] = true
			}
		default:
			if !strings.Contains(c.YTitle, "(") {
				t.Errorf("%s: y axis title %q names no unit", c.ID, c.YTitle)
			}
			if c.Lines == 0 {
				t.Errorf("%s: no line drawn", c.ID)
			}
		}
		if len(c.Colours) > maxSeries {
			t.Errorf("%s: %d colours, at most %d", c.ID, len(c.Colours), maxSeries)
		}
		for _, col := range c.Colours {
			if !contains(palette, col) {
				t.Errorf("%s: colour %s is not the palette's", c.ID, col)
			}
		}
		if strings.HasPrefix(c.ID, "lat-") {
			if c.Op == "" {
				t.Errorf("%s: latency chart names no op", c.ID)
			}
			if len(c.Cells) > maxSeries {
				t.Errorf("%s: %d cells in one panel, at most %d", c.ID, len(c.Cells), maxSeries)
			}
			for _, i := range c.Cells {
				curves[itoa(i)+"|"+c.Op] = true
			}
		}
	}
	for i, c := range cells {
		if !inBars[i] {
			t.Errorf("cell #%d is in no throughput chart", i+1)
		}
		r := representative(c.Runs)
		if r == nil {
			continue
		}
		for _, o := range r.Ops {
			if o.Count > 0 && !curves[itoa(i)+"|"+o.Name] {
				t.Errorf("cell #%d: no latency curve of %s", i+1, o.Name)
			}
		}
	}
}

// The quick suite: one panel per section, each on its own axis; the
// ladder spans 100× and is drawn on a log scale. Its summary ranks the
// steps at the driver's default sync apart from the relaxed ones
// (synchronous=NORMAL): the relaxed steps' speed-up is over the first of
// them, not over the driver's defaults.
func TestQuickSuiteReport(t *testing.T) {
	d := BuildHTMLData(quickSuite(), Options{Defaults: testDefaults})
	var names []string
	for _, g := range d.Groups {
		names = append(names, g.Name)
	}
	if strings.Join(names, ",") != "ladder,batch size,prepared,scan" {
		t.Fatalf("groups %v", names)
	}
	lad := d.Groups[0]
	if !lad.Log || d.Groups[1].Log {
		t.Errorf("log scales: ladder %v (want true), batch size %v (want false)", lad.Log, d.Groups[1].Log)
	}
	if d.Cells[lad.Best].Step != "+ journal_mode=WAL" || d.Cells[lad.Baseline].Step != "driver defaults" {
		t.Errorf("best %q over %q", d.Cells[lad.Best].Step, d.Cells[lad.Baseline].Step)
	}
	for _, want := range []string{
		"ladder (sync at the driver's default): fastest is #2 + journal_mode=WAL",
		"over the section's first step, #1 driver defaults.",
		"ladder (relaxed: sync=normal): fastest is #5 + 1000-row transactions",
		"over the section's first step, #3 + synchronous=NORMAL.",
	} {
		if !strings.Contains(lad.Sentence, want) {
			t.Errorf("ladder summary lacks %q: %s", want, lad.Sentence)
		}
	}
	if strings.Contains(lad.Sentence, "×104") {
		t.Errorf("ladder summary ranks relaxed steps over the driver's defaults: %s", lad.Sentence)
	}
	// The prepared section's best is at the defaults.
	if s := d.Groups[2].Sentence; !strings.Contains(s, "which is the defaults") {
		t.Errorf("prepared: %s", s)
	}
	if len(d.Warnings) == 0 || !strings.Contains(d.Warnings[0], "Each cell ran once") {
		t.Errorf("warnings %q", d.Warnings)
	}
}

// A repeated sweep's summary bounds the speed-up with an interval, and
// its baseline is the cell at the defaults; the noisy cell is named.
func TestSweepSummary(t *testing.T) {
	d := BuildHTMLData(sweep36(6), Options{Defaults: testDefaults})
	if len(d.Groups) != 1 || len(d.Groups[0].Cells) != 36 {
		t.Fatalf("%d groups", len(d.Groups))
	}
	g := d.Groups[0]
	if g.ColourBy != "target" || !g.Log {
		t.Errorf("colour by %q, log %v", g.ColourBy, g.Log)
	}
	if g.SpeedupLo <= 0 || g.SpeedupLo > g.Speedup || g.SpeedupHi < g.Speedup {
		t.Errorf("speed-up %v not within its interval %v–%v", g.Speedup, g.SpeedupLo, g.SpeedupHi)
	}
	if !strings.Contains(g.Sentence, "95% interval") {
		t.Errorf("summary %q", g.Sentence)
	}
	var spread bool
	for _, w := range d.Warnings {
		spread = spread || strings.Contains(w, "spread more than")
	}
	if !spread {
		t.Errorf("no spread warning in %q", d.Warnings)
	}
	// Cells that differ only by target sit side by side.
	for k := 0; k < len(g.Cells); k += 2 {
		a, b := d.Cells[g.Cells[k]], d.Cells[g.Cells[k+1]]
		if a.Target == b.Target || strings.Join(a.Fields[1:], ",") != strings.Join(b.Fields[1:], ",") {
			t.Errorf("rows %d and %d are not a pair: %v %v", k, k+1, a.Fields, b.Fields)
		}
	}
}

// go-sqlite-bench: panels of at most eight series, every cell of both
// targets in the latency charts (reads and writes).
func TestGoSQLiteBenchFacets(t *testing.T) {
	d := BuildHTMLData(goSQLiteBench(), Options{Defaults: testDefaults})
	seen := map[int]map[string]bool{}
	for _, p := range d.Latency {
		if len(p.Lines) > maxSeries {
			t.Errorf("%s %s %s: %d lines", p.Group, p.Op, p.Facet, len(p.Lines))
		}
		for _, l := range p.Lines {
			if seen[l.Cell] == nil {
				seen[l.Cell] = map[string]bool{}
			}
			seen[l.Cell][p.Op] = true
		}
	}
	if len(seen) != 50 {
		t.Errorf("%d of 50 cells have latency curves", len(seen))
	}
	for _, p := range d.Series {
		if len(p.Lines) > maxSeries {
			t.Errorf("series %s %s: %d lines", p.Group, p.Figure, len(p.Lines))
		}
	}
}

// An open-loop run: response and service time for both op kinds, wanted
// and achieved rates, and the WAL panel marks its checkpoints and its
// warning.
func TestOpenLoopReport(t *testing.T) {
	d := BuildHTMLData(openLoop(), Options{Defaults: testDefaults})
	ops := map[string]bool{}
	for _, p := range d.Latency {
		if !p.Open || p.Lines[0].Response == nil || p.Lines[0].Wanted != 2000 || p.Lines[0].Achieved == 0 {
			t.Errorf("%s: open %v, wanted %v, achieved %v", p.Op, p.Open, p.Lines[0].Wanted, p.Lines[0].Achieved)
		}
		ops[p.Op] = true
	}
	if !ops["read"] || !ops["write"] {
		t.Errorf("latency of %v, want read and write", ops)
	}
	figs := map[string]SeriesPanel{}
	for _, p := range d.Series {
		figs[p.Figure] = p
	}
	wal := figs["wal_bytes"]
	if len(wal.Lines) != 1 || len(wal.Lines[0].Checkpoints) == 0 || len(wal.Lines[0].Warnings) != 2 {
		t.Fatalf("WAL panel: %+v", wal)
	}
	if ops := figs["ops_per_s"].Lines; len(ops) != 3 || ops[0].Wanted != 2000 || ops[1].Wanted != 0 {
		t.Errorf("one run's ops/s are drawn in all and op kind by op kind, the wanted rate beside the first: %+v", ops)
	}
	var behind, walWarn bool
	for _, w := range d.Warnings {
		behind = behind || strings.Contains(w, "fell behind")
		walWarn = walWarn || strings.Contains(w, "WAL grew past")
	}
	if !behind || !walWarn {
		t.Errorf("warnings %q", d.Warnings)
	}
}

// 1,000 runs: the page opens in Chromium, and how long it takes is
// printed (measured, not asserted): from navigation to the end of the load
// event and to the second frame painted after it, by the page's own
// clock, and the wall time from the navigate command to the load event.
// Two shapes: 8 cells of 125 runs (BenchmarkHTMLReport1000's) and 36
// cells of 28.
func TestReport1000RunsOpens(t *testing.T) {
	b := startBrowser(t, 1280)
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		rs   []*results.Result
	}{{"runs-1000", synthetic1000()}, {"runs-1000-in-36-cells", sweep36(28)}} {
		path := renderPage(t, dir, c.name, c.rs)
		st, _ := os.Stat(path)
		start := time.Now()
		b.open(t, path)
		wall := time.Since(start)
		var l layout
		b.eval(t, checkLayout, &l)
		checkPage(t, l, c.rs)
		if wantScreenshots() {
			b.screenshot(t, 1280, filepath.Join("testdata", "screenshots", c.name+".png"))
		}
		t.Logf("%s: %d runs, page %.2f MB; load event ended %.0f ms after navigation, second frame painted by %.0f ms; %.0f ms from navigate to the load event",
			c.name, len(c.rs), float64(st.Size())/1e6, l.Load, l.Frame, float64(wall.Microseconds())/1e3)
	}
}
