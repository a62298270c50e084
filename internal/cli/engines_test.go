package cli

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/engine/mariadb"
	"github.com/litebench/litebench/internal/engine/postgres"
	"github.com/litebench/litebench/internal/engine/server"
)

// requireEngine skips a test of a server engine whose programs are not
// installed, unless LITEBENCH_REQUIRE_ENGINES=1 makes that a failure.
func requireEngine(t *testing.T, name string) {
	t.Helper()
	e, err := engine.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.(engine.Served).Available(); err != nil {
		if os.Getenv("LITEBENCH_REQUIRE_ENGINES") == "1" {
			t.Fatalf("%s: %v (LITEBENCH_REQUIRE_ENGINES=1)", name, err)
		}
		t.Skipf("%s: %v", name, err)
	}
}

var serverEngines = []string{postgres.Name, mariadb.Name}

// Every built-in workload runs on each server engine, in one sweep with a
// SQLite target, through the whole command: one managed server per engine
// for the sweep, the server's version and settings read back, and
// nothing left behind.
func TestServerEnginesRunEveryWorkload(t *testing.T) {
	for _, e := range serverEngines {
		requireEngine(t, e)
	}
	before := serverDirs()
	targets := "mattn," + strings.Join(serverEngines, ",")
	file := filepath.Join(t.TempDir(), "bank.toml")
	if err := os.WriteFile(file, []byte(bankFile), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"insert", "--rows", "300", "--batch", "1,100", "--rows-per-stmt", "1,10"},
		{"insert", "--rows", "200", "--schema", "users"},
		{"scan", "--rows", "500"},
		{"paginate", "--rows", "500", "--depths", "10,400"},
		{"read", "--rows", "300", "--count", "300", "--workers", "2"},
		{"write", "--rows", "300", "--count", "200", "--write-kind", "upsert"},
		{"mixed", "--rows", "300", "--count", "300", "--write-kind", "update"},
		{"mixed", "--rows", "300", "--rate", "400", "--duration", "300ms"},
		{"run", file, "--count", "100"},
	} {
		args = append(args, "--target", targets, "--no-store", "--progress", "0", "--format", "json")
		o := run(t, context.Background(), args...)
		if o.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, o.code, o.err)
		}
		for _, j := range jsonLines(t, o.out) {
			what := fmt.Sprintf("%v on %v", args[:2], j["target"])
			if j["status"] != "ok" || j["count"].(float64) <= 0 {
				t.Errorf("%s: status %v, count %v: %v", what, j["status"], j["count"], j["error"])
			}
			if j["engine"] == "sqlite" {
				continue
			}
			env := j["env"].(map[string]any)
			if j["engine_version"] == "" || env["server_settings"] == nil {
				t.Errorf("%s: no server version (%q) or settings read back (%v)", what, j["engine_version"], env["server_settings"])
			}
		}
	}
	// Tests of other packages, running at the same time, start servers
	// in the same temp dir and remove them when they end: a directory
	// this run left behind stays, theirs go within their test's time.
	left := newDirs(before, serverDirs())
	for wait := 0; len(left) > 0 && wait < 60; wait++ {
		time.Sleep(time.Second)
		left = newDirs(before, serverDirs())
	}
	if len(left) > 0 {
		t.Errorf("server directories left behind: %v", left)
	}
}

// A transfer between accounts: per-engine statements where the dialects
// differ.
const bankFile = `name = "bank"
summary = "transfers"
[params]
rows = { default = "100" }
[[table]]
name = "acct"
rows = "${rows}"
columns = [
  { name = "id", type = "int", primary_key = true, gen = "seq(0)" },
  { name = "balance", type = "int", gen = "const(100)" },
]
[statement.credit]
sql = "UPDATE acct SET balance = balance + 1 WHERE id = :b"
dialect = { postgres = "UPDATE acct SET balance = balance + 1 WHERE id = CAST(:b AS bigint)", mariadb = "UPDATE acct SET balance = balance + 1 WHERE id = CAST(:b AS SIGNED)" }
[transaction.transfer]
workers = "2"
steps = [
  '\set a random(0, :rows - 1)',
  '\set b (:a + 1) % :rows',
  "BEGIN",
  "UPDATE acct SET balance = balance - 1 WHERE id = :a",
  "credit",
  "COMMIT",
]
[[check]]
name = "money is kept"
sql = "SELECT sum(balance) FROM acct"
expect = "unchanged"
`

