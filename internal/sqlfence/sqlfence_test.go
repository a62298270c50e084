package sqlfence

import (
	"reflect"
	"testing"
)

func kinds(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Kind)
	}
	return out
}

func TestScan(t *testing.T) {
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"ATTACH DATABASE 'victim.db' AS v; DROP TABLE v.precious;", []string{Attach}},
		{"attach 'x.db' as v", []string{Attach}},
		{"  AtTaCh\n'x.db' AS v", []string{Attach}},
		{"SELECT 1; attach ':memory:' AS m", []string{Attach}},
		{"/* c */ -- c\n ATTACH 'x' AS y", []string{Attach}},
		{"DETACH DATABASE v", []string{Detach}},
		{"detach v;", []string{Detach}},
		{"VACUUM INTO 'copy.db'", []string{VacuumInto}},
		{"vacuum main into '/tmp/copy.db'", []string{VacuumInto}},
		{"VACUUM", nil},
		{"VACUUM main", nil},
		{"VACUUM \"into\"", nil}, // a schema called into, quoted
		{"EXPLAIN ATTACH 'x' AS y", []string{Attach}},
		{"EXPLAIN QUERY PLAN VACUUM INTO 'x'", []string{VacuumInto}},
		{"SELECT load_extension('evil.so')", []string{LoadExtension}},
		{"SELECT LOAD_EXTENSION ('evil.so')", []string{LoadExtension}},
		{"SELECT \"load_extension\"('evil.so')", []string{LoadExtension}},
		{"SELECT [load_extension]('evil.so')", []string{LoadExtension}},
		{"SELECT load_extension FROM t", nil}, // a column
		// Not statements: comments, strings, quoted names.
		{"-- ATTACH 'x' AS y\nSELECT 1", nil},
		{"/* ATTACH 'x' AS y; */ SELECT 1", nil},
		{"/* unclosed ATTACH 'x' AS y", nil},
		{"SELECT 'ATTACH ''x'' AS y; VACUUM INTO ''z'''", nil},
		{"SELECT 'load_extension(1)'", nil},
		{"INSERT INTO t(\"attach\") VALUES (1)", nil},
		{"SELECT [attach] FROM t; SELECT `detach` FROM t", nil},
		{"SELECT attach FROM t", nil}, // a column, not the statement
		{"CREATE TABLE attach_log(x); INSERT INTO t VALUES ('a;ATTACH')", nil},
		// Several statements in one text, some hidden behind a string with
		// a ';' in it.
		{"SELECT ';'; ATTACH 'a' AS a; VACUUM INTO 'b'; DETACH a", []string{Attach, VacuumInto, Detach}},
		{"SELECT 1 -- ;\n; ATTACH 'a' AS a", []string{Attach}},
	} {
		if got := kinds(Scan(c.q)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Scan(%q) = %v, want %v", c.q, got, c.want)
		}
	}
}

func TestScanAttachFile(t *testing.T) {
	q := "SELECT 1;\n  ATTACH DATABASE 'it''s.db' AS v; ATTACH 'a' || 'b' AS w; ATTACH ? AS z"
	fs := Scan(q)
	if len(fs) != 3 {
		t.Fatalf("Scan found %d statements, want 3", len(fs))
	}
	f := fs[0]
	if f.File != "it's.db" || q[f.Lit[0]:f.Lit[1]] != "'it''s.db'" || !f.HasLiteral() {
		t.Errorf("file %q at %v (%q), want it's.db", f.File, f.Lit, q[f.Lit[0]:f.Lit[1]])
	}
	if q[f.Off:f.Off+6] != "ATTACH" || f.Stmt != "ATTACH DATABASE 'it''s.db' AS v" {
		t.Errorf("statement at %d is %q", f.Off, f.Stmt)
	}
	for _, g := range fs[1:] {
		if g.HasLiteral() || g.File != "" {
			t.Errorf("%q: an expression read as the file %q", g.Stmt, g.File)
		}
	}
}

func TestOneLine(t *testing.T) {
	long := "SELECT aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	if got := oneLine(long); len(got) != 80 {
		t.Errorf("oneLine of %d bytes gave %d", len(long), len(got))
	}
	if got := oneLine("ATTACH\n\t'x'   AS v"); got != "ATTACH 'x' AS v" {
		t.Errorf("oneLine = %q", got)
	}
}

func TestReadOnly(t *testing.T) {
	u, err := ReadOnlyURI("/data/my ref?.db")
	if err != nil {
		t.Fatal(err)
	}
	if u != "file:///data/my%20ref%3F.db?mode=ro" {
		t.Errorf("ReadOnlyURI = %q", u)
	}
	if !ReadOnly(u) {
		t.Errorf("ReadOnly(%q) = false", u)
	}
	for _, bad := range []string{"victim.db", "/abs/victim.db", "file:victim.db?mode=ro", "file:///a.db",
		"file:///a.db?mode=rw", "file:///a.db?mode=ro&mode=rwc", "file:///a.db?vfs=x&mode=ro", "file:///a.db?mode=ro#x",
		"file://host/a.db?mode=ro", ""} {
		if ReadOnly(bad) {
			t.Errorf("ReadOnly(%q) = true", bad)
		}
	}
}

func TestAuthorize(t *testing.T) {
	for _, c := range []struct {
		action     int
		arg1, arg2 string
		want       int
	}{
		{authAttach, "victim.db", "", Deny},
		{authAttach, "/tmp/copy.db", "", Deny},
		{authAttach, "", "", 0}, // VACUUM's temporary database
		{authAttach, "file:///data/ref.db?mode=ro", "", 0},
		{authAttach, "file:///data/ref.db?mode=rwc", "", Deny},
		{authDetach, "v", "", Deny},
		{authFunction, "", "load_extension", Deny},
		{authFunction, "", "LOAD_EXTENSION", Deny},
		{authFunction, "", "abs", 0},
		{18, "", "", 0}, // SQLITE_INSERT
	} {
		if got := Authorize(c.action, c.arg1, c.arg2); got != c.want {
			t.Errorf("Authorize(%d, %q, %q) = %d, want %d", c.action, c.arg1, c.arg2, got, c.want)
		}
	}
}
