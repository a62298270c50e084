package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/litebench/litebench/internal/histcodec"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/units"
)

// curveSteps is how many points each decade of 1/(1-p) gets on a latency
// curve; curves end at the percentile their count resolves (1 - 1/count)
// or at 99.9999%.
const (
	curveSteps  = 8
	curveDecade = 6
)

// latency builds the latency-by-percentile panels: for each group, each op
// kind its cells ran, at most maxSeries cells a panel.
func (b *builder) latency() {
	for _, g := range b.d.Groups {
		var ops []string
		for _, i := range g.Cells {
			if r := b.d.Cells[i].rep; r != nil {
				for _, o := range r.Ops {
					if o.Count > 0 && !contains(ops, o.Name) {
						ops = append(ops, o.Name)
					}
				}
			}
		}
		for _, op := range ops {
			var cells []int
			curves := map[int]Curve{}
			for _, i := range g.Cells {
				if cv, ok := b.curve(i, op); ok {
					cells = append(cells, i)
					curves[i] = cv
				}
			}
			for _, f := range b.facets(cells, "") {
				p := CurvePanel{Group: g.Name, Op: op, Facet: f.name}
				keys := b.keyOf(f.cells)
				var ys []float64
				for _, i := range f.cells {
					cv := curves[i]
					cv.Key = keys[i]
					p.Open = p.Open || cv.Response != nil
					for _, pt := range append(cv.Service, cv.Response...) {
						ys = append(ys, pt[1])
					}
					p.Lines = append(p.Lines, cv)
				}
				p.Log = spansDecade(ys)
				p.Title = curveTitle(op, p)
				b.d.Latency = append(b.d.Latency, p)
			}
		}
	}
}

// curve is cell i's latency curves for op, from its representative run.
func (b *builder) curve(i int, op string) (Curve, bool) {
	c := b.d.Cells[i]
	if c.rep == nil {
		return Curve{}, false
	}
	o := c.rep.Op(op)
	if o == nil || o.Count == 0 {
		return Curve{}, false
	}
	cv := Curve{Cell: i, Run: c.rep.RunID, Count: o.Count, Late: o.Late, Wanted: c.Wanted, Achieved: c.Achieved}
	cv.Service = percentiles(o.Hist)
	if o.RespHist != "" {
		cv.Response = percentiles(o.RespHist)
	}
	return cv, len(cv.Service) > 0
}

// percentiles reads a histogram's latency (µs) at percentiles spaced
// evenly in log(1/(1-p)), from its minimum to its maximum at the last
// percentile its count resolves, in one pass over the histogram.
func percentiles(enc string) [][2]float64 {
	h, err := histcodec.Decode(enc)
	if err != nil || h.TotalCount() == 0 {
		return nil
	}
	n := float64(h.TotalCount())
	last := math.Min(n, math.Pow(10, curveDecade))
	ps := []float64{0}
	for k := 1; ; k++ {
		x := math.Pow(10, float64(k)/curveSteps)
		if x >= last {
			break
		}
		ps = append(ps, 100*(1-1/x))
	}
	if n > 1 {
		ps = append(ps, 100)
	}
	vs := h.ValueAtPercentilesSlice(ps)
	out := make([][2]float64, 0, len(ps))
	for i, p := range ps {
		if p == 100 {
			p = 100 * (1 - 1/last) // where the maximum is drawn
		}
		if vs[i] > 0 {
			out = append(out, [2]float64{math.Round(p*1e6) / 1e6, units.Round3(float64(vs[i]) / 1e3)})
		}
	}
	return out
}

// curveTitle says what a latency panel shows: the tail of a single cell,
// or how far apart the cells' p99s are.
func curveTitle(op string, p CurvePanel) string {
	kind := "service time"
	if p.Open {
		kind = "response time"
	}
	felt := func(cv Curve) [][2]float64 {
		if cv.Response != nil {
			return cv.Response
		}
		return cv.Service
	}
	if len(p.Lines) == 1 {
		pts := felt(p.Lines[0])
		if len(pts) == 1 { // one timed operation
			return fmt.Sprintf("%s %s: one operation, %s", op, kind, duration(pts[0][1]))
		}
		return fmt.Sprintf("%s %s: p50 %s, p99 %s, max %s", op, kind, duration(at(pts, 50)), duration(at(pts, 99)), duration(pts[len(pts)-1][1]))
	}
	lo, hi := -1, -1
	for k, cv := range p.Lines {
		v := at(felt(cv), 99)
		if lo < 0 || v < at(felt(p.Lines[lo]), 99) {
			lo = k
		}
		if hi < 0 || v > at(felt(p.Lines[hi]), 99) {
			hi = k
		}
	}
	num := func(k int) string { return strings.SplitN(p.Lines[k].Key, " ", 2)[0] }
	return fmt.Sprintf("%s %s: p99 from %s (%s) to %s (%s)", op, kind, duration(at(felt(p.Lines[lo]), 99)), num(lo),
		duration(at(felt(p.Lines[hi]), 99)), num(hi))
}

