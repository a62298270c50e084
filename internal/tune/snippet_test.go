package tune

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/settings"
)

// tuned is a recommendation with every pragma a snippet carries.
func tuned(t *testing.T, kv map[string]string) settings.Settings {
	s := settings.Default()
	for k, v := range kv {
		if err := s.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

var snippetCases = []map[string]string{
	{"journal": "wal", "sync": "normal", "busy-timeout": "7000", "cache-size": "64MiB", "mmap-size": "256MiB",
		"temp-store": "memory", "page-size": "16384", "pool": "4", "tx": "immediate"},
	{"journal": "truncate", "sync": "full", "locking-mode": "exclusive", "busy-timeout": "0", "pool": "1"},
}

// want is what PRAGMA reads back for each setting, by SQLite's names.
func want(s settings.Settings) map[string]string {
	w := map[string]string{"busy_timeout": s.Get("busy-timeout")}
	if v := s.Get("journal"); v != "default" {
		w["journal_mode"] = v
	}
	if v := s.Get("sync"); v != "default" {
		w["synchronous"] = map[string]string{"off": "0", "normal": "1", "full": "2", "extra": "3"}[v]
	}
	for key, name := range map[string]string{"cache-size": "cache_size", "mmap-size": "mmap_size", "page-size": "page_size"} {
		if v := s.Get(key); v != "default" {
			w[name] = v
		}
	}
	if v := s.Get("temp-store"); v != "default" {
		w["temp_store"] = map[string]string{"file": "1", "memory": "2"}[v]
	}
	if v := s.Get("locking-mode"); v != "default" {
		w["locking_mode"] = v
	}
	return w
}

// readBack is Go code that opens the database with openDB, starts a
// transaction on one connection (so that a new file is written and, in
// exclusive locking mode, locked), and prints every pragma, the pool's
// limit and whether a second connection could begin a write meanwhile
// (BEGIN IMMEDIATE takes the write lock at once).
const readBack = `
func main() {
	db, err := openDB(os.Args[1])
	if err != nil {
		panic(err)
	}
	if _, err := db.Exec("CREATE TABLE t(x)"); err != nil {
		panic(err)
	}
	for _, p := range []string{"journal_mode", "synchronous", "busy_timeout", "cache_size", "mmap_size", "temp_store", "page_size", "locking_mode"} {
		var v string
		if err := db.QueryRow("PRAGMA " + p).Scan(&v); err != nil {
			panic(err)
		}
		fmt.Printf("%s=%s\n", p, v)
	}
	fmt.Printf("max_open=%d\n", db.Stats().MaxOpenConnections)
	tx, err := db.Begin()
	if err != nil {
		panic(err)
	}
	// A write lock held by a transaction that has not written yet is
	// BEGIN IMMEDIATE's.
	other, err := openDB(os.Args[1])
	if err != nil {
		panic(err)
	}
	other.Exec("PRAGMA busy_timeout = 0")
	_, err = other.Exec("INSERT INTO t VALUES (1)")
	fmt.Printf("write_locked=%v\n", err != nil)
	tx.Rollback()
}
`

// runGo runs a Go program made of the snippet and main inside the
// module, so that the module's drivers build it.
func runGo(t *testing.T, snippet, main string, args ...string) string {
	t.Helper()
	dir, err := os.MkdirTemp(".", "snippet-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// The snippet's imports, then the program's, then its code.
	imp, code, _ := strings.Cut(snippet, "\n)\n")
	src := "package main\n\n" + imp + "\n)\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n" + code + main
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", append([]string{"run", "./" + filepath.Base(dir)}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run:\n%s\n%s\n%v", src, out, err)
	}
	return string(out)
}

func parseKV(out string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			m[k] = strings.ToLower(strings.TrimSpace(v))
		}
	}
	return m
}

