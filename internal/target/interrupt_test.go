package target_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
	_ "github.com/litebench/litebench/internal/target/all"
)

// A long statement (VACUUM, a count over a big table) stops once its
// context is cancelled, on every target.
func TestLongStatementStopsOnCancel(t *testing.T) {
	// A query of about 10^10 steps: hours if nothing stops it.
	const slow = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM (SELECT x FROM c LIMIT 10000000000)"
	for _, name := range target.InProcessNames() {
		t.Run(name, func(t *testing.T) {
			tg, err := target.Get(name)
			if err != nil {
				t.Fatal(err)
			}
			inst, err := tg.Engine().Provision(context.Background(), engine.Request{Settings: settings.Default(), Path: filepath.Join(t.TempDir(), "i.db"), Reuse: true, Keep: true})
			if err != nil {
				t.Fatal(err)
			}
			db, err := tg.Open(context.Background(), inst.Endpoint(), target.PoolOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, exec := range []bool{false, true} {
				ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
				start := time.Now()
				if exec {
					err = db.Exec(ctx, slow, nil)
				} else {
					err = db.Query(ctx, slow, nil, func(r target.Row) error { return nil })
				}
				cancel()
				took := time.Since(start)
				if err == nil {
					t.Fatalf("exec=%v: the statement finished", exec)
				}
				if took > 10*time.Second {
					t.Errorf("exec=%v: stopped %v after the cancel", exec, took)
				}
			}
			// The connection still works, without an interrupt pending.
			var n int64
			if err := db.Query(context.Background(), "SELECT 41+1", nil, func(r target.Row) error { return r.Scan(&n) }); err != nil || n != 42 {
				t.Errorf("after the cancel: %d, %v", n, err)
			}
		})
	}
}