// at is the latency of a curve at percentile p: the first point at or
// past it.
func at(pts [][2]float64, p float64) float64 {
	for _, pt := range pts {
		if pt[0] >= p-1e-9 {
			return pt[1]
		}
	}
	if len(pts) == 0 {
		return 0
	}
	return pts[len(pts)-1][1]
}

// series builds the time-series panels: for each group with runs that
// recorded series, their throughput, p99 and WAL size over time, at most
// maxSeries lines a panel.
func (b *builder) series() {
	for _, g := range b.d.Groups {
		var cells []int
		for _, i := range g.Cells {
			if r := b.d.Cells[i].rep; r != nil && len(r.Series) > 1 {
				cells = append(cells, i)
			}
		}
		rate := units.OpsPerSecond
		if units.IsRate(g.Unit) {
			rate = g.Unit
		}
		for _, f := range b.facets(cells, "") {
			keys := b.keyOf(f.cells)
			figs := []SeriesPanel{
				{Group: g.Name, Facet: f.name, Figure: "ops_per_s", Unit: rate},
				{Group: g.Name, Facet: f.name, Figure: "p99_us", Unit: units.Microseconds},
				{Group: g.Name, Facet: f.name, Figure: "wal_bytes", Unit: units.ByteSize},
			}
			// One run alone is drawn op kind by op kind.
			perOp := len(f.cells) == 1
			for _, i := range f.cells {
				r := b.d.Cells[i].rep
				cps, warns := markers(r)
				base := SeriesLine{Cell: i, Run: r.RunID, Key: keys[i], Checkpoints: cps, Warnings: warns, Partial: partialLast(r.Series)}
				for k, pts := range seriesPoints(r, rate, perOp) {
					for _, l := range pts {
						line := base
						line.Points = LTTB(l.pts, maxSeriesPoint)
						if l.op != "" {
							line.Key += " · " + l.op
						}
						if k == 0 && (l.op == "" || l.op == "all op kinds") {
							line.Wanted = b.d.Cells[i].Wanted
						}
						figs[k].Lines = append(figs[k].Lines, line)
					}
				}
			}
			for _, p := range figs {
				if !drawable(p) {
					continue
				}
				var ys []float64
				for _, l := range p.Lines {
					for _, pt := range l.Points {
						ys = append(ys, pt[1])
					}
				}
				p.Log = p.Figure != "wal_bytes" && spansDecade(ys)
				p.Title = seriesTitle(p)
				b.d.Series = append(b.d.Series, p)
			}
		}
	}
}

// drawable reports whether a series panel has a line of two points or
// more with something other than zero on it.
func drawable(p SeriesPanel) bool {
	for _, l := range p.Lines {
		if len(l.Points) < 2 {
			continue
		}
		for _, pt := range l.Points {
			if pt[1] != 0 {
				return true
			}
		}
	}
	return false
}

type opPoints struct {
	op  string
	pts [][2]float64
}

