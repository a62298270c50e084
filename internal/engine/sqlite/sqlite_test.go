package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/own"
	"github.com/litebench/litebench/internal/settings"
)

func TestURIEscapesPathAndRendersModes(t *testing.T) {
	for _, c := range []struct {
		o    options
		want string
	}{
		{options{path: "/tmp/a.db"}, "file:/tmp/a.db"},
		{options{path: "/tmp/what?#100%.db"}, "file:/tmp/what%3F%23100%25.db"},
		{options{path: "x", memory: true}, "file:x?mode=memory&cache=shared"},
		{options{path: "a b.db", readOnly: true}, "file:a b.db?mode=ro"},
		{options{path: "a.db", immutable: true, sharedCache: true}, "file:a.db?immutable=1&mode=ro&cache=shared"},
	} {
		if got := c.o.uri(); got != c.want {
			t.Errorf("%+v: got %s, want %s", c.o, got, c.want)
		}
	}
	if got := WithParam("file:a.db?mode=ro", "_txlock=immediate"); got != "file:a.db?mode=ro&_txlock=immediate" {
		t.Errorf("WithParam: %s", got)
	}
	if got := WithParam("file:a.db", "_txlock=immediate"); got != "file:a.db?_txlock=immediate" {
		t.Errorf("WithParam: %s", got)
	}
}

// A path with URI metacharacters must name the same file for SQLite.
func TestEscapedPathOpensThatFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "odd?name#1%2.db")
	db, err := sql.Open("sqlite3", options{path: path}.uri())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE t(x)"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the file the URI names was not created: %v", err)
	}
}

func TestPragmasOrderAndReaders(t *testing.T) {
	s := settings.Default()
	s.Set("page-size", "8192")
	s.Set("journal", "wal")
	s.Set("sync", "normal")
	s.Set("locking-mode", "exclusive")
	p := strings.Join(Pragmas(s, false), ";")
	if strings.Index(p, "page_size") > strings.Index(p, "journal_mode") {
		t.Errorf("page_size must come before journal_mode: %s", p)
	}
	if !strings.Contains(p, "synchronous = normal") || !strings.Contains(p, "busy_timeout = 5000") {
		t.Errorf("pragmas %s", p)
	}
	if strings.Contains(strings.Join(Pragmas(settings.Default(), false), ";"), "journal_mode") {
		t.Error("default journal must leave the driver's default alone")
	}
	r := strings.Join(Pragmas(s, true), ";")
	for _, w := range []string{"page_size", "journal_mode", "locking_mode"} {
		if strings.Contains(r, w) {
			t.Errorf("readers get %s: %s", w, r)
		}
	}
	if !strings.Contains(r, "synchronous = normal") || !strings.Contains(r, "busy_timeout") {
		t.Errorf("readers lack harmless pragmas: %s", r)
	}
}

func TestSettingsAreRegisteredAsSQLites(t *testing.T) {
	sp := settings.Lookup("journal")
	if sp == nil || sp.Engine != Name {
		t.Fatalf("journal: %+v", sp)
	}
	if settings.Lookup("pool").Engine != "" {
		t.Error("pool is an application-side setting")
	}
	if settings.Specs[0].Key != "journal" || settings.Specs[len(specs)].Key != "pool" {
		t.Errorf("engine settings first, then the application's: %s ... %s", settings.Specs[0].Key, settings.Specs[len(specs)].Key)
	}
	s := settings.Default()
	s.Set("in-memory", "true")
	s.Set("journal", "wal")
	if s.Validate() == nil {
		t.Error("memory + wal accepted")
	}
	for _, c := range []struct{ key, in, want string }{{"sync", "0", "off"}, {"sync", "EXTRA", "extra"}, {"page-size", "8192", "8192"}} {
		if err := s.Set(c.key, c.in); err != nil || s.Get(c.key) != c.want {
			t.Errorf("Set(%s, %s): %v, %s", c.key, c.in, err, s.Get(c.key))
		}
	}
	for _, c := range []struct{ key, in string }{{"sync", "4"}, {"page-size", "1000"}, {"journal", "fast"}} {
		if err := s.Set(c.key, c.in); err == nil {
			t.Errorf("Set(%s, %s) accepted", c.key, c.in)
		}
	}
}

func TestClassify(t *testing.T) {
	for code, want := range map[int]engine.ErrClass{
		0: engine.None, 5: engine.Busy, 517: engine.Busy, 6: engine.Locked, 19: engine.Constraint,
		2067: engine.Constraint, 14: engine.Conn, 9: engine.Interrupted, 1: engine.Other, 11: engine.Other,
	} {
		if got := Classify(code); got != want {
			t.Errorf("Classify(%d) = %v, want %v", code, got, want)
		}
	}
}

// db is engine.SQL over database/sql, as a client gives it.
type db struct{ *sql.DB }

func (d db) Exec(ctx context.Context, q string) error {
	_, err := d.DB.ExecContext(ctx, q)
	return err
}

