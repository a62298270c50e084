package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/litebench/litebench/internal/histcodec"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/stats"
)

// Formats other tools read: github-action-benchmark's custom JSON, the
// Bencher Metric Format, and HdrHistogram's percentile distribution.

// benchName names a cell for tools that track a benchmark by name across
// builds: its label when it has one, else workload/target and its
// parameters and settings.
func benchName(r *results.Result) string {
	if r.Label != "" {
		return r.Label
	}
	parts := []string{r.Workload, r.Target}
	for _, m := range []map[string]string{r.Params, r.Settings} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			parts = append(parts, k+"="+m[k])
		}
	}
	return strings.Join(parts, " ")
}

// WriteGitHubActionBenchmark writes one entry per cell in the JSON that
// github-action-benchmark's customBiggerIsBetter tool reads: the median
// headline over the cell's repetitions that finished ok, with its 95%
// interval as the range. Cells of a headline where lower is better are
// refused: that tool takes one direction per file.
func WriteGitHubActionBenchmark(w io.Writer, rs []*results.Result) error {
	type entry struct {
		Name  string  `json:"name"`
		Unit  string  `json:"unit"`
		Value float64 `json:"value"`
		Range string  `json:"range,omitempty"`
		Extra string  `json:"extra,omitempty"`
	}
	out := []entry{}
	for _, c := range results.Cells(rs) {
		r0 := c.Runs[0]
		h := r0.Headline()
		if h.Better == "lower" {
			return fmt.Errorf("--format github-action-benchmark: %s's headline (%s) is better lower; that format takes bigger-is-better figures only", benchName(r0), h.Name)
		}
		f := summariseCell(c)
		if f.tp.N == 0 {
			continue
		}
		e := entry{Name: benchName(r0), Unit: h.Unit, Value: f.tp.Median,
			Extra: fmt.Sprintf("%d runs; p99 %s µs", f.tp.N, Num(f.p99))}
		if f.tp.N > 1 {
			e.Range = f.tp.CI()
		}
		out = append(out, e)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteBencher writes the Bencher Metric Format: per cell, the measure
// "throughput" (the median headline with its 95% interval as lower and
// upper values) and per op "<op>-p50-us" and "<op>-p99-us" (medians of
// the felt latency in microseconds).
func WriteBencher(w io.Writer, rs []*results.Result) error {
	type value struct {
		Value float64  `json:"value"`
		Lower *float64 `json:"lower_value,omitempty"`
		Upper *float64 `json:"upper_value,omitempty"`
	}
	out := map[string]map[string]value{}
	for _, c := range results.Cells(rs) {
		f := summariseCell(c)
		if f.tp.N == 0 {
			continue
		}
		m := map[string]value{}
		tp := value{Value: f.tp.Median}
		if f.tp.N > 1 && !math.IsInf(f.tp.Lo, 0) && !math.IsInf(f.tp.Hi, 0) {
			lo, hi := f.tp.Lo, f.tp.Hi
			tp.Lower, tp.Upper = &lo, &hi
		}
		m["throughput"] = tp
		ops := map[string][2][]float64{}
		var names []string
		for _, r := range c.Runs {
			if r.Status != results.StatusOK {
				continue
			}
			for _, o := range r.Ops {
				if o.Count == 0 {
					continue
				}
				l := o.Felt()
				v, seen := ops[o.Name]
				if !seen {
					names = append(names, o.Name)
				}
				ops[o.Name] = [2][]float64{append(v[0], l["p50"]), append(v[1], l["p99"])}
			}
		}
		for _, n := range names {
			m[n+"-p50-us"] = value{Value: stats.Summarise(ops[n][0]).Median}
			m[n+"-p99-us"] = value{Value: stats.Summarise(ops[n][1]).Median}
		}
		out[benchName(c.Runs[0])] = m
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteHgrm writes one op's latency histogram of one run as HdrHistogram's
// percentile distribution (the layout of HdrHistogram's
// outputPercentileDistribution and wrk2's --latency, which the HdrHistogram
// plotter reads), values in milliseconds, five ticks per half distance.
// It is the felt latency: response time under a target rate, service time
// otherwise. An empty op is the run's main op, the one its tables show.
func WriteHgrm(w io.Writer, r *results.Result, op string) error {
	var names []string
	chosen := MainOp(r)
	for i := range r.Ops {
		o := &r.Ops[i]
		if o.Count > 0 && o.Hist != "" {
			names = append(names, o.Name)
			if o.Name == op {
				chosen = o
			}
		}
	}
	switch {
	case len(names) == 0:
		return fmt.Errorf("run %s holds no latency histogram", r.RunID)
	case op != "" && (chosen == nil || chosen.Name != op):
		return fmt.Errorf("--op %q: run %s has %s", op, r.RunID, strings.Join(names, ", "))
	case chosen == nil || chosen.Hist == "":
		return fmt.Errorf("run %s: choose an op with --op (%s)", r.RunID, strings.Join(names, ", "))
	}
	enc := chosen.Hist
	if chosen.RespHist != "" {
		enc = chosen.RespHist
	}
	h, err := histcodec.Decode(enc)
	if err != nil {
		return fmt.Errorf("run %s, op %s: %v", r.RunID, chosen.Name, err)
	}
	const scale = 1e6 // nanoseconds to milliseconds
	if _, err := fmt.Fprintf(w, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)"); err != nil {
		return err
	}
	for _, b := range h.CumulativeDistributionWithTicks(5) {
		p := b.Quantile / 100
		if p >= 1 {
			fmt.Fprintf(w, "%12.3f %2.12f %10d\n", float64(b.ValueAt)/scale, 1.0, b.Count)
			continue
		}
		fmt.Fprintf(w, "%12.3f %2.12f %10d %14.2f\n", float64(b.ValueAt)/scale, p, b.Count, 1/(1-p))
	}
	// The library prints the bucket layout only in its own footer.
	var lib bytes.Buffer
	if _, err := h.PercentilesPrint(&lib, 1, scale); err != nil {
		return err
	}
	footer := lib.String()
	footer = footer[strings.LastIndex(footer, "#[Buckets"):]
	_, err = fmt.Fprintf(w, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n#[Max     = %12.3f, Total count    = %12d]\n%s",
		h.Mean()/scale, h.StdDev()/scale, float64(h.Max())/scale, h.TotalCount(), footer)
	return err
}

// WriteHlog writes one op's interval histograms of one run (kept with
// --series-histograms) as HdrHistogram's interval log, format 1.3: a
// line per interval with its start and length in seconds from the
// measured start, its largest value in milliseconds and the histogram in
// HdrHistogram's compressed encoding, which HistogramLogReader and the
// HdrHistogram tools read. An empty op is the run's main op.
func WriteHlog(w io.Writer, r *results.Result, op string) error {
	if op == "" {
		if m := MainOp(r); m != nil {
			op = m.Name
		}
	}
	kept, found := false, false
	for _, p := range r.Series {
		if len(p.Hists) > 0 {
			kept = true
		}
		if _, ok := p.Hists[op]; ok {
			found = true
		}
	}
	switch {
	case !kept:
		return fmt.Errorf("run %s kept no interval histograms: run it with --series-histograms", r.RunID)
	case !found:
		return fmt.Errorf("--op %q: run %s has no interval histograms of that op", op, r.RunID)
	}
	start := float64(r.StartedAt.UnixNano()) / 1e9
	fmt.Fprintf(w, "#[Histogram log format version 1.3]\n#[StartTime: %.3f (seconds since epoch), %s]\n#[BaseTime: %.3f (seconds since epoch)]\n",
		start, r.StartedAt.UTC().Format("Mon Jan 02 15:04:05 UTC 2006"), start)
	fmt.Fprintln(w, `"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"`)
	prev := 0.0
	for _, p := range r.Series {
		enc, ok := p.Hists[op]
		span := p.T - prev
		at := prev
		prev = p.T
		if !ok {
			continue
		}
		h, err := histcodec.Decode(enc)
		if err != nil {
			return fmt.Errorf("run %s, interval at %.3fs: %v", r.RunID, p.T, err)
		}
		if _, err := fmt.Fprintf(w, "%.3f,%.3f,%.3f,%s\n", at, span, float64(h.Max())/1e6, enc); err != nil {
			return err
		}
	}
	return nil
}
