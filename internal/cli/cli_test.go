package cli

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/litebench/litebench/internal/own"
	"github.com/litebench/litebench/internal/results"
	resultstore "github.com/litebench/litebench/internal/store"
	"github.com/litebench/litebench/internal/target"
)

type outcome struct {
	code     int
	out, err string
}

func run(t *testing.T, ctx context.Context, args ...string) outcome {
	t.Helper()
	var out, errw bytes.Buffer
	code := Main(ctx, args, &out, &errw)
	return outcome{code, out.String(), errw.String()}
}

func jsonLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not JSON: %v: %s", err, sc.Text())
		}
		out = append(out, m)
	}
	return out
}

// metric returns the value and unit of a JSON line's metric called name;
// ok is false when it has none.
func metric(j map[string]any, name string) (v float64, unit string, ok bool) {
	ms, _ := j["metrics"].([]any)
	for _, x := range ms {
		m := x.(map[string]any)
		if m["name"] == name {
			return m["value"].(float64), m["unit"].(string), true
		}
	}
	return 0, "", false
}

func countRows(t *testing.T, path, table string) (n int64, appID int32) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	db.QueryRow("PRAGMA application_id").Scan(&appID)
	return
}

func TestInsertScanPaginateOnEveryTarget(t *testing.T) {
	for _, name := range target.InProcessNames() {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			store := filepath.Join(dir, "store.db")
			db := filepath.Join(dir, "bench.db")
			o := run(t, context.Background(), "insert", "--target", name, "--rows", "2500", "--batch", "100",
				"--rows-per-stmt", "7", "--journal", "wal", "--db", db, "--keep", "--store", store, "--format", "json", "--progress", "0")
			if o.code != 0 {
				t.Fatalf("insert exit %d: %s", o.code, o.err)
			}
			ls := jsonLines(t, o.out)
			if len(ls) != 1 {
				t.Fatalf("%d JSON lines", len(ls))
			}
			j := ls[0]
			for _, f := range []string{"schema", "run_id", "workload", "target", "engine", "client", "placement", "engine_version",
				"settings", "params", "label_order", "status", "count", "elapsed_seconds", "metrics", "latency_us", "errors"} {
				if _, ok := j[f]; !ok {
					t.Errorf("JSON lacks %s", f)
				}
			}
			if j["status"] != "ok" || j["count"].(float64) != 2500 || j["target"] != name || j["schema"].(float64) != 2 {
				t.Errorf("status %v count %v target %v schema %v", j["status"], j["count"], j["target"], j["schema"])
			}
			// The headline is declared first, in rows per second.
			if h := j["metrics"].([]any)[0].(map[string]any); h["name"] != "throughput" || h["unit"] != "rows/s" || h["better"] != "higher" || h["value"].(float64) <= 0 {
				t.Errorf("headline %v", h)
			}
			lat := j["latency_us"].(map[string]any)["insert"].(map[string]any)
			for _, p := range []string{"p50", "p90", "p99", "p999", "max"} {
				if v, ok := lat[p].(float64); !ok || v <= 0 {
					t.Errorf("latency_us.insert.%s = %v", p, lat[p])
				}
			}
			if s := j["settings"].(map[string]any); s["journal"] != "wal" || s["rows-per-stmt"] != "7" {
				t.Errorf("settings %v", s)
			}
			n, app := countRows(t, db, "bench")
			if n != 2500 || app != own.BenchAppID {
				t.Errorf("database holds %d rows, application_id %#x", n, app)
			}

			// scan reuses the kept file and verifies every row.
			o = run(t, context.Background(), "scan", "--target", name, "--rows", "2500", "--db", db, "--keep", "--store", store, "--format", "json", "--progress", "0")
			if o.code != 0 {
				t.Fatalf("scan exit %d: %s", o.code, o.err)
			}
			j = jsonLines(t, o.out)[0]
			if j["count"].(float64) != 2500 || j["status"] != "ok" {
				t.Errorf("scan count %v status %v", j["count"], j["status"])
			}
			for _, m := range []string{"per_row", "first_row", "query_returned"} {
				if v, u, ok := metric(j, m); !ok || u != "µs" || v <= 0 {
					t.Errorf("scan %s = %v %s (%v): %v", m, v, u, ok, j["metrics"])
				}
			}

			o = run(t, context.Background(), "paginate", "--target", name, "--rows", "2500", "--depths", "10,2000", "--count", "3",
				"--store", store, "--format", "json", "--progress", "0")
			if o.code != 0 {
				t.Fatalf("paginate exit %d: %s", o.code, o.err)
			}
			ops := jsonLines(t, o.out)[0]["latency_us"].(map[string]any)
			for _, op := range []string{"offset@10", "keyset@10", "offset@2000", "keyset@2000"} {
				if _, ok := ops[op]; !ok {
					t.Errorf("paginate lacks %s: %v", op, ops)
				}
			}
		})
	}
}