// seriesPoints are a run's three figures over time: the rate its headline
// counts (rows from the progress count, or operations), the p99 (of each
// op kind, or the worst), and the WAL's size.
func seriesPoints(r *results.Result, rate string, perOp bool) [3][]opPoints {
	var ops []string
	for _, p := range r.Series {
		for k := range p.OpsPerS {
			if !contains(ops, k) {
				ops = append(ops, k)
			}
		}
	}
	sort.Strings(ops)
	byRows := rate == units.RowsPerSecond || len(ops) == 0
	perOp = perOp && len(ops) > 1
	var out [3][]opPoints
	var total, worst, wal [][2]float64
	each := map[string][][2]float64{}
	eachP99 := map[string][][2]float64{}
	var prevT float64
	var prevRows int64
	for _, p := range r.Series {
		if byRows {
			if p.T > prevT {
				total = append(total, [2]float64{p.T, units.Round3(float64(p.Rows-prevRows) / (p.T - prevT))})
			}
			prevT, prevRows = p.T, p.Rows
		} else {
			var tot float64
			for _, op := range ops {
				tot += p.OpsPerS[op]
				each[op] = append(each[op], [2]float64{p.T, p.OpsPerS[op]})
			}
			total = append(total, [2]float64{p.T, units.Round3(tot)})
		}
		if len(p.P99us) > 0 {
			w := 0.0
			for op, v := range p.P99us {
				w = math.Max(w, v)
				eachP99[op] = append(eachP99[op], [2]float64{p.T, v})
			}
			worst = append(worst, [2]float64{p.T, w})
		}
		wal = append(wal, [2]float64{p.T, float64(p.WALBytes)})
	}
	out[0] = []opPoints{{"", total}}
	if perOp && !byRows {
		out[0][0].op = "all op kinds"
		for _, op := range ops {
			out[0] = append(out[0], opPoints{op, each[op]})
		}
	}
	if perOp && len(eachP99) > 1 {
		for _, op := range ops {
			if pts := eachP99[op]; len(pts) > 0 {
				out[1] = append(out[1], opPoints{op, pts})
			}
		}
	} else if len(worst) > 0 {
		out[1] = []opPoints{{"", worst}}
	}
	out[2] = []opPoints{{"", wal}}
	return out
}

// markers are the moments of a run worth marking: where a checkpoint had
// completed (the WAL's checkpoint sequence moved since the sample before),
// and where it warned or counted errors.
func markers(r *results.Result) (cps []float64, warns []Marker) {
	for k, p := range r.Series {
		if k > 0 && p.WALSeq != r.Series[k-1].WALSeq {
			cps = append(cps, p.T)
		}
		if p.Warning != "" {
			warns = append(warns, Marker{p.T, p.Warning})
		}
		if len(p.Errors) > 0 {
			warns = append(warns, Marker{p.T, "errors in this interval: " + ErrorCell(p.Errors)})
		}
	}
	return cps, warns
}

// whole are a line's points without a partial last one (whose interval
// was cut short by the run's end).
func whole(l SeriesLine) [][2]float64 {
	if l.Partial && len(l.Points) > 1 {
		return l.Points[:len(l.Points)-1]
	}
	return l.Points
}

// seriesTitle says what a time-series panel shows. A partial last
// interval is never its headline.
func seriesTitle(p SeriesPanel) string {
	switch p.Figure {
	case "ops_per_s":
		// The deepest dip below a run's own mean.
		worst, at, key := 2.0, 0.0, ""
		for _, l := range p.Lines {
			pts := whole(l)
			var sum float64
			for _, pt := range pts {
				sum += pt[1]
			}
			mean := sum / float64(len(pts))
			for _, pt := range pts {
				if mean > 0 && pt[1]/mean < worst {
					worst, at, key = pt[1]/mean, pt[0], l.Key
				}
			}
		}
		if worst >= 0.8 {
			return fmt.Sprintf("%s over time: steady, every sample within 20%% of its run's mean", p.Unit)
		}
		return fmt.Sprintf("%s over time: dips to %.0f%% of its run's mean (%s at %s s)", p.Unit, 100*worst, firstWord(key), sig3(at))
	case "p99_us":
		peak, at, key := 0.0, 0.0, ""
		for _, l := range p.Lines {
			for _, pt := range whole(l) {
				if pt[1] > peak {
					peak, at, key = pt[1], pt[0], l.Key
				}
			}
		}
		return fmt.Sprintf("p99 latency over time: peaks at %s (%s at %s s)", duration(peak), firstWord(key), sig3(at))
	}
	peak, key, cps := 0.0, "", 0
	for _, l := range p.Lines {
		cps += len(l.Checkpoints)
		for _, pt := range l.Points {
			if pt[1] > peak {
				peak, key = pt[1], l.Key
			}
		}
	}
	s := fmt.Sprintf("WAL size over time: largest %s (%s)", iec(peak), firstWord(key))
	switch cps {
	case 0:
		return s + "; no checkpoint completed"
	case 1:
		return s + "; 1 checkpoint completed"
	}
	return fmt.Sprintf("%s; %d checkpoints completed", s, cps)
}

func firstWord(s string) string { return strings.SplitN(s, " ", 2)[0] }
