// Package postgres registers the PostgreSQL client: pgx through its
// database/sql adapter, so that pools, prepared statements and
// transactions behave as for every other database/sql target.
//
// Prepared statements (--prepared, the default) are named server-side
// statements run with Bind/Execute only, as pgbench -M prepared does;
// ad hoc statements (--prepared=false) are parsed by the server every time
// (pgx's exec mode, one round trip), with no statement cache behind the
// run's back. Connections read and write with blocking system calls, as
// libpq does (server.DialBlocking), so that a round trip costs what it
// costs a C client.
package postgres

import (
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/litebench/litebench/internal/engine"
	pg "github.com/litebench/litebench/internal/engine/postgres"
	"github.com/litebench/litebench/internal/engine/server"
	"github.com/litebench/litebench/internal/target"
)

func init() {
	target.Register(&target.SQLClient{
		ClientName: "postgres", ModulePath: "github.com/jackc/pgx/v5", EngineName: pg.Name,
		Driver: stdlib.GetDefaultDriver(),
		DSN: func(ep engine.Endpoint, _ target.PoolOptions) string {
			dsn := server.WithParam(ep.DSN, "default_query_exec_mode=exec&statement_cache_capacity=0&description_cache_capacity=0")
			cfg, err := pgx.ParseConfig(dsn)
			if err != nil {
				return dsn // the driver reports it
			}
			cfg.DialFunc = server.DialBlocking
			return stdlib.RegisterConnConfig(cfg)
		},
		ServerVersion: pg.Version,
		Native:        pg.Classify,
	})
}
