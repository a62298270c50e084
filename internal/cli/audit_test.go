package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditRefuses: what the audit cannot do as asked is refused with
// exit 2 and one line, before anything is created.
func TestAuditRefuses(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "s.db")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--target", "mattn", "--fault", "power-loss", "--power-via", "vfs"}, "--power-via fs"},
		{[]string{"--target", "mattn", "--fault", "power-loss", "--power-model", "reorder", "--power-via", "disk"}, "--power-via"},
		{[]string{"--target", "ncruces-direct", "--fault", "power-loss", "--power-model", "reorder"}, "--power-via fs"},
		{[]string{"--target", "mattn", "--fault", "power-loss", "--disk", "sector=1000"}, "--disk"},
		{[]string{"--target", "mattn", "--fault", "power-loss", "--fault-at", "sync:wal:0"}, "--fault-at"},
		{[]string{"--target", "mattn", "--fault", "power-loss", "--fault-at", "write:db:*"}, "given count"},
		{[]string{"--target", "mattn", "--fault", "process-kill", "--disk", "atomic"}, "power-loss only"},
		{[]string{"--target", "mattn", "--fault-at", "sync:wal:3"}, "power-loss alone"},
		{[]string{"scan"}, "insert, write or mixed"},
		{[]string{"write", "--write-kind", "update", "--target", "ncruces-direct"}, "--write-kind insert"},
		{[]string{"--placement", "process"}, "--placement does not apply"},
		{[]string{"--in-memory"}, "--in-memory does not apply"},
		{[]string{"--fault", "process-kill", "--power-model", "torn"}, "power-loss only"},
		{[]string{"--fault", "meteor"}, "unknown fault"},
		{[]string{"--power-model", "gentle", "--target", "ncruces-direct"}, "unknown power model"},
		{[]string{"--fault-at", "1s-10ms"}, "--fault-at"},
		{[]string{"--trials", "0"}, "--trials"},
	} {
		o := run(t, context.Background(), append(append([]string{"audit"}, c.args...), "--store", store, "--dir", dir)...)
		if o.code != ExitUsage || !strings.Contains(o.err, c.want) || strings.Count(strings.TrimSpace(o.err), "\n") != 0 {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, o.code, o.err, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("refused audits created %v", entries)
	}
}

// TestAuditCommand runs a small audit end to end: a process kill on
// mattn as a table, both faults on ncruces-direct as JSON lines carrying
// every figure the audit promises, and the stored results.
func TestAuditCommand(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "s.db")
	small := []string{"--trials", "3", "--fault-at", "20ms-80ms", "--batch", "20", "--progress", "0"}
	o := run(t, context.Background(), append([]string{"audit", "--target", "mattn", "--fault", "process-kill", "--journal", "wal", "--sync", "off", "--no-store"}, small...)...)
	if o.code != 0 || !strings.Contains(o.out, "process-kill") || !strings.Contains(o.out, "as documented") || !strings.Contains(o.out, "survives-process-crash") {
		t.Fatalf("exit %d: %s %s", o.code, o.out, o.err)
	}

	o = run(t, context.Background(), append([]string{"audit", "--target", "ncruces-direct", "--journal", "wal", "--sync", "off", "--power-model", "torn,lose-unsynced",
		"--store", store, "--dir", dir, "--format", "json"}, small...)...)
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	ls := jsonLines(t, o.out)
	if len(ls) != 3 {
		t.Fatalf("%d lines, want process-kill and power-loss under two models: %s", len(ls), o.out)
	}
	for i, want := range []string{"process-kill", "power-loss", "power-loss"} {
		l := ls[i]
		if l["fault"] != want || l["status"] != "ok" || l["trials"].(float64) != 3 || l["acked"].(float64) == 0 {
			t.Errorf("line %d: %v", i, l)
		}
		for _, k := range []string{"lost_acked_total", "lost_acked_max", "lost_window_ms", "corrupt_trials", "atomicity_violations", "unacked_present",
			"recovery_ms_p50", "rows_per_s", "verdict", "class", "expected", "journal_mode", "synchronous"} {
			if _, ok := l[k]; !ok {
				t.Errorf("line %d lacks %s", i, k)
			}
		}
		if l["settings"].(map[string]any)["journal"] != "wal" || l["target"] != "ncruces-direct" || l["rows_per_s"].(float64) <= 0 {
			t.Errorf("line %d labels: %v", i, l)
		}
	}
	if ls[0]["lost_acked_total"].(float64) != 0 || ls[0]["corrupt_trials"].(float64) != 0 {
		t.Errorf("a process kill lost data with synchronous=off: %v", ls[0])
	}
	if ls[2]["power_model"] != "lose-unsynced" || ls[2]["loss_trials"].(float64) == 0 {
		t.Errorf("lose-unsynced with synchronous=off lost nothing: %v", ls[2])
	}
	o = run(t, context.Background(), "show", "--last", "--store", store, "--format", "json")
	stored := jsonLines(t, o.out)
	if len(stored) != 3 {
		t.Fatalf("stored %d results", len(stored))
	}
	for _, r := range stored {
		a, ok := r["audit"].(map[string]any)
		if !ok || a["class"] == "" || len(a["trial_results"].([]any)) != 3 || r["status"] != "ok" {
			t.Errorf("stored result: %v", r)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left in --dir besides the store: %v", entries)
	}

	// write: rows loaded before the run, two writers claiming batches.
	o = run(t, context.Background(), "audit", "write", "--target", "ncruces-direct", "--fault", "power-loss", "--power-model", "lose-unsynced",
		"--journal", "wal", "--sync", "full", "--rows", "500", "--workers", "2", "--batch", "5", "--trials", "2", "--fault-at", "20ms-60ms",
		"--no-store", "--format", "json", "--progress", "0")
	ls = jsonLines(t, o.out)
	if o.code != 0 || len(ls) != 1 || ls[0]["acked"].(float64) == 0 || ls[0]["lost_acked_total"].(float64) != 0 || ls[0]["corrupt_trials"].(float64) != 0 {
		t.Errorf("write: exit %d: %s %s", o.code, o.out, o.err)
	}
}