func (d db) Strings(ctx context.Context, q string) ([]string, error) {
	rows, err := d.DB.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func open(t *testing.T, ep engine.Endpoint) db {
	t.Helper()
	h, err := sql.Open("sqlite3", ep.DSN)
	if err != nil {
		t.Fatal(err)
	}
	h.SetMaxOpenConns(1)
	for _, p := range ep.Init {
		if _, err := h.Exec(p); err != nil {
			t.Fatal(err)
		}
	}
	return db{h}
}

// An instance's whole life: provision, stamp, fingerprint, probe, check,
// destroy; a file litebench did not create is never replaced.
func TestInstanceLifecycle(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := settings.Default()
	s.Set("journal", "wal")
	in, err := Engine.Provision(ctx, engine.Request{Settings: s, Dir: dir, Name: "r1", Kind: anyTables})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "litebench-r1.db")
	if in.String() != path || in.Endpoint().File != path {
		t.Fatalf("instance %s, endpoint %+v", in, in.Endpoint())
	}
	d := open(t, in.Endpoint())
	if err := in.Stamp(ctx, d); err != nil {
		t.Fatal(err)
	}
	if _, err := d.DB.Exec("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)"); err != nil {
		t.Fatal(err)
	}
	fp := in.Fingerprint(ctx, d)
	if fp.Version == "" || len(fp.CompileOptions) == 0 || fp.InForce["journal_mode"] != "wal" || len(fp.Notes) != 0 {
		t.Errorf("fingerprint %+v", fp)
	}
	if p, ok := in.Probe(); !ok || p.DB == 0 || p.WAL == 0 {
		t.Errorf("probe %+v %v", p, ok)
	}
	if err := in.Check(ctx, d); err != nil {
		t.Errorf("sound database fails its check: %v", err)
	}
	d.Close()
	if db, err := own.ReadDatabase(path); err != nil || db.AppID != own.BenchAppID {
		t.Errorf("not stamped: %v", err)
	}
	if err := in.Destroy(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("destroy left %s: %v", path, err)
	}

	foreign := filepath.Join(dir, "theirs.db")
	os.WriteFile(foreign, []byte("precious"), 0o644)
	if _, err := Engine.Provision(ctx, engine.Request{Settings: s, Path: foreign, Name: "r2", Kind: anyTables}); err == nil || !errors.Is(err, own.ErrNotOurs) {
		t.Errorf("provision over a foreign file: %v", err)
	}
	if b, _ := os.ReadFile(foreign); string(b) != "precious" {
		t.Error("foreign file changed")
	}
}

func TestKeptAndInMemoryInstances(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "mine.db")
	in, err := Engine.Provision(ctx, engine.Request{Settings: settings.Default(), Path: path, Name: "r", Keep: true, Kind: anyTables})
	if err != nil {
		t.Fatal(err)
	}
	d := open(t, in.Endpoint())
	in.Stamp(ctx, d)
	d.Close()
	if err := in.Destroy(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("kept database removed: %v", err)
	}
	ro := in.ReadEndpoint(true)
	if !ro.ReadOnly || !strings.Contains(ro.DSN, "immutable=1") {
		t.Errorf("read endpoint %+v", ro)
	}

	s := settings.Default()
	s.Set("in-memory", "true")
	m, err := Engine.Provision(ctx, engine.Request{Settings: s, Dir: dir, Name: "m", Kind: anyTables})
	if err != nil {
		t.Fatal(err)
	}
	ep := m.Endpoint()
	if !ep.InMemory || ep.File != "" || m.ReadEndpoint(true).DSN != ep.DSN {
		t.Errorf("in-memory endpoint %+v", ep)
	}
	if _, ok := m.Probe(); ok {
		t.Error("an in-memory database has no files to probe")
	}
}

// A damaged page fails the integrity check.
func TestCheckFindsCorruption(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	in, err := Engine.Provision(ctx, engine.Request{Settings: settings.Default(), Dir: dir, Name: "c", Kind: anyTables})
	if err != nil {
		t.Fatal(err)
	}
	d := open(t, in.Endpoint())
	if _, err := d.DB.Exec("PRAGMA page_size = 512; CREATE TABLE t(x TEXT); CREATE INDEX tx ON t(x)"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		d.DB.Exec("INSERT INTO t VALUES (hex(randomblob(20)))")
	}
	d.Close()
	f, err := os.OpenFile(in.Endpoint().File, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Scribble over the middle of the index's pages.
	st, _ := f.Stat()
	junk := make([]byte, 512)
	for i := range junk {
		junk[i] = 0x5a
	}
	f.WriteAt(junk, st.Size()-3*512)
	f.Close()
	d = open(t, in.Endpoint())
	defer d.Close()
	if err := in.Check(ctx, d); !errors.Is(err, ErrCorrupt) {
		t.Errorf("corrupted database: check says %v", err)
	}
}

// anyTables is a bench database's kind that admits any table (these tests
// make their own).
var anyTables = own.Bench(func(string) bool { return true })
