// Package mariadb is the MariaDB engine: a database of litebench's own per
// run on a server, either one litebench starts for the sweep
// (mariadb-install-db and mariadbd in a directory of its own, on a free
// loopback port) or the user's (--dsn). Error numbers map onto litebench's
// error classes, and the settings in force are read back with SELECT @@.
package mariadb

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/engine/server"
	"github.com/litebench/litebench/internal/settings"
)

// Name is the engine's name.
const Name = "mariadb"

// Engine is the MariaDB engine.
var Engine engine.Engine = mariaEngine{}

func init() {
	engine.Register(Engine)
	settings.Register(Name, specs, nil)
	settings.Share("sync", Name)
	settings.Ignore(Name, "tx", "BEGIN IMMEDIATE and EXCLUSIVE are SQLite's; MariaDB begins every transaction with "+dialect.MySQL.Begin("immediate")+", which takes row locks as it writes (a workload file's BEGIN IMMEDIATE or EXCLUSIVE runs so)")
}

// specs are MariaDB's own settings, under their flag names.
var specs = []settings.Spec{
	{Key: "innodb-buffer-pool-size", Default: "default", Help: "MariaDB innodb_buffer_pool_size of the managed server, e.g. 128MB or 1GB (default: the server's, 128MB)", Canon: sizeCanon},
	{Key: "innodb-log-file-size", Default: "default", Help: "MariaDB innodb_log_file_size of the managed server (default: the server's, 96MB)", Canon: sizeCanon},
}

var sizeCanon = server.SizeCanon(1<<20, 1, "")

type mariaEngine struct{}

func (mariaEngine) Name() string              { return Name }
func (mariaEngine) Dialect() dialect.Dialect  { return dialect.MySQL }
func (mariaEngine) Settings() []settings.Spec { return append([]settings.Spec(nil), specs...) }
func (mariaEngine) Schemes() []string         { return []string{"mariadb", "mysql"} }

// Available is nil when mariadb-install-db and mariadbd are installed.
func (mariaEngine) Available() error {
	if _, err := bin("mariadbd"); err != nil {
		return err
	}
	_, err := bin("mariadb-install-db")
	return err
}

func bin(name string) (string, error) {
	if p, ok := server.Find([]string{name}, "/usr/sbin", "/usr/bin"); ok {
		return p, nil
	}
	return "", &server.Missing{Program: name, Package: "mariadb-server"}
}

var versionRE = regexp.MustCompile(`\d+\.\d+\.\d+`)

// Version is the installed server's version, from mariadbd --version.
func Version() (string, error) {
	p, err := bin("mariadbd")
	if err != nil {
		return "", err
	}
	out, err := exec.Command(p, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %v", p, err)
	}
	return versionRE.FindString(string(out)), nil
}

// durability is what --sync sets on MariaDB, server-wide:
// innodb_flush_log_at_trx_commit and sync_binlog ("" leaves the server's
// defaults). off writes the log at most once a second; normal writes it
// to the OS at each commit and syncs it once a second (a power cut may
// lose a second of commits); full and extra sync it at each commit.
type durability struct{ flush, syncBinlog string }

func durabilityOf(s settings.Settings) durability {
	switch s.Get("sync") {
	case "off":
		return durability{"0", "0"}
	case "normal":
		return durability{"2", "0"}
	case "full", "extra":
		return durability{"1", "1"}
	}
	return durability{}
}

// Check refuses settings a run cannot apply: MariaDB's commit durability
// and buffer sizes are the whole server's, which litebench does not change
// on a server it did not start.
func (mariaEngine) Check(s settings.Settings, user bool) error {
	if !user {
		return nil
	}
	if durabilityOf(s).flush != "" {
		return fmt.Errorf("--sync %s sets MariaDB's innodb_flush_log_at_trx_commit, a setting of the whole server; litebench changes nothing on a server it did not start (--dsn): drop --sync (the run records what the server runs) or drop --dsn", s.Get("sync"))
	}
	for _, k := range []string{"innodb-buffer-pool-size", "innodb-log-file-size"} {
		if s.Get(k) != "default" {
			return fmt.Errorf("--%s sets the managed server's %s; litebench changes nothing on a server it did not start (--dsn): drop one of them", k, strings.ReplaceAll(k, "-", "_"))
		}
	}
	return nil
}

