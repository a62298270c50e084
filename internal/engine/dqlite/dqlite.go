// Package dqlite is the dqlite engine: SQLite replicated over Raft by a
// cluster of nodes. litebench starts a private cluster per run: --nodes
// child processes on free loopback ports (the go-dqlite worker binary in
// its node mode, go-dqlite's app package), each with a data directory in
// the run's directory, and stops and removes them at the end. Clients
// reach it through the endpoint's DSN, dqlite://ADDR,ADDR,.../DATABASE.
//
// The package needs neither cgo nor go-dqlite: it starts, watches and
// kills node processes. The client (go-dqlite's database/sql driver)
// lives in the worker, workers/go-dqlite, which registers this engine too
// and uses the DSN's cluster as it is.
package dqlite

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/engine"
	// Settings are listed (help, a result's label order) in the order
	// engines register them, at init: dqlite's follow SQLite's.
	_ "github.com/litebench/litebench/internal/engine/sqlite"
	"github.com/litebench/litebench/internal/settings"
)

// Name is the engine's name.
const Name = "dqlite"

// Scheme starts the DSN of a dqlite cluster.
const Scheme = "dqlite://"

// Packages are Debian's packages the dqlite target needs.
const Packages = "go-dqlite libdqlite-dev golang-github-canonical-go-dqlite-dev"

// Engine is the dqlite engine as the registry holds it: it names the
// settings and checks cells, but starts no cluster, for it knows no node
// program (see WithNodes).
var Engine engine.Engine = &dqliteEngine{}

// WithNodes is the dqlite engine whose clusters run program as the node
// program: program returns its command line (the worker binary, to which
// "node" and the node's flags are appended). The client that carries
// that binary hands it over this way when its target is resolved
// (target.EngineBinder), so that the engine needs no global and no
// knowledge of where the workers are built.
func WithNodes(program func() ([]string, error)) engine.Engine {
	return &dqliteEngine{program: program}
}

// LibVersion is libdqlite's version, set by a process that links it (the
// worker); "" elsewhere.
var LibVersion string

func init() {
	settings.Register(Name, specs, nil)
	settings.Share("sync", Name) // mapped onto what dqlite offers; see CheckCell
	engine.Register(Engine)
}

// specs are dqlite's settings, valid only for dqlite runs.
var specs = []settings.Spec{
	{Key: "nodes", Default: "1", Help: "dqlite: nodes of the cluster litebench starts (1, 3, 5, 7 or 9; all voters)", Canon: settings.OneOf("1", "3", "5", "7", "9")},
	{Key: "snapshot-threshold", Default: "default", Help: "dqlite: Raft log entries between snapshots (default: dqlite's 1024)", Canon: settings.Optional(settings.IntRange(1, 1<<31-1))},
	{Key: "snapshot-trailing", Default: "default", Help: "dqlite: Raft log entries kept after a snapshot (default: dqlite's 8192)", Canon: settings.Optional(settings.IntRange(0, 1<<31-1))},
}

type dqliteEngine struct {
	// program is the node program's command line; nil when the engine
	// starts no cluster.
	program func() ([]string, error)
}

func (*dqliteEngine) Name() string              { return Name }
func (*dqliteEngine) Dialect() dialect.Dialect  { return Dialect }
func (*dqliteEngine) Settings() []settings.Spec { return append([]settings.Spec(nil), specs...) }
func (*dqliteEngine) Server()                   {}

// CheckCell refuses --sync values dqlite cannot honour. dqlite (1.11)
// appends every transaction to the Raft log and fsyncs it on a majority
// of the voters before the commit returns, and has no setting that
// relaxes that: full is what it always does.
//
// --tx immediate and exclusive are refused too: go-dqlite's driver
// begins every transaction with a plain BEGIN (the leader serialises
// writers anyway).
func (*dqliteEngine) CheckCell(s settings.Settings) error {
	if tx := s.Get("tx"); tx == "immediate" || tx == "exclusive" {
		return fmt.Errorf("--tx %s: go-dqlite's driver begins every transaction with BEGIN and has no BEGIN %s (the leader serialises writes); drop it for dqlite targets", tx, strings.ToUpper(tx))
	}
	switch v := s.Get("sync"); v {
	case "default", "full":
		return nil
	default:
		return fmt.Errorf("--sync %s: dqlite cannot honour it: every commit is fsynced in the Raft log of a majority of the nodes and dqlite has no setting to relax that; use --sync full (or default) for dqlite targets", v)
	}
}

