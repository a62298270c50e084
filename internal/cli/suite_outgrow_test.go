package cli

import (
	"context"
	"encoding/csv"
	"strings"
	"testing"
)

// TestSuiteOutgrowEndToEnd runs suite outgrow for real, small: SQLite,
// PostgreSQL, MariaDB and dqlite on 1 and 3 nodes, durable and relaxed,
// every cell ok and each engine's durable and relaxed rows there (dqlite
// only durable: it has nothing to relax).
func TestSuiteOutgrowEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers and two clusters")
	}
	requireEngine(t, "postgres")
	requireEngine(t, "mariadb")
	needDqlite(t)
	o := run(t, context.Background(), "suite", "outgrow", "--duration", "300ms", "--scale", "0.01",
		"--dir", t.TempDir(), "--no-store", "--report", "none", "--progress", "0", "--format", "csv")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	recs, err := csv.NewReader(strings.NewReader(o.out)).ReadAll()
	if err != nil {
		t.Fatalf("not one CSV: %v\n%s", err, o.out)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	cells := map[string]int{}
	for _, r := range recs[1:] {
		if r[col["status"]] != "ok" {
			t.Errorf("cell not ok: %q", r)
		}
		cells[strings.SplitN(r[col["section"]], ":", 2)[0]+" "+r[col["target"]]]++
	}
	want := map[string]int{"durable mattn": 1, "durable postgres": 1, "durable mariadb": 1, "durable dqlite": 2,
		"relaxed mattn": 1, "relaxed postgres": 1, "relaxed mariadb": 1}
	for k, n := range want {
		if cells[k] != n {
			t.Errorf("%s: %d cells, want %d (all: %v)", k, cells[k], n, cells)
		}
	}
	if len(recs)-1 != 8 {
		t.Errorf("%d cells, want 8", len(recs)-1)
	}
}
