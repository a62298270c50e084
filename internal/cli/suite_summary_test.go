package cli

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/metrics"
	"github.com/litebench/litebench/internal/runner"

	"github.com/litebench/litebench/internal/report"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/units"
)

// asRun makes synthetic suite results look as the runner records them, for
// the HTML report's summary: the headline is the run's rate (rows/s for
// row workloads, ops/s for the others), the wanted rate is kept only by
// runs with a rate (and is that rate), scan's own figures only by scans (with their
// direction), each op kind runs (but the one a read or write workload does
// not), and every series samples rows and ops/s with a last interval that
// is cut short (the run ended 10 ms into it) and does nothing in it.
func asRun(rs []*results.Result) []*results.Result {
	for k, r := range rs {
		open := r.Params["rate"] != "" && r.Params["rate"] != "0"
		var ms []results.Metric
		for _, m := range r.Metrics {
			switch m.Name {
			case results.WantedRate:
				if !open {
					continue
				}
				m.Value, _ = strconv.ParseFloat(r.Params["rate"], 64)
			case "query_returned", "first_row", "per_row":
				if r.Workload != "scan" {
					continue
				}
				m.Better = units.Lower
			}
			ms = append(ms, m)
		}
		r.Metrics = ms
		unit := units.OpsPerSecond
		if r.Workload == "insert" || r.Workload == "scan" {
			unit = "rows/s"
		}
		r.SetHeadline(results.Metric{Name: results.Throughput, Unit: unit, Value: r.RowsPerSecond, Better: units.Higher})
		// Histograms whose p50 is the op's own.
		for o := range r.Ops {
			op := &r.Ops[o]
			rec := metrics.NewRecorder(metrics.Ops{op.Name})
			for j := 0; j < 100; j++ {
				d := time.Duration(op.Service["p50"]*(0.5+float64(j)/100)*1e3) * time.Nanosecond
				if op.Response != nil {
					rec.ObserveScheduled(0, d, d+d/2, false)
				} else {
					rec.Observe(0, d)
				}
			}
			h := runner.ToOps(metrics.Merge(metrics.Ops{op.Name}, []*metrics.Recorder{rec}))[0]
			op.Hist, op.RespHist = h.Hist, h.RespHist
		}
		for o := range r.Ops {
			op := &r.Ops[o]
			switch {
			case r.Workload == "read" && op.Name == "write", r.Workload == "write" && op.Name == "read":
				op.Count = 0 // the op kind the workload does not run
			case op.Count == 0:
				op.Count = 100
			}
		}
		for s := range r.Series {
			r.Series[s].Rows = int64(s+1) * 100
			r.Series[s].OpsPerS = map[string]float64{}
			for _, o := range r.Ops {
				r.Series[s].OpsPerS[o.Name] = float64(o.Count) / r.Elapsed * (1 + 0.05*float64(s%2))
			}
		}
		if n := len(r.Series); n > 1 {
			last := &r.Series[n-1]
			last.T, last.Rows = r.Series[n-2].T+0.01, r.Series[n-2].Rows
			for op := range last.OpsPerS {
				last.OpsPerS[op] = 0
			}
		}
		if k == 0 {
			r.Notes = append(r.Notes, `check "rows" passed: 1000`, "a synthetic warning")
		}
	}
	return rs
}

// summary is what the top of the HTML report says, and the titles of its
// panels, as text.
func summary(rs []*results.Result) string {
	d := report.BuildHTMLData(rs, report.Options{Title: "golden", Defaults: settings.Default().Map()})
	var b strings.Builder
	b.WriteString("summary:\n")
	for _, g := range d.Groups {
		fmt.Fprintf(&b, "- %s\n", g.Sentence)
	}
	b.WriteString("panels:\n")
	for _, g := range d.Groups {
		fmt.Fprintf(&b, "- %s\n", g.Title)
	}
	for _, p := range d.Latency {
		fmt.Fprintf(&b, "- %s\n", p.Title)
	}
	for _, p := range d.Series {
		fmt.Fprintf(&b, "- %s\n", p.Title)
	}
	b.WriteString("warnings:\n")
	for _, w := range d.Warnings {
		fmt.Fprintf(&b, "- %s\n", w)
	}
	b.WriteString("passed:\n")
	for _, w := range d.Passed {
		fmt.Fprintf(&b, "- %s\n", w)
	}
	return b.String()
}

