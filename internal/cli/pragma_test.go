package cli

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPragmaSeedDSNTargetsAndColumns(t *testing.T) {
	db := filepath.Join(t.TempDir(), "p.db")
	h, err := sql.Open("sqlite3", db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Exec("CREATE TABLE t(x)"); err != nil {
		t.Fatal(err)
	}
	h.Close()
	before, _ := os.ReadFile(db)
	ctx := context.Background()

	o := run(t, ctx, "pragma", "busy_timeout", "--db", db+"?_busy_timeout=100", "--target", "mattn,modernc")
	if o.code != ExitOK {
		t.Fatalf("seed-style --db: exit %d: %s", o.code, o.err)
	}
	lines := strings.Split(strings.TrimSpace(o.out), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "mattn") || !strings.Contains(lines[0], "modernc") ||
		strings.Join(strings.Fields(lines[2]), " ") != "busy_timeout 100 100" {
		t.Errorf("want a column per target with 100 in each:\n%s", o.out)
	}

	o = run(t, ctx, "pragma", "wal_checkpoint", "--db", db)
	for _, col := range []string{"busy", "log", "checkpointed"} {
		if o.code != ExitOK || !strings.Contains(o.out, "wal_checkpoint "+col) {
			t.Errorf("wal_checkpoint lacks %s: exit %d %q %q", col, o.code, o.out, o.err)
		}
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"pragma", "busy_timout", "--db", db}, `unknown pragma "busy_timout"; did you mean busy_timeout`},
		{[]string{"pragma", "jurnal_mode"}, "did you mean journal_mode"},
		{[]string{"pragma", "journal_mode", "--db", db + "?_journal=wal"}, "--journal would change"},
		{[]string{"pragma", "busy_timeout", "--busy-timeout", "1,2"}, "--busy-timeout takes one value"},
		{[]string{"pragma", "busy_timeout", "--db", db + "?_nonsense=1"}, "unknown parameter"},
	} {
		o := run(t, ctx, c.args...)
		if o.code != ExitUsage || !strings.Contains(o.err, c.want) || strings.Count(strings.TrimSpace(o.err), "\n") != 0 {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line with %q", c.args, o.code, o.err, c.want)
		}
	}
	if after, _ := os.ReadFile(db); !bytes.Equal(before, after) {
		t.Errorf("pragma changed %s", db)
	}
	if _, err := os.Stat(db + "-wal"); err == nil {
		t.Errorf("pragma left a -wal beside %s", db)
	}
}
