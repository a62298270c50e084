// Package mariadb registers the MariaDB client: go-sql-driver/mysql
// through database/sql. Prepared statements (--prepared, the default) are
// server-side statements; ad hoc ones (--prepared=false) are sent as text
// with their values in place (interpolateParams), one round trip each.
package mariadb

import (
	"github.com/go-sql-driver/mysql"

	"github.com/litebench/litebench/internal/engine"
	mdb "github.com/litebench/litebench/internal/engine/mariadb"
	"github.com/litebench/litebench/internal/engine/server"
	"github.com/litebench/litebench/internal/target"
)

func init() {
	target.Register(&target.SQLClient{
		ClientName: "mariadb", ModulePath: "github.com/go-sql-driver/mysql", EngineName: mdb.Name,
		Driver: &mysql.MySQLDriver{},
		DSN: func(ep engine.Endpoint, _ target.PoolOptions) string {
			dsn, err := mdb.DriverDSN(ep.DSN)
			if err != nil {
				return ep.DSN // the driver reports it
			}
			return server.WithParam(dsn, "interpolateParams=true")
		},
		ServerVersion: mdb.Version,
		Native:        mdb.Classify,
	})
}