func TestSweepIsCartesianProduct(t *testing.T) {
	dir := t.TempDir()
	o := run(t, context.Background(), "insert", "--target", "mattn,modernc", "--journal", "delete,wal", "--batch", "10,100,1000",
		"--rows", "300", "--store", filepath.Join(dir, "s.db"), "--format", "json", "--progress", "0", "--dir", dir)
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	ls := jsonLines(t, o.out)
	if len(ls) != 12 {
		t.Fatalf("%d runs, want 12", len(ls))
	}
	seen := map[string]bool{}
	for _, l := range ls {
		s := l["settings"].(map[string]any)
		seen[l["target"].(string)+s["journal"].(string)+s["batch"].(string)] = true
	}
	if len(seen) != 12 {
		t.Errorf("runs not distinct: %v", seen)
	}
	// The table shows one column per varying setting.
	o = run(t, context.Background(), "show", "--store", filepath.Join(dir, "s.db"), "--last")
	if o.code != 0 || !strings.Contains(o.out, "journal") || !strings.Contains(o.out, "batch") || strings.Contains(o.out, " sync ") {
		t.Errorf("show --last: %d %s %s", o.code, o.out, o.err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "litebench-") {
			t.Errorf("bench file left behind in --dir: %s", e.Name())
		}
	}
}

func TestBareBoolSettingFlag(t *testing.T) {
	o := run(t, context.Background(), "insert", "--prepared", "--batch", "50", "--rows", "100", "--no-store", "--format", "json", "--progress", "0")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	s := jsonLines(t, o.out)[0]["settings"].(map[string]any)
	if s["prepared"] != "true" || s["batch"] != "50" {
		t.Errorf("settings %v", s)
	}
	o = run(t, context.Background(), "insert", "--prepared=true,false", "--rows", "100", "--no-store", "--format", "json", "--progress", "0")
	if o.code != 0 || len(jsonLines(t, o.out)) != 2 {
		t.Errorf("--prepared=true,false: exit %d, %s", o.code, o.err)
	}
}

func TestSeedDSNMapsOntoSettings(t *testing.T) {
	dir := t.TempDir()
	o := run(t, context.Background(), "insert", "--db", filepath.Join(dir, "a.db")+"?_journal=wal&_sync=0", "--rows", "100",
		"--no-store", "--format", "json", "--progress", "0")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	s := jsonLines(t, o.out)[0]["settings"].(map[string]any)
	if s["journal"] != "wal" || s["sync"] != "off" {
		t.Errorf("settings %v", s)
	}
}

