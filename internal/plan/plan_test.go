package plan

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/engine"
	_ "github.com/litebench/litebench/internal/engine/sqlite"
	_ "github.com/litebench/litebench/internal/httpbench" // the http workload (TargetFor)
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/workload"
)

// fakeTarget names a target; planning never opens one.
type fakeTarget struct{ name, api string }

func (f fakeTarget) Name() string                   { return f.name }
func (f fakeTarget) Engine() string                 { return "sqlite" }
func (f fakeTarget) API() string                    { return f.api }
func (f fakeTarget) Module() string                 { return "example.com/fake" }
func (f fakeTarget) Version() (string, error)       { return "3.0.0", nil }
func (f fakeTarget) Classify(error) engine.ErrClass { return engine.None }
func (f fakeTarget) Open(context.Context, engine.Endpoint, target.PoolOptions) (target.DB, error) {
	return nil, errors.New("a planning test opened a database")
}

func init() {
	target.Register(fakeTarget{"alpha", "database/sql"})
	target.Register(fakeTarget{"beta", "database/sql"})
	target.Register(fakeTarget{"gamma", "direct"})
}

func targets(t *testing.T, list string) []target.Target {
	t.Helper()
	ts, err := Targets(list)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func spec(t *testing.T, name string) *workload.Spec {
	t.Helper()
	sp, err := workload.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func matrix(t *testing.T, sp *workload.Spec, given map[string]string) *settings.Matrix {
	t.Helper()
	m, _, err := Matrix(sp.SettingDefaults, "", given)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Every combination of target, parameter and setting, repeated, with
// repetitions going round the cells.
func TestBuildCartesianProductInterleaved(t *testing.T) {
	sp := spec(t, "insert")
	p, err := Build(Request{
		Workload: sp, Params: map[string][]string{"rows": {"100", "200"}},
		Settings: matrix(t, sp, map[string]string{"journal": "delete,wal"}),
		Targets:  targets(t, "alpha,beta"), Repeat: 2, IDs: NewIDs("s"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if p.SweepID != "s" || len(p.Cells) != 16 {
		t.Fatalf("sweep %q with %d cells, want s with 16", p.SweepID, len(p.Cells))
	}
	i := 0
	seen := map[workload.Workload]bool{}
	for rep := 1; rep <= 2; rep++ {
		for _, tn := range []string{"alpha", "beta"} {
			for _, rows := range []string{"100", "200"} {
				for _, j := range []string{"delete", "wal"} {
					c := p.Cells[i]
					i++
					if c.RunID != fmt.Sprintf("s.%d", i) || c.SweepID != "s" || c.Repeat != rep {
						t.Errorf("cell %d: run %s sweep %s repeat %d", i, c.RunID, c.SweepID, c.Repeat)
					}
					if c.Target.Name() != tn || c.Params["rows"] != rows || c.Settings.Get("journal") != j {
						t.Errorf("cell %d: %s rows=%s journal=%s, want %s rows=%s journal=%s",
							i, c.Target.Name(), c.Params["rows"], c.Settings.Get("journal"), tn, rows, j)
					}
					if want := fmt.Sprintf("insert %s rows=%s journal=%s #%d", tn, rows, j, rep); c.Label != want {
						t.Errorf("cell %d: label %q, want %q", i, c.Label, want)
					}
					if want := "litebench insert --target " + tn + " --rows " + rows + " --journal=" + j; c.Command != want {
						t.Errorf("cell %d: command %q, want %q", i, c.Command, want)
					}
					if c.Workload.Params()["rows"] != rows || seen[c.Workload] {
						t.Errorf("cell %d: workload %v shared or built from other parameters", i, c.Workload.Params())
					}
					seen[c.Workload] = true
				}
			}
		}
	}
}

// A label names only what varies; a single run is named by its workload
// and target.
func TestVaryingLabel(t *testing.T) {
	sp := spec(t, "insert")
	for _, c := range []struct {
		rows  []string
		given map[string]string
		want  []string
	}{
		{nil, nil, []string{"insert alpha"}},
		{[]string{"100", "100"}, nil, []string{"insert alpha", "insert alpha"}},
		{[]string{"100"}, map[string]string{"sync": "off,full", "batch": "10,20"},
			[]string{"insert alpha sync=off batch=10", "insert alpha sync=off batch=20", "insert alpha sync=full batch=10", "insert alpha sync=full batch=20"}},
	} {
		p, err := Build(Request{Workload: sp, Params: map[string][]string{"rows": c.rows}, Settings: matrix(t, sp, c.given), Targets: targets(t, "alpha")})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, cell := range p.Cells {
			got = append(got, cell.Label)
			if cell.Repeat != 0 {
				t.Errorf("%s: repeat %d in a plan without repetitions", cell.Label, cell.Repeat)
			}
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("rows %v settings %v: labels %q, want %q", c.rows, c.given, got, c.want)
		}
	}
}

// The command of a cell repeats it alone: parameters and settings that
// differ from the workload's defaults, the database and the limits.
func TestCellCommand(t *testing.T) {
	sp := spec(t, "write")
	db := filepath.Join(t.TempDir(), "my bench.db")
	p, err := Build(Request{
		Workload: sp, Params: map[string][]string{"rows": {"500"}, "seed": {"1"}},
		Settings: matrix(t, sp, map[string]string{"batch": "1", "journal": "wal", "busy-timeout": "5000"}),
		Targets:  targets(t, "beta"), DBPath: db, Keep: true, CPUs: 2, Memory: "1GB", IDs: NewIDs("s"),
	})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Cells[0]
	want := "litebench write --target beta --rows 500 --journal=wal --db '" + db + "' --cpus 2 --memory 1GB"
	if c.Command != want {
		t.Errorf("command\n %s\nwant\n %s", c.Command, want)
	}
	if c.DBPath != db || !c.Keep {
		t.Errorf("db %q keep %v", c.DBPath, c.Keep)
	}
	if entries, _ := os.ReadDir(filepath.Dir(db)); len(entries) != 0 {
		t.Errorf("planning created %v", entries)
	}
	for in, want := range map[string]string{"a.db": "a.db", "": "''", "x y": "'x y'", "it's": `'it'\''s'`, "a=b,c:d@e/f": "a=b,c:d@e/f", "$HOME": "'$HOME'"} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// http's direct strategy on a database/sql target runs on the direct
// target the workload names, and the cell says so.
func TestDirectStrategyRunsOnDirectTarget(t *testing.T) {
	sp := spec(t, "http")
	p, err := Build(Request{Workload: sp, Params: map[string][]string{"strategy": {"direct", "plain"}, "direct-target": {"gamma"}},
		Targets: targets(t, "alpha"), IDs: NewIDs("s")})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Cells) != 2 {
		t.Fatalf("%d cells", len(p.Cells))
	}
	d, q := p.Cells[0], p.Cells[1]
	if d.Target.Name() != "gamma" || d.Label != "http gamma strategy=direct" || !strings.HasPrefix(d.Command, "litebench run http --target gamma --strategy direct") {
		t.Errorf("direct cell: %s %q %q", d.Target.Name(), d.Label, d.Command)
	}
	if q.Target.Name() != "alpha" || q.Label != "http alpha strategy=plain" {
		t.Errorf("plain cell: %s %q", q.Target.Name(), q.Label)
	}
}

func TestBuildRefusesBadInput(t *testing.T) {
	ins, scan, http := spec(t, "insert"), spec(t, "scan"), spec(t, "http")
	alpha := targets(t, "alpha")
	for _, c := range []struct {
		req  Request
		want string
	}{
		{Request{Workload: ins}, "--target: no target given"},
		{Request{Workload: ins, Targets: alpha, Params: map[string][]string{"nosuch": {"1"}}}, "unknown parameter --nosuch"},
		{Request{Workload: ins, Targets: alpha, Params: map[string][]string{"seed": {"1", "2"}}}, "--seed takes one value"},
		{Request{Workload: ins, Targets: alpha, Params: map[string][]string{"rows": {"100", "0"}}}, "--rows \"0\""},
		{Request{Workload: ins, Targets: alpha, Settings: matrix(t, ins, map[string]string{"in-memory": "true", "journal": "delete,wal"})}, "--journal wal needs a file"},
		{Request{Workload: scan, Targets: alpha, Repeat: 2, DBPath: "kept.db"}, "--repeat with --db"},
		{Request{Workload: http, Targets: alpha, Params: map[string][]string{"strategy": {"direct"}, "direct-target": {"nosuch"}}}, "--direct-target: unknown target \"nosuch\""},
	} {
		p, err := Build(c.req)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) || p != nil {
			t.Errorf("%s: got plan %v, error %v; want an input error with %q", c.want, p, err, c.want)
		}
	}
	// Repetitions of a workload that does not reuse its file may share --db.
	if _, err := Build(Request{Workload: ins, Targets: alpha, Repeat: 2, DBPath: "new.db"}); err != nil {
		t.Errorf("insert --repeat 2 --db: %v", err)
	}
}

func TestMatrix(t *testing.T) {
	m, path, err := Matrix(map[string]string{"batch": "1"}, "a.db?_journal=wal", map[string]string{"sync": "off,normal", "cache-size": ""})
	if err != nil {
		t.Fatal(err)
	}
	if path != "a.db" || m.Base.Get("journal") != "wal" || m.Base.Get("batch") != "1" || m.Base.Get("cache-size") != "default" {
		t.Errorf("path %q base %s", path, m.Base)
	}
	if v := m.Varying(); len(v) != 1 || v[0] != "sync" || m.Size() != 2 {
		t.Errorf("axes %v size %d, want sync × 2", v, m.Size())
	}
	// A flag that disagrees with the database string is refused, naming
	// both (a list too); the same value twice is fine.
	for _, given := range []string{"truncate", "wal,delete"} {
		_, _, err = Matrix(map[string]string{"journal": "delete"}, "a.db?_journal=wal", map[string]string{"journal": given})
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "_journal=wal") || !strings.Contains(err.Error(), "--journal asks "+given) {
			t.Errorf("--journal %s against _journal=wal: %v", given, err)
		}
	}
	m, _, err = Matrix(map[string]string{"journal": "delete"}, "a.db?_journal=WAL&_sync=1", map[string]string{"journal": "wal", "sync": "normal"})
	if err != nil || m.Base.Get("journal") != "wal" || m.Base.Get("sync") != "normal" {
		t.Errorf("equal values: journal %s sync %s, %v", m.Base.Get("journal"), m.Base.Get("sync"), err)
	}
	// The database string wins over the defaults.
	m, _, _ = Matrix(map[string]string{"journal": "delete"}, "a.db?_journal=wal", nil)
	if m.Base.Get("journal") != "wal" {
		t.Errorf("journal %s, want the database string's wal", m.Base.Get("journal"))
	}
	for _, c := range []struct {
		db    string
		given map[string]string
		want  string
	}{
		{"a.db?_frobnicate=1", nil, "_frobnicate"},
		{"", map[string]string{"journal": "fast"}, "fast"},
		{"", map[string]string{"journal": "wal,"}, "empty value"},
		{"", map[string]string{"frobnicate": "1"}, "unknown setting --frobnicate"},
	} {
		_, _, err := Matrix(nil, c.db, c.given)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("db %q given %v: %v, want an input error with %q", c.db, c.given, err, c.want)
		}
	}
}

func TestTargets(t *testing.T) {
	ts := targets(t, " beta,alpha ,, beta")
	if len(ts) != 2 || ts[0].Name() != "beta" || ts[1].Name() != "alpha" {
		t.Errorf("targets %v", ts)
	}
	for list, want := range map[string]string{"": "no target given", " , ": "no target given", "alpha,nosuch": `unknown target "nosuch"`} {
		_, err := Targets(list)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "--target: ") {
			t.Errorf("%q: %v, want an input error with %q", list, err, want)
		}
	}
}

func TestIDs(t *testing.T) {
	ids := NewIDs("s")
	if a, b := ids.Next(), ids.Next(); a != "s.1" || b != "s.2" || ids.Sweep() != "s" {
		t.Errorf("ids %s %s of sweep %s", a, b, ids.Sweep())
	}
	a, b := NewIDs(""), NewIDs("")
	re := regexp.MustCompile(`^\d{8}T\d{6}-[0-9a-f]{8}$`)
	if !re.MatchString(a.Sweep()) || a.Sweep() == b.Sweep() {
		t.Errorf("new sweep ids %q and %q", a.Sweep(), b.Sweep())
	}
	// A request's ids carry on from where the caller left them.
	ids = NewIDs("s")
	ids.Next()
	p, err := Build(Request{Workload: spec(t, "insert"), Targets: targets(t, "alpha"), IDs: ids})
	if err != nil || p.Cells[0].RunID != "s.2" {
		t.Errorf("%v %v", p, err)
	}
}
