package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/worker/workertest"
)

// Every example runs unchanged on SQLite, PostgreSQL and MariaDB: bank's
// BEGIN IMMEDIATE begins each engine's read-write transaction, its
// history rows get their integer keys from the engine, its checks pass;
// pgbench's init SQL loads on every engine; pagination's native
// operations run. No run counts an error.
func TestExamplesOnEveryEngine(t *testing.T) {
	for _, e := range serverEngines {
		requireEngine(t, e)
	}
	pg := filepath.Join(examples, "pgbench")
	for _, c := range []struct {
		name   string
		args   []string
		checks []string
	}{
		{"bank", []string{filepath.Join(examples, "bank.toml"), "--accounts", "50", "--count", "200", "--tx", "immediate"},
			[]string{`check "money is neither made nor lost" passed`, `check "every transfer moved 1 to 100" passed: 0`}},
		{"tpcb+select", []string{"-f", filepath.Join(pg, "tpcb.sql") + "@9", "-f", filepath.Join(pg, "select.sql") + "@1",
			"--init", filepath.Join(pg, "init.sql"), "--count", "100"}, nil},
		{"pagination", []string{filepath.Join(examples, "pagination.toml"), "--rows", "500", "--depth", "100", "--count", "30"}, nil},
	} {
		args := append([]string{"run"}, c.args...)
		args = append(args, "--target", "mattn,postgres,mariadb", "--no-store", "--progress", "0", "--format", "json")
		o := run(t, context.Background(), args...)
		if o.code != 0 {
			t.Errorf("%s: exit %d: %s", c.name, o.code, o.err)
			continue
		}
		seen := map[any]bool{}
		for _, j := range jsonLines(t, o.out) {
			what := fmt.Sprintf("%s on %v", c.name, j["target"])
			seen[j["target"]] = true
			if j["status"] != "ok" || j["workload"] != c.name || j["count"].(float64) <= 0 || len(j["errors"].(map[string]any)) != 0 {
				t.Errorf("%s: status %v, count %v, errors %v: %v", what, j["status"], j["count"], j["errors"], j["error"])
			}
			notes := fmt.Sprint(j["notes"])
			for _, ch := range c.checks {
				if !strings.Contains(notes, ch) {
					t.Errorf("%s: no %q in the notes %s", what, ch, notes)
				}
			}
			if c.name == "bank" {
				// Every transfer inserted a history row without its key.
				ops := opsOf(t, j)
				if tr, rec := ops["transfer"], ops["transfer:record"]; tr == nil || rec == nil || tr["count"].(float64) == 0 || rec["count"] != tr["count"] {
					t.Errorf("%s: transfer %v, transfer:record %v", what, tr, rec)
				}
			}
		}
		if len(seen) != 3 {
			t.Errorf("%s ran on %v, want mattn, postgres and mariadb", c.name, seen)
		}
	}
}

