// Package postgres is the PostgreSQL engine: a database of litebench's own
// per run on a server, either one litebench starts for the sweep (initdb
// and postgres in a directory of its own, on a free loopback port) or the
// user's (--dsn). SQLSTATEs map onto litebench's error classes, and the
// settings in force are read back with SHOW.
package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/engine/server"
	"github.com/litebench/litebench/internal/settings"
)

// Name is the engine's name.
const Name = "postgres"

// Engine is the PostgreSQL engine.
var Engine engine.Engine = pgEngine{}

func init() { engine.Register(Engine) }

type pgEngine struct{}

func (pgEngine) Name() string              { return Name }
func (pgEngine) Dialect() dialect.Dialect  { return dialect.Postgres }
func (pgEngine) Settings() []settings.Spec { return append([]settings.Spec(nil), specs...) }
func (pgEngine) Schemes() []string         { return []string{"postgres", "postgresql"} }

// Available is nil when initdb and postgres are installed.
func (pgEngine) Available() error {
	_, err := Bin("postgres")
	return err
}

// Bin finds one of PostgreSQL's programs: in the newest of Debian's
// /usr/lib/postgresql/VERSION/bin, or on PATH.
func Bin(name string) (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return majorOf(dirs[i]) > majorOf(dirs[j]) })
	if p, ok := server.Find([]string{name}, dirs...); ok {
		return p, nil
	}
	return "", &server.Missing{Program: name, Package: "postgresql"}
}

func majorOf(dir string) float64 {
	v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(dir)), 64)
	return v
}

var versionRE = regexp.MustCompile(`\d+(\.\d+)+`)

// Version is the version of the installed server, from postgres --version.
func Version() (string, error) {
	p, err := Bin("postgres")
	if err != nil {
		return "", err
	}
	out, err := exec.Command(p, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %v", p, err)
	}
	return versionRE.FindString(string(out)), nil
}

// Check refuses settings a run cannot apply: on the user's server
// (userDSN), litebench changes nothing server-wide, so --sync off (fsync)
// and the managed server's settings must stay at their defaults.
func (pgEngine) Check(s settings.Settings, userDSN bool) error {
	if !userDSN {
		return nil
	}
	if durabilityOf(s).fsync == "off" {
		return fmt.Errorf("--sync off turns PostgreSQL's fsync off, a setting of the whole server; litebench changes nothing on a server it did not start (--dsn): use --sync normal, or drop --dsn")
	}
	if v := s.Get("pg-shared-buffers"); v != "default" {
		return fmt.Errorf("--pg-shared-buffers sets the managed server's shared_buffers; litebench changes nothing on a server it did not start (--dsn): drop one of them")
	}
	return nil
}

// Classify maps an error's SQLSTATE (or a lost connection) to its class.
func Classify(err error) engine.ErrClass {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch c := pe.Code; {
		case c == "40001":
			return engine.Serialization
		case c == "40P01":
			return engine.Deadlock
		case c == "55P03":
			return engine.Locked // lock_not_available
		case c == "57014":
			return engine.Interrupted // query_canceled
		case strings.HasPrefix(c, "23"):
			return engine.Constraint
		case strings.HasPrefix(c, "08"), strings.HasPrefix(c, "57P"):
			return engine.Conn
		}
		return engine.Other
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	if errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
		return engine.Conn
	}
	return engine.None
}

// Provision creates the run's database: on the user's server when the
// sweep's servers name one, else on a managed server started for these
// settings (kept for the sweep, or for this run when there are no sweep
// servers). Path, when set, is a database another litebench process
// created (a worker's job): it is used as it is.
func (pgEngine) Provision(ctx context.Context, r engine.Request) (engine.Instance, error) {
	in := &instance{s: r.Settings}
	if r.Path != "" {
		in.url = r.Path
		in.db.Name, in.db.Addr = "", engine.Redact(r.Path)
		return in, nil
	}
	servers := r.Servers
	if servers == nil {
		servers = engine.NewServers()
		servers.Keep = r.Keep
		in.db.Private = servers
	}
	base := servers.DSN(Name)
	in.user = base != ""
	if in.user {
		if err := (pgEngine{}).Check(r.Settings, true); err != nil {
			in.Destroy()
			return nil, err
		}
	} else {
		conf := serverConf(r.Settings)
		c, err := servers.Start(Name+" "+strings.Join(conf, " "), func() (io.Closer, error) { return start(ctx, conf, servers.Keep) })
		if err != nil {
			in.Destroy()
			return nil, err
		}
		in.managed = c.(*managed)
		base = in.managed.url
	}
	in.db.Name = server.DBName(r.Name)
	in.db.Addr = engine.Redact(base)
	in.db.Keep = r.Keep
	admin, err := sql.Open("pgx", base)
	if err != nil {
		in.Destroy()
		return nil, fmt.Errorf("--dsn %s: %w", in.db.Addr, err)
	}
	admin.SetMaxOpenConns(1)
	in.db.Admin = admin
	q := quoteIdent(in.db.Name)
	in.db.Drop = "DROP DATABASE IF EXISTS " + q + " WITH (FORCE)"
	in.db.Size = "SELECT pg_database_size(" + dialect.Quote(in.db.Name) + ")"
	if err := in.db.Create(ctx, "CREATE DATABASE "+q+" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'",
		"COMMENT ON DATABASE "+q+" IS "+dialect.Quote("litebench bench database of run "+r.Name+"; litebench drops it when the run ends")); err != nil {
		in.Destroy()
		return nil, err
	}
	u, err := url.Parse(base)
	if err != nil {
		in.Destroy()
		return nil, err
	}
	u.Path = "/" + in.db.Name
	in.url = u.String()
	return in, nil
}