// serverDirs lists the litebench directories under the temp dir that
// hold a managed server's data and log.
func serverDirs() map[string]bool {
	m := map[string]bool{}
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "litebench-*", "server.log"))
	for _, d := range dirs {
		m[filepath.Dir(d)] = true
	}
	return m
}

func newDirs(before, after map[string]bool) []string {
	var out []string
	for d := range after {
		if !before[d] {
			out = append(out, d)
		}
	}
	return out
}

// childServers returns this process's children that are database servers.
func childServers() []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(b)
		comm := s[strings.IndexByte(s, '(')+1 : strings.LastIndexByte(s, ')')]
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		if ppid, _ := strconv.Atoi(f[1]); ppid == os.Getpid() && (comm == "postgres" || comm == "mariadbd") && f[0] != "Z" {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			pids = append(pids, pid)
		}
	}
	return pids
}

// cancelOn cancels once a line containing marker is written, recording
// the server processes running at that moment and their directories.
type cancelOn struct {
	bytes.Buffer
	marker string
	cancel func()
	pids   []int
	dirs   []string
}

func (c *cancelOn) Write(p []byte) (int, error) {
	if c.pids == nil && bytes.Contains(p, []byte(c.marker)) {
		c.pids = childServers()
		for _, pid := range c.pids {
			if d := dataDir(pid); d != "" {
				c.dirs = append(c.dirs, filepath.Dir(d))
			}
		}
		c.cancel()
	}
	return c.Buffer.Write(p)
}

// dataDir is the data directory on a server's command line.
func dataDir(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	args := strings.Split(string(b), "\x00")
	for i, a := range args {
		if a == "-D" && i+1 < len(args) {
			return args[i+1]
		}
		if d, ok := strings.CutPrefix(a, "--datadir="); ok {
			return d
		}
	}
	return ""
}

// Ctrl-C in the middle of a run stops the managed servers and removes
// their directories.
func TestServerEnginesInterrupted(t *testing.T) {
	for _, e := range serverEngines {
		requireEngine(t, e)
		t.Run(e, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			errw := &cancelOn{marker: "ops/s", cancel: cancel}
			var out bytes.Buffer
			code := Main(ctx, []string{"read", "--target", e, "--rows", "100", "--duration", "60s", "--progress", "100ms", "--no-store"}, &out, errw)
			if code != ExitInterrupted {
				t.Fatalf("exit %d, want %d: %s", code, ExitInterrupted, errw.String())
			}
			if len(errw.pids) == 0 || len(errw.dirs) == 0 {
				t.Fatalf("no server process (%v) or directory (%v) seen while the run ran: %s", errw.pids, errw.dirs, errw.String())
			}
			for _, pid := range errw.pids {
				if syscall.Kill(pid, 0) == nil {
					t.Errorf("server process %d still runs", pid)
				}
			}
			for _, d := range errw.dirs {
				if _, err := os.Stat(d); err == nil {
					t.Errorf("server directory %s left behind", d)
				}
			}
		})
	}
}