// A table's create DDL and its indexes both apply on every engine: the
// unique index refuses every insert of the same email but the first.
func TestIndexesWithCreateOnEveryEngine(t *testing.T) {
	for _, e := range serverEngines {
		requireEngine(t, e)
	}
	file := filepath.Join(t.TempDir(), "u.toml")
	if err := os.WriteFile(file, []byte(`name = "u"
[[table]]
name = "u"
rows = 3
columns = [{ name = "id", type = "int", primary_key = true, gen = "seq(1)" }, { name = "email", type = "text", gen = "hex(8)" }]
indexes = [{ name = "u_email", columns = ["email"], unique = true }]
create = "CREATE TABLE u(id BIGINT PRIMARY KEY, email VARCHAR(100))"
[transaction.dup]
steps = ['\set n random(1000, 1000000000)', "INSERT INTO u(id, email) VALUES (:n, 'dup')"]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	o := run(t, context.Background(), "run", file, "--count", "5", "--target", "mattn,postgres,mariadb", "--no-store", "--progress", "0", "--format", "json")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	ls := jsonLines(t, o.out)
	if len(ls) != 3 {
		t.Fatalf("%d runs, want 3", len(ls))
	}
	for _, j := range ls {
		if errs := j["errors"].(map[string]any); j["status"] != "ok" || j["count"] != 1.0 || len(errs) != 1 || errs["constraint"] != 4.0 {
			t.Errorf("%v: status %v, %v inserted, errors %v (want 1 and 4 constraint errors): %v", j["target"], j["status"], j["count"], errs, j["error"])
		}
	}
}

// On SQLite, --foreign-keys on makes an insert that breaks a REFERENCES
// fail (a counted constraint error) and off lets it pass, as does the
// default of mattn's build (SQLite's own); each run reads the pragma
// back. A server target refuses it.
func TestForeignKeysOnSQLite(t *testing.T) {
	file := filepath.Join(t.TempDir(), "fk.toml")
	if err := os.WriteFile(file, []byte(`name = "fk"
[[table]]
name = "parent"
rows = 3
columns = [{ name = "id", type = "integer", primary_key = true, gen = "seq(1)" }]
[[table]]
name = "child"
columns = [{ name = "id", type = "integer", primary_key = true, gen = "seq(1)" }, { name = "pid", type = "int", gen = "const(1)" }]
create = "CREATE TABLE child(id INTEGER PRIMARY KEY, pid INT REFERENCES parent(id))"
[transaction.orphan]
steps = ["INSERT INTO child(pid) VALUES (999)"]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	o := run(t, context.Background(), "run", file, "--foreign-keys", "default,off,on", "--count", "5", "--target", "mattn", "--no-store", "--progress", "0", "--format", "json")
	// With foreign keys on every insert fails: that run is failed
	// (nothing succeeded), so the sweep exits 1.
	if o.code != ExitFailed {
		t.Fatalf("exit %d, want %d: %s", o.code, ExitFailed, o.err)
	}
	ls := jsonLines(t, o.out)
	if len(ls) != 3 {
		t.Fatalf("%d runs, want 3", len(ls))
	}
	for _, c := range []struct {
		fk, inForce string
		count       float64
		errors      string
		status      string
	}{{"default", "0", 5, "map[]", "ok"}, {"off", "0", 5, "map[]", "ok"}, {"on", "1", 0, "map[constraint:5]", "failed"}} {
		var j map[string]any
		for _, l := range ls {
			if l["settings"].(map[string]any)["foreign-keys"] == c.fk {
				j = l
			}
		}
		if j == nil {
			t.Fatalf("no run with foreign-keys %s", c.fk)
		}
		if j["status"] != c.status || j["count"] != c.count || fmt.Sprint(j["errors"]) != c.errors {
			t.Errorf("--foreign-keys %s: status %v, count %v, errors %v; want %s, %v and %s", c.fk, j["status"], j["count"], j["errors"], c.status, c.count, c.errors)
		}
		if got := j["in_force"].(map[string]any)["foreign_keys"]; got != c.inForce {
			t.Errorf("--foreign-keys %s: foreign_keys read back %v, want %s", c.fk, got, c.inForce)
		}
	}
	o = run(t, context.Background(), "run", file, "--foreign-keys", "on", "--target", "postgres", "--no-store")
	if want := "litebench: --foreign-keys applies to sqlite only; no target of --target postgres runs it (drop the flag or add such a target)\n"; o.code != 2 || o.err != want {
		t.Errorf("on postgres: exit %d: %q, want 2: %q", o.code, o.err, want)
	}
}

// A BEGIN IMMEDIATE against --tx deferred on SQLite is refused in one
// line that names the fix once.
func TestBeginImmediateNeedsTxOnSQLite(t *testing.T) {
	o := run(t, context.Background(), "run", filepath.Join(examples, "bank.toml"), "--tx", "deferred", "--target", "mattn", "--no-store")
	want := "litebench: --target mattn: " + filepath.Join(examples, "bank.toml") + ":59:4: BEGIN IMMEDIATE needs --tx immediate (the tx setting is deferred; litebench begins transactions as the setting says)\n"
	if o.code != 2 || o.err != want {
		t.Errorf("exit %d: %q, want 2: %q", o.code, o.err, want)
	}
}

// A file's BEGIN EXCLUSIVE makes --tx exclusive its default on SQLite,
// through database/sql (mattn) and a direct API (zombie), and begins each
// server's read-write transaction: money is kept everywhere, with two
// workers contending, and no run counts an error.
func TestBeginExclusiveOnEveryEngine(t *testing.T) {
	for _, e := range serverEngines {
		requireEngine(t, e)
	}
	file := filepath.Join(t.TempDir(), "bank.toml")
	if err := os.WriteFile(file, []byte(strings.Replace(bankFile, `"BEGIN",`, `"BEGIN EXCLUSIVE",`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	o := run(t, context.Background(), "run", file, "--count", "100", "--target", "mattn,zombie,postgres,mariadb", "--no-store", "--progress", "0", "--format", "json")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	ls := jsonLines(t, o.out)
	if len(ls) != 4 {
		t.Fatalf("%d runs, want 4", len(ls))
	}
	for _, j := range ls {
		tx := j["settings"].(map[string]any)["tx"]
		if want := map[bool]string{true: "exclusive", false: "deferred"}[j["engine"] == "sqlite"]; tx != want {
			t.Errorf("%v runs --tx %v, want %s", j["target"], tx, want)
		}
		if j["status"] != "ok" || len(j["errors"].(map[string]any)) != 0 || !strings.Contains(fmt.Sprint(j["notes"]), `check "money is kept" passed`) {
			t.Errorf("%v: status %v, errors %v, notes %v: %v", j["target"], j["status"], j["errors"], j["notes"], j["error"])
		}
	}
}

// --tx exclusive begins with BEGIN EXCLUSIVE through database/sql (mattn)
// and a direct API (zombie): in a rollback journal, a reader on another
// connection is then kept out, where after BEGIN IMMEDIATE it reads.
func TestTxExclusiveKeepsReadersOut(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"mattn", "zombie"} {
		for _, exclusive := range []bool{false, true} {
			p := target.PoolOptions{TxImmediate: !exclusive, TxExclusive: exclusive}
			tg, db := workertest.OpenDB(t, name, filepath.Join(t.TempDir(), "x.db"), map[string]string{"busy-timeout": "0", "journal": "delete"}, p)
			if err := db.Exec(ctx, "CREATE TABLE t(id INTEGER PRIMARY KEY)", nil); err != nil {
				t.Fatal(err)
			}
			tx, err := db.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			err = db.Query(ctx, "SELECT count(*) FROM t", nil, func(r target.Row) error { var n int64; return r.Scan(&n) })
			tx.Rollback()
			if busy := tg.Classify(err) == engine.Busy; busy != exclusive {
				t.Errorf("%s, exclusive %v: a reader got %v", name, exclusive, err)
			}
		}
	}
}
