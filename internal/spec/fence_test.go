package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/workload"
)

const fenceBase = `name = "f"
[[table]]
name = "t"
rows = "1"
columns = [{ name = "id", type = "integer", primary_key = true, gen = "seq(1)" }]
%s
[statement.s]
sql = "SELECT id FROM t"
%s
[transaction.read]
steps = ["s"]
`

func fenceWorkload(t *testing.T, table, stmt string) error {
	t.Helper()
	text := strings.Replace(strings.Replace(fenceBase, "%s", table, 1), "%s", stmt, 1)
	f, err := ParseFile("f.toml", []byte(text))
	if err != nil {
		return err
	}
	_, err = f.WorkloadSpec(nil).New(map[string]string{}, settings.Default())
	return err
}

// A table's create and a statement's dialect text are fenced too, as
// they run: a create with a template is checked after the parameter is
// put in.
func TestFenceCreateAndDialect(t *testing.T) {
	for _, c := range []struct{ table, stmt, want string }{
		{`create = ["CREATE TABLE t(id INTEGER PRIMARY KEY)", "VACUUM INTO 'x.db'"]`, "", "f.toml:6:"},
		{"", `dialect = { sqlite = "ATTACH 'x.db' AS x" }`, "«ATTACH 'x.db' AS x» refused"},
		{`create = "CREATE TABLE t(id INTEGER PRIMARY KEY); ${what}"` + "\n[params]\nwhat = { default = \"DETACH x\" }", "", "«DETACH x» refused"},
	} {
		err := fenceWorkload(t, c.table, c.stmt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s%s: %v, want %q", c.table, c.stmt, err, c.want)
		}
	}
	if err := fenceWorkload(t, `create = "CREATE TABLE t(id INTEGER PRIMARY KEY, \"attach\" TEXT)"`, ""); err != nil {
		t.Errorf("a column called attach: %v", err)
	}
}

// A worker process rebuilds the workload from its definition with the
// allowed files, and without them refuses the same ATTACH.
func TestFenceDefinitionCarriesAllowAttach(t *testing.T) {
	ref := filepath.Join(t.TempDir(), "ref.db")
	if err := os.WriteFile(ref, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(strings.ReplaceAll(fenceBase, "%s", ""), `name = "f"`, `name = "f"`+"\ninit = \"ATTACH '"+ref+"' AS r\"", 1)
	f, err := ParseFile("f.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	sp := f.WorkloadSpec(nil)
	if _, err := sp.New(map[string]string{}, settings.Default()); err == nil || !strings.Contains(err.Error(), "--allow-attach "+ref) {
		t.Fatalf("without --allow-attach: %v", err)
	}
	if err := sp.AllowAttach([]string{ref}); err != nil {
		t.Fatal(err)
	}
	w, err := sp.New(map[string]string{}, settings.Default())
	if err != nil {
		t.Fatal(err)
	}
	d := w.(workload.Defined).Definition()
	again, err := FromDefinition(d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := again.New(map[string]string{}, settings.Default()); err != nil {
		t.Errorf("rebuilt from its definition: %v", err)
	}
	d.Sources = d.Sources[:len(d.Sources)-1] // the worker loses the allowed file
	again, err = FromDefinition(d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := again.New(map[string]string{}, settings.Default()); err == nil {
		t.Errorf("rebuilt without --allow-attach, the ATTACH went through")
	}
	// Workers of other languages get the read-only URI in their program.
	p, err := w.(*Workload).Program(dialect.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Init) != 1 || !strings.HasPrefix(p.Init[0], "ATTACH 'file://") || !strings.Contains(p.Init[0], "?mode=ro'") {
		t.Errorf("program init %q: want the read-only URI", p.Init)
	}
}
