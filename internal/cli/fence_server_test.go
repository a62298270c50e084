package cli

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/engine/mariadb"
	"github.com/litebench/litebench/internal/engine/postgres"
	"github.com/litebench/litebench/internal/engine/server"
)

// withUser is server URL u as user (password pass) on database db.
func withUser(t *testing.T, u, user, pass, db string) string {
	t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	pu.User = url.UserPassword(user, pass)
	pu.Path = "/" + db
	return pu.String()
}

func execAll(t *testing.T, db *sql.DB, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func writeScript(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// deadPid is the pid of a process that has ended.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// A pgbench script's DROP DATABASE of another database, run with --dsn:
// as the run's own role (the --dsn user may make roles) the server
// refuses it and every other database and the user's table are as they
// were; as a --dsn user without CREATEROLE the script is refused before
// anything runs, naming its file and line. A database and role a killed
// run stamped are removed by the next run, which says so; a database of
// the same look that litebench did not stamp is left alone.
func TestUserDSNFencePostgres(t *testing.T) {
	requireEngine(t, postgres.Name)
	ctx := context.Background()
	srv, err := postgres.Start(ctx, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	super := open(t, "pgx", srv.URL(), func(u string) (string, error) { return u, nil })
	execAll(t, super,
		"CREATE ROLE bob LOGIN CREATEDB CREATEROLE PASSWORD 'bob'",
		"CREATE ROLE alice LOGIN CREATEDB PASSWORD 'alice'",
		"CREATE DATABASE userdb OWNER bob", "CREATE DATABASE otherdb OWNER bob", "CREATE DATABASE litebench_lookalike OWNER bob",
		"COMMENT ON DATABASE litebench_lookalike IS 'made by hand'")
	bobURL := withUser(t, srv.URL(), "bob", "bob", "userdb")
	aliceURL := withUser(t, srv.URL(), "alice", "alice", "postgres")
	for _, db := range []string{"userdb", "otherdb"} {
		d := open(t, "pgx", withUser(t, srv.URL(), "bob", "bob", db), func(u string) (string, error) { return u, nil })
		execAll(t, d, "CREATE TABLE keep (id int PRIMARY KEY, v text)", "INSERT INTO keep VALUES (1, 'mine'), (2, 'also mine')")
	}
	state := func() string {
		s := strings.Join(strings1(t, super, "SELECT datname FROM pg_database ORDER BY datname"), ",") + "|" +
			strings.Join(strings1(t, super, "SELECT rolname FROM pg_roles WHERE rolname NOT LIKE 'pg!_%' ESCAPE '!' ORDER BY rolname"), ",")
		for _, db := range []string{"userdb", "otherdb"} {
			d := open(t, "pgx", withUser(t, srv.URL(), "bob", "bob", db), func(u string) (string, error) { return u, nil })
			s += "|" + strings.Join(strings1(t, d, "SELECT id || ':' || v FROM keep ORDER BY id"), ",")
		}
		return s
	}
	was := state()
	if !strings.Contains(was, "otherdb") || !strings.Contains(was, "1:mine,2:also mine") {
		t.Fatalf("set-up: %s", was)
	}

	drop := writeScript(t, "drop.sql", "SELECT 1;\nDROP DATABASE otherdb;\n")
	reset := writeScript(t, "reset.sql", "RESET ROLE;\nDROP DATABASE otherdb;\n")
	for _, script := range []string{drop, reset} {
		o := run(t, ctx, "run", "-f", script, "--target", "postgres", "--dsn", bobURL, "--count", "20", "--no-store", "--progress", "0", "--format", "json")
		if o.code == ExitUsage {
			t.Fatalf("%s under a role: exit %d: %s", script, o.code, o.err)
		}
		if now := state(); now != was {
			t.Fatalf("%s changed the server:\nbefore %s\nafter  %s", filepath.Base(script), was, now)
		}
		for _, j := range jsonLines(t, o.out) {
			if notes := fmt.Sprint(j["notes"]); !strings.Contains(notes, "ran as role litebench_") {
				t.Errorf("%s: no note of the run's role: %s", filepath.Base(script), notes)
			}
		}
	}

	// No CREATEROLE: refused before anything runs, one line naming the
	// file, the line and the statement.
	o := run(t, ctx, "run", "-f", drop, "--target", "postgres", "--dsn", aliceURL, "--count", "20", "--no-store", "--progress", "0")
	want := drop + ":2:1: \"DROP DATABASE otherdb\""
	if o.code != ExitUsage || !strings.Contains(o.err, want) || !strings.Contains(o.err, "alice has no CREATEROLE") || strings.Count(strings.TrimSpace(o.err), "\n") != 0 {
		t.Errorf("DROP DATABASE without CREATEROLE: exit %d, %q; want 2 and one line with %q", o.code, o.err, want)
	}
	if now := state(); now != was {
		t.Fatalf("the refused run changed the server:\nbefore %s\nafter  %s", was, now)
	}
	// A script without one runs, and says which protection applied.
	sel := writeScript(t, "select.sql", "SELECT 1;\n")
	o = run(t, ctx, "run", "-f", sel, "--target", "postgres", "--dsn", aliceURL, "--count", "20", "--no-store", "--progress", "0", "--format", "json")
	if o.code != 0 {
		t.Fatalf("select under alice: exit %d: %s", o.code, o.err)
	}
	if notes := fmt.Sprint(jsonLines(t, o.out)[0]["notes"]); !strings.Contains(notes, "ran as the --dsn user (the --dsn user alice has no CREATEROLE") || !strings.Contains(notes, "were refused before the sweep") {
		t.Errorf("select under alice: notes %s", notes)
	}

	// What a killed run left: a database and its role made by bob as
	// litebench makes them, stamped by a process that is gone.
	me := server.Self()
	dead := server.Owner{Host: me.Host, Boot: me.Boot, Pid: deadPid(t), Start: 1}
	execAll(t, open(t, "pgx", bobURL, func(u string) (string, error) { return u, nil }),
		"CREATE ROLE litebench_killed_1 LOGIN",
		"GRANT litebench_killed_1 TO CURRENT_USER",
		"COMMENT ON ROLE litebench_killed_1 IS 'litebench role of run killed.1; litebench drops it when the run ends; "+dead.String()+"'",
		"CREATE DATABASE litebench_killed_1 OWNER litebench_killed_1",
		"COMMENT ON DATABASE litebench_killed_1 IS 'litebench bench database of run killed.1; litebench drops it when the run ends; "+dead.String()+"'")
	// And one whose process runs (this one): left alone.
	execAll(t, super, "CREATE DATABASE litebench_running_1",
		"COMMENT ON DATABASE litebench_running_1 IS 'litebench bench database of run running.1; litebench drops it when the run ends; "+me.String()+"'")
	o = run(t, ctx, "run", "-f", sel, "--target", "postgres", "--dsn", bobURL, "--count", "20", "--no-store", "--progress", "0")
	if o.code != 0 {
		t.Fatalf("run after a killed one: exit %d: %s", o.code, o.err)
	}
	for _, w := range []string{"removed database litebench_killed_1 on ", "removed role litebench_killed_1 on "} {
		if strings.Count(o.err, w) != 1 {
			t.Errorf("want one line %q in:\n%s", w, o.err)
		}
	}
	if strings.Contains(o.err, "lookalike") || strings.Contains(o.err, "running_1") {
		t.Errorf("named what it did not remove:\n%s", o.err)
	}
	got := strings.Join(strings1(t, super, "SELECT datname FROM pg_database WHERE datname LIKE 'litebench%' ORDER BY datname"), ",") + "|" +
		strings.Join(strings1(t, super, "SELECT rolname FROM pg_roles WHERE rolname LIKE 'litebench!_%' ESCAPE '!' ORDER BY rolname"), ",")
	if got != "litebench_lookalike,litebench_running_1|" {
		t.Errorf("litebench's databases and roles after the run: %s; want the look-alike and the running one alone", got)
	}

	// --keep: the database and its role stay, stamped as kept (no owner),
	// and the next run leaves them.
	o = run(t, ctx, "run", "-f", sel, "--target", "postgres", "--dsn", bobURL, "--count", "20", "--no-store", "--progress", "0", "--keep")
	if o.code != 0 {
		t.Fatalf("--keep: exit %d: %s", o.code, o.err)
	}
	kept := strings1(t, super, "SELECT datname || '|' || shobj_description(oid, 'pg_database') FROM pg_database WHERE datname LIKE 'litebench!_%' ESCAPE '!' AND datname NOT IN ('litebench_lookalike', 'litebench_running_1')")
	keptRole := strings1(t, super, "SELECT rolname || '|' || shobj_description(oid, 'pg_authid') FROM pg_roles WHERE rolname LIKE 'litebench!_%' ESCAPE '!'")
	if len(kept) != 1 || !strings.Contains(kept[0], "kept (--keep)") || strings.Contains(kept[0], "owner ") || len(keptRole) != 1 || !strings.Contains(keptRole[0], "kept (--keep)") {
		t.Fatalf("after --keep: databases %q, roles %q; want one of each, stamped kept", kept, keptRole)
	}
	o = run(t, ctx, "run", "-f", sel, "--target", "postgres", "--dsn", bobURL, "--count", "20", "--no-store", "--progress", "0")
	name := strings.SplitN(kept[0], "|", 2)[0]
	if o.code != 0 || strings.Contains(o.err, name) || len(strings1(t, super, "SELECT datname FROM pg_database WHERE datname = '"+name+"'")) != 1 {
		t.Errorf("the run after --keep: exit %d, touched the kept %s: %s", o.code, name, o.err)
	}
}

// The same fence on MariaDB: the run's own user, granted its database
// alone, cannot drop another; a --dsn user without CREATE USER has the
// script refused before anything runs.
func TestUserDSNFenceMariaDB(t *testing.T) {
	requireEngine(t, mariadb.Name)
	ctx := context.Background()
	srv, err := mariadb.Start(ctx, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	root := open(t, "mysql", srv.URL(), mariadb.DriverDSN)
	execAll(t, root,
		"CREATE DATABASE userdb", "CREATE DATABASE otherdb",
		"CREATE TABLE otherdb.keep (id int PRIMARY KEY, v text)", "INSERT INTO otherdb.keep VALUES (1, 'mine'), (2, 'also mine')",
		"CREATE USER 'carol'@'127.0.0.1' IDENTIFIED BY 'carol'", "GRANT ALL ON `litebench\\_%`.* TO 'carol'@'127.0.0.1'", "GRANT ALL ON userdb.* TO 'carol'@'127.0.0.1'")
	state := func() string {
		return strings.Join(strings1(t, root, "SELECT schema_name FROM information_schema.schemata ORDER BY schema_name"), ",") + "|" +
			strings.Join(strings1(t, root, "SELECT concat(id, ':', v) FROM otherdb.keep ORDER BY id"), ",") + "|" +
			strings.Join(strings1(t, root, "SELECT concat(user, '@', host) FROM mysql.user ORDER BY user, host"), ",")
	}
	was := state()
	rootURL := srv.URL() + "userdb"
	drop := writeScript(t, "drop.sql", "SELECT 1;\nDROP DATABASE otherdb;\n")
	use := writeScript(t, "use.sql", "SELECT 1;\nDROP TABLE otherdb.keep;\n")
	for _, script := range []string{drop, use} {
		o := run(t, ctx, "run", "-f", script, "--target", "mariadb", "--dsn", rootURL, "--count", "20", "--no-store", "--progress", "0", "--format", "json")
		if o.code == ExitUsage {
			t.Fatalf("%s under the run's user: exit %d: %s", script, o.code, o.err)
		}
		if now := state(); now != was {
			t.Fatalf("%s changed the server:\nbefore %s\nafter  %s", filepath.Base(script), was, now)
		}
		for _, j := range jsonLines(t, o.out) {
			if notes := fmt.Sprint(j["notes"]); !strings.Contains(notes, "ran as user litebench_") {
				t.Errorf("%s: no note of the run's user: %s", filepath.Base(script), notes)
			}
		}
	}
	carolURL := withUser(t, srv.URL(), "carol", "carol", "userdb")
	o := run(t, ctx, "run", "-f", drop, "--target", "mariadb", "--dsn", carolURL, "--count", "20", "--no-store", "--progress", "0")
	want := drop + ":2:1: \"DROP DATABASE otherdb\""
	if o.code != ExitUsage || !strings.Contains(o.err, want) || strings.Count(strings.TrimSpace(o.err), "\n") != 0 {
		t.Errorf("DROP DATABASE without CREATE USER: exit %d, %q; want 2 and one line with %q", o.code, o.err, want)
	}
	if now := state(); now != was {
		t.Fatalf("the refused run changed the server:\nbefore %s\nafter  %s", was, now)
	}

	// A killed run's database and users (stamped by a process that is
	// gone) are removed by the next run; a database of the same look
	// without the stamp, and a user of its name, are left.
	me := server.Self()
	dead := server.Owner{Host: me.Host, Boot: me.Boot, Pid: deadPid(t), Start: 1}
	execAll(t, root,
		"CREATE DATABASE litebench_killed_1 COMMENT 'litebench bench database of run killed.1; litebench drops it when the run ends; "+dead.String()+"'",
		"CREATE USER 'litebench_killed_1'@'localhost'", "CREATE USER 'litebench_killed_1'@'127.0.0.1'",
		"GRANT ALL ON litebench_killed_1.* TO 'litebench_killed_1'@'127.0.0.1'",
		"CREATE DATABASE litebench_lookalike COMMENT 'made by hand'", "CREATE USER 'litebench_lookalike'@'127.0.0.1'")
	sel := writeScript(t, "select.sql", "SELECT 1;\n")
	o = run(t, ctx, "run", "-f", sel, "--target", "mariadb", "--dsn", rootURL, "--count", "20", "--no-store", "--progress", "0")
	if o.code != 0 {
		t.Fatalf("run after a killed one: exit %d: %s", o.code, o.err)
	}
	for _, w := range []string{"removed database litebench_killed_1 on ", "removed user litebench_killed_1 on "} {
		if strings.Count(o.err, w) != 1 {
			t.Errorf("want one line %q in:\n%s", w, o.err)
		}
	}
	got := strings.Join(strings1(t, root, "SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'litebench%' ORDER BY schema_name"), ",") + "|" +
		strings.Join(strings1(t, root, "SELECT concat(user, '@', host) FROM mysql.user WHERE user LIKE 'litebench%' ORDER BY user, host"), ",")
	if got != "litebench_lookalike|litebench_lookalike@127.0.0.1" {
		t.Errorf("litebench's databases and users after the run: %s; want the look-alike alone", got)
	}
}