func TestBadInputExits2AndTouchesNothing(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "theirs.db")
	fdb, _ := sql.Open("sqlite3", foreign)
	fdb.Exec("CREATE TABLE precious(x)")
	fdb.Exec("INSERT INTO precious VALUES (1)")
	fdb.Close()
	before, _ := os.ReadFile(foreign)
	store := filepath.Join(dir, "store.db")
	cases := [][]string{
		{"insert", "--target", "nosuch"},
		{"insert", "--batch", "0"},
		{"insert", "--journal", "fast"},
		{"insert", "--sync", "sometimes"},
		{"insert", "--rows-per-stmt", "20000"},
		{"insert", "--schema", "nosuch"},
		{"insert", "--bogus-flag"},
		{"insert", "--db", foreign},
		{"insert", "--db", filepath.Join(dir, "a.db") + "?_frobnicate=1"},
		{"insert", "--store", foreign},
		{"insert", "--format", "yaml"},
		{"insert", "--dir", filepath.Join(dir, "missing")},
		{"paginate", "--rows", "100", "--depths", "500"},
		{"scan", "--db", foreign},
		{"nosuchcommand"},
		{"suite", "nosuch"},
		{"list", "nothing"},
	}
	for _, c := range cases {
		args := append(c, "--progress", "0")
		if c[0] == "nosuchcommand" || c[0] == "list" || c[0] == "suite" {
			args = c
		}
		if c[0] != "list" && c[0] != "nosuchcommand" && !contains(c, "--store") {
			args = append(args, "--store", store)
		}
		o := run(t, context.Background(), args...)
		if o.code != ExitUsage {
			t.Errorf("%v: exit %d, want 2 (%s)", c, o.code, o.err)
		}
		if lines := strings.Count(strings.TrimSpace(o.err), "\n"); lines != 0 || !strings.HasPrefix(o.err, "litebench: ") {
			t.Errorf("%v: want one line, got %q", c, o.err)
		}
	}
	after, _ := os.ReadFile(foreign)
	if !bytes.Equal(before, after) {
		t.Error("foreign database modified")
	}
	if _, err := os.Stat(store); err == nil {
		t.Error("store created by a rejected command")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files created: %v", entries)
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// Concurrent writers on a rollback journal with no busy timeout must hit
// SQLITE_BUSY; the errors are counted, not fatal, and retries recover them.
func TestBusyErrorsAreCountedAndRetried(t *testing.T) {
	dir := t.TempDir()
	o := run(t, context.Background(), "insert", "--workers", "4", "--busy-timeout", "0", "--journal", "delete", "--sync", "off",
		"--batch", "20", "--rows", "4000", "--no-store", "--format", "json", "--progress", "0", "--dir", dir)
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	j := jsonLines(t, o.out)[0]
	errs := j["errors"].(map[string]any)
	busy := 0.0
	for _, k := range []string{"busy", "locked"} {
		if v, ok := errs[k].(float64); ok {
			busy += v
		}
	}
	if busy == 0 {
		t.Fatalf("no busy/locked errors counted under contention: %v", errs)
	}
	if rows := j["count"].(float64); rows >= 4000 || rows+busy*20 < 4000 {
		t.Errorf("rows %v with %v failed batches of 20", rows, busy)
	}

	o = run(t, context.Background(), "insert", "--workers", "4", "--busy-timeout", "0", "--journal", "delete", "--sync", "off",
		"--batch", "20", "--rows", "4000", "--busy-retry", "until", "--no-store", "--format", "json", "--progress", "0", "--dir", dir)
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	j = jsonLines(t, o.out)[0]
	if j["count"].(float64) != 4000 || j["retries"].(float64) == 0 {
		t.Errorf("with retries: rows %v retries %v", j["count"], j["retries"])
	}
}

func TestInterruptSavesPartialRun(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "s.db")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(700*time.Millisecond, cancel)
	o := run(t, ctx, "insert", "--rows", "100m", "--batch", "1000", "--journal", "wal", "--sync", "off",
		"--target", "mattn,modernc", "--store", store, "--progress", "0", "--dir", dir)
	if o.code != ExitInterrupted {
		t.Fatalf("exit %d, want 130: %s", o.code, o.err)
	}
	s, err := resultstore.OpenReadOnly(store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rs, _ := s.List(0)
	if len(rs) != 1 || rs[0].Status != results.StatusInterrupted || rs[0].Rows == 0 || rs[0].Rows >= 100_000_000 {
		t.Fatalf("stored %d runs: %+v", len(rs), rs)
	}
}

func TestScanNamesCorruptRow(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "b.db")
	if o := run(t, context.Background(), "insert", "--rows", "1000", "--db", db, "--keep", "--no-store", "--progress", "0"); o.code != 0 {
		t.Fatal(o.err)
	}
	h, _ := sql.Open("sqlite3", db)
	if _, err := h.Exec("UPDATE bench SET hash = 'bad' WHERE ID = 617"); err != nil {
		t.Fatal(err)
	}
	h.Close()
	o := run(t, context.Background(), "scan", "--rows", "1000", "--db", db, "--no-store", "--progress", "0")
	if o.code != ExitFailed || !strings.Contains(o.err+o.out, "row ID 617") {
		t.Errorf("exit %d: %s %s", o.code, o.out, o.err)
	}
}

func TestListPragmaInspect(t *testing.T) {
	o := run(t, context.Background(), "list", "targets")
	for _, n := range []string{"mattn", "modernc", "ncruces-direct", "zombie", "ncruces", "engine", "language", "sqlite", "driver version", "in-process"} {
		if !strings.Contains(o.out, n) {
			t.Errorf("list targets lacks %s", n)
		}
	}
	o = run(t, context.Background(), "pragma", "busy_timeout", "--busy-timeout", "1234")
	if o.code != 0 || !strings.Contains(o.out, "busy_timeout = 1234") {
		t.Errorf("pragma: %d %q %q", o.code, o.out, o.err)
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "b.db")
	run(t, context.Background(), "insert", "--rows", "100", "--db", db, "--keep", "--no-store", "--journal", "wal", "--progress", "0")
	before, _ := os.ReadFile(db)
	o = run(t, context.Background(), "inspect", "--db", db)
	if o.code != 0 || !strings.Contains(o.out, "table bench") || !strings.Contains(o.out, "100 rows") || !strings.Contains(o.out, "litebench bench database") {
		t.Errorf("inspect: %d %s %s", o.code, o.out, o.err)
	}
	after, _ := os.ReadFile(db)
	if !bytes.Equal(before, after) {
		t.Error("inspect changed the file")
	}
	if o := run(t, context.Background(), "insert", "--help"); o.code != 0 || !strings.Contains(o.out, "SETTING FLAGS") {
		t.Errorf("insert --help: %d %s", o.code, o.out)
	}
}

// TestVersionNamesBuildAndTargets: 'litebench version' prints the release
// and every in-process target, ncruces' database/sql driver included (it
// links beside mattn without a linker rename).
func TestVersionNamesBuildAndTargets(t *testing.T) {
	o := run(t, context.Background(), "version")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	if !strings.HasPrefix(o.out, "litebench v") {
		t.Errorf("version does not start with 'litebench v…': %q", o.out)
	}
	for _, want := range []string{"ncruces,", "mattn", "go1."} {
		if !strings.Contains(o.out, want) {
			t.Errorf("version output lacks %q:\n%s", want, o.out)
		}
	}
}
