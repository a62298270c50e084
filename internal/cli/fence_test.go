package cli

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// victimDB writes a user's database with a table in it, as a file
// litebench did not create.
func victimDB(t *testing.T, path string) [32]byte {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"CREATE TABLE precious(x)", "INSERT INTO precious VALUES (42)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	return fileSum(t, path)
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// tomlString writes s as a TOML literal string (no escapes).
func tomlString(s string) string { return "'''" + s + "'''" }

// fenceFile is a workload file with init SQL and one statement.
func fenceFile(init, stmt string) string {
	return fmt.Sprintf(`name = "fence"
init = %s

[[table]]
name = "t"
rows = "10"
columns = [
  { name = "id", type = "integer", primary_key = true, gen = "seq(1)" },
  { name = "v", type = "int", gen = "uniform(0, 9)" },
]

[statement.s]
sql = %s

[transaction.read]
steps = ["s"]
`, tomlString(init), tomlString(stmt))
}

// A workload's SQL cannot reach beyond the run's database, whether it is
// a workload file's init or statement, a pgbench script or its --init:
// 'workload check' and 'run' both refuse it with exit 2 and one line
// naming the file, line and statement, before anything runs; the user's
// file stays byte-identical and no file is created.
func TestWorkloadSQLIsFenced(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim.db")
	before := victimDB(t, victim)
	created := filepath.Join(dir, "created.db")
	copied := filepath.Join(dir, "copy.db")
	attacks := []struct {
		name, sql, shown string
	}{
		{"attach-drop", "ATTACH DATABASE '" + victim + "' AS v; DROP TABLE v.precious;", "«ATTACH DATABASE '" + victim + "' AS v» refused"},
		{"vacuum-into", "vacuum  INTO '" + copied + "'", "«vacuum INTO '" + copied + "'» refused"},
		{"bare-attach", "/* a comment */ attach '" + created + "' as c", "«attach '" + created + "' as c» refused"},
	}
	okStmt := "SELECT v FROM t WHERE id = 1"
	for _, a := range attacks {
		for _, via := range []string{"init", "statement", "script", "script-init"} {
			t.Run(a.name+"/"+via, func(t *testing.T) {
				sub := t.TempDir()
				var args []string
				var file string
				var line int
				switch via {
				case "init", "statement":
					file = filepath.Join(sub, "w.toml")
					text := fenceFile("SELECT 1;\n"+a.sql, okStmt)
					line = 3 // the attack is on the init's second line
					if via == "statement" {
						text = fenceFile("SELECT 1", "\n"+a.sql)
						line = 14
					}
					if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
					args = []string{file}
				case "script":
					file = filepath.Join(sub, "s.sql")
					if err := os.WriteFile(file, []byte("-- ATTACH 'x' AS y in a comment\nSELECT 1;\n"+a.sql+"\n"), 0o644); err != nil {
						t.Fatal(err)
					}
					args, line = []string{"-f", file}, 3
				case "script-init":
					file = filepath.Join(sub, "init.sql")
					sel := filepath.Join(sub, "s.sql")
					if err := os.WriteFile(sel, []byte("SELECT 1;\n"), 0o644); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(file, []byte("CREATE TABLE k(x);\n\n"+a.sql+"\n"), 0o644); err != nil {
						t.Fatal(err)
					}
					args, line = []string{"-f", sel, "--init", file}, 3
				}
				for _, cmd := range [][]string{
					append([]string{"workload", "check"}, args...),
					append(append([]string{"run"}, args...), "--db", filepath.Join(sub, "bench.db"), "--no-store", "--count", "10", "--progress", "0"),
				} {
					o := run(t, context.Background(), cmd...)
					if o.code != 2 {
						t.Fatalf("%s: exit %d, want 2: %s%s", cmd[0], o.code, o.out, o.err)
					}
					want := fmt.Sprintf("litebench: %s:%d:", file, line)
					if !strings.HasPrefix(o.err, want) || !strings.Contains(o.err, a.shown) || strings.Count(o.err, "\n") != 1 {
						t.Errorf("%s: message %q, want one line starting %q and holding %q", cmd[0], o.err, want, a.shown)
					}
					if strings.Contains(o.out, "ok") {
						t.Errorf("%s: said %q", cmd[0], o.out)
					}
				}
				if _, err := os.Stat(filepath.Join(sub, "bench.db")); !os.IsNotExist(err) {
					t.Errorf("the bench database was created (stat: %v)", err)
				}
			})
		}
	}
	if fileSum(t, victim) != before {
		t.Errorf("%s changed", victim)
	}
	for _, p := range []string{created, copied} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists (stat: %v)", p, err)
		}
	}
}

