package all_test

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/engine/sqlite"
	"github.com/litebench/litebench/internal/sqlfence"
	"github.com/litebench/litebench/internal/target"
	_ "github.com/litebench/litebench/internal/target/all"
)

// fenced are the in-process Go clients whose connections carry
// sqlfence's authorizer; modernc exposes no authorizer.
var fenced = []string{"mattn", "ncruces", "ncruces-direct", "zombie"}

func sum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// makeDB writes a database file with one table through modernc (which
// has no fence), outside any target.
func makeDB(t *testing.T, path string) {
	t.Helper()
	tg, err := target.Get("modernc")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := tg.Open(ctx, engine.Endpoint{Engine: sqlite.Name, DSN: "file:" + path, File: path}, target.PoolOptions{MaxOpen: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"CREATE TABLE precious(x)", "INSERT INTO precious VALUES (42)"} {
		if err := db.Exec(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// The authorizer refuses what the controller's check refuses even when a
// statement reaches the client directly: ATTACH of a user's file, a bare
// ATTACH that would create one, VACUUM INTO and DETACH. Plain VACUUM
// (which attaches a temporary database itself) and a read-only ATTACH of
// a URI (what --allow-attach writes) still work.
func TestClientsRefuseAttach(t *testing.T) {
	ctx := context.Background()
	for _, name := range fenced {
		t.Run(name, func(t *testing.T) {
			tg, err := target.Get(name)
			if err != nil {
				t.Skipf("%s: %v", name, err)
			}
			dir := t.TempDir()
			victim := filepath.Join(dir, "victim.db")
			makeDB(t, victim)
			before := sum(t, victim)
			own := filepath.Join(dir, "bench.db")
			db, err := tg.Open(ctx, engine.Endpoint{Engine: sqlite.Name, DSN: "file:" + own, File: own}, target.PoolOptions{MaxOpen: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.Exec(ctx, "CREATE TABLE t(x); INSERT INTO t VALUES (1)", nil); err != nil {
				t.Fatal(err)
			}
			created := filepath.Join(dir, "created.db")
			copied := filepath.Join(dir, "copy.db")
			for _, q := range []string{
				"ATTACH DATABASE '" + victim + "' AS v",
				"ATTACH '" + created + "' AS c",
				"VACUUM INTO '" + copied + "'",
				"VACUUM main INTO '" + copied + "'",
				"ATTACH 'file:" + victim + "?mode=rw' AS v",
			} {
				err := db.Exec(ctx, q, nil)
				if err == nil || !(strings.Contains(err.Error(), "not authorized") || strings.Contains(err.Error(), "authorization denied")) {
					t.Errorf("%s: err = %v, want not authorized or authorization denied", q, err)
				}
			}
			if err := db.Exec(ctx, "DROP TABLE v.precious", nil); err == nil {
				t.Errorf("DROP TABLE v.precious ran: the victim was attached")
			}
			for _, p := range []string{created, copied} {
				if _, err := os.Stat(p); !os.IsNotExist(err) {
					t.Errorf("%s exists (stat: %v)", p, err)
				}
			}
			if err := db.Exec(ctx, "VACUUM", nil); err != nil {
				t.Errorf("plain VACUUM: %v", err)
			}
			ro, err := sqlfence.ReadOnlyURI(victim)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Exec(ctx, "ATTACH '"+ro+"' AS r", nil); err != nil {
				t.Fatalf("read-only ATTACH: %v", err)
			}
			var n int64
			if err := db.Query(ctx, "SELECT x FROM r.precious", nil, func(r target.Row) error { return r.Scan(&n) }); err != nil || n != 42 {
				t.Errorf("reading the attached file: %d, %v", n, err)
			}
			if err := db.Exec(ctx, "INSERT INTO r.precious VALUES (1)", nil); err == nil {
				t.Errorf("wrote to a read-only attached database")
			}
			if err := db.Exec(ctx, "DETACH r", nil); err == nil {
				t.Errorf("DETACH was authorized")
			}
			// The limit: a second attached database is refused.
			if err := db.Exec(ctx, "ATTACH '"+ro+"' AS r2", nil); err == nil || !strings.Contains(err.Error(), "too many attached") {
				t.Errorf("a second ATTACH: %v, want too many attached databases", err)
			}
			db.Close()
			if sum(t, victim) != before {
				t.Errorf("%s changed", victim)
			}
		})
	}
}
