package foreigntest

import (
	"fmt"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/litebench/litebench/internal/histcodec"
	"github.com/litebench/litebench/internal/metrics"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/worker"
)

// Conformance runs every case through the reference and through each
// worker, checks each conversation on its own (Check) and each worker's
// against the reference's (Compare).
func Conformance(t *testing.T, ref Worker, cases []Case, ws ...Worker) {
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			want, err := Converse(t, ref.Argv, NewJob(t, c, ref.Target), Options{Before: c.Before})
			if err != nil {
				t.Fatalf("litebench worker: %v", err)
			}
			Check(t, ref, c, want)
			for _, w := range ws {
				got, err := Converse(t, w.Argv, NewJob(t, c, w.Target), Options{Before: c.Before})
				if err != nil {
					t.Fatalf("%s: %v", w.Target, err)
				}
				Check(t, w, c, got)
				Compare(t, w, c, want, got)
			}
		})
	}
}

// Check checks one conversation on its own: what hello and setup_done
// say, histograms that decode in litebench's layout to the summaries
// hdrhistogram-go computes, counts that add up, the run's figures.
func Check(t *testing.T, w Worker, c Case, tk *Talk) {
	t.Helper()
	who := w.Target
	if tk.Final.Status != results.StatusOK {
		t.Fatalf("%s: status %s (%s)", who, tk.Final.Status, tk.Final.Error)
	}
	if !strings.HasPrefix(tk.Hello.Lang, w.Lang) || tk.Setup.Client != w.Target {
		t.Errorf("%s: hello's lang %q, setup_done's client %q", who, tk.Hello.Lang, tk.Setup.Client)
	}
	if tk.Setup.Engine != "sqlite" || tk.Setup.EngineVersion == "" || len(tk.Setup.CompileOptions) == 0 {
		t.Errorf("%s: setup_done without engine, version or compile options: %+v", who, tk.Setup)
	}
	if tk.Final.ElapsedS <= 0 || tk.Final.Conns < 1 {
		t.Errorf("%s: elapsed %v s, %d connections opened", who, tk.Final.ElapsedS, tk.Final.Conns)
	}
	parts := PartsOf(t, c)
	felt := map[string]int64{} // transactions' and other ops' counts, not statements' own
	for _, o := range tk.Final.FinalOps {
		if o.Of != parts[o.Name] {
			t.Errorf("%s: %s is a part of %q, the workload says %q", who, o.Name, o.Of, parts[o.Name])
		}
		if parts[o.Name] == "" { // a statement's own result is in no interval, nor in done
			felt[o.Name] = o.Count
		}
		checkOp(t, who, c, o, parts[o.Name] != "")
	}
	if c.File != "" {
		checkProgramCounts(t, who, c, tk, felt)
	}
	if c.Interval > 0 {
		checkIntervals(t, w, c, tk, felt, parts)
	}
	m := Metrics(tk.Final)
	// Upserts insert rows beyond the table without claiming them; failed
	// inserts claimed rows they did not write.
	if c.Params["write-kind"] != "upsert" && c.Before == nil && !c.MayFail &&
		m["table_rows_after"] != m["table_rows_before"]+m["rows_inserted"] {
		t.Errorf("%s: %v rows after the run, %v before and %v inserted", who, m["table_rows_after"],
			m["table_rows_before"], m["rows_inserted"])
	}
	if c.Workload == "scan" && !(m["query_returned"] > 0 && m["first_row"] >= m["query_returned"] && m["per_row"] > 0) {
		t.Errorf("%s: scan figures %v", who, tk.Final.Metrics)
	}
	if c.Params["vacuum"] == "true" && !(m["vacuum"] > 0) {
		t.Errorf("%s: no vacuum time: %v", who, m)
	}
	// Every worker measures its own process's CPU over the measured part
	// of an insert or a load (not from outside, where the warm-up, the
	// threads' start and the final histograms would be in it).
	if c.Workload != "scan" && tk.Final.Status == results.StatusOK {
		if cores, ok := m[results.ProcessCPU]; !tk.OwnCPU || !ok || !(cores > 0) || cores > 1.5*float64(runtime.NumCPU()) {
			t.Errorf("%s: process_cpu %v (the worker's own: %v), want its own, within (0, %d] cores", who, cores, tk.OwnCPU, runtime.NumCPU())
		}
	}
}

// checkOp checks one op of the final event: its histograms and summaries,
// its samples against its count; a response time in open loop only, for
// an op that is not a statement of a transaction, and never under the
// service time.
func checkOp(t *testing.T, who string, c Case, o results.Op, part bool) {
	t.Helper()
	svc := decode(t, who, o.Name, o.Hist, o.Count+o.Overrun > 0 || len(o.Errors) == 0, metrics.NewHistogram())
	if want := Summary(svc); !reflect.DeepEqual(o.Service, want) {
		t.Errorf("%s: %s: service summary %v, hdrhistogram-go says %v", who, o.Name, o.Service, want)
	}
	// An insert's or a scan's sample stands for several rows.
	rows := o.Name == "insert" || o.Name == "scan" || c.Workload == "insert" || c.Workload == "scan"
	if !rows && svc.TotalCount() != o.Count+o.Overrun {
		t.Errorf("%s: %s: %d samples for %d operations and %d overruns", who, o.Name, svc.TotalCount(), o.Count, o.Overrun)
	}
	if c.Params["rate"] == "" || part {
		if o.RespHist != "" {
			t.Errorf("%s: %s: a response histogram in closed loop or of a statement", who, o.Name)
		}
		return
	}
	if o.RespHist == "" {
		t.Errorf("%s: %s: open loop without a response histogram", who, o.Name)
		return
	}
	resp := decode(t, who, o.Name, o.RespHist, true, metrics.NewHistogram())
	if want := Summary(resp); !reflect.DeepEqual(o.Response, want) {
		t.Errorf("%s: %s: response summary %v, hdrhistogram-go says %v", who, o.Name, o.Response, want)
	}
	if resp.TotalCount() != o.Count {
		t.Errorf("%s: %s: %d response times for %d operations", who, o.Name, resp.TotalCount(), o.Count)
	}
	for _, q := range []float64{50, 99, 100} {
		if resp.ValueAtQuantile(q) < svc.ValueAtQuantile(q) {
			t.Errorf("%s: %s: response p%v below service", who, o.Name, q)
		}
	}
	if resp.Mean() < svc.Mean()*0.99 {
		t.Errorf("%s: %s: response time's mean %v below service time's %v", who, o.Name, resp.Mean(), svc.Mean())
	}
}

