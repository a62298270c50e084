package foreigntest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/worker"
	"github.com/litebench/litebench/internal/workload"
)

// Refusal is a job a worker must refuse at set-up with a one-line error
// holding Want.
type Refusal struct {
	Case Case
	// Set are settings sent as they are, unchecked (an unknown one).
	Set  map[string]string
	Want string
}

// CommonRefusals are refused alike by every worker.
var CommonRefusals = []Refusal{
	{Case: Case{Workload: "insert", Params: map[string]string{"rows": "0"}}, Want: `--rows "0": want a whole number of at least 1`},
	{Case: Case{Workload: "insert", Params: map[string]string{"colour": "red"}}, Want: `workload insert has no parameter "colour"`},
	{Case: Case{Workload: "read", Params: map[string]string{"keys": "hot"}}, Want: `--keys "hot": want uniform, zipfian or latest`},
	{Case: Case{Workload: "insert", Settings: map[string]string{"rows-per-stmt": "20000"}},
		Want: "--rows-per-stmt 20000 × 3 columns of bench = 60000 bound variables"},
	{Case: Case{Workload: "insert"}, Set: map[string]string{"colour": "red"}, Want: `job: unknown setting "colour"`},
}

// Refusals checks that w refuses each job, and CommonRefusals, with a
// one-line error holding what is wanted, and that the refused job left
// its directory as it was (an in-memory job names a file there too).
func Refusals(t *testing.T, w Worker, rs ...Refusal) {
	t.Helper()
	for _, r := range append(append([]Refusal(nil), CommonRefusals...), rs...) {
		j := NewJob(t, r.Case, w.Target)
		for k, v := range r.Set {
			j.Settings[k] = v
		}
		if !filepath.IsAbs(j.Path) { // an in-memory database's name: a file, to see that none is made
			j.Path = filepath.Join(t.TempDir(), "bench.db")
		}
		Refuse(t, w, j, r.Want)
	}
}

// Refuse checks that w refuses job with a one-line error holding each of
// wants, and that the directory of its database is left as it was.
func Refuse(t *testing.T, w Worker, job *worker.Job, wants ...string) {
	t.Helper()
	dir := filepath.Dir(job.Path)
	before := snapshot(t, dir)
	_, err := Converse(t, w.Argv, job, Options{})
	for _, want := range wants {
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %v %v: error %v, want one line with %q", job.Workload, job.Params, job.Settings, err, want)
		}
	}
	if after := snapshot(t, dir); !reflect.DeepEqual(after, before) {
		t.Errorf("%s %v: the refused job changed %s: %v, before %v", job.Workload, job.Params, dir, after, before)
	}
}

// snapshot is the files of dir (when it is a directory) with their
// content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	if !filepath.IsAbs(dir) {
		return m
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		m[e.Name()] = string(b)
	}
	return m
}

// Foreign is how a worker words its refusals of files litebench did not
// create (each error names the file too).
type Foreign struct {
	// NotSQLite: a file that is no SQLite database.
	NotSQLite string
	// NotOurs: a SQLite database without litebench's application id.
	NotOurs string
	// Added: a bench database that holds a table "mine" of the user's
	// ("": the worker does not look for one, and that is not checked).
	Added string
}

// ForeignFiles checks that w refuses to run on files litebench did not
// create, or to which a table was added, and leaves them and their
// directory untouched.
func ForeignFiles(t *testing.T, w Worker, f Foreign) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mine.db")
	if err := os.WriteFile(path, []byte("precious, not a database"), 0o644); err != nil {
		t.Fatal(err)
	}
	j := NewJob(t, Case{Workload: "insert"}, w.Target)
	j.Path = path
	Refuse(t, w, j, path, f.NotSQLite)

	theirs := filepath.Join(t.TempDir(), "theirs.db")
	Exec(t, theirs, "CREATE TABLE notes(x)")
	j = NewJob(t, Case{Workload: "insert"}, w.Target)
	j.Path = theirs
	Refuse(t, w, j, theirs, f.NotOurs)

	if f.Added == "" {
		return
	}
	added := filepath.Join(t.TempDir(), "added.db")
	j = NewJob(t, Case{Workload: "insert", Params: map[string]string{"rows": "10"}}, w.Target)
	j.Path = added
	if tk, err := Converse(t, w.Argv, j, Options{}); err != nil || tk.Final.Status != results.StatusOK {
		t.Fatalf("insert: %v", err)
	}
	Exec(t, added, "CREATE TABLE mine(x)")
	j = NewJob(t, Case{Workload: "scan", Params: map[string]string{"rows": "10"}}, w.Target)
	j.Path = added
	Refuse(t, w, j, added, f.Added)
}

