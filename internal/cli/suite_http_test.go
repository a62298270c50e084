package cli

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/target"
)

// suite http-ladder at a tiny size: every step runs, the table says the
// journal and cache of each, the seed's cache=shared open is a row, and
// the seed's own drivers are rows where built and a line where not (a
// failure in CI, LITEBENCH_REQUIRE_WORKERS=1).
func TestSuiteHTTPLadderRows(t *testing.T) {
	dir := t.TempDir()
	o := run(t, context.Background(), "suite", "http-ladder", "--duration", "150ms", "--no-store", "--report", "none", "--progress", "0", "--dir", dir)
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	rows := map[string]string{}
	for _, l := range strings.Split(o.out, "\n") {
		f := strings.Fields(l)
		if len(f) > 6 && (strings.HasPrefix(l, "pool of") || strings.HasPrefix(l, "direct driver")) {
			i := strings.Index(l, "  ")
			rows[l[:i]+" "+f[len(f)-8]] = strings.Join(f[len(f)-7:len(f)-5], " ")
		}
	}
	for _, w := range []struct{ row, modes string }{
		{"pool of prepared statements (100) mattn", "wal private"},
		{"pool of prepared statements (100), the seed's open mattn", "delete shared"},
		{"direct driver, statement pool (20) zombie", "wal private"},
	} {
		if rows[w.row] != w.modes {
			t.Errorf("row %q: journal and cache %q, want %q\n%s", w.row, rows[w.row], w.modes, o.out)
		}
	}
	if !strings.Contains(o.out, "Journal and cache: WAL and a private cache") {
		t.Errorf("no note of the journal and cache:\n%s", o.out)
	}
	for _, name := range turriateDriverNames {
		_, err := target.Get(name)
		switch row := rows["direct driver, statement pool (20) "+name]; {
		case err == nil && row != "wal private":
			t.Errorf("%s is built and has no row:\n%s", name, o.out)
		case err != nil && (row != "" || !strings.Contains(o.out, name+" skipped: ") || !strings.Contains(o.err, "http-ladder: "+name+" skipped: ")):
			t.Errorf("%s is not built and has a row or no line saying so:\n%s\n%s", name, o.out, o.err)
		case err != nil && os.Getenv("LITEBENCH_REQUIRE_WORKERS") == "1":
			t.Errorf("%s: %v (LITEBENCH_REQUIRE_WORKERS=1)", name, err)
		}
	}
}