// quickResults are the quick suite's sections, as TestGoldenSuiteQuick
// makes them, with the languages section (the ladder's last step and a
// scan) besides.
func quickResults(t *testing.T) []*results.Result {
	s, y := goldenSuite(), newSynth()
	var rs []*results.Result
	rs = append(rs, y.results(t, "ladder", s.ladderSteps(), "mattn", "modernc")...)
	rs = append(rs, y.results(t, "batch size", s.batchSteps(), "mattn", "modernc")...)
	rs = append(rs, y.results(t, "prepared", s.prepSteps(), "mattn", "modernc")...)
	rs = append(rs, y.results(t, "scan", s.scanSteps(), "mattn", "modernc", "zombie")...)
	ladder := s.ladderSteps()
	rs = append(rs, y.results(t, "languages", []step{ladder[len(ladder)-1], s.langScanStep()}, "mattn", "modernc")...)
	return asRun(rs)
}

// wants fails t for each of want that out lacks and each of bad it has.
func wants(t *testing.T, out string, want, bad []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("summary lacks %q:\n%s", w, out)
		}
	}
	for _, b := range bad {
		if strings.Contains(out, b) {
			t.Errorf("summary has %q:\n%s", b, out)
		}
	}
}

// The quick suite's summary: the languages section's scan and insert in
// panels of their own, the ladder's relaxed steps ranked apart from those
// at the driver's default sync, the partial last interval never a
// headline, the passing check under passed.
func TestGoldenSummaryQuick(t *testing.T) {
	out := summary(quickResults(t))
	wants(t, out, []string{
		"- languages · insert: fastest is #28",
		"- languages · scan: #27 languages: verified scan (mattn)",
		"ladder (sync at the driver's default): fastest is",
		"ladder (relaxed: sync=normal): fastest is",
		"Query returned: #23 109 µs, #25 115 µs; first row: #23 25 µs, #25 27 µs",
		"passed:\n- #1: check \"rows\" passed: 1000\n",
	}, []string{"dips to", ".01 s", "warnings:\n- #1: check"})
	golden(t, "summary-quick.txt", []byte(out))
}

func TestGoldenSummaryLimits(t *testing.T) {
	s, y := goldenSuite(), newSynth()
	rs := asRun(y.results(t, "limits", limitsCases(s.flags, s), "mattn"))
	out := summary(rs)
	// Fixed-rate cells: ranked by p99 response time, one workload a panel.
	wants(t, out, []string{
		"- limits · write · at 20 ops/s (write p99 response time): one cell, #1",
		"- limits · write · at 1k ops/s (write p99 response time): one cell, #2",
		"- limits · read (read p99 response time): one cell, #3",
		"- limits · mixed (read p99 response time):",
		"limits · mixed (write p99 response time):",
	}, []string{"fastest", "×1.00", "dips to"})
	golden(t, "summary-limits.txt", []byte(out))
}

func TestGoldenSummaryOutgrow(t *testing.T) {
	s, y := goldenSuite(), newSynth()
	var rs []*results.Result
	for _, lv := range outgrowLevels {
		for i, e := range outgrowEngines("mattn")[:3] {
			rs = append(rs, y.results(t, lv.label, []step{s.outgrowSteps(e, lv.sync)}, []string{"mattn", "modernc", "zombie"}[i])...)
		}
	}
	out := summary(asRun(rs))
	// Reads and writes ranked apart, within each durability.
	wants(t, out, []string{
		"- durable: acknowledged = on disk (reads): fastest is #3",
		"durable: acknowledged = on disk (writes): fastest is #3",
		"- relaxed: a power cut may lose the last commits (reads): fastest is #6",
		"relaxed: a power cut may lose the last commits (writes): fastest is #6",
	}, []string{" ops/s, ", "dips to"})
	golden(t, "summary-outgrow.txt", []byte(out))
}

func TestGoldenSummaryGoVsPython(t *testing.T) {
	y := newSynth()
	st := step{"verified scan", "scan", map[string]string{"rows": "1500000"}, nil}
	rs := asRun(y.results(t, "go vs python", []step{st}, "mattn", "zombie", "modernc"))
	rs[1].Placement = "process:python"
	out := summary(rs)
	// The seed's figures: time until the query returned, to the first
	// row, and the whole task, for every target.
	wants(t, out, []string{"Query returned: #1 43 µs, #2 46 µs, #3 49 µs; first row: #1 3 µs, #2 4 µs, #3 5 µs;",
		"whole task: #1 750 ms, #2 1 s, #3 1.25 s."}, nil)
	golden(t, "summary-go-vs-python.txt", []byte(out))
}
