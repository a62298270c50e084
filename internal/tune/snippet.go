package tune

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/litebench/litebench/internal/settings"
)

// Snippet is a recommendation as code: what to paste where.
type Snippet struct {
	Title string
	// Text is the code. Go snippets are a function openDB(path string)
	// (*sql.DB, error) with its imports above it; Python's a function
	// connect(path).
	Text string
}

// pragma is one PRAGMA a connection runs, by SQLite's name.
type pragma struct{ name, value string }

// pragmas are the SQLite pragmas of s that differ from the database's
// defaults, in the order a new file needs them (page_size before the
// journal mode is set), as the sqlite engine runs them.
func pragmas(s settings.Settings) []pragma {
	var p []pragma
	add := func(name, v string) {
		if v != "" && v != "default" {
			p = append(p, pragma{name, v})
		}
	}
	add("page_size", s.Get("page-size"))
	add("busy_timeout", s.Get("busy-timeout"))
	add("locking_mode", s.Get("locking-mode"))
	add("journal_mode", s.Get("journal"))
	add("synchronous", s.Get("sync"))
	add("cache_size", s.Get("cache-size"))
	add("mmap_size", s.Get("mmap-size"))
	add("temp_store", s.Get("temp-store"))
	return p
}

// upper is a pragma value as SQLite's documentation writes it.
func upper(p pragma) string {
	switch p.name {
	case "journal_mode", "synchronous", "locking_mode", "temp_store":
		return strings.ToUpper(p.value)
	}
	return p.value
}

// MattnDSN is the recommendation for github.com/mattn/go-sqlite3: a DSN
// with the parameters the driver knows (_journal_mode, _synchronous,
// _busy_timeout, _cache_size, _locking_mode, _txlock) and the pragmas it
// has no parameter for, to run in a ConnectHook. A page size must be set
// before the journal mode on a new file, and the driver sets its
// parameters before the hook runs, so with a page size the journal mode
// (and locking mode) go to the hook too, after it.
func MattnDSN(s settings.Settings, path string) (dsn string, hook []string) {
	ps := pragmas(s)
	inHook := map[string]bool{"page_size": true, "mmap_size": true, "temp_store": true}
	for _, p := range ps {
		if p.name == "page_size" {
			inHook["journal_mode"], inHook["locking_mode"] = true, true
		}
	}
	param := map[string]string{"journal_mode": "_journal_mode", "synchronous": "_synchronous", "busy_timeout": "_busy_timeout",
		"cache_size": "_cache_size", "locking_mode": "_locking_mode"}
	var q []string
	for _, p := range ps {
		if inHook[p.name] {
			hook = append(hook, "PRAGMA "+p.name+" = "+upper(p))
			continue
		}
		q = append(q, param[p.name]+"="+url.QueryEscape(upper(p)))
	}
	if s.Get("tx") == "immediate" {
		q = append(q, "_txlock=immediate")
	}
	dsn = "file:" + path
	if len(q) > 0 {
		dsn += "?" + strings.Join(q, "&")
	}
	return dsn, hook
}

// ModerncDSN is the recommendation for modernc.org/sqlite. The driver
// runs busy_timeout first, then its _pragma=name(value) list sorted by
// name (so journal_mode would come before page_size, too late for a new
// file's page size), then its shorthand keys: the journal mode and
// synchronous level go as _journal_mode and _synchronous, after every
// _pragma.
func ModerncDSN(s settings.Settings, path string) string {
	var q, late []string
	for _, p := range pragmas(s) {
		switch p.name {
		case "busy_timeout":
			q = append(q, "_busy_timeout="+p.value)
		case "journal_mode":
			late = append(late, "_journal_mode="+upper(p))
		case "synchronous":
			late = append(late, "_synchronous="+upper(p))
		default:
			q = append(q, "_pragma="+url.QueryEscape(p.name+"("+upper(p)+")"))
		}
	}
	q = append(q, late...)
	if s.Get("tx") == "immediate" {
		q = append(q, "_txlock=immediate")
	}
	dsn := "file:" + path
	if len(q) > 0 {
		dsn += "?" + strings.Join(q, "&")
	}
	return dsn
}

