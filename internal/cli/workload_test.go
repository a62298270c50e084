package cli

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/gen"
	"github.com/litebench/litebench/internal/spec"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/workload"
)

var examples = filepath.Join("..", "..", "examples")

// opsOf returns a JSON line's ops by name.
func opsOf(t *testing.T, j map[string]any) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, x := range j["ops"].([]any) {
		o := x.(map[string]any)
		out[o["name"].(string)] = o
	}
	return out
}

// Every example runs on every target: the bank file (its checks pass, its
// statements have results of their own, part of their transaction),
// pgbench's scripts with their init SQL, and a file calling native
// operations (a verifying scan, pages by OFFSET and by keyset).
func TestExamplesOnEveryTarget(t *testing.T) {
	for _, name := range target.InProcessNames() {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "bank.db")
			o := run(t, context.Background(), "run", filepath.Join(examples, "bank.toml"), "--target", name, "--accounts", "500",
				"--count", "600", "--workers", "2", "--journal", "wal", "--busy-retry", "until", "--db", db, "--keep",
				"--no-store", "--format", "json", "--progress", "0")
			if o.code != 0 {
				t.Fatalf("bank: exit %d: %s", o.code, o.err)
			}
			j := jsonLines(t, o.out)[0]
			if j["status"] != "ok" || j["workload"] != "bank" || j["rows"].(float64) != 600 {
				t.Fatalf("bank: %v %v %v rows: %v", j["status"], j["workload"], j["rows"], j["error"])
			}
			ops := opsOf(t, j)
			tr, lk, debit := ops["transfer"], ops["lookup"], ops["transfer:debit"]
			if tr == nil || lk == nil || debit == nil || tr["count"].(float64)+lk["count"].(float64) != 600 {
				t.Fatalf("bank ops: %v", ops)
			}
			if debit["of"] != "transfer" || tr["of"] != nil || debit["count"].(float64) < tr["count"].(float64) {
				t.Errorf("transfer:debit %v, transfer %v", debit, tr)
			}
			notes, _ := j["notes"].([]any)
			if len(notes) != 2 || !strings.Contains(notes[0].(string), "passed") {
				t.Errorf("checks: %v", notes)
			}
			// Every transfer left a history row and moved money, but no
			// money appeared.
			n, _ := countRows(t, db, "history")
			if float64(n) != tr["count"].(float64) {
				t.Errorf("%d history rows for %v transfers", n, tr["count"])
			}

			pg := filepath.Join(examples, "pgbench")
			o = run(t, context.Background(), "run", "-f", filepath.Join(pg, "tpcb.sql")+"@3", "-f", filepath.Join(pg, "select.sql")+"@1",
				"--init", filepath.Join(pg, "init.sql"), "-D", "scale=1", "--target", name, "--count", "400", "--db", db+"2", "--keep",
				"--no-store", "--format", "json", "--progress", "0")
			if o.code != 0 {
				t.Fatalf("pgbench: exit %d: %s", o.code, o.err)
			}
			j = jsonLines(t, o.out)[0]
			ops = opsOf(t, j)
			if j["status"] != "ok" || j["workload"] != "tpcb+select" || ops["tpcb"] == nil || ops["select"] == nil || ops["tpcb:begin"] == nil || ops["tpcb:commit"] == nil {
				t.Fatalf("pgbench: %v: %v", j["error"], ops)
			}
			if n, _ := countRows(t, db+"2", "pgbench_history"); float64(n) != ops["tpcb"]["count"].(float64) {
				t.Errorf("%d history rows for %v tpcb transactions", n, ops["tpcb"]["count"])
			}
			if n, _ := countRows(t, db+"2", "pgbench_accounts"); n != 100000 {
				t.Errorf("init loaded %d accounts, want 100000 (scale 1)", n)
			}

			o = run(t, context.Background(), "run", filepath.Join(examples, "pagination.toml"), "--target", name, "--rows", "3000",
				"--depth", "2000", "--count", "60", "--no-store", "--format", "json", "--progress", "0")
			if o.code != 0 {
				t.Fatalf("pagination: exit %d: %s", o.code, o.err)
			}
			j = jsonLines(t, o.out)[0]
			ops = opsOf(t, j)
			if j["status"] != "ok" || ops["scan"]["count"].(float64) == 0 || ops["offset"]["count"].(float64) == 0 || ops["keyset"]["count"].(float64) == 0 {
				t.Errorf("pagination: %v %v", j["error"], ops)
			}
		})
	}
}