// TestSuiteDurability: the seeds' settings, each beside its insert speed
// and what the two faults did to it.
func TestSuiteDurability(t *testing.T) {
	o := run(t, context.Background(), "suite", "durability", "--scale", "0.1", "--no-store", "--report", "none", "--progress", "0")
	if o.code != 0 {
		t.Fatalf("exit %d: %s %s", o.code, o.out, o.err)
	}
	for _, want := range []string{"sqlite3perf: _journal=wal&_sync=0", "Benchmarking SQLite inserts: WAL + synchronous=NORMAL", "go-sqlite-bench: WAL + synchronous=FULL",
		"driver defaults", "survives-process-crash", "may-lose-acknowledged", "survives-power-loss"} {
		if !strings.Contains(o.out, want) {
			t.Errorf("the table lacks %q:\n%s", want, o.out)
		}
	}
	if strings.Contains(o.out, "FINDING") {
		t.Errorf("a finding on the seeds' settings:\n%s", o.out)
	}
}

// TestAuditDefault: 'litebench audit' with no target or fault runs each
// fault on a target that can take it (process kill on the default
// target, both on ncruces-direct) and says so; here with fewer trials
// and an earlier fault than its defaults.
func TestAuditDefault(t *testing.T) {
	dir := t.TempDir()
	o := run(t, context.Background(), "audit", "--trials", "1", "--fault-at", "20ms-60ms", "--no-store", "--dir", dir, "--progress", "0")
	if o.code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", o.code, o.out, o.err)
	}
	first, _, _ := strings.Cut(o.err, "\n")
	if !strings.Contains(first, "process-kill on mattn; process-kill and power-loss on ncruces-direct") || !strings.Contains(first, "--target mattn,ncruces-direct") ||
		strings.Contains(first, "--trials") {
		t.Errorf("what it chose: %q", first)
	}
	rows := 0
	for _, l := range strings.Split(o.out, "\n") {
		f := strings.Fields(l)
		if len(f) > 4 && (f[0] == "mattn" || f[0] == "ncruces-direct") {
			rows++
			if !strings.Contains(l, "as documented") {
				t.Errorf("row: %s", l)
			}
		}
	}
	if rows != 3 || !strings.Contains(o.out, "power-loss torn") {
		t.Errorf("%d rows, want mattn process-kill and ncruces-direct both faults:\n%s", rows, o.out)
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("trial files left: %v", es)
	}
}