// CancelCases are runs a cancel ends: closed and open loop, a load, a
// load of several workers, several readers, a workload file.
var CancelCases = []Case{
	{Name: "closed", Workload: "read", Params: map[string]string{"rows": "100", "duration": "1m"}},
	{Name: "closed-workers", Workload: "read", Params: map[string]string{"rows": "200", "duration": "1m", "workers": "2"}},
	{Name: "open", Workload: "mixed", Params: map[string]string{"rows": "100", "duration": "1m", "rate": "500"}},
	{Name: "open-inflight", Workload: "read", Params: map[string]string{"rows": "200", "duration": "1m", "rate": "500", "max-inflight": "2"}},
	{Name: "insert", Workload: "insert", Params: map[string]string{"rows": "100m"}, Settings: map[string]string{"batch": "100"}},
	{Name: "insert-workers", Workload: "insert", Params: map[string]string{"rows": "100m", "workers": "2"}, Settings: map[string]string{"batch": "100"}},
	{Name: "program", File: "internal/spec/testdata/program/kv.toml", Params: map[string]string{"keys": "100", "duration": "1m"}},
}

// Cancel checks that a cancel during each run (at its first interval
// with operations done) ends it promptly with an interrupted final event
// carrying what was measured.
func Cancel(t *testing.T, w Worker, cases ...Case) {
	t.Helper()
	for _, c := range cases {
		c.Interval = 50 * time.Millisecond
		t0 := time.Now()
		tk, err := Converse(t, w.Argv, NewJob(t, c, w.Target), Options{Cancel: true})
		if err != nil {
			t.Fatalf("%s %s: %v", w.Target, c.Name, err)
		}
		var counted int64
		for _, o := range tk.Final.FinalOps {
			counted += o.Count
		}
		if tk.Final.Status != results.StatusInterrupted || tk.Final.Done == 0 || counted == 0 {
			t.Errorf("%s %s: final %s with %d done, %d ops counting %d", w.Target, c.Name, tk.Final.Status, tk.Final.Done, len(tk.Final.FinalOps), counted)
		}
		if d := time.Since(t0); d > 20*time.Second {
			t.Errorf("%s %s: the run took %v to stop", w.Target, c.Name, d)
		}
	}
}

// Describe checks that the worker's workloads (argv with --describe) are
// litebench's, with the same parameters, defaults and setting defaults.
func Describe(t *testing.T, argv []string) {
	t.Helper()
	out, err := exec.Command(argv[0], append(argv[1:], "--describe")...).Output()
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]struct {
		Params   map[string]string `json:"params"`
		Settings map[string]string `json:"settings"`
	}
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	var names []string
	for name, w := range d {
		names = append(names, name)
		spec, err := workload.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, p := range spec.Params {
			want[p.Name] = p.Default
		}
		if !reflect.DeepEqual(w.Params, want) {
			t.Errorf("%s: parameters %v, Go %v", name, w.Params, want)
		}
		if len(w.Settings)+len(spec.SettingDefaults) > 0 && !reflect.DeepEqual(w.Settings, spec.SettingDefaults) {
			t.Errorf("%s: setting defaults %v, Go %v", name, w.Settings, spec.SettingDefaults)
		}
	}
	sort.Strings(names)
	if strings.Join(names, " ") != "insert mixed read scan write" {
		t.Errorf("workloads %v", names)
	}
}

// RunFile runs 'litebench run' on the repository's workload file with args
// and returns the results it prints (--format json).
func RunFile(t *testing.T, file string, args ...string) []results.Result {
	t.Helper()
	root := Root(t)
	cmd := exec.Command(Litebench(t), append([]string{"run", filepath.Join(root, file), "--format", "json"}, args...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "LITEBENCH_ROOT="+root)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("litebench run %s %v: %v\n%s", file, args, err, out)
	}
	var rs []results.Result
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var r results.Result
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		rs = append(rs, r)
	}
	return rs
}
