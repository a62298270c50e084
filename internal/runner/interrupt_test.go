package runner

import (
	"context"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target/targettest"
	"github.com/litebench/litebench/internal/workload"
)

// A VACUUM that runs until it is interrupted, and then fails as SQLite
// does, with its own error rather than ctx's: the run is interrupted, not
// failed.
func TestRunInterruptedInLongStatement(t *testing.T) {
	sp, _ := workload.Get("insert")
	s := settings.Default()
	s.Set("in-memory", "true")
	w, err := sp.New(map[string]string{"rows": "1000", "schema": "bench", "workers": "1", "seed": "1", "vacuum": "true"}, s)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	f := &targettest.Client{Block: "VACUUM"}
	r := Run(ctx, Spec{RunID: "t", Workload: w, Target: targettest.Target(f), Settings: s, Dir: t.TempDir()})
	if r.Status != results.StatusInterrupted || r.Error != "" {
		t.Errorf("status %s (%s), want interrupted", r.Status, r.Error)
	}
}
