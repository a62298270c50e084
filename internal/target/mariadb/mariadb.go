// Package mariadb registers the MariaDB client: go-sql-driver/mysql
// through database/sql. Prepared statements (--prepared, the default) are
// server-side statements; ad hoc ones (--prepared=false) are sent as text
// with their values in place (interpolateParams), one round trip each.
// Connections read and write with blocking system calls, as the C client
// does (server.DialBlocking).
package mariadb

import (
	"context"
	"net"

	"github.com/go-sql-driver/mysql"

	"github.com/litebench/litebench/internal/engine"
	mdb "github.com/litebench/litebench/internal/engine/mariadb"
	"github.com/litebench/litebench/internal/engine/server"
	"github.com/litebench/litebench/internal/target"
)

// blocking is the driver's network name for server.DialBlocking.
const blocking = "litebench-tcp"

func init() {
	mysql.RegisterDialContext(blocking, func(ctx context.Context, addr string) (net.Conn, error) {
		return server.DialBlocking(ctx, "tcp", addr)
	})
	target.Register(&target.SQLClient{
		ClientName: "mariadb", ModulePath: "github.com/go-sql-driver/mysql", EngineName: mdb.Name,
		Driver: &mysql.MySQLDriver{},
		DSN: func(ep engine.Endpoint, _ target.PoolOptions) string {
			dsn, err := mdb.DriverDSN(ep.DSN)
			if err != nil {
				return ep.DSN // the driver reports it
			}
			cfg, err := mysql.ParseDSN(server.WithParam(dsn, "interpolateParams=true"))
			if err != nil {
				return dsn
			}
			cfg.Net = blocking
			return cfg.FormatDSN()
		},
		ServerVersion: mdb.Version,
		Native:        mdb.Classify,
	})
}
