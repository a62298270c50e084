package runner

import (
	"context"
	"testing"
	"time"

	"litebench/internal/results"
	"litebench/internal/settings"
	"litebench/internal/target/targettest"
	"litebench/internal/workload"
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
	if r.RowsPerSecond <= 0 || r.Elapsed <= 0 {
		t.Errorf("rate %v elapsed %v", r.RowsPerSecond, r.Elapsed)
	}
}

func TestRunInterrupted(t *testing.T) {
	f := &targettest.Client{Delay: time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	r := Run(ctx, insertSpec(t, f, "1000000", "2"))
	if r.Status != results.StatusInterrupted {
		t.Fatalf("status %s (%s)", r.Status, r.Error)
	}
	if r.Rows == 0 || r.Rows >= 1000000 {
		t.Errorf("partial rows %d", r.Rows)
	}
}

func TestProgressLine(t *testing.T) {
	got := ProgressLine("[1/2] insert", 845999, 10000000, 2*time.Second)
	want := "[1/2] insert  845999/10000000 (  8.46%) in 2s, avg 2.364µs/row, 423000 rows/s"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