// --dsn: litebench creates its own database on the user's server, leaves
// the user's database and table byte for byte as they were, and drops
// only what it created; settings it would have to change server-wide are
// refused.
func TestServerEnginesUserDSN(t *testing.T) {
	for _, c := range []struct {
		engine, driver, syncRefused string
		start                       func(context.Context, []string, bool) (*server.Running, error)
		dsn                         func(string) (string, error)
		dbs, create                 string
	}{
		{postgres.Name, "pgx", "off", postgres.Start, func(u string) (string, error) { return u, nil },
			"SELECT datname FROM pg_database ORDER BY datname", "CREATE DATABASE userdb"},
		{mariadb.Name, "mysql", "full", mariadb.Start, mariadb.DriverDSN,
			"SELECT schema_name FROM information_schema.schemata ORDER BY schema_name", "CREATE DATABASE userdb"},
	} {
		t.Run(c.engine, func(t *testing.T) {
			requireEngine(t, c.engine)
			ctx := context.Background()
			srv, err := c.start(ctx, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			admin := open(t, c.driver, srv.URL(), c.dsn)
			if _, err := admin.Exec(c.create); err != nil {
				t.Fatal(err)
			}
			userURL := strings.Replace(srv.URL(), "/postgres?", "/userdb?", 1)
			if c.engine == mariadb.Name {
				userURL += "userdb"
			}
			user := open(t, c.driver, userURL, c.dsn)
			for _, q := range []string{"CREATE TABLE bench (ID int PRIMARY KEY, rand text, hash text)",
				"INSERT INTO bench VALUES (1, 'mine', 'do not touch'), (2, 'also mine', '')"} {
				if _, err := user.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			dump := func() string {
				return strings.Join(strings1(t, admin, c.dbs), ",") + "|" + strings.Join(strings1(t, user, "SELECT concat(ID, ':', rand, ':', hash) FROM bench ORDER BY ID"), ",")
			}
			was := dump()
			for _, args := range [][]string{
				{"insert", "--rows", "200", "--batch", "1,50"},
				{"read", "--rows", "200", "--count", "200", "--workers", "2"},
				{"scan", "--rows", "200"},
			} {
				o := run(t, ctx, append(args, "--target", c.engine, "--dsn", userURL, "--no-store", "--progress", "0", "--format", "json")...)
				if o.code != 0 {
					t.Fatalf("%v: exit %d: %s", args, o.code, o.err)
				}
				for _, j := range jsonLines(t, o.out) {
					if j["status"] != "ok" {
						t.Errorf("%v: %v %v", args, j["status"], j["error"])
					}
				}
			}
			if now := dump(); now != was {
				t.Errorf("the user's server changed:\nbefore %s\nafter  %s", was, now)
			}
			o := run(t, ctx, "insert", "--target", c.engine, "--dsn", userURL, "--sync", c.syncRefused, "--no-store")
			if o.code != ExitUsage || strings.Count(strings.TrimSpace(o.err), "\n") != 0 {
				t.Errorf("--sync %s with --dsn: exit %d, %q; want 2 and one line", c.syncRefused, o.code, o.err)
			}
		})
	}
}

func open(t *testing.T, driver, u string, dsn func(string) (string, error)) *sql.DB {
	t.Helper()
	d, err := dsn(u)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open(driver, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func strings1(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// TestAuditRefusesServerEngines: the audit kills worker processes on
// SQLite files and dqlite nodes; a server engine is refused before
// anything starts, in one line, and list targets shows no fault for it.
func TestAuditRefusesServerEngines(t *testing.T) {
	requireEngine(t, "postgres")
	dir := t.TempDir()
	o := run(t, context.Background(), "audit", "write", "--target", "postgres", "--trials", "1", "--no-store", "--dir", dir)
	if o.code != 2 || !strings.Contains(o.err, "postgres is a server engine") || strings.Count(strings.TrimSpace(o.err), "\n") > 0 {
		t.Errorf("exit %d, %q; want 2 and one line", o.code, o.err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 0 {
		t.Errorf("the refused audit left %d entries in --dir", len(ents))
	}
	o = run(t, context.Background(), "list", "targets")
	for _, l := range strings.Split(o.out, "\n") {
		if strings.HasPrefix(l, "postgres ") && strings.Contains(l, "process-kill") {
			t.Errorf("list targets offers an audit fault for postgres: %s", l)
		}
	}
}