// A workload file runs in a worker process too: the job carries its text.
func TestFileInWorkerProcess(t *testing.T) {
	o := run(t, context.Background(), "run", filepath.Join(examples, "bank.toml"), "--accounts", "300", "--count", "300",
		"--placement", "in-process,process", "--no-store", "--format", "json", "--progress", "0")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	ls := jsonLines(t, o.out)
	if len(ls) != 2 {
		t.Fatalf("%d runs", len(ls))
	}
	for _, j := range ls {
		if j["status"] != "ok" || j["rows"].(float64) != 300 || opsOf(t, j)["transfer:commit"] == nil {
			t.Errorf("%v: %v %v", j["settings"].(map[string]any)["placement"], j["status"], j["error"])
		}
	}
}

// The built-in write, run from its embedded file, makes the changes the
// Go workload made: each update rewrites the row the worker's key
// generator picks with that row's values under seed + 1 (computed here
// from gen and the Go schema, independently of the file).
func TestBuiltinWriteUpdatesTheRowsTheKeysPick(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "w.db")
	o := run(t, context.Background(), "write", "--write-kind", "update", "--rows", "200", "--count", "300", "--seed", "7",
		"--db", db, "--keep", "--no-store", "--progress", "0")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	keys := gen.NewKeyGen(gen.KeysUniform, nil, 7, 0)
	updated := map[int64]bool{}
	for range 300 {
		updated[keys.Next(200)] = true
	}
	sqldb, err := sql.Open("sqlite3", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer sqldb.Close()
	rows, err := sqldb.Query("SELECT ID, rand, hash FROM bench ORDER BY ID")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := int64(0)
	for rows.Next() {
		var id int64
		var r, h string
		if err := rows.Scan(&id, &r, &h); err != nil {
			t.Fatal(err)
		}
		seed := uint64(7)
		if updated[id] {
			seed = 8
		}
		if wr, wh := workload.BenchValues(seed, id); r != wr || h != wh {
			t.Fatalf("row %d: %s %s, want seed %d's %s %s", id, r, h, seed, wr, wh)
		}
		n++
	}
	if n != 200 {
		t.Errorf("%d rows, want 200", n)
	}
}

// A failed check is a failed run, saying which check and what it got.
func TestFailedCheckFailsTheRun(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "c.toml")
	os.WriteFile(f, []byte(`
[[table]]
name = "t"
rows = 10
columns = [{ name = "id", type = "integer", primary_key = true, gen = "seq(1)" }, { name = "n", type = "int", gen = "const(0)" }]

[transaction.bump]
steps = ['\set id random(1, 10)', "UPDATE t SET n = n + 1 WHERE id = :id"]

[[check]]
name = "nothing changed"
sql = "SELECT sum(n) FROM t"
expect = "unchanged"

[[check]]
name = "ten rows"
sql = "SELECT count(*) FROM t"
expect = 10
`), 0o644)
	o := run(t, context.Background(), "run", f, "--count", "50", "--no-store", "--format", "json", "--progress", "0")
	if o.code != ExitFailed {
		t.Fatalf("exit %d, want 1: %s", o.code, o.err)
	}
	j := jsonLines(t, o.out)[0]
	if j["status"] != "failed" || !strings.Contains(j["error"].(string), `check "nothing changed" failed: got 50, want 0 (unchanged)`) {
		t.Errorf("%v: %v", j["status"], j["error"])
	}
	if notes := j["notes"].([]any); len(notes) != 2 || !strings.Contains(notes[1].(string), `"ten rows" passed`) {
		t.Errorf("notes %v", notes)
	}
}

