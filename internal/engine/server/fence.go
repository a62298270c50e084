package server

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/litebench/litebench/internal/engine"
)

// On a user's server (--dsn) the workload's SQL runs as a user of
// litebench's own, made for the run with rights on the run's database
// alone (PostgreSQL: a login role owning that database, with no CREATEDB,
// CREATEROLE or superuser; MariaDB: a user granted ALL on it), so that no
// statement of the workload reaches another database. Where the --dsn
// user cannot create one, the workload's database-level statements are
// refused before the sweep instead (see Refused).
//
// Every database and role litebench creates there carries a stamp in its
// comment naming the process that made it (Owner); a later run against
// the same server removes the stamped objects whose process is gone (a
// run killed before it could drop them), and nothing else.

// Owner is the litebench process that made an object on a server: the
// machine (host name and boot id), its pid and its start time (in clock
// ticks since boot, so that a reused pid is not taken for it).
type Owner struct {
	Host, Boot string
	Pid        int
	Start      uint64
}

var (
	selfOnce sync.Once
	self     Owner
)

// Self is this process as an Owner.
func Self() Owner {
	selfOnce.Do(func() {
		self.Host, _ = os.Hostname()
		self.Boot = bootID()
		self.Pid = os.Getpid()
		self.Start, _ = startTime(self.Pid)
	})
	return self
}

func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

// startTime is field 22 of /proc/PID/stat: when the process started.
func startTime(pid int) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0, false
	}
	n, err := strconv.ParseUint(f[19], 10, 64)
	return n, err == nil
}

func (o Owner) String() string {
	return fmt.Sprintf("owner host=%s boot=%s pid=%d start=%d", o.Host, o.Boot, o.Pid, o.Start)
}

var ownerRE = regexp.MustCompile(`^litebench .*; owner host=(\S+) boot=(\S+) pid=(\d+) start=(\d+)$`)

// ParseOwner reads the Owner from a stamp litebench wrote (false for
// anything else, including the stamps of older litebench versions and of
// kept databases, which name no owner).
func ParseOwner(comment string) (Owner, bool) {
	m := ownerRE.FindStringSubmatch(comment)
	if m == nil {
		return Owner{}, false
	}
	pid, _ := strconv.Atoi(m[3])
	start, _ := strconv.ParseUint(m[4], 10, 64)
	return Owner{Host: m[1], Boot: m[2], Pid: pid, Start: start}, true
}

// Gone reports whether the owner has certainly ended: it ran on this
// machine, and the machine has rebooted since or no process with its pid
// and start time runs now. An owner on another machine is never gone.
func (o Owner) Gone() bool {
	me := Self()
	if o.Host != me.Host {
		return false
	}
	if o.Boot != me.Boot {
		return me.Boot != "unknown"
	}
	st, ok := startTime(o.Pid)
	return !ok || st != o.Start
}

// stamp is the comment of an object litebench makes for run.
func stamp(what, run string) string {
	return "litebench " + what + " of run " + run + "; litebench drops it when the run ends; " + Self().String()
}

// keptStamp is the comment of a database kept at the end of run (--keep):
// it names no owner, so no later run removes it.
func keptStamp(what, run string) string {
	return "litebench " + what + " of run " + run + ", kept (--keep); litebench no longer drops it"
}

// Object is a database or user on a server that carries litebench's name.
type Object struct {
	Kind, Name, Comment string
}

// UserKind is what tells the engines' run users apart.
type UserKind struct {
	// What names the user in messages ("role", "user").
	What string
	// Create makes user name (the database's name) with password, stamped
	// with comment, with rights on database name alone; hosts are the
	// client hosts it may connect from. created is true once something
	// exists that Drop must remove.
	Create func(ctx context.Context, admin *sql.DB, name, password, comment string, hosts []string) (created bool, err error)
	// Drop removes user name.
	Drop func(ctx context.Context, admin *sql.DB, name string, hosts []string) error
	// Keep restamps user name as kept.
	Keep func(ctx context.Context, admin *sql.DB, name, comment string) error
	// Stamped lists the databases and users whose names start with
	// litebench_, with their comments.
	Stamped func(ctx context.Context, admin *sql.DB) ([]Object, error)
	// Note says what the run's user may do.
	Note func(name string, hosts []string) string
}

// password is a new random password for a run's user.
func password() string {
	var b [18]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// WithUser is server URL u with its user and password replaced.
func WithUser(u, user, pass string) (string, error) {
	pu, err := url.Parse(u)
	if err != nil {
		return "", err
	}
	pu.User = url.UserPassword(user, pass)
	return pu.String(), nil
}

// clientHosts are the hosts a run's user may connect from: loopback when
// the server is reached on it, else any.
func clientHosts(base string) []string {
	pu, err := url.Parse(base)
	if err != nil {
		return []string{"%"}
	}
	h := pu.Hostname()
	if h == "localhost" || h == "" {
		return []string{"localhost", "127.0.0.1", "::1"}
	}
	if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
		return []string{"localhost", "127.0.0.1", "::1"}
	}
	return []string{"%"}
}

