package runner

import (
	"context"
	"errors"
	"testing"
	"time"

	"litebench/internal/results"
	"litebench/internal/settings"
	"litebench/internal/target"
	"litebench/internal/workload"
)

// vacuumFake is fake with a VACUUM that runs until it is interrupted, and
// then fails as SQLite does, with its own error rather than ctx's.
type vacuumFake struct{ fake }

func (f *vacuumFake) Open(context.Context, target.Options) (target.DB, error) {
	return vacuumDB{fakeDB{&f.fake}}, nil
}

type vacuumDB struct{ fakeDB }

func (d vacuumDB) Exec(ctx context.Context, q string, args ...any) error {
	if q == "VACUUM" {
		<-ctx.Done()
		return errors.New("interrupted")
	}
	return d.fakeDB.Exec(ctx, q, args...)
}

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
	r := Run(ctx, Spec{RunID: "t", Workload: w, Target: &vacuumFake{}, Settings: s, Dir: t.TempDir()})
	if r.Status != results.StatusInterrupted || r.Error != "" {
		t.Errorf("status %s (%s), want interrupted", r.Status, r.Error)
	}
}
