package target

import (
	"database/sql/driver"
	"fmt"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/engine/sqlite"
)

// SQLiteSQL returns the client of a SQLite database/sql driver; errCode
// extracts SQLite's result code from the driver's errors.
func SQLiteSQL(name, module string, drv driver.Driver, errCode func(error) int) *SQLClient {
	return &SQLClient{
		ClientName: name, ModulePath: module, EngineName: sqlite.Name, Driver: drv,
		// Pragmas are not put in the DSN: the pool runs the endpoint's Init
		// statements on every connection, the same way for every driver.
		DSN:        sqliteDSN,
		VersionSQL: "select sqlite_version()",
		Scratch:    sqlite.Memory("litebench-version"),
		Native:     func(err error) engine.ErrClass { return sqlite.Classify(errCode(err)) },
	}
}

// sqliteDSN is the URI plus _txlock=immediate or exclusive when asked for,
// which mattn, modernc and ncruces' database/sql drivers all understand.
func sqliteDSN(ep engine.Endpoint, p PoolOptions) string {
	switch {
	case p.TxImmediate:
		return sqlite.WithParam(ep.DSN, "_txlock=immediate")
	case p.TxExclusive:
		return sqlite.WithParam(ep.DSN, "_txlock=exclusive")
	}
	return ep.DSN
}

// SQLiteDirect returns the client of a SQLite direct API: open opens one
// connection to a URI filename, read-only or read-write-create.
func SQLiteDirect(name, module string, version func() string, open func(uri string, readOnly, authorize bool) (RawConn, error), errCode func(error) int) *DirectClient {
	return &DirectClient{
		ClientName: name, ModulePath: module, EngineName: sqlite.Name, LibVersion: version,
		OpenConn: func(ep engine.Endpoint) (RawConn, error) { return open(ep.DSN, ep.ReadOnly, !ep.Trusted) },
		Native:   func(err error) engine.ErrClass { return sqlite.Classify(errCode(err)) },
	}
}

// SupportsVFS reports whether t can open a SQLite database through a VFS
// written in Go (ncruces' vfs package), such as the durability audit's
// crash VFS.
func SupportsVFS(t Target) bool { return vfsLookup(t) != nil }

func vfsLookup(t Target) func(string) bool {
	if c, ok := t.Client().(interface{ VFSLookup() func(string) bool }); ok {
		return c.VFSLookup()
	}
	return nil
}

// WithVFS returns ep opened through the Go VFS called name: t must be
// able to use one, the VFS must be registered in this process and the
// database must be a file.
func WithVFS(t Target, ep engine.Endpoint, name string) (engine.Endpoint, error) {
	find := vfsLookup(t)
	switch {
	case find == nil:
		return ep, fmt.Errorf("target %s cannot open a database through a Go VFS (only ncruces' clients can; see 'litebench list targets')", t.Name())
	case !find(name):
		return ep, fmt.Errorf("target %s: no VFS called %q in this process", t.Name(), name)
	case ep.File == "":
		return ep, fmt.Errorf("VFS %s needs a database file, not an in-memory database", name)
	}
	ep.DSN = sqlite.WithParam(ep.DSN, "vfs="+name)
	return ep, nil
}