// A bad file, a statement that does not prepare, an unsupported
// meta-command: one line naming FILE:LINE:COLUMN, exit 2, nothing
// created.
func TestBadWorkloadFilesTouchNothing(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	table := `
[[table]]
name = "t"
rows = 10
columns = [{ name = "id", type = "integer", primary_key = true, gen = "seq(1)" }, { name = "v", type = "text", gen = "hex(4)" }]
`
	bad := write("bad.toml", table+"\n[transaction.x]\nsteps = [\"SELECT v FROM t WHERE id = :nope\"]\n")
	prep := write("prep.toml", table+"\n[statement.get]\nsql = \"SELECT w FROM t WHERE id = :id\"\n\n[transaction.x]\nsteps = ['\\set id 1', \"get\"]\n")
	script := write("s.sql", "\\set aid random(1, 10)\n\\setshell x echo 1\nSELECT :aid;\n")
	weights := write("w.sql", "SELECT 1;\n")
	store := filepath.Join(dir, "store.db")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", bad}, bad + ":8:38: unbound parameter :nope"},
		{[]string{"run", prep}, prep + ":8:8: does not prepare: no such column: w"},
		{[]string{"run", "-f", script}, script + ":2:1: \\setshell is not supported"},
		{[]string{"run", "-f", weights + "@0"}, "-f: every weight is 0"},
		{[]string{"run", "-f", filepath.Join(examples, "bank.toml")}, "a workload file runs as 'litebench run "},
		{[]string{"run", filepath.Join(dir, "missing.toml")}, "no such file"},
		{[]string{"run", filepath.Join(examples, "bank.toml"), "--frobnicate", "1"}, "unknown flag --frobnicate"},
		{[]string{"workload", "check", prep}, prep + ":8:8: does not prepare"},
		{[]string{"workload", "show", "scan"}, "written in Go"},
	} {
		o := run(t, context.Background(), append(c.args, "--store", store, "--progress", "0")...)
		if c.args[0] == "workload" {
			o = run(t, context.Background(), c.args...)
		}
		if o.code != ExitUsage || strings.Count(strings.TrimSpace(o.err), "\n") != 0 || !strings.Contains(o.err, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and one line with %q", c.args, o.code, o.err, c.want)
		}
	}
	if _, err := os.Stat(store); err == nil {
		t.Error("a store was created")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 4 {
		t.Errorf("files in the directory: %v", ents)
	}
}

// 'workload show' prints the embedded file, which is what the built-in
// runs and what a user copies; run as a file, it is the built-in.
func TestWorkloadShowRunsAsTheBuiltin(t *testing.T) {
	o := run(t, context.Background(), "workload", "show", "read")
	want, _ := spec.Builtin("read")
	if o.code != 0 || o.out != want {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "myread.toml")
	os.WriteFile(f, []byte(o.out), 0o644)
	for _, args := range [][]string{{"read"}, {"run", f}} {
		o := run(t, context.Background(), append(args, "--rows", "300", "--count", "200", "--keys", "zipfian", "--no-store", "--format", "json", "--progress", "0")...)
		if o.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, o.code, o.err)
		}
		j := jsonLines(t, o.out)[0]
		if j["workload"] != "read" || j["rows"].(float64) != 200 || opsOf(t, j)["read"]["count"].(float64) != 200 {
			t.Errorf("%v: %v", args, j)
		}
		if !strings.HasPrefix(j["command"].(string), "litebench "+strings.Join(args, " ")+" --target mattn") {
			t.Errorf("%v: command %v", args, j["command"])
		}
	}
	o = run(t, context.Background(), "list", "workloads")
	if o.code != 0 || !strings.Contains(o.out, "a workload file (litebench workload show read)") || !strings.Contains(o.out, "Go (native)") {
		t.Errorf("list workloads: %s", o.out)
	}
	o = run(t, context.Background(), "workload", "check", filepath.Join(examples, "bank.toml"))
	if o.code != 0 || !strings.Contains(o.out, "bank: ok") {
		t.Errorf("workload check: %d %s %s", o.code, o.out, o.err)
	}
}

// A database a file's run kept holds the file's tables: the next run of
// the file may replace it.
func TestFileDatabaseIsReused(t *testing.T) {
	db := filepath.Join(t.TempDir(), "b.db")
	for range 2 {
		o := run(t, context.Background(), "run", filepath.Join(examples, "bank.toml"), "--accounts", "100", "--count", "50",
			"--db", db, "--keep", "--no-store", "--progress", "0")
		if o.code != 0 {
			t.Fatalf("exit %d: %s", o.code, o.err)
		}
	}
}