// Each Go snippet, pasted into a program as it is printed, opens a
// database through its driver with every setting in force.
func TestGoSnippetsRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs with go run")
	}
	for i, kv := range snippetCases {
		s := tuned(t, kv)
		for _, driver := range []string{"mattn", "modernc"} {
			sn := GoSnippet(driver, s)
			path := filepath.Join(t.TempDir(), "app.db")
			got := parseKV(runGo(t, sn.Text, readBack, path))
			for k, v := range want(s) {
				if got[k] != v {
					t.Errorf("case %d %s: PRAGMA %s = %q, want %q\n%s", i, driver, k, got[k], v, sn.Text)
				}
			}
			if wantOpen := kv["pool"]; got["max_open"] != wantOpen {
				t.Errorf("case %d %s: MaxOpenConnections %s, want %s", i, driver, got["max_open"], wantOpen)
			}
			// BEGIN IMMEDIATE (tx immediate) or an exclusive lock keeps the
			// other connection from writing; a deferred BEGIN does not.
			locked := kv["tx"] == "immediate" || kv["locking-mode"] == "exclusive"
			if got["write_locked"] != map[bool]string{true: "true", false: "false"}[locked] {
				t.Errorf("case %d %s: another connection's write blocked = %s, want %v\n%s", i, driver, got["write_locked"], locked, sn.Text)
			}
		}
	}
}

// The Python snippet, run by python3's sqlite3, has every setting in
// force.
func TestPythonSnippetRoundTrip(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("LITEBENCH_REQUIRE_WORKERS") == "1" {
			t.Fatalf("python3: %v (LITEBENCH_REQUIRE_WORKERS=1)", err)
		}
		t.Skip("python3 not installed")
	}
	for i, kv := range snippetCases {
		s := tuned(t, kv)
		sn := PythonSnippet(s)
		path := filepath.Join(t.TempDir(), "app.db")
		prog := sn.Text + `
import sys
con = connect(sys.argv[1])
con.execute("CREATE TABLE t(x)")
for p in ["journal_mode", "synchronous", "busy_timeout", "cache_size", "mmap_size", "temp_store", "page_size", "locking_mode"]:
    print("%s=%s" % (p, con.execute("PRAGMA " + p).fetchone()[0]))
con.execute("INSERT INTO t VALUES (1)")  # begins as the isolation level says
other = sqlite3.connect(sys.argv[1], timeout=0, isolation_level=None)
try:
    other.execute("INSERT INTO t VALUES (2)")
    print("write_locked=False")
except sqlite3.OperationalError:
    print("write_locked=True")
`
		out, err := exec.Command(py, "-c", prog, path).CombinedOutput()
		if err != nil {
			t.Fatalf("case %d: python3:\n%s\n%s", i, prog, out)
		}
		got := parseKV(string(out))
		for k, v := range want(s) {
			if got[k] != v {
				t.Errorf("case %d: PRAGMA %s = %q, want %q\n%s", i, k, got[k], v, sn.Text)
			}
		}
		if iso := strings.Contains(sn.Text, `isolation_level="IMMEDIATE"`); iso != (kv["tx"] == "immediate") {
			t.Errorf("case %d: isolation level in\n%s", i, sn.Text)
		}
		if got["write_locked"] != "true" {
			t.Errorf("case %d: another connection could write during an open transaction", i)
		}
	}
}

func TestDSNs(t *testing.T) {
	s := tuned(t, snippetCases[0])
	dsn, hook := MattnDSN(s, "a.db")
	if dsn != "file:a.db?_busy_timeout=7000&_synchronous=NORMAL&_cache_size=-65536&_txlock=immediate" {
		t.Errorf("mattn DSN %s", dsn)
	}
	if strings.Join(hook, "; ") != "PRAGMA page_size = 16384; PRAGMA journal_mode = WAL; PRAGMA mmap_size = 268435456; PRAGMA temp_store = MEMORY" {
		t.Errorf("mattn hook %q", hook)
	}
	if got := ModerncDSN(s, "a.db"); got != "file:a.db?_pragma=page_size%2816384%29&_busy_timeout=7000&_pragma=cache_size%28-65536%29&_pragma=mmap_size%28268435456%29&_pragma=temp_store%28MEMORY%29&_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate" {
		t.Errorf("modernc DSN %s", got)
	}
}
