package target

import (
	"database/sql/driver"

	"litebench/internal/engine"
	"litebench/internal/engine/sqlite"
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

// sqliteDSN is the URI plus _txlock=immediate when asked for, which mattn,
// modernc and ncruces' database/sql drivers all understand.
func sqliteDSN(ep engine.Endpoint, p PoolOptions) string {
	if p.TxImmediate {
		return sqlite.WithParam(ep.DSN, "_txlock=immediate")
	}
	return ep.DSN
}

// SQLiteDirect returns the client of a SQLite direct API: open opens one
// connection to a URI filename, read-only or read-write-create.
func SQLiteDirect(name, module string, version func() string, open func(uri string, readOnly bool) (RawConn, error), errCode func(error) int) *DirectClient {
	return &DirectClient{
		ClientName: name, ModulePath: module, EngineName: sqlite.Name, LibVersion: version,
		OpenConn: func(ep engine.Endpoint) (RawConn, error) { return open(ep.DSN, ep.ReadOnly) },
		Native:   func(err error) engine.ErrClass { return sqlite.Classify(errCode(err)) },
	}
}