// Provision starts a cluster of s's node count in r.Dir and waits until
// it has a leader and every node is a voter; or, for a request whose Path
// is a dqlite DSN (the worker's side), names that cluster.
func (e *dqliteEngine) Provision(ctx context.Context, r engine.Request) (engine.Instance, error) {
	if strings.HasPrefix(r.Path, Scheme) {
		addrs, db, err := ParseDSN(r.Path)
		if err != nil {
			return nil, err
		}
		return &Cluster{addrs: addrs, db: db, s: r.Settings}, nil
	}
	if e.program == nil {
		return nil, errors.New("the dqlite target is not available: " + Missing)
	}
	return start(ctx, r, e.program)
}

// Dialect is SQLite's, but for the bound parameters of one statement:
// dqlite's wire protocol carries at most 255.
var Dialect dialect.Dialect = dqDialect{dialect.SQLite}

type dqDialect struct{ dialect.Dialect }

// MaxParams is the wire protocol's limit (a one-byte count).
func (dqDialect) MaxParams() int { return 255 }

// Missing says what to install when the worker cannot be built.
const Missing = "apt-get install " + Packages

// DSN renders a cluster's DSN.
func DSN(addrs []string, db string) string { return Scheme + strings.Join(addrs, ",") + "/" + db }

// ParseDSN reads a DSN: dqlite://ADDR[,ADDR...]/DATABASE.
func ParseDSN(dsn string) (addrs []string, db string, err error) {
	rest, ok := strings.CutPrefix(dsn, Scheme)
	hosts, db, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || hosts == "" || db == "" {
		return nil, "", fmt.Errorf("dqlite DSN %q: want %sHOST:PORT[,HOST:PORT...]/DATABASE", dsn, Scheme)
	}
	return strings.Split(hosts, ","), db, nil
}

// Cluster is one run's dqlite cluster: the nodes litebench started, or
// (in the worker) the addresses of a cluster started by the controller.
type Cluster struct {
	addrs []string
	db    string
	s     settings.Settings
	// dir holds the nodes' data directories (the cluster litebench
	// started); nodes are its processes.
	dir   string
	keep  bool
	nodes []*node
	// program is the node program's command line (WithNodes); nil in a
	// cluster named by its DSN.
	program func() ([]string, error)
}

// command is the node program's command line.
func (c *Cluster) command() ([]string, error) {
	if c.program == nil {
		return nil, errors.New("the dqlite target is not available: " + Missing)
	}
	return c.program()
}

func (c *Cluster) String() string { return DSN(c.addrs, c.db) }

// Addresses are the nodes' addresses, node 1 first.
func (c *Cluster) Addresses() []string { return append([]string(nil), c.addrs...) }

// Endpoint is the cluster's DSN. go-dqlite's driver sends every statement
// to the leader, whichever node it was given.
func (c *Cluster) Endpoint() engine.Endpoint {
	return engine.Endpoint{Engine: Name, DSN: c.String()}
}

// ReadEndpoint is the endpoint: dqlite has no read-only connections.
func (c *Cluster) ReadEndpoint(bool) engine.Endpoint { return c.Endpoint() }

// Stamp is nothing: the cluster and its data directories are litebench's
// own, made for this run.
func (c *Cluster) Stamp(context.Context, engine.SQL) error { return nil }

// Fingerprint reads back the SQLite version the nodes link and the
// journal mode (dqlite runs WAL, replicated).
func (c *Cluster) Fingerprint(ctx context.Context, db engine.SQL) engine.Fingerprint {
	fp := engine.Fingerprint{Version: LibVersion, InForce: map[string]string{"nodes": strconv.Itoa(len(c.addrs))}}
	if v, err := db.Strings(ctx, "select sqlite_version()"); err == nil && len(v) > 0 {
		fp.InForce["sqlite_version"] = v[0]
		if fp.Version == "" {
			fp.Version = "SQLite " + v[0]
		} else {
			fp.Version += " (SQLite " + v[0] + ")"
		}
	}
	if jm, err := db.Strings(ctx, "PRAGMA journal_mode"); err == nil && len(jm) > 0 {
		fp.InForce["journal_mode"] = strings.ToLower(jm[0])
	}
	return fp
}

// Probe is nothing: the database lives in the nodes' memory and their
// Raft logs (the figures after the run say how large those grew).
func (c *Cluster) Probe() (engine.Probe, bool) { return engine.Probe{}, false }

// Check runs PRAGMA integrity_check on the leader.
func (c *Cluster) Check(ctx context.Context, db engine.SQL) error {
	rows, err := db.Strings(ctx, "PRAGMA integrity_check")
	if err != nil {
		return fmt.Errorf("%s: integrity check failed: %v", c, err)
	}
	if len(rows) == 1 && rows[0] == "ok" {
		return nil
	}
	return fmt.Errorf("%s: integrity check failed: %s", c, strings.Join(rows[:min(len(rows), 3)], "; "))
}
