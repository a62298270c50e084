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
// interrupted with the rows of the transactions that committed, not the
// million planned. Each worker may finish the transaction it is in, and
// the other worker one more: the fake counts the 5000th statement, then
// cancels, and a worker descheduled between the two lets the other
// commit its transaction and begin the next before the cancel comes (under
// -race, 5,200 rows committed in some runs, 5,201 statements with the
// set-up's).
func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &targettest.Client{CancelAfter: 5000, Cancel: cancel}
	r := Run(ctx, insertSpec(t, f, "1000000", "2"))
	if r.Status != results.StatusInterrupted {
		t.Fatalf("status %s (%s)", r.Status, r.Error)
	}
	const most = 5000 + 2*2*100 // two workers, each with two transactions of 100
	if r.Rows == 0 || r.Rows%100 != 0 || r.Rows > most {
		t.Errorf("rows %d, want whole batches of 100, at most %d", r.Rows, most)
	}
	if n := f.Execs.Load(); n > most+1 {
		t.Errorf("%d statements ran: the run went on after the cancel", n)
	}
}

func TestProgressLine(t *testing.T) {
	for _, c := range []struct {
		p    progress
		want string
	}{
		{progress{Label: "[1/2] insert", Unit: "row", Done: 845999, Total: 10000000, Elapsed: 2 * time.Second,
			Span: 2 * time.Second, SpanDone: 845999, P99: []opP99{{"insert", 4321 * time.Nanosecond}, {"commit", 1234567 * time.Nanosecond}}},
			"[1/2] insert  845999/10000000 rows (8.46%) 2.0s: 423000 rows/s, p99 insert 4.3µs commit 1.23ms, 0 errors (last 2.0s); ETA 22s"},
		{progress{Label: "write mattn", Unit: "op", Done: 12000, Elapsed: 4 * time.Second, Span: 2 * time.Second, SpanDone: 5000,
			Errors: 3, Duration: 10 * time.Second, WAL: 4 << 20},
			"write mattn  12000 ops 4.0s: 2500 ops/s, 3 errors (last 2.0s); ETA 6s; WAL 4.0MiB"},
		{progress{Unit: "op", Done: 0, Elapsed: time.Second},
			"0 ops 1.0s"},
	} {
		if got := c.p.line(); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}
