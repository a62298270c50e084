package server

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/settings"
)

// Managed is a server litebench started: Close stops it and removes its
// directory.
type Managed interface {
	io.Closer
	// URL reaches the server as its superuser, with no database chosen
	// (or the maintenance one).
	URL() string
}

// Kind is what tells the server engines apart when provisioning.
type Kind struct {
	Engine string
	// Driver is the database/sql driver name the engine administers
	// with; DriverDSN turns a server URL into its connection string.
	Driver    string
	DriverDSN func(u string) (string, error)
	// Check refuses settings a run cannot apply (user: on the user's
	// server).
	Check func(s settings.Settings, user bool) error
	// Conf are the settings a managed server is started with.
	Conf func(s settings.Settings) []string
	// Start starts a managed server.
	Start func(ctx context.Context, conf []string, keep bool) (Managed, error)
	// Create, Drop and Size are the statements that create database name
	// (stamped with comment), drop and measure it; Restamp replaces its
	// comment.
	Create  func(name, comment string) []string
	Drop    func(name string) string
	Size    func(name string) string
	Restamp func(name, comment string) string
	// User makes the run's own user on a user's server (nil: none).
	User *UserKind
	// WithDB is server URL u with database name chosen.
	WithDB func(u, name string) (string, error)
}

// Base is the part of an instance every server engine shares: the run's
// database, where it lives and the settings of the run.
type Base struct {
	S  settings.Settings
	DB Database
	// URL is the run's database (a URL of the engine's scheme).
	URL string
	// User is true on the user's server (--dsn).
	User    bool
	Managed Managed
	// Fence says how the workload's SQL was kept to the run's database
	// on the user's server ("" elsewhere).
	Fence string
}

// Provision makes the run's database for r: on the user's server when the
// sweep's servers name one for the engine, else on a managed server
// started for these settings (kept for the sweep, or for this run alone
// when r has no sweep servers). r.Path, when set, is a database another
// litebench process created (a worker's job): it is used as it is.
func Provision(ctx context.Context, r engine.Request, k Kind) (*Base, error) {
	b := &Base{S: r.Settings}
	if r.Path != "" {
		b.URL, b.DB.Addr = r.Path, engine.Redact(r.Path)
		return b, nil
	}
	servers := r.Servers
	if servers == nil {
		servers = engine.NewServers()
		servers.Keep = r.Keep
		b.DB.Private = servers
	}
	fail := func(err error) (*Base, error) {
		b.DB.Destroy()
		return nil, err
	}
	base := servers.DSN(k.Engine)
	b.User = base != ""
	if err := k.Check(r.Settings, b.User); err != nil {
		return fail(err)
	}
	if !b.User {
		conf := k.Conf(r.Settings)
		c, err := servers.Start(k.Engine+" "+strings.Join(conf, " "), func() (io.Closer, error) { return k.Start(ctx, conf, servers.Keep) })
		if err != nil {
			return fail(err)
		}
		b.Managed = c.(Managed)
		base = b.Managed.URL()
	}
	b.DB.Name, b.DB.Addr, b.DB.Keep = DBName(r.Name), engine.Redact(base), r.Keep
	dsn, err := k.DriverDSN(base)
	if err == nil {
		b.DB.Admin, err = sql.Open(k.Driver, dsn)
	}
	if err != nil {
		return fail(err)
	}
	b.DB.Admin.SetMaxOpenConns(1)
	b.DB.Drop, b.DB.Size = k.Drop(b.DB.Name), k.Size(b.DB.Name)
	if k.Restamp != nil {
		b.DB.Restamp = k.Restamp(b.DB.Name, keptStamp("bench database", r.Name))
	}
	if b.User {
		removeOrphans(ctx, servers, k, b.DB.Admin, b.DB.Addr)
	}
	if err := b.DB.Create(ctx, k.Create(b.DB.Name, stamp("bench database", r.Name))...); err != nil {
		return fail(err)
	}
	if b.URL, err = k.WithDB(base, b.DB.Name); err != nil {
		return fail(err)
	}
	if b.User {
		if err := b.fence(ctx, k, servers.FenceOf(k.Engine), r.Name, base); err != nil {
			return fail(err)
		}
	}
	return b, nil
}

