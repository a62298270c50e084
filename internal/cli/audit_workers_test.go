package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/engine/sqlite"
	"github.com/litebench/litebench/internal/target"
)

// TestAuditWorkerTargets: a process kill of every built worker of another
// language is verified by litebench's own SQLite: no trial corrupt or
// unverified, no acknowledged transaction lost, and the rows counted
// right: each trial's recovered copy, counted by another driver (mattn),
// holds the rows of every transaction the audit found, acknowledged or
// in flight, and no other.
func TestAuditWorkerTargets(t *testing.T) {
	names := builtExternal(t)
	if len(names) == 0 {
		t.Skip("no external worker is built ('make workers')")
	}
	dir := t.TempDir()
	store := filepath.Join(dir, "s.db")
	// The fault strikes after half a second: a JVM is still warming up
	// before that, and may have acknowledged nothing.
	const batch, trials = 10, 2
	o := run(t, context.Background(), "audit", "--target", strings.Join(names, ","), "--fault", "process-kill", "--trials", fmt.Sprint(trials),
		"--fault-at", "500ms-1s", "--batch", fmt.Sprint(batch), "--journal", "wal", "--sync", "normal",
		"--store", store, "--dir", dir, "--keep", "--progress", "0")
	if o.code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", o.code, o.out, o.err)
	}
	ls := jsonLines(t, run(t, context.Background(), "show", "--last", "--store", store, "--format", "json").out)
	if len(ls) != len(names) {
		t.Fatalf("%d results for %d targets:\n%s", len(ls), len(names), o.out)
	}
	counter, err := target.Get("mattn")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range ls {
		a := r["audit"].(map[string]any)
		name := r["target"].(string)
		if r["status"] != "ok" || a["corrupt_trials"].(float64) != 0 || a["unverified_trials"].(float64) != 0 || a["lost_acked_total"].(float64) != 0 ||
			a["acked"].(float64) == 0 || a["verdict"] != "as documented" || a["class"] == "may-corrupt" {
			t.Errorf("%s: status %v, %v corrupt, %v unverified, %v lost of %v acknowledged, verdict %v, class %v (%v)", name, r["status"],
				a["corrupt_trials"], a["unverified_trials"], a["lost_acked_total"], a["acked"], a["verdict"], a["class"], r["notes"])
			continue
		}
		cell := strings.TrimSuffix(r["run_id"].(string), ".process-kill")
		for i, tr := range a["trial_results"].([]any) {
			tr := tr.(map[string]any)
			copyPath := filepath.Join(dir, fmt.Sprintf("%s-process-kill-%d", cell, i+1), "verify", "bench.db")
			db, err := counter.Open(context.Background(), sqlite.ReadOnly(copyPath, false), target.PoolOptions{})
			if err != nil {
				t.Fatalf("%s trial %d: %v", name, i+1, err)
			}
			v, err := target.SQL(db).Strings(context.Background(), "SELECT count(*) FROM bench")
			db.Close()
			if err != nil {
				t.Fatalf("%s trial %d: %v", name, i+1, err)
			}
			unacked, _ := tr["unacked_present"].(float64)
			want := fmt.Sprint(int64(tr["acked"].(float64)+unacked) * batch)
			if len(v) != 1 || v[0] != want {
				t.Errorf("%s trial %d: %v rows in the recovered copy, want %s (%v acknowledged and %v in-flight transactions of %d rows)",
					name, i+1, v, want, tr["acked"], unacked, batch)
			}
		}
	}
}