// poolLines are the database/sql pool settings of s, as Go statements on
// db, and what the application does that no setting can say, as
// comments.
func poolLines(s settings.Settings) []string {
	var l []string
	if n := s.Int("pool"); n > 0 {
		l = append(l, fmt.Sprintf("db.SetMaxOpenConns(%d)", n), fmt.Sprintf("db.SetMaxIdleConns(%d)", n))
	} else {
		l = append(l, "// pool: database/sql's default (no limit on open connections)")
	}
	if s.Get("writer") == "single" {
		l = append(l, "// writes: one *sql.DB of its own with SetMaxOpenConns(1) for every write; reads use this pool")
	}
	if s.Bool("write-mutex") {
		l = append(l, "// writes: behind one sync.Mutex in the application")
	}
	if s.Bool("prepared") {
		l = append(l, "// statements: prepare once (db.Prepare) and reuse the *sql.Stmt")
	} else {
		l = append(l, "// statements: ad hoc (db.Exec with the SQL text) measured as fast as prepared ones here")
	}
	switch r := s.Get("busy-retry"); {
	case r == "none":
	case strings.HasPrefix(r, "backoff:"):
		l = append(l, "// on SQLITE_BUSY: retry with exponential backoff "+strings.TrimPrefix(r, "backoff:")+" (jittered)")
	case r == "until":
		l = append(l, "// on SQLITE_BUSY: retry at once until it succeeds")
	default:
		l = append(l, "// on SQLITE_BUSY: retry at once, up to "+r+" times")
	}
	return l
}

// GoSnippet is openDB for driver ("mattn" or "modernc"): the DSN, the
// ConnectHook where mattn needs one, and the pool.
func GoSnippet(driver string, s settings.Settings) Snippet {
	var b strings.Builder
	ind := func(lines []string) {
		for _, l := range lines {
			b.WriteString("\t" + l + "\n")
		}
	}
	switch driver {
	case "mattn":
		dsn, hook := MattnDSN(s, "PATH")
		b.WriteString("import (\n\t\"database/sql\"\n\n\t\"github.com/mattn/go-sqlite3\"\n)\n\n")
		name := "sqlite3"
		if len(hook) > 0 {
			name = "sqlite3_tuned"
			b.WriteString("func init() {\n\tsql.Register(\"sqlite3_tuned\", &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {\n")
			b.WriteString("\t\tfor _, p := range []string{\n")
			for _, h := range hook {
				b.WriteString("\t\t\t" + strconv.Quote(h) + ",\n")
			}
			b.WriteString("\t\t} {\n\t\t\tif _, err := c.Exec(p, nil); err != nil {\n\t\t\t\treturn err\n\t\t\t}\n\t\t}\n\t\treturn nil\n\t}})\n}\n\n")
		} else {
			b.Reset()
			b.WriteString("import (\n\t\"database/sql\"\n\n\t_ \"github.com/mattn/go-sqlite3\"\n)\n\n")
		}
		b.WriteString("func openDB(path string) (*sql.DB, error) {\n")
		fmt.Fprintf(&b, "\tdb, err := sql.Open(%q, %s)\n", name, dsnExpr(dsn))
	case "modernc":
		b.WriteString("import (\n\t\"database/sql\"\n\n\t_ \"modernc.org/sqlite\"\n)\n\n")
		b.WriteString("func openDB(path string) (*sql.DB, error) {\n")
		fmt.Fprintf(&b, "\tdb, err := sql.Open(\"sqlite\", %s)\n", dsnExpr(ModerncDSN(s, "PATH")))
	}
	b.WriteString("\tif err != nil {\n\t\treturn nil, err\n\t}\n")
	ind(poolLines(s))
	b.WriteString("\treturn db, nil\n}\n")
	title := map[string]string{"mattn": "Go, github.com/mattn/go-sqlite3 (database/sql)", "modernc": "Go, modernc.org/sqlite (database/sql)"}[driver]
	return Snippet{Title: title, Text: b.String()}
}

