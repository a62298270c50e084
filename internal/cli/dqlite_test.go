package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/target"
)

// needDqlite skips a test when the dqlite target is not available (its
// packages or its worker missing), or fails it under
// LITEBENCH_REQUIRE_ENGINES=1 (CI).
func needDqlite(t *testing.T) {
	t.Helper()
	if _, err := target.Get("dqlite"); err != nil {
		if os.Getenv("LITEBENCH_REQUIRE_ENGINES") == "1" {
			t.Fatalf("dqlite: %v", err)
		}
		t.Skipf("dqlite: %v", err)
	}
}

// leftovers are what remains of clusters under dir: data directories and
// node processes whose command line names dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	var left []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".dqlite") {
			left = append(left, filepath.Join(dir, e.Name()))
		}
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), "node\x00--dir\x00"+dir) {
			left = append(left, p+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return left
}

// Insert, read and mixed run on 1 and 3 nodes; the results name the
// leader and every node's Raft log position, and nothing of the clusters
// is left behind.
func TestDqliteWorkloads(t *testing.T) {
	needDqlite(t)
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "bank.toml")
	if err := os.WriteFile(file, []byte(bankFile), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, nodes := range []string{"1", "3"} {
		for _, args := range [][]string{
			{"insert", "--rows", "2000", "--batch", "100"},
			{"read", "--rows", "500", "--duration", "300ms"},
			{"mixed", "--rows", "500", "--duration", "300ms"},
			{"run", file, "--count", "50"}, // a workload file, run by the dqlite worker
		} {
			args = append(args, "--target", "dqlite", "--nodes", nodes, "--dir", dir, "--no-store", "--format", "json", "--progress", "0")
			o := run(t, context.Background(), args...)
			if o.code != 0 {
				t.Fatalf("%v: exit %d: %s", args, o.code, o.err)
			}
			ls := jsonLines(t, o.out)
			if len(ls) != 1 || ls[0]["status"] != "ok" || ls[0]["engine"] != "dqlite" {
				t.Fatalf("%v: %v", args, ls)
			}
			j := ls[0]
			if args[0] == "insert" && j["count"].(float64) != 2000 {
				t.Errorf("%v: count %v", args, j["count"])
			}
			if args[0] != "insert" && j["count"].(float64) <= 0 {
				t.Errorf("%v: no operations", args)
			}
			notes := ""
			for _, n := range j["notes"].([]any) {
				notes += n.(string) + "\n"
			}
			if !strings.Contains(notes, "dqlite leader 127.0.0.1:") {
				t.Errorf("%v: no leader in the notes:\n%s", args, notes)
			}
			n := int(nodes[0] - '0')
			for i := 1; i <= n; i++ {
				if v, _, ok := metric(j, "node"+string(rune('0'+i))+"_raft_index"); !ok || v <= 0 {
					t.Errorf("%v: node %d raft index %v (%v)", args, i, v, ok)
				}
			}
			if _, _, ok := metric(j, "node"+string(rune('0'+n+1))+"_raft_index"); ok {
				t.Errorf("%v: a figure for node %d of %d", args, n+1, n)
			}
		}
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}

// One sweep with a SQLite target: the nodes axis applies to the dqlite
// cells only; settings that a cell's engine cannot honour are refused.
func TestDqliteSweepAndRefusals(t *testing.T) {
	needDqlite(t)
	dir := t.TempDir()
	o := run(t, context.Background(), "insert", "--target", "mattn,dqlite", "--batch", "1,100", "--nodes", "1,3", "--rows", "300",
		"--dir", dir, "--no-store", "--format", "json", "--progress", "0")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	count := map[string]int{}
	for _, j := range jsonLines(t, o.out) {
		count[j["target"].(string)]++
		if j["status"] != "ok" || j["count"].(float64) != 300 {
			t.Errorf("%v: %v %v", j["label"], j["status"], j["error"])
		}
	}
	if count["mattn"] != 2 || count["dqlite"] != 4 {
		t.Errorf("runs per target %v, want mattn 2 (batch) and dqlite 4 (batch × nodes)", count)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--target", "mattn", "--nodes", "3"}, "--nodes applies to dqlite only"},
		{[]string{"--target", "dqlite", "--journal", "wal"}, "--journal applies to sqlite only"},
		{[]string{"--target", "dqlite", "--sync", "off"}, "dqlite cannot honour it"},
		{[]string{"--target", "dqlite", "--tx", "immediate"}, "--tx immediate"},
		{[]string{"--target", "dqlite", "--nodes", "2"}, "--nodes"},
	} {
		o := run(t, context.Background(), append([]string{"insert", "--rows", "10", "--dir", dir, "--no-store"}, c.args...)...)
		if o.code != 2 || !strings.Contains(o.err, c.want) || strings.Count(strings.TrimSpace(o.err), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want 2 and one line with %q", c.args, o.code, o.err, c.want)
		}
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}

// An interrupted run stops its cluster: no node process and no data
// directory remain.
func TestDqliteInterrupt(t *testing.T) {
	needDqlite(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Interrupt once the cluster runs (its directory exists).
		for ctx.Err() == nil {
			if ents, _ := filepath.Glob(filepath.Join(dir, "*.dqlite", "node3")); len(ents) > 0 {
				time.Sleep(time.Second)
				cancel()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	o := run(t, ctx, "write", "--target", "dqlite", "--nodes", "3", "--rows", "200", "--duration", "60s", "--dir", dir, "--no-store", "--progress", "0")
	cancel()
	if o.code == 0 {
		t.Fatalf("interrupted run exited 0: %s", o.err)
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("left behind after the interrupt: %v", l)
	}
}

// Killing a follower of a 3-node cluster mid-run loses no acknowledged
// commit, and writes go on.
func TestDqliteAuditKillFollower(t *testing.T) {
	needDqlite(t)
	dir := t.TempDir()
	o := run(t, context.Background(), "audit", "insert", "--target", "dqlite", "--nodes", "3", "--rows", "20000", "--batch", "100",
		"--trials", "1", "--fault", "kill-follower", "--fault-at", "200ms", "--dir", dir, "--no-store", "--format", "json", "--progress", "0")
	if o.code != 0 {
		t.Fatalf("exit %d: %s\n%s", o.code, o.err, o.out)
	}
	ls := jsonLines(t, o.out)
	if len(ls) != 1 {
		t.Fatalf("%d results", len(ls))
	}
	a := ls[0] // the audit's figures are the line's own
	if a["fault"] != "kill-follower" || a["trials"].(float64) != 1 || a["faulted"].(float64) != 1 {
		t.Fatalf("audit %v", a)
	}
	if a["acked"].(float64) <= 0 || a["lost_acked_total"].(float64) != 0 {
		t.Errorf("acked %v, lost %v", a["acked"], a["lost_acked_total"])
	}
	if r, _ := a["recovery_ms_p50"].(float64); r <= 0 {
		t.Errorf("no time until writes resumed: %v", a)
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}
