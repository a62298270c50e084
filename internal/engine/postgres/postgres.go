// Package postgres is the PostgreSQL engine: a database of litebench's own
// per run on a server, either one litebench starts for the sweep (initdb
// and postgres in a directory of its own, on a free loopback port) or the
// user's (--dsn). SQLSTATEs map onto litebench's error classes, and the
// settings in force are read back with SHOW.
package postgres

import (
	"context"
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

// Provision creates the run's database (see server.Provision).
func (pgEngine) Provision(ctx context.Context, r engine.Request) (engine.Instance, error) {
	b, err := server.Provision(ctx, r, kind)
	if err != nil {
		return nil, err
	}
	in := &instance{Base: b}
	in.managed, _ = b.Managed.(*server.Running)
	return in, nil
}

var kind = server.Kind{
	Engine: Name, Driver: "pgx",
	DriverDSN: func(u string) (string, error) { return u, nil },
	Check:     pgEngine{}.Check,
	Conf:      serverConf,
	Start: func(ctx context.Context, conf []string, keep bool) (server.Managed, error) {
		return Start(ctx, conf, keep)
	},
	Create: func(name, comment string) []string {
		q := quoteIdent(name)
		return []string{"CREATE DATABASE " + q + " TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'",
			"COMMENT ON DATABASE " + q + " IS " + dialect.Quote(comment)}
	},
	Restamp: func(name, comment string) string {
		return "COMMENT ON DATABASE " + quoteIdent(name) + " IS " + dialect.Quote(comment)
	},
	User: runRole,
	Drop: func(name string) string { return "DROP DATABASE IF EXISTS " + quoteIdent(name) + " WITH (FORCE)" },
	Size: func(name string) string { return "SELECT pg_database_size(" + dialect.Quote(name) + ")" },
	WithDB: func(base, name string) (string, error) {
		u, err := url.Parse(base)
		if err != nil {
			return "", err
		}
		u.Path = "/" + name
		return u.String(), nil
	},
}

type instance struct {
	*server.Base
	managed *server.Running
}

// Endpoint is the database's URL; every new connection sets the session's
// share of --sync.
func (in *instance) Endpoint() engine.Endpoint {
	ep := engine.Endpoint{Engine: Name, DSN: in.URL}
	if sc := durabilityOf(in.S).syncCommit; sc != "" {
		ep.Init = []string{"SET synchronous_commit = " + sc}
	}
	return ep
}

func (in *instance) ReadEndpoint(bool) engine.Endpoint { return server.ReadOnly(in.Endpoint()) }

// inForce are the settings read back from the server.
var inForce = []string{"server_version", "synchronous_commit", "fsync", "shared_buffers", "max_connections", "wal_level", "full_page_writes"}

func (in *instance) Fingerprint(ctx context.Context, db engine.SQL) engine.Fingerprint {
	fp := engine.Fingerprint{InForce: server.InForce(ctx, db, inForce, func(k string) string { return "SHOW " + k })}
	fp.Version = versionRE.FindString(fp.InForce["server_version"])
	d := durabilityOf(in.S)
	if d.syncCommit == "" {
		return fp
	}
	got := fp.InForce
	fp.Notes = append(fp.Notes, fmt.Sprintf("--sync %s on PostgreSQL (%s): synchronous_commit=%s, fsync=%s (read back)", in.S.Get("sync"), in.Where(), got["synchronous_commit"], got["fsync"]))
	if got["synchronous_commit"] != d.syncCommit || !in.User && got["fsync"] != d.fsync {
		fp.Notes = append(fp.Notes, fmt.Sprintf("asked for synchronous_commit=%s fsync=%s, the server runs synchronous_commit=%s fsync=%s", d.syncCommit, d.fsync, got["synchronous_commit"], got["fsync"]))
	}
	return fp
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// superuser is the managed server's superuser, trusted on loopback.
const superuser = "litebench"

// Start initialises a cluster in a directory of its own and starts
// postgres on a free loopback port with conf, waiting until it answers.
func Start(ctx context.Context, conf []string, keep bool) (*server.Running, error) {
	initdb, err := Bin("initdb")
	if err != nil {
		return nil, err
	}
	pg, err := Bin("postgres")
	if err != nil {
		return nil, err
	}
	return server.Launch{
		What: "PostgreSQL", Init: initdb, Daemon: pg,
		InitArgs: func(d *server.Dir, _ server.User) []string {
			return []string{"-D", d.Data, "-U", superuser, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"}
		},
		Args: func(d *server.Dir, _ server.User, port int) []string {
			args := []string{"-D", d.Data, "-p", strconv.Itoa(port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + d.Run}
			for _, c := range conf {
				args = append(args, "-c", c)
			}
			return args
		},
		URL: func(port int) string {
			return fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres?sslmode=disable", superuser, port)
		},
		Ping: func(ctx context.Context, u string) error {
			c, err := pgconn.Connect(ctx, u)
			if err == nil {
				c.Close(ctx)
			}
			return err
		},
		Stop: syscall.SIGINT, Grace: 20 * time.Second, Ready: 60 * time.Second,
	}.Start(ctx, keep)
}

// Socket is the managed server's unix socket directory and port (for
// tools such as pgbench on the same instance); "" for a user's server.
func (in *instance) Socket() (dir string, port int) {
	if in.managed == nil {
		return "", 0
	}
	u, _ := url.Parse(in.managed.URL())
	port, _ = strconv.Atoi(u.Port())
	return in.managed.Dir.Run, port
}
