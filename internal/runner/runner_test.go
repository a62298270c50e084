package runner

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target/targettest"
	"github.com/litebench/litebench/internal/units"
	"github.com/litebench/litebench/internal/workload"
)

func insertSpec(t *testing.T, f *targettest.Client, rows, workers string) Spec {
	sp, _ := workload.Get("insert")
	s := settings.Default()
	s.Set("in-memory", "true")
	s.Set("batch", "100")
	w, err := sp.New(map[string]string{"rows": rows, "schema": "bench", "workers": workers, "seed": "1", "vacuum": "false"}, s)
	if err != nil {
		t.Fatal(err)
	}
	return Spec{RunID: "t", Workload: w, Target: targettest.Target(f), Settings: s, Dir: t.TempDir()}
}

func TestRunCountsEveryRowAcrossWorkers(t *testing.T) {
	f := &targettest.Client{}
	r := Run(context.Background(), insertSpec(t, f, "10000", "4"))
	if r.Status != results.StatusOK {
		t.Fatalf("status %s: %s", r.Status, r.Error)
	}
	if r.Rows != 10000 {
		t.Errorf("rows %d", r.Rows)
	}
	ins := r.Op("insert")
	if ins == nil || ins.Count != 10000 || ins.Service["count"] != 10000 {
		t.Fatalf("insert op %+v", ins)
	}
	if c := r.Op("commit"); c == nil || c.Count != 100 {
		t.Errorf("commit op %+v", c)
	}
	if h := r.Headline(); h.Unit != units.RowsPerSecond || h.Value != float64(r.Rows)/r.Elapsed || r.Elapsed <= 0 {
		t.Errorf("headline %+v elapsed %v", h, r.Elapsed)
	}
}

// A result carries its labels, their display order, its section and
// versions; a run that fails still declares its headline's unit.
func TestRunLabelsResult(t *testing.T) {
	sp := insertSpec(t, &targettest.Client{}, "100", "1")
	sp.Section, sp.Name = "ladder", "+ WAL (fake)"
	r := Run(context.Background(), sp)
	if r.Schema != results.SchemaVersion || r.Workload != "insert" || r.Engine != "sqlite" || r.Client != "fake" ||
		r.Placement != "in-process" || r.Section != "ladder" || r.Label != "+ WAL (fake)" || r.EngineVersion != "0" {
		t.Errorf("labels: %+v", r)
	}
	params, sets := results.LabelOrder([]*results.Result{r})
	if strings.Join(params, " ") != "rows schema seed vacuum workers" || sets[0] != settings.Specs[0].Key || len(sets) != len(settings.Specs) {
		t.Errorf("order: %v %v", params, sets)
	}
	r = Run(context.Background(), insertSpec(t, &targettest.Client{OpenErr: errors.New("no")}, "100", "1"))
	if r.Status != results.StatusFailed || r.Headline().Unit != units.RowsPerSecond || len(r.Metrics) != 1 {
		t.Errorf("failed run: %s, metrics %+v", r.Status, r.Metrics)
	}
}

// Cancelled at its 5000th statement, a run stops: it is saved as
// interrupted with the rows of the transactions that committed (each
// worker may finish the one it is in), not the million planned.
func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &targettest.Client{CancelAfter: 5000, Cancel: cancel}
	r := Run(ctx, insertSpec(t, f, "1000000", "2"))
	if r.Status != results.StatusInterrupted {
		t.Fatalf("status %s (%s)", r.Status, r.Error)
	}
	if r.Rows == 0 || r.Rows%100 != 0 || r.Rows > 5000+2*100 {
		t.Errorf("rows %d, want whole batches of 100, at most 5000 and the two in flight", r.Rows)
	}
	if n := f.Execs.Load(); n > 5000+2*100 {
		t.Errorf("%d statements ran: the run went on after the cancel", n)
	}
}

func TestProgressLine(t *testing.T) {
	got := ProgressLine("[1/2] insert", 845999, 10000000, 2*time.Second)
	want := "[1/2] insert  845999/10000000 (  8.46%) in 2s, avg 2.364µs/row, 423000 rows/s"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