// dsnExpr is a Go expression of dsn with PATH replaced by the path
// variable (path is used as it is: it must not hold '?' or '#').
func dsnExpr(dsn string) string {
	pre, post, _ := strings.Cut(dsn, "PATH")
	e := strconv.Quote(pre) + " + path"
	if post != "" {
		e += " + " + strconv.Quote(post)
	}
	return e
}

// PythonSnippet is connect(path) for Python's sqlite3 module: the busy
// timeout as connect's timeout, BEGIN IMMEDIATE as its isolation level,
// every other pragma run after connecting.
func PythonSnippet(s settings.Settings) Snippet {
	var b strings.Builder
	b.WriteString("import sqlite3\n\n\ndef connect(path):\n")
	timeout := "5.0"
	if ms, err := strconv.Atoi(s.Get("busy-timeout")); err == nil {
		timeout = strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64)
		if !strings.Contains(timeout, ".") {
			timeout += ".0"
		}
	}
	iso := "\"DEFERRED\""
	if s.Get("tx") == "immediate" {
		iso = "\"IMMEDIATE\""
	}
	fmt.Fprintf(&b, "    con = sqlite3.connect(path, timeout=%s, isolation_level=%s)\n", timeout, iso)
	for _, p := range pragmas(s) {
		if p.name == "busy_timeout" {
			continue
		}
		fmt.Fprintf(&b, "    con.execute(\"PRAGMA %s = %s\")\n", p.name, upper(p))
	}
	b.WriteString("    return con\n")
	return Snippet{Title: "Python, sqlite3", Text: b.String()}
}

// Snippets are the recommendation as code for a SQLite target: mattn and
// modernc DSNs with database/sql's pool, and Python's sqlite3.
func Snippets(s settings.Settings) []Snippet {
	return []Snippet{GoSnippet("mattn", s), GoSnippet("modernc", s), PythonSnippet(s)}
}

// ServerSnippet is the recommendation's commit durability for a server
// engine, as statements a superuser runs on the server: PostgreSQL's
// synchronous_commit and fsync (ALTER SYSTEM, then a reload), MariaDB's
// innodb_flush_log_at_trx_commit and sync_binlog (SET GLOBAL), as the
// engines map --sync (docs/engines.md). ok is false for another engine or
// a sync left at the server's default.
func ServerSnippet(engine string, s settings.Settings) (sn Snippet, ok bool) {
	sync := s.Get("sync")
	var b strings.Builder
	switch engine {
	case "postgres":
		d, ok := map[string][2]string{"off": {"off", "off"}, "normal": {"off", "on"}, "full": {"on", "on"}, "extra": {"on", "on"}}[sync]
		if !ok {
			return Snippet{}, false
		}
		sc, fs := d[0], d[1]
		b.WriteString("-- as a superuser; ALTER SYSTEM writes postgresql.auto.conf\n")
		fmt.Fprintf(&b, "ALTER SYSTEM SET synchronous_commit = '%s';\n", sc)
		fmt.Fprintf(&b, "ALTER SYSTEM SET fsync = '%s';\n", fs)
		b.WriteString("SELECT pg_reload_conf();\n")
		return Snippet{Title: "PostgreSQL", Text: b.String()}, true
	case "mariadb":
		d, ok := map[string][2]string{"off": {"0", "0"}, "normal": {"2", "0"}, "full": {"1", "1"}, "extra": {"1", "1"}}[sync]
		if !ok {
			return Snippet{}, false
		}
		b.WriteString("-- as a user with SUPER; also set them in the [mysqld] section of the server's option file to keep them after a restart\n")
		fmt.Fprintf(&b, "SET GLOBAL innodb_flush_log_at_trx_commit = %s;\n", d[0])
		fmt.Fprintf(&b, "SET GLOBAL sync_binlog = %s;\n", d[1])
		return Snippet{Title: "MariaDB", Text: b.String()}, true
	}
	return Snippet{}, false
}
