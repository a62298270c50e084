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
