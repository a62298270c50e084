package cli

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestPlacementProcessRunsEveryWorkload runs each workload in this process
// and in a 'litebench worker' child, in one sweep, and checks that both
// placements measured the same work.
func TestPlacementProcessRunsEveryWorkload(t *testing.T) {
	cases := [][]string{
		{"insert", "--rows", "3000", "--batch", "100"},
		{"scan", "--rows", "3000"},
		{"paginate", "--rows", "2000", "--depths", "10,1500", "--count", "2"},
		{"read", "--rows", "2000", "--count", "500"},
		{"write", "--rows", "1000", "--count", "300"},
		{"mixed", "--rows", "1000", "--count", "400", "--rate", "2000"},
	}
	for _, c := range cases {
		t.Run(c[0], func(t *testing.T) {
			args := append(c, "--placement", "in-process,process", "--no-store", "--format", "json", "--progress", "0")
			o := run(t, context.Background(), args...)
			if o.code != 0 {
				t.Fatalf("exit %d: %s", o.code, o.err)
			}
			ls := jsonLines(t, o.out)
			if len(ls) != 2 {
				t.Fatalf("%d runs", len(ls))
			}
			places := map[string]bool{}
			for _, j := range ls {
				if j["status"] != "ok" {
					t.Errorf("status %v: %v", j["status"], j["error"])
				}
				places[j["settings"].(map[string]any)["placement"].(string)] = true
			}
			if !places["in-process"] || !places["process"] {
				t.Errorf("placements %v", places)
			}
			if a, b := ls[0]["rows"], ls[1]["rows"]; a != b || a.(float64) == 0 {
				t.Errorf("rows: in-process %v, process %v", a, b)
			}
			if len(ls[1]["latency_us"].(map[string]any)) == 0 {
				t.Errorf("process run has no latency")
			}
		})
	}
}

// TestPlacementProcessInterrupt: Ctrl-C during a run in a child process
// ends the command promptly and saves the partial run as interrupted.
func TestPlacementProcessInterrupt(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "s.db")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(1500*time.Millisecond, cancel)
	o := run(t, ctx, "mixed", "--rows", "1000", "--duration", "1m", "--placement", "process", "--store", store, "--progress", "0")
	if o.code != ExitInterrupted {
		t.Fatalf("exit %d, want %d: %s", o.code, ExitInterrupted, o.err)
	}
	o = run(t, context.Background(), "show", "--last", "--store", store, "--format", "json")
	ls := jsonLines(t, o.out)
	if len(ls) != 1 || ls[0]["status"] != "interrupted" || ls[0]["rows"].(float64) == 0 {
		t.Fatalf("stored: %v", o.out)
	}
}