// serverConf are the managed server's options for s.
func serverConf(s settings.Settings) []string {
	var conf []string
	if d := durabilityOf(s); d.flush != "" {
		conf = append(conf, "--innodb-flush-log-at-trx-commit="+d.flush, "--sync-binlog="+d.syncBinlog)
	}
	if v := s.Get("innodb-buffer-pool-size"); v != "default" {
		conf = append(conf, "--innodb-buffer-pool-size="+v)
	}
	if v := s.Get("innodb-log-file-size"); v != "default" {
		conf = append(conf, "--innodb-log-file-size="+v)
	}
	return conf
}

// Classify maps a MariaDB error number (or a lost connection) to its
// class: a deadlock (1213) as a deadlock, a lock wait timeout (1205) as
// busy.
func Classify(err error) engine.ErrClass {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1213:
			return engine.Deadlock
		case 1205:
			return engine.Busy
		case 1062, 1048, 1451, 1452, 1216, 1217, 1557, 4025:
			return engine.Constraint
		case 1317, 1927, 3024:
			return engine.Interrupted
		case 1040, 1053, 1077, 1152, 1153, 1158, 1159, 1160, 1161:
			return engine.Conn
		}
		return engine.Other
	}
	var ne net.Error
	if errors.Is(err, mysql.ErrInvalidConn) || errors.As(err, &ne) || errors.Is(err, syscall.ECONNRESET) {
		return engine.Conn
	}
	return engine.None
}

// DriverDSN turns a mariadb:// or mysql:// URL into go-sql-driver/mysql's
// connection string.
func DriverDSN(u string) (string, error) {
	pu, err := url.Parse(u)
	if err != nil {
		return "", fmt.Errorf("--dsn %s: %v", engine.Redact(u), err)
	}
	c := mysql.NewConfig()
	c.User = pu.User.Username()
	c.Passwd, _ = pu.User.Password()
	c.Net, c.Addr = "tcp", pu.Host
	if pu.Port() == "" {
		c.Addr = net.JoinHostPort(pu.Hostname(), "3306")
	}
	c.DBName = strings.TrimPrefix(pu.Path, "/")
	for k, vs := range pu.Query() {
		if c.Params == nil {
			c.Params = map[string]string{}
		}
		c.Params[k] = vs[len(vs)-1]
	}
	return c.FormatDSN(), nil
}

