package report

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"litebench/internal/histcodec"
	"litebench/internal/results"
	"litebench/internal/units"
)

// HTMLData is everything the HTML report shows, computed from the runs
// alone (no clock, no randomness), so it can be checked against a golden
// file and embedded as JSON in the page.
type HTMLData struct {
	Title   string      `json:"title"`
	Unit    string      `json:"unit"`
	GroupBy string      `json:"group_by"`
	Columns []string    `json:"columns"`
	Cells   []HTMLCell  `json:"cells"`
	Curves  []CurveSet  `json:"curves"`
	Series  []SeriesRun `json:"series"`
	Envs    []EnvInfo   `json:"envs"`
	Notes   []string    `json:"notes,omitempty"`
}

// HTMLCell is one row of the sweep table and one bar.
type HTMLCell struct {
	Label string `json:"label"`
	// Section and Step are a suite step's section and own label.
	Section  string    `json:"section,omitempty"`
	Step     string    `json:"step,omitempty"`
	Workload string    `json:"workload"`
	Target   string    `json:"target"`
	Fields   []string  `json:"fields"`
	Group    string    `json:"group"`
	N        int       `json:"n"`
	Median   float64   `json:"median"`
	Lo       float64   `json:"lo"`
	Hi       float64   `json:"hi"`
	Min      float64   `json:"min"`
	Max      float64   `json:"max"`
	CI       string    `json:"ci"`
	Spread   float64   `json:"spread"`
	Warning  string    `json:"warning,omitempty"`
	Op       string    `json:"op"`
	P50      float64   `json:"p50_us"`
	P99      float64   `json:"p99_us"`
	Errors   string    `json:"errors"`
	Best     bool      `json:"best"`
	Runs     []RunInfo `json:"runs"`
}

// RunInfo is what reproduces a run.
type RunInfo struct {
	RunID   string `json:"run_id"`
	Status  string `json:"status"`
	Command string `json:"command"`
	Env     int    `json:"env"`
}

// CurveSet is the latency-by-percentile chart of one op kind.
type CurveSet struct {
	Op    string  `json:"op"`
	Kind  string  `json:"kind"` // response or service
	Lines []Curve `json:"lines"`
}

// Curve is one cell's latency (µs) at each percentile.
type Curve struct {
	Cell   int          `json:"cell"`
	Label  string       `json:"label"`
	Points [][2]float64 `json:"points"` // percentile, µs
}

// SeriesRun is one run's time series, downsampled.
type SeriesRun struct {
	RunID string       `json:"run_id"`
	Label string       `json:"label"`
	Ops   [][2]float64 `json:"ops_per_s"`
	P99   [][2]float64 `json:"p99_us"`
	WAL   [][2]float64 `json:"wal_bytes"`
}

// EnvInfo is one distinct environment fingerprint.
type EnvInfo struct {
	Lines [][2]string `json:"lines"`
}

// CurvePercentiles are the points of the latency curves.
var CurvePercentiles = []float64{0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999, 100}

// Limits that keep a report of thousands of runs small.
const (
	maxCurveLines  = 24
	maxSeriesRuns  = 24
	maxSeriesPoint = 300
)

// BuildHTMLData computes the report's content.
func BuildHTMLData(title string, rs []*results.Result) HTMLData {
	d := HTMLData{Title: title, Unit: HeadlineName(rs)}
	keys := results.VaryingKeys(rs)
	params := results.VaryingParams(rs)
	// A field is a column only if it takes two values among the runs that
	// have it (a parameter one workload lacks does not vary by that alone).
	for _, f := range append(append([]string(nil), params...), keys...) {
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
	// Group bars by the field with the most distinct values; with a single
	// varying field every cell is in one group (the best of all is marked).
	best := -1
	cands := d.Columns
	if len(values(rs, "target")) > 1 {
		cands = append([]string{"target"}, cands...)
	}
	if len(cands) > 1 {
		for _, f := range cands {
			n := len(values(rs, f))
			if n > best {
				best, d.GroupBy = n, f
			}
		}
	}
	multiWorkload := len(values(rs, "workload")) > 1
	multiTarget := len(values(rs, "target")) > 1
	cells := results.Cells(rs)
	envIdx := map[string]int{}
	for _, c := range cells {
		r0 := c.Runs[0]
		hc := HTMLCell{Workload: r0.Workload, Target: r0.Target}
		var parts []string
		if multiTarget {
			parts = append(parts, r0.Target)
		}
		for _, f := range d.Columns {
			v, ok := Field(r0, f)
			hc.Fields = append(hc.Fields, v)
			if f != "target" && ok {
				parts = append(parts, f+"="+v)
			}
		}
		hc.Label = strings.Join(parts, " ")
		if r0.Section != "" {
			hc.Section, hc.Step = r0.Section, r0.Label
		}
		if (len(d.Columns) > 3 || hc.Label == "") && r0.Label != "" {
			// Many fields vary (a suite of sections): the run's own name
			// reads better than a list of fields.
			hc.Label = r0.Label
			if r0.Section != "" {
				hc.Label = r0.Section + ": " + r0.Label
			}
		}
		if hc.Label == "" {
			hc.Label = r0.Workload + " " + r0.Target
		}
		hc.Group = r0.Workload
		if d.GroupBy != "" {
			g, _ := Field(r0, d.GroupBy)
			hc.Group = d.GroupBy + "=" + g
			if multiWorkload {
				hc.Group = r0.Workload + " " + hc.Group
			}
		}
		for _, r := range c.Runs {
			ei, ok := envIdx[envKey(r.Env)]
			if !ok {
				ei = len(d.Envs)
				envIdx[envKey(r.Env)] = ei
				d.Envs = append(d.Envs, envInfo(r.Env))
			}
			hc.Runs = append(hc.Runs, RunInfo{RunID: r.RunID, Status: r.Status, Command: r.Command, Env: ei})
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
		d.Cells = append(d.Cells, hc)
	}
	// A suite's steps are grouped by their sections.
	sections := len(d.Cells) > 0 && len(d.Columns) > 3
	for _, c := range d.Cells {
		if c.Section == "" {
			sections = false
		}
	}
	if sections {
		d.GroupBy = "section"
		for i := range d.Cells {
			d.Cells[i].Group = d.Cells[i].Section
		}
	}
	// Best throughput per group.
	bestIn := map[string]int{}
	for i, c := range d.Cells {
		if j, ok := bestIn[c.Group]; !ok || c.Median > d.Cells[j].Median {
			bestIn[c.Group] = i
		}
	}
	for _, i := range bestIn {
		if d.Cells[i].N > 0 {
			d.Cells[i].Best = true
		}
	}
	d.Curves = buildCurves(cells, d.Cells)
	d.Series = buildSeries(rs, cells, d.Cells)
	if len(d.Cells) > maxCurveLines {
		d.Notes = append(d.Notes, "latency curves show the first 24 cells; the table has them all")
	}
	return d
}

func finite(v, alt float64) float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return alt
	}
	return v
}

