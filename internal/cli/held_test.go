package cli

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// fileSet is the names and SHA-256 sums of path and its companions.
func fileSet(t *testing.T, path string) map[string][32]byte {
	t.Helper()
	set := map[string][32]byte{}
	for _, suf := range []string{"", "-wal", "-shm", "-journal"} {
		b, err := os.ReadFile(path + suf)
		if err == nil {
			set[filepath.Base(path+suf)] = sha256.Sum256(b)
		} else if !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	return set
}

func names(set map[string][32]byte) string {
	var n []string
	for k := range set {
		n = append(n, k)
	}
	sort.Strings(n)
	return strings.Join(n, " ")
}

func sameFiles(t *testing.T, what string, before, after map[string][32]byte) {
	t.Helper()
	if names(before) != names(after) {
		t.Errorf("%s: files were %q, are %q", what, names(before), names(after))
		return
	}
	for k, sum := range before {
		if after[k] != sum {
			t.Errorf("%s changed %s", what, k)
		}
	}
}

// TestScanReadsHeldRows: scan and paginate on a kept, vacuumed database
// read the rows it holds, say how many before the run, leave the file
// byte-identical, refuse a --rows that differs and a file whose tables do
// not fit, and load afresh only with --reload.
func TestScanReadsHeldRows(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	if o := run(t, ctx, "insert", "--db", db, "--rows", "3000", "--vacuum", "--no-store", "--progress", "0"); o.code != ExitOK {
		t.Fatalf("insert: exit %d: %s", o.code, o.err)
	}
	before := fileSet(t, db)

	o := run(t, ctx, "scan", "--db", db, "--no-store", "--progress", "0", "--format", "json")
	if o.code != ExitOK {
		t.Fatalf("scan: exit %d: %s", o.code, o.err)
	}
	note := strings.Index(o.err, "holds 3000 bench rows: scan reads them as they are (--reload")
	start := strings.Index(o.err, "scan mattn ...")
	if note < 0 || start < 0 || note > start {
		t.Errorf("scan does not say, before the run, that it reads the 3000 rows held:\n%s", o.err)
	}
	js := jsonLines(t, o.out)
	if len(js) != 1 || js[0]["rows"] != 3000.0 || js[0]["status"] != "ok" {
		t.Errorf("scan: want one ok run of 3000 rows, got %v", js)
	}
	if strings.Contains(o.err, "dropped") {
		t.Errorf("scan dropped the held rows:\n%s", o.err)
	}
	sameFiles(t, "scan", before, fileSet(t, db))

	o = run(t, ctx, "paginate", "--db", db, "--depths", "10,2000", "--count", "2", "--no-store", "--progress", "0", "--format", "json")
	if o.code != ExitOK || !strings.Contains(o.err, "holds 3000 bench rows: paginate reads them") {
		t.Errorf("paginate: exit %d: %s", o.code, o.err)
	}
	if js := jsonLines(t, o.out); len(js) != 1 || js[0]["params"].(map[string]any)["rows"] != "3000" {
		t.Errorf("paginate: want rows=3000 in its parameters, got %v", js)
	}
	sameFiles(t, "paginate", before, fileSet(t, db))

	// Depths past the rows held: the error says they are the file's.
	o = run(t, ctx, "paginate", "--db", db, "--no-store", "--progress", "0")
	if o.code != ExitUsage || !strings.Contains(o.err, "holds 3000 bench rows; to load more, pass --reload with --rows") ||
		strings.Count(strings.TrimSpace(o.err), "\n") != 0 {
		t.Errorf("paginate past the rows held: exit %d, %q", o.code, o.err)
	}

	// A --rows that differs is refused, naming --reload; the file stays.
	o = run(t, ctx, "scan", "--db", db, "--rows", "5000", "--no-store", "--progress", "0")
	if o.code != ExitUsage || !strings.Contains(o.err, "holds 3000 bench rows") || !strings.Contains(o.err, "--reload") ||
		strings.Count(strings.TrimSpace(o.err), "\n") != 0 {
		t.Errorf("scan --rows 5000: exit %d, %q; want exit 2 and one line naming --reload", o.code, o.err)
	}
	sameFiles(t, "refused scan", before, fileSet(t, db))

	// --reload loads --rows afresh.
	o = run(t, ctx, "scan", "--db", db, "--rows", "2000", "--reload", "--no-store", "--progress", "0", "--format", "json")
	if js := jsonLines(t, o.out); o.code != ExitOK || len(js) != 1 || js[0]["rows"] != 2000.0 {
		t.Errorf("scan --reload --rows 2000: exit %d: %s %s", o.code, o.out, o.err)
	}
	if o := run(t, ctx, "inspect", "--db", db); !strings.Contains(o.out, "2000 rows") {
		t.Errorf("after --reload, inspect says:\n%s", o.out)
	}

	// A database whose table does not fit scan.
	users := filepath.Join(dir, "u.db")
	if o := run(t, ctx, "insert", "--db", users, "--schema", "users", "--rows", "100", "--no-store", "--progress", "0"); o.code != ExitOK {
		t.Fatalf("insert users: exit %d: %s", o.code, o.err)
	}
	ub := fileSet(t, users)
	o = run(t, ctx, "scan", "--db", users, "--no-store", "--progress", "0")
	if o.code != ExitUsage || !strings.Contains(o.err, "holds table users, not the bench table") || !strings.Contains(o.err, "--reload") ||
		strings.Count(strings.TrimSpace(o.err), "\n") != 0 {
		t.Errorf("scan of a users database: exit %d, %q; want exit 2 and one line naming --reload", o.code, o.err)
	}
	sameFiles(t, "refused scan", ub, fileSet(t, users))

	// --reload needs --db.
	if o := run(t, ctx, "scan", "--reload", "--rows", "10", "--no-store"); o.code != ExitUsage || !strings.Contains(o.err, "--reload needs --db") {
		t.Errorf("scan --reload without --db: exit %d, %q", o.code, o.err)
	}
}

// TestPragmaInspectWAL: pragma and inspect read a WAL database as a reader
// does (journal_mode wal, what only the -wal holds), whether it was closed
// cleanly, is open in another connection, or has a -wal without a -shm, and
// leave the file set byte-identical with nothing created beside it.
func TestPragmaInspectWAL(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "w.db")
	h, err := sql.Open("sqlite3", db)
	if err != nil {
		t.Fatal(err)
	}
	h.SetMaxOpenConns(1)
	for _, q := range []string{"PRAGMA journal_mode=wal", "PRAGMA wal_autocheckpoint=0", "CREATE TABLE t(x)", "PRAGMA user_version=7"} {
		if _, err := h.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what, wantUV string) {
		t.Helper()
		before := fileSet(t, db)
		o := run(t, ctx, "pragma", "journal_mode", "--db", db)
		if o.code != ExitOK || strings.TrimSpace(o.out) != "journal_mode = wal" {
			t.Errorf("%s: pragma journal_mode: exit %d, %q %q; want wal", what, o.code, o.out, o.err)
		}
		o = run(t, ctx, "pragma", "user_version", "--db", db)
		if o.code != ExitOK || strings.TrimSpace(o.out) != "user_version = "+wantUV {
			t.Errorf("%s: pragma user_version: %q %q; want %s", what, o.out, o.err, wantUV)
		}
		o = run(t, ctx, "pragma", "database_list", "--db", db)
		if o.code != ExitOK || !strings.Contains(o.out, db) {
			t.Errorf("%s: pragma database_list does not name %s: %q %q", what, db, o.out, o.err)
		}
		o = run(t, ctx, "pragma", "wal_checkpoint", "--db", db)
		if o.code != ExitUsage || !strings.Contains(o.err, "a checkpoint writes the database") || strings.Count(strings.TrimSpace(o.err), "\n") != 0 {
			t.Errorf("%s: pragma wal_checkpoint: exit %d, %q", what, o.code, o.err)
		}
		o = run(t, ctx, "inspect", "--db", db)
		if o.code != ExitOK || !strings.Contains(o.out, "journal_mode") || !strings.Contains(o.out, "user_version     "+wantUV) {
			t.Errorf("%s: inspect:\n%s%s", what, o.out, o.err)
		}
		sameFiles(t, what, before, fileSet(t, db))
	}

	// The files of a database open in another process: -wal and -shm
	// exist, user_version 9 is only in the -wal. (Copies: a connection of
	// this process to the same file would share its -shm with the reader.)
	if _, err := h.Exec("PRAGMA user_version=9"); err != nil {
		t.Fatal(err)
	}
	copyAs := func(name string, sufs ...string) string {
		to := filepath.Join(dir, name)
		for _, suf := range sufs {
			b, err := os.ReadFile(db + suf)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(to+suf, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return to
	}
	open := copyAs("o.db", "", "-wal", "-shm")
	crashed := copyAs("c.db", "", "-wal") // as a crashed writer leaves it
	h.Close()
	db = open
	check("open WAL database", "9")
	db = crashed
	check("-wal without -shm", "9")

	// Closed cleanly: no companions, the header says WAL.
	db = filepath.Join(dir, "w.db")
	if _, err := os.Stat(db + "-wal"); !os.IsNotExist(err) {
		t.Fatalf("want no -wal after close: %v", err)
	}
	check("closed WAL database", "9")
}