// The other refusals: DETACH, load_extension(), a check's SQL, an ATTACH
// hidden in a parameter that init puts in as text, and an ATTACH named in
// a string or a comment (not refused).
func TestWorkloadSQLFenceCases(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, file string
		args       []string
		want       string // "" = accepted
	}{
		{"detach", fenceFile("DETACH DATABASE v", "SELECT 1"), nil, ":2:11: «DETACH DATABASE v» refused"},
		{"load-extension", fenceFile("SELECT 1", "SELECT load_extension('/tmp/evil.so')"), nil, ":13:17: «SELECT load_extension('/tmp/evil.so')» refused"},
		{"check", fenceFile("SELECT 1", "SELECT 1") + "\n[[check]]\nname = \"c\"\nsql = \"VACUUM INTO 'x.db'\"\nexpect = 0\n", nil, "«VACUUM INTO 'x.db'» refused"},
		{"parameter", strings.Replace(fenceFile("SELECT 1; :what", "SELECT 1"), "[[table]]", "[params]\nwhat = { default = \"SELECT 2\" }\n\n[[table]]", 1),
			[]string{"--what", "ATTACH 'p.db' AS p"}, "«ATTACH 'p.db' AS p» refused"},
		{"quoted", fenceFile("SELECT 'ATTACH ''x'' AS y'; -- VACUUM INTO 'z'\nCREATE TABLE \"attach\"(x)", "SELECT v AS [detach] FROM t"), nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(dir, c.name+".toml")
			if err := os.WriteFile(f, []byte(c.file), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := append([]string{"run", f, "--db", filepath.Join(dir, c.name+".db"), "--no-store", "--count", "10", "--progress", "0"}, c.args...)
			o := run(t, context.Background(), cmd...)
			if c.want == "" {
				if o.code != 0 {
					t.Fatalf("exit %d: %s", o.code, o.err)
				}
				return
			}
			if o.code != 2 || !strings.Contains(o.err, c.want) || strings.Count(o.err, "\n") != 1 {
				t.Errorf("exit %d, %q; want 2 and one line holding %q", o.code, o.err, c.want)
			}
		})
	}
	if _, err := os.Stat("p.db"); !os.IsNotExist(err) {
		t.Errorf("p.db was created")
	}
}

