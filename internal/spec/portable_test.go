package spec

import (
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/settings"
)

const immediateFile = `name = "t"
[[table]]
name = "a"
rows = 10
columns = [{ name = "id", type = "int", primary_key = true, gen = "seq(1)" }, { name = "n", type = "int", gen = "const(0)" }]
[transaction.w]
steps = ["BEGIN IMMEDIATE", "UPDATE a SET n = n + 1 WHERE id = 1", "COMMIT"]
`

// BEGIN IMMEDIATE asks SQLite for the tx setting it names, and runs as
// the engine's own begin where the engine does not run --tx.
func TestCheckBeginPerEngine(t *testing.T) {
	settings.Ignore("server-without-tx", "tx", "it has one begin")
	f, err := ParseFile("t.toml", []byte(immediateFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.WorkloadSpec(nil).SettingDefaults["tx"]; got != "immediate" {
		t.Fatalf("the file's tx default is %q, want immediate", got)
	}
	for _, c := range []struct {
		tx, engine, err string
	}{
		{"immediate", "sqlite", ""},
		{"deferred", "sqlite", "t.toml:7:11: BEGIN IMMEDIATE needs --tx immediate (the tx setting is deferred; litebench begins transactions as the setting says)"},
		{"deferred", "server-without-tx", ""},
	} {
		s := settings.Default()
		s.Set("batch", "1")
		s.Set("tx", c.tx)
		w, err := f.Resolve(map[string]string{}, s)
		if err != nil {
			t.Fatal(err)
		}
		err = w.CheckBegin(c.engine)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.err {
			t.Errorf("--tx %s on %s: got %q, want %q", c.tx, c.engine, got, c.err)
		}
		if strings.Count(got, "--tx") > 1 {
			t.Errorf("the advice is repeated: %s", got)
		}
	}
}

const createFile = `name = "t"
[[table]]
name = "u"
rows = 3
columns = [{ name = "id", type = "integer", primary_key = true, gen = "seq(1)" }, { name = "email", type = "text", gen = "hex(8)" }]
indexes = [{ name = "u_email", columns = ["email"], unique = true }]
create = "CREATE TABLE u(id INTEGER PRIMARY KEY, email VARCHAR(100))"
[transaction.r]
steps = ["SELECT count(*) FROM u"]
`

// A table's own DDL and its indexes both apply: the indexes are rendered
// after the DDL, on every engine alike; an index the DDL also makes is
// refused in one line.
func TestCreateWithIndexes(t *testing.T) {
	w := parseResolve(t, createFile, nil)
	want := []string{"CREATE TABLE u(id INTEGER PRIMARY KEY, email VARCHAR(100))", "CREATE UNIQUE INDEX u_email ON u(email)"}
	if got := w.tables[0].create; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("create runs\n%q\nwant\n%q", got, want)
	}
	twice := strings.Replace(createFile, `create = "CREATE TABLE u(id INTEGER PRIMARY KEY, email VARCHAR(100))"`,
		`create = ["CREATE TABLE u(id INTEGER PRIMARY KEY, email VARCHAR(100))", "CREATE INDEX u_email ON u(email)"]`, 1)
	_, err := ParseFile("t.toml", []byte(twice))
	const msg = "t.toml:2:3: table u: index u_email is made both by create and by indexes: drop it from one of them"
	if err == nil || err.Error() != msg {
		t.Errorf("got %v, want %s", err, msg)
	}
}
