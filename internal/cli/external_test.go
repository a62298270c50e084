package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/target/external"
)

// builtExternal returns the external targets whose workers this checkout
// has; one that is not built skips the test locally and fails it in CI
// (LITEBENCH_REQUIRE_WORKERS=1).
func builtExternal(t *testing.T) []string {
	root := external.Root()
	if root == "" {
		t.Fatal("no repository root above the test's directory")
	}
	var names []string
	for _, w := range external.Workers {
		if _, err := os.Stat(filepath.Join(root, "workers", w.Dir)); err != nil || w.Engine != "" {
			continue // not in this checkout, or not a SQLite client (tested on its own)
		}
		if _, err := target.Get(w.Name); err != nil {
			if os.Getenv("LITEBENCH_REQUIRE_WORKERS") == "1" {
				t.Errorf("%s: %v", w.Name, err)
			} else {
				t.Logf("skipping %s: %v", w.Name, err)
			}
			continue
		}
		names = append(names, w.Name)
	}
	return names
}

// Every built worker of another language passes conformance against the
// Go reference.
func TestConformExternalTargets(t *testing.T) {
	names := builtExternal(t)
	if len(names) == 0 {
		t.Skip("no external worker is built ('make workers')")
	}
	o := run(t, context.Background(), "conform", "--target", strings.Join(names, ","), "--rows", "300", "--no-store")
	if o.code != 0 || strings.Contains(o.out, "FAIL") {
		t.Fatalf("exit %d:\n%s\n%s", o.code, o.out, o.err)
	}
	for _, n := range names {
		if !strings.Contains(o.out, n) {
			t.Errorf("%s missing from the table:\n%s", n, o.out)
		}
	}
	// The Go worker runs workload files: its check of one applies.
	for _, l := range strings.Split(o.out, "\n") {
		if f := strings.Fields(l); len(f) > 3 && f[0] == "go-crawshaw" && f[1] == "workload" && f[3] != "pass" {
			t.Errorf("go-crawshaw's workload-file check: %s", l)
		}
	}
}

// One sweep, one table: the same insert on mattn and on every built worker
// of another language, each storing every row.
func TestCrossLanguageSweep(t *testing.T) {
	names := builtExternal(t)
	if len(names) == 0 {
		t.Skip("no external worker is built ('make workers')")
	}
	o := run(t, context.Background(), "insert", "--target", "mattn,"+strings.Join(names, ","), "--rows", "3000", "--batch", "100",
		"--journal", "wal", "--no-store", "--format", "json", "--progress", "0")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	ls := jsonLines(t, o.out)
	if len(ls) != len(names)+1 {
		t.Fatalf("%d runs for %d targets", len(ls), len(names)+1)
	}
	for _, j := range ls {
		if j["status"] != "ok" || j["count"].(float64) != 3000 {
			t.Errorf("%v: status %v, count %v (%v)", j["target"], j["status"], j["count"], j["error"])
		}
		if tg := j["target"].(string); tg != "mattn" && !strings.HasPrefix(j["placement"].(string), "process:") {
			t.Errorf("%s placed %v", tg, j["placement"])
		}
	}
}