// --allow-attach PATH lets an ATTACH of exactly that path through,
// read-only: the workload reads the user's file and cannot write it (the
// file stays byte-identical); any other ATTACH stays refused.
func TestAllowAttachReadsReadOnly(t *testing.T) {
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref.db")
	before := victimDB(t, ref)
	other := filepath.Join(dir, "other.db")
	otherBefore := victimDB(t, other)
	file := filepath.Join(dir, "w.toml")
	text := fenceFile("ATTACH DATABASE '"+ref+"' AS r", "SELECT x FROM r.precious") +
		"\n[[check]]\nname = \"read the attached file\"\nsql = \"SELECT x FROM r.precious\"\nexpect = 42\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	common := []string{"--no-store", "--count", "20", "--progress", "0", "--format", "json"}
	// Each client in process, and one in a worker process of its own
	// (which rebuilds the workload, --allow-attach with it).
	for _, name := range append(fencedClients, "ncruces/process") {
		t.Run(name, func(t *testing.T) {
			name, placement, _ := strings.Cut(name, "/")
			if placement == "" {
				placement = "in-process"
			}
			o := run(t, context.Background(), "workload", "check", file, "--allow-attach", ref, "--target", name)
			if o.code != 0 || !strings.Contains(o.out, "fence: ok") {
				t.Fatalf("check: exit %d: %s%s", o.code, o.out, o.err)
			}
			o = run(t, context.Background(), append([]string{"run", file, "--allow-attach", ref, "--target", name, "--pool", "1",
				"--placement", placement, "--db", filepath.Join(dir, name+placement+".db")}, common...)...)
			if o.code != 0 {
				t.Fatalf("run: exit %d: %s", o.code, o.err)
			}
			j := jsonLines(t, o.out)[0]
			if j["status"] != "ok" || j["rows"].(float64) != 20 {
				t.Fatalf("run: %v, %v rows: %v", j["status"], j["rows"], j["error"])
			}
		})
	}
	// A write through the allowed name fails: the file is read-only.
	wfile := filepath.Join(dir, "write.toml")
	if err := os.WriteFile(wfile, []byte(fenceFile("ATTACH '"+ref+"' AS r;\nDELETE FROM r.precious", "SELECT 1")), 0o644); err != nil {
		t.Fatal(err)
	}
	o := run(t, context.Background(), append([]string{"run", wfile, "--allow-attach", ref, "--target", "mattn", "--pool", "1",
		"--db", filepath.Join(dir, "write.db")}, common...)...)
	if o.code == 0 || !strings.Contains(o.out+o.err, "attempt to write a readonly database") {
		t.Errorf("a DELETE in the allowed file did not fail: %s%s", o.out, o.err)
	}
	if fileSum(t, ref) != before {
		t.Errorf("%s changed", ref)
	}
	// Another path stays refused, and so does the allowed one for a target
	// that is not one of litebench's Go SQLite clients.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--allow-attach", other}, "no ATTACH of fence names this file"},
		{[]string{"--allow-attach", filepath.Join(dir, "missing.db")}, "no such file"},
		{[]string{"--allow-attach", ref, "--target", "postgres"}, "cannot take it"},
	} {
		o := run(t, context.Background(), append([]string{"run", file, "--db", filepath.Join(dir, "x.db")}, append(c.args, common...)...)...)
		if o.code != 2 || !strings.Contains(o.err, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, o.code, o.err, c.want)
		}
	}
	// Allowing one file lets no other through.
	both := filepath.Join(dir, "both.toml")
	if err := os.WriteFile(both, []byte(fenceFile("ATTACH DATABASE '"+ref+"' AS r;\nATTACH DATABASE '"+other+"' AS o", "SELECT 1")), 0o644); err != nil {
		t.Fatal(err)
	}
	o = run(t, context.Background(), "run", both, "--allow-attach", ref, "--db", filepath.Join(dir, "x.db"), "--no-store")
	if want := fmt.Sprintf("both.toml:3:1: «ATTACH DATABASE '%s' AS o» refused", other); o.code != 2 || !strings.Contains(o.err, want) {
		t.Errorf("another file: exit %d, %q; want 2 and %q", o.code, o.err, want)
	}
	if fileSum(t, other) != otherBefore {
		t.Errorf("%s changed", other)
	}
	// An --allow-attach that no ATTACH uses is a mistake.
	o = run(t, context.Background(), "run", "read", "--allow-attach", ref, "--db", filepath.Join(dir, "x.db"), "--no-store")
	if o.code != 2 || !strings.Contains(o.err, "no ATTACH of read names this file") {
		t.Errorf("read --allow-attach: exit %d, %q", o.code, o.err)
	}
	for _, p := range []string{filepath.Join(dir, "missing.db"), filepath.Join(dir, "x.db")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists", p)
		}
	}
}
