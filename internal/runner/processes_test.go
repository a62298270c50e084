package runner

import (
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/litebench/litebench/internal/histcodec"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/worker"
)

func hist(vals ...int64) string {
	h := hdr.New(1, 60_000_000_000, 3)
	for _, v := range vals {
		h.RecordValue(v)
	}
	return histcodec.Encode(h)
}

// The processes' ops merge: counts, errors and retries add, histograms
// merge; figures add but for a table's row counts, which are one table's.
func TestMergeProcesses(t *testing.T) {
	fins := []worker.Event{
		{FinalOps: []results.Op{{Name: "write", Count: 2, Retries: 1, Errors: map[string]int64{"busy": 3}, Hist: hist(1000, 3000)}},
			Metrics: []results.Metric{{Name: "rows_in_range", Value: 2}, {Name: "table_rows_after", Value: 105}}},
		{FinalOps: []results.Op{{Name: "write", Count: 1, Errors: map[string]int64{"busy": 1, "locked": 2}, Hist: hist(2000)}, {Name: "read", Count: 1, Hist: hist(500)}},
			Metrics: []results.Metric{{Name: "rows_in_range", Value: 1}, {Name: "table_rows_after", Value: 103}}},
	}
	ops, err := mergeOps(fins)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 2 || ops[0].Name != "write" || ops[1].Name != "read" {
		t.Fatalf("ops %+v", ops)
	}
	w := ops[0]
	if w.Count != 3 || w.Retries != 1 || w.Errors["busy"] != 4 || w.Errors["locked"] != 2 || w.Service["count"] != 3 {
		t.Errorf("write %+v", w)
	}
	if h, _ := histcodec.Decode(w.Hist); h.TotalCount() != 3 || h.Max() < 2999 || h.Min() > 1000 {
		t.Errorf("merged histogram: %d values, %d to %d", h.TotalCount(), h.Min(), h.Max())
	}
	ms := sumMetrics(fins)
	if len(ms) != 2 || ms[0].Value != 3 || ms[1].Value != 105 {
		t.Errorf("metrics %+v", ms)
	}
}

// A run of several processes is labelled so, without changing the
// workload's own parameters, which its jobs carry.
func TestLabelProcesses(t *testing.T) {
	params := map[string]string{"rows": "10"}
	r := &results.Result{Params: params, Placement: worker.InProcess}
	labelProcesses(r, 3)
	if r.Params["processes"] != "3" || r.Params["rows"] != "10" || r.Placement != worker.ChildProc {
		t.Errorf("params %v, placement %s", r.Params, r.Placement)
	}
	if _, ok := params["processes"]; ok {
		t.Error("the workload's parameters were changed")
	}
}