// fence makes the run's own user on the user's server and points the
// run's URL at it; where that cannot be, the workload's SQL must have
// been checked for database-level statements before the sweep.
func (b *Base) fence(ctx context.Context, k Kind, f engine.Fence, run, base string) error {
	refused := func(why string) error {
		if f.Statements != nil {
			return fmt.Errorf("%s, so litebench cannot keep the workload's SQL to its database on %s, and %v", why, b.DB.Addr, f.Statements)
		}
		b.Fence = "the workload's SQL ran as the --dsn user (" + why + "); its database-level statements (CREATE/DROP/ALTER DATABASE, roles and users, GRANT, REVOKE, SET ROLE, COPY ... PROGRAM, ALTER SYSTEM, USE, INTO OUTFILE, LOAD DATA) were refused before the sweep, and it had none"
		return nil
	}
	if k.User == nil {
		return refused("the engine has no run users")
	}
	if !f.Role {
		return refused(f.Why)
	}
	u, hosts, pw := b.DB.Name, clientHosts(base), password()
	created, err := k.User.Create(ctx, b.DB.Admin, u, pw, stamp(k.User.What, run), hosts)
	if created {
		b.DB.DropUser = func(ctx context.Context) error { return k.User.Drop(ctx, b.DB.Admin, u, hosts) }
		if k.User.Keep != nil {
			b.DB.KeepUser = func(ctx context.Context) error {
				return k.User.Keep(ctx, b.DB.Admin, u, keptStamp(k.User.What, run))
			}
		}
	}
	if err != nil {
		return refused(fmt.Sprintf("creating %s %s failed: %v", k.User.What, u, oneLine(err)))
	}
	if b.URL, err = WithUser(b.URL, u, pw); err != nil {
		return err
	}
	b.Fence = k.User.Note(u, hosts)
	return nil
}

func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// Report gives the run's note on how its SQL was kept to its database.
func (b *Base) Report(context.Context) ([]engine.Figure, []string) {
	if b.Fence == "" {
		return nil, nil
	}
	return nil, []string{b.Fence}
}

func (b *Base) String() string {
	if b.DB.Name == "" {
		return b.DB.Addr
	}
	return "database " + b.DB.Name + " on " + b.DB.Addr
}

// Where names the server in notes.
func (b *Base) Where() string {
	if b.User {
		return "server " + b.DB.Addr
	}
	return "managed server"
}

// Stamp does nothing: the database carries litebench's mark from its
// creation.
func (b *Base) Stamp(context.Context, engine.SQL) error { return nil }

// Probe reads the database's size from the server.
func (b *Base) Probe() (engine.Probe, bool) { return b.DB.Probe() }

// Check has nothing to run: the servers check pages as they read them.
func (b *Base) Check(context.Context, engine.SQL) error { return nil }

// Destroy drops the run's database (unless kept) and stops the run's own
// server.
func (b *Base) Destroy() error { return b.DB.Destroy() }

// ReadOnly is ep for clients that only read.
func ReadOnly(ep engine.Endpoint) engine.Endpoint {
	ep.ReadOnly = true
	return ep
}

// InForce reads the settings named by queries (name → a query whose first
// row's first column is its value).
func InForce(ctx context.Context, db engine.SQL, names []string, query func(name string) string) map[string]string {
	m := map[string]string{}
	for _, k := range names {
		if v, err := db.Strings(ctx, query(k)); err == nil && len(v) > 0 {
			m[k] = v[0]
		}
	}
	return m
}

// WithParam appends a query parameter to a URL or connection string.
func WithParam(u, kv string) string {
	if strings.Contains(u, "?") {
		return u + "&" + kv
	}
	return u + "?" + kv
}

// SizeCanon accepts "default" or a byte size of at least min, rendered in
// units of unit bytes followed by suffix (as the server reads it).
func SizeCanon(min, unit int64, suffix string) func(string) (string, error) {
	return func(v string) (string, error) {
		if strings.EqualFold(v, "default") {
			return "default", nil
		}
		n, err := settings.ParseSize(v)
		if err != nil {
			return "", err
		}
		if n < min {
			return "", fmt.Errorf("want at least %d bytes", min)
		}
		return strconv.FormatInt(n/unit, 10) + suffix, nil
	}
}