func buildCurves(cs []results.Cell, cells []HTMLCell) []CurveSet {
	var out []CurveSet
	byOp := map[string]int{}
	for ci, c := range cs {
		if ci >= maxCurveLines {
			break
		}
		// The first run of the cell that finished carries the cell's curve.
		var r *results.Result
		for _, x := range c.Runs {
			if x.Status == results.StatusOK {
				r = x
				break
			}
		}
		if r == nil {
			continue
		}
		for _, o := range r.Ops {
			if o.Count == 0 {
				continue
			}
			enc, kind := o.Hist, "service"
			if o.RespHist != "" {
				enc, kind = o.RespHist, "response"
			}
			h, err := histcodec.Decode(enc)
			if err != nil || h.TotalCount() == 0 {
				continue
			}
			k := o.Name + "/" + kind
			i, ok := byOp[k]
			if !ok {
				i = len(out)
				byOp[k] = i
				out = append(out, CurveSet{Op: o.Name, Kind: kind})
			}
			cv := Curve{Cell: ci, Label: cells[ci].Label}
			for _, p := range CurvePercentiles {
				var v int64
				switch p {
				case 0:
					v = h.Min()
				case 100:
					v = h.Max()
				default:
					v = h.ValueAtQuantile(p)
				}
				cv.Points = append(cv.Points, [2]float64{p, units.Round3(float64(v) / 1e3)})
			}
			out[i].Lines = append(out[i].Lines, cv)
		}
	}
	return out
}

func buildSeries(rs []*results.Result, cs []results.Cell, cells []HTMLCell) []SeriesRun {
	var out []SeriesRun
	cellOf := map[string]int{}
	for i, c := range cs {
		for _, r := range c.Runs {
			cellOf[r.RunID] = i
		}
	}
	for _, r := range rs {
		if len(r.Series) < 2 || len(out) >= maxSeriesRuns {
			continue
		}
		sr := SeriesRun{RunID: r.RunID, Label: cells[cellOf[r.RunID]].Label}
		if r.Repeat > 0 {
			sr.Label += " #" + itoa(r.Repeat)
		}
		var ops, p99, wal [][2]float64
		var prevT float64
		var prevRows int64
		for _, p := range r.Series {
			var tot, worst float64
			for _, v := range p.OpsPerS {
				tot += v
			}
			if len(p.OpsPerS) == 0 {
				// Runs without live recorders: the progress count per
				// second between samples.
				tot = math.NaN()
				if p.T > prevT {
					tot = float64(p.Rows-prevRows) / (p.T - prevT)
				}
				prevT, prevRows = p.T, p.Rows
			}
			for _, v := range p.P99us {
				worst = math.Max(worst, v)
			}
			if !math.IsNaN(tot) {
				ops = append(ops, [2]float64{p.T, tot})
			}
			if len(p.P99us) > 0 {
				p99 = append(p99, [2]float64{p.T, worst})
			}
			wal = append(wal, [2]float64{p.T, float64(p.WALBytes)})
		}
		sr.Ops, sr.P99, sr.WAL = LTTB(ops, maxSeriesPoint), LTTB(p99, maxSeriesPoint), LTTB(wal, maxSeriesPoint)
		out = append(out, sr)
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

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
		if v != "" {
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