type instance struct {
	s       settings.Settings
	db      server.Database
	url     string
	user    bool
	managed *managed
}

func (in *instance) String() string {
	if in.db.Name == "" {
		return in.db.Addr
	}
	return "database " + in.db.Name + " on " + in.db.Addr
}

// Endpoint is the database's URL; every new connection sets the session's
// share of --sync.
func (in *instance) Endpoint() engine.Endpoint {
	ep := engine.Endpoint{Engine: Name, DSN: in.url}
	if sc := durabilityOf(in.s).syncCommit; sc != "" {
		ep.Init = []string{"SET synchronous_commit = " + sc}
	}
	return ep
}

func (in *instance) ReadEndpoint(bool) engine.Endpoint {
	ep := in.Endpoint()
	ep.ReadOnly = true
	return ep
}

// Stamp does nothing: the database carries litebench's comment from its
// creation.
func (in *instance) Stamp(context.Context, engine.SQL) error { return nil }

// inForce are the settings read back from the server.
var inForce = []string{"server_version", "synchronous_commit", "fsync", "shared_buffers", "max_connections", "wal_level", "full_page_writes"}

func (in *instance) Fingerprint(ctx context.Context, db engine.SQL) engine.Fingerprint {
	fp := engine.Fingerprint{InForce: map[string]string{}}
	for _, k := range inForce {
		if v, err := db.Strings(ctx, "SHOW "+k); err == nil && len(v) > 0 {
			fp.InForce[k] = v[0]
		}
	}
	fp.Version = versionRE.FindString(fp.InForce["server_version"])
	where := "managed server"
	if in.user {
		where = "server " + in.db.Addr
	}
	if d := durabilityOf(in.s); d.syncCommit != "" {
		fp.Notes = append(fp.Notes, fmt.Sprintf("--sync %s on PostgreSQL (%s): synchronous_commit=%s, fsync=%s (read back)", in.s.Get("sync"), where, fp.InForce["synchronous_commit"], fp.InForce["fsync"]))
	}
	if d := durabilityOf(in.s); d.syncCommit != "" && (fp.InForce["synchronous_commit"] != d.syncCommit || d.fsync != "" && !in.user && fp.InForce["fsync"] != d.fsync) {
		fp.Notes = append(fp.Notes, fmt.Sprintf("asked for synchronous_commit=%s fsync=%s, the server runs synchronous_commit=%s fsync=%s", d.syncCommit, d.fsync, fp.InForce["synchronous_commit"], fp.InForce["fsync"]))
	}
	return fp
}

func (in *instance) Probe() (engine.Probe, bool) { return in.db.Probe() }

// Check has nothing to run: PostgreSQL checks pages as it reads them
// (amcheck would need an extension installed).
func (in *instance) Check(context.Context, engine.SQL) error { return nil }

func (in *instance) Destroy() error { return in.db.Destroy() }

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// managed is a PostgreSQL server litebench started.
type managed struct {
	dir  *server.Dir
	proc *server.Proc
	url  string
	keep bool
}

// superuser is the managed server's superuser, trusted on loopback.
const superuser = "litebench"

// start initialises a cluster in a directory of its own and starts
// postgres on a free loopback port with conf, waiting until it answers.
func start(ctx context.Context, conf []string, keep bool) (*managed, error) {
	initdb, err := Bin("initdb")
	if err != nil {
		return nil, err
	}
	pg, err := Bin("postgres")
	if err != nil {
		return nil, err
	}
	u, err := server.RunAs()
	if err != nil {
		return nil, err
	}
	dir, err := server.NewDir(u)
	if err != nil {
		return nil, err
	}
	m := &managed{dir: dir, keep: keep}
	fail := func(err error) (*managed, error) {
		m.Close()
		return nil, fmt.Errorf("managed PostgreSQL server: %w", err)
	}
	if err := server.Run(ctx, u, initdb, "-D", dir.Data, "-U", superuser, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		return fail(err)
	}
	port, err := server.FreePort()
	if err != nil {
		return fail(err)
	}
	args := []string{"-D", dir.Data, "-p", strconv.Itoa(port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + dir.Run}
	for _, c := range conf {
		args = append(args, "-c", c)
	}
	if m.proc, err = server.Start(u, dir.Log, pg, args...); err != nil {
		return fail(err)
	}
	m.url = fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres?sslmode=disable", superuser, port)
	err = m.proc.WaitReady(ctx, 60*time.Second, func(ctx context.Context) error {
		c, err := pgconn.Connect(ctx, m.url)
		if err == nil {
			c.Close(ctx)
		}
		return err
	})
	if err != nil {
		return fail(err)
	}
	return m, nil
}

// Close stops the server (a fast shutdown) and removes its directory.
func (m *managed) Close() error {
	if m.proc != nil {
		m.proc.Stop(syscall.SIGINT, 20*time.Second)
	}
	m.dir.Close(m.keep)
	return nil
}

// Socket is the managed server's unix socket directory and port (for
// tools such as pgbench on the same instance); "" for a user's server.
func (in *instance) Socket() (dir string, port int) {
	if in.managed == nil {
		return "", 0
	}
	u, _ := url.Parse(in.managed.url)
	port, _ = strconv.Atoi(u.Port())
	return in.managed.dir.Run, port
}