// removeOrphans removes, once per server and sweep, the databases and
// users litebench stamped on the server whose process is gone, telling
// the user a line per object through servers.
func removeOrphans(ctx context.Context, servers *engine.Servers, k Kind, admin *sql.DB, addr string) {
	if k.User == nil || k.User.Stamped == nil {
		return
	}
	if !servers.First("orphans " + addr) {
		return
	}
	objs, err := k.User.Stamped(ctx, admin)
	if err != nil {
		servers.Logf("litebench: could not list the databases litebench left on %s: %v", addr, err)
		return
	}
	// Databases first (a PostgreSQL role owns its database), then users.
	dbs := map[string]bool{}
	for _, pass := range []string{"database", k.User.What} {
		for _, o := range objs {
			if o.Kind != pass {
				continue
			}
			ow, ok := ParseOwner(o.Comment)
			if !ok {
				continue
			}
			if !ow.Gone() {
				if ow.Host != Self().Host {
					servers.Logf("litebench: left %s %s on %s alone: made by litebench pid %d on host %s, which this process cannot see", o.Kind, o.Name, addr, ow.Pid, ow.Host)
				}
				continue
			}
			var err error
			if o.Kind == "database" {
				_, err = admin.ExecContext(ctx, k.Drop(o.Name))
				dbs[o.Name] = err == nil
			} else {
				err = k.User.Drop(ctx, admin, o.Name, nil)
			}
			if err != nil {
				servers.Logf("litebench: could not remove %s %s on %s, left by litebench pid %d (gone): %v", o.Kind, o.Name, addr, ow.Pid, err)
				continue
			}
			servers.Logf("litebench: removed %s %s on %s, left by litebench pid %d, which is gone", o.Kind, o.Name, addr, ow.Pid)
		}
	}
}

// The database-level statements refused where the workload's SQL runs as
// the --dsn user: at a statement's start (or a string's, for dynamic SQL),
// or anywhere in it (a function body).
type refusal struct {
	re    *regexp.Regexp
	what  string
	mysql bool // MariaDB's alone
}

var (
	refusals = []refusal{
		{re: regexp.MustCompile(`^COPY\b[\s\S]*\b(PROGRAM\b|TO\s+'|FROM\s+')`), what: "COPY to or from a server file or program"},
		{re: regexp.MustCompile(`^USE\b`), what: "USE (another database)", mysql: true},
		{re: regexp.MustCompile(`\b(CREATE|DROP|ALTER)\s+DATABASE\b`), what: "a statement on a database"},
		{re: regexp.MustCompile(`\b(CREATE|DROP|ALTER)\s+SCHEMA\b`), what: "a statement on a database (a schema is one in MariaDB)", mysql: true},
		{re: regexp.MustCompile(`\b(CREATE|DROP|ALTER|RENAME)\s+(ROLE|USER|GROUP)\b`), what: "a statement on a role or user"},
		{re: regexp.MustCompile(`\b(DROP|REASSIGN)\s+OWNED\b`), what: "a statement on a role's objects"},
		{re: regexp.MustCompile(`\b(GRANT|REVOKE)\b`), what: "GRANT or REVOKE"},
		{re: regexp.MustCompile(`(^|'|\bEXECUTE\s+)(SET|RESET)\s+((SESSION|LOCAL)\s+)?(ROLE|SESSION\s+AUTHORIZATION|DEFAULT\s+ROLE|PASSWORD)\b`), what: "a change of the session's role or user"},
		{re: regexp.MustCompile(`\bALTER\s+SYSTEM\b`), what: "ALTER SYSTEM"},
		{re: regexp.MustCompile(`\b(CREATE|DROP|ALTER)\s+TABLESPACE\b`), what: "a statement on a tablespace"},
		{re: regexp.MustCompile(`\bINTO\s+(OUTFILE|DUMPFILE)\b`), what: "SELECT ... INTO a server file"},
		{re: regexp.MustCompile(`\bLOAD\s+(DATA|XML)\b`), what: "LOAD DATA"},
		{re: regexp.MustCompile(`\b(INSTALL|UNINSTALL)\s+(PLUGIN|SONAME)\b`), what: "a server plugin"},
		{re: regexp.MustCompile(`^SHUTDOWN\b`), what: "SHUTDOWN"},
	}
	commentRE = regexp.MustCompile(`(?s)/\*.*?\*/|--[^\n]*`)
)

// Refused names what makes q a database-level statement, one that could
// reach beyond litebench's database when it runs as the --dsn user ("" for
// none); mysql selects MariaDB's dialect. q may hold several statements.
func Refused(q string, mysql bool) string {
	u := strings.ToUpper(commentRE.ReplaceAllString(q, " "))
	for _, part := range strings.Split(u, ";") {
		part = strings.TrimSpace(part)
		for _, r := range refusals {
			if (!r.mysql || mysql) && r.re.MatchString(part) {
				return r.what
			}
		}
	}
	return ""
}