// decode decodes an op's histogram, which must have layout's figures and
// range (litebench's: three significant figures from 1 ns to 10 minutes,
// two in an interval). Only an op that recorded nothing, having only
// failed, may have none (want false).
func decode(t *testing.T, who, op, s string, want bool, layout *hdr.Histogram) *hdr.Histogram {
	t.Helper()
	if s == "" {
		if want {
			t.Errorf("%s: %s: no histogram", who, op)
		}
		return layout
	}
	h, err := histcodec.Decode(s)
	if err != nil {
		t.Fatalf("%s: %s: histogram %q does not decode: %v", who, op, s, err)
	}
	if h.SignificantFigures() != layout.SignificantFigures() || h.LowestTrackableValue() != layout.LowestTrackableValue() ||
		h.HighestTrackableValue() != layout.HighestTrackableValue() {
		t.Errorf("%s: %s: histogram of %d figures over [%d, %d], want %d over [%d, %d]", who, op, h.SignificantFigures(),
			h.LowestTrackableValue(), h.HighestTrackableValue(), layout.SignificantFigures(), layout.LowestTrackableValue(), layout.HighestTrackableValue())
	}
	return h
}

// Summary is the summary litebench computes from h.
func Summary(h *hdr.Histogram) results.Latency {
	return worker.ToOps([]metrics.Op{{Name: "x", Service: h}})[0].Service
}

// checkProgramCounts: a workload file's transactions (the ops that are no
// statement's own result) add up to the operations done, its --count when
// it has one; a statement counts at most one more than its transaction
// (the one the cancel or the end interrupted).
func checkProgramCounts(t *testing.T, who string, c Case, tk *Talk, felt map[string]int64) {
	t.Helper()
	var txns int64
	for _, n := range felt {
		txns += n
	}
	if txns != tk.Final.Done || txns == 0 {
		t.Errorf("%s: transactions count %d, done %d", who, txns, tk.Final.Done)
	}
	if want, err := strconv.ParseInt(c.Params["count"], 10, 64); err == nil && tk.Final.Done != want {
		t.Errorf("%s: done %d, --count %d", who, tk.Final.Done, want)
	}
	for _, o := range tk.Final.FinalOps {
		if o.Of != "" && o.Count > felt[o.Of]+1 {
			t.Errorf("%s: %s counted %d, its transaction %s %d", who, o.Name, o.Count, o.Of, felt[o.Of])
		}
	}
}

// checkIntervals: interval events came, their histograms hold their
// counts, they name only ops of their own (no statement's result), and
// they add up to the final counts as the worker's rule says.
func checkIntervals(t *testing.T, w Worker, c Case, tk *Talk, felt map[string]int64, parts map[string]string) {
	t.Helper()
	who := w.Target
	if len(tk.Intervals) == 0 {
		t.Fatalf("%s: no interval events every %v", who, c.Interval)
	}
	seen := map[string]int64{}
	for _, iv := range tk.Intervals {
		for _, o := range iv.Ops {
			if h := decode(t, who, o.Name, o.Hist, true, metrics.NewIntervalHistogram()); h.TotalCount() != o.Count {
				t.Errorf("%s: interval %s: %d samples for %d operations", who, o.Name, h.TotalCount(), o.Count)
			}
			if _, ok := felt[o.Name]; parts[o.Name] != "" || !ok && o.Count > 0 {
				t.Errorf("%s: interval reports %s, which is no op kind of its own", who, o.Name)
			}
			seen[o.Name] += o.Count
		}
	}
	if w.Intervals != IntervalsExact && c.Workload == "insert" {
		if last := tk.Intervals[len(tk.Intervals)-1]; last.Done > tk.Final.Done || last.Done == 0 {
			t.Errorf("%s: last interval done %d, final %d", who, last.Done, tk.Final.Done)
		}
		return
	}
	for name, n := range felt {
		if w.Intervals == IntervalsExact && seen[name] != n || seen[name] > n || seen[name] < n*9/10 {
			t.Errorf("%s: %s: intervals count %d operations, final %d", who, name, seen[name], n)
		}
	}
}

// Metrics is a final event's workload figures by name.
func Metrics(ev worker.Event) map[string]float64 {
	m := map[string]float64{}
	for _, x := range ev.Metrics {
		m[x.Name] = x.Value
	}
	return m
}

// OpCounts renders each op's count, errors and retries by name.
func OpCounts(ops []results.Op) map[string]string {
	m := map[string]string{}
	for _, o := range ops {
		m[o.Name] = fmt.Sprintf("count %d errors %v retries %d", o.Count, o.Errors, o.Retries)
	}
	return m
}