var kind = server.Kind{
	Engine: Name, Driver: "mysql", DriverDSN: DriverDSN,
	Check: mariaEngine{}.Check,
	Conf:  serverConf,
	Start: func(ctx context.Context, conf []string, keep bool) (server.Managed, error) {
		return Start(ctx, conf, keep)
	},
	Create: func(name, comment string) []string {
		return []string{"CREATE DATABASE " + dialect.MySQL.Ident(name) + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin COMMENT " + dialect.Quote(comment)}
	},
	Restamp: func(name, comment string) string {
		return "ALTER DATABASE " + dialect.MySQL.Ident(name) + " COMMENT " + dialect.Quote(comment)
	},
	User: runUser,
	Drop: func(name string) string { return "DROP DATABASE IF EXISTS " + dialect.MySQL.Ident(name) },
	Size: func(name string) string {
		return "SELECT SUM(data_length + index_length) FROM information_schema.tables WHERE table_schema = " + dialect.Quote(name)
	},
	WithDB: func(base, name string) (string, error) {
		u, err := url.Parse(base)
		if err != nil {
			return "", err
		}
		u.Path = "/" + name
		return u.String(), nil
	},
}

// Provision creates the run's database (see server.Provision).
func (mariaEngine) Provision(ctx context.Context, r engine.Request) (engine.Instance, error) {
	b, err := server.Provision(ctx, r, kind)
	if err != nil {
		return nil, err
	}
	return &instance{Base: b}, nil
}

type instance struct{ *server.Base }

// Endpoint is the database's URL (mariadb://…; the client turns it into
// its driver's form).
func (in *instance) Endpoint() engine.Endpoint { return engine.Endpoint{Engine: Name, DSN: in.URL} }

func (in *instance) ReadEndpoint(bool) engine.Endpoint { return server.ReadOnly(in.Endpoint()) }

// inForce are the settings read back from the server.
var inForce = []string{"version", "innodb_flush_log_at_trx_commit", "sync_binlog", "log_bin", "innodb_buffer_pool_size", "innodb_log_file_size", "innodb_doublewrite", "innodb_flush_method", "max_connections", "transaction_isolation"}

func (in *instance) Fingerprint(ctx context.Context, db engine.SQL) engine.Fingerprint {
	fp := engine.Fingerprint{InForce: server.InForce(ctx, db, inForce, func(k string) string { return "SELECT @@" + k })}
	fp.Version = versionRE.FindString(fp.InForce["version"])
	d := durabilityOf(in.S)
	if d.flush == "" {
		return fp
	}
	got := fp.InForce
	fp.Notes = append(fp.Notes, fmt.Sprintf("--sync %s on MariaDB (%s): innodb_flush_log_at_trx_commit=%s, sync_binlog=%s, log_bin=%s (read back)", in.S.Get("sync"), in.Where(), got["innodb_flush_log_at_trx_commit"], got["sync_binlog"], got["log_bin"]))
	if got["innodb_flush_log_at_trx_commit"] != d.flush {
		fp.Notes = append(fp.Notes, fmt.Sprintf("asked for innodb_flush_log_at_trx_commit=%s, the server runs %s", d.flush, got["innodb_flush_log_at_trx_commit"]))
	}
	return fp
}

// Start installs the system tables in a directory of its own and starts
// mariadbd on a free loopback port with conf, waiting until it answers.
// root connects from loopback without a password; the binary log is off
// (as Debian's default configuration has it) and max_allowed_packet is
// 1GB so that multi-row inserts of any batch fit.
func Start(ctx context.Context, conf []string, keep bool) (*server.Running, error) {
	install, err := bin("mariadb-install-db")
	if err != nil {
		return nil, err
	}
	mariadbd, err := bin("mariadbd")
	if err != nil {
		return nil, err
	}
	return server.Launch{
		What: "MariaDB", Init: install, Daemon: mariadbd,
		InitArgs: func(d *server.Dir, u server.User) []string {
			return []string{"--no-defaults", "--datadir=" + d.Data, "--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve", "--user=" + u.Name}
		},
		Args: func(d *server.Dir, u server.User, port int) []string {
			return append([]string{"--no-defaults", "--datadir=" + d.Data, "--port=" + strconv.Itoa(port), "--bind-address=127.0.0.1",
				"--socket=" + filepath.Join(d.Run, "mysqld.sock"), "--pid-file=" + filepath.Join(d.Run, "mysqld.pid"),
				"--log-error=" + d.Log, "--skip-name-resolve", "--max-allowed-packet=1G", "--max-connections=500", "--user=" + u.Name}, conf...)
		},
		URL: func(port int) string { return fmt.Sprintf("mariadb://root@127.0.0.1:%d/", port) },
		Ping: func(ctx context.Context, u string) error {
			dsn, err := DriverDSN(u)
			if err != nil {
				return err
			}
			cfg, err := mysql.ParseDSN(dsn)
			if err != nil {
				return err
			}
			cn, err := mysql.NewConnector(cfg)
			if err != nil {
				return err
			}
			c, err := cn.Connect(ctx)
			if err == nil {
				c.Close()
			}
			return err
		},
		Stop: syscall.SIGTERM, Grace: 60 * time.Second, Ready: 120 * time.Second,
	}.Start(ctx, keep)
}
