// Package postgres registers the PostgreSQL client: pgx's own connections
// (not its database/sql adapter, whose per-query conversions cost as much
// as a tenth of a point read), in a pool with the semantics of every
// target's: a statement borrows a connection, a prepared statement is
// prepared once per connection, a transaction pins one.
//
// Prepared statements (--prepared, the default) are named server-side
// statements run with Bind/Execute only, as pgbench -M prepared does;
// ad hoc statements (--prepared=false) are parsed by the server every time
// (pgx's exec mode, one round trip), with no statement cache behind the
// run's back. Results come as text, as libpq's do. A prepared statement
// whose parameters and columns are all plain types (integers, floats,
// numeric, text, bytea, bool) runs on pgx's protocol layer, pgconn, with
// its arguments encoded straight into the Bind message (fast.go). Connections read and
// write with blocking system calls, as libpq does (server.DialBlocking),
// so that a round trip costs what it costs a C client.
package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/litebench/litebench/internal/engine"
	pg "github.com/litebench/litebench/internal/engine/postgres"
	"github.com/litebench/litebench/internal/engine/server"
	"github.com/litebench/litebench/internal/target"
)

func init() { target.Register(client{}) }

type client struct{}

func (client) Name() string                       { return "postgres" }
func (client) Engine() string                     { return pg.Name }
func (client) API() string                        { return "pgx" }
func (client) Module() string                     { return "github.com/jackc/pgx/v5" }
func (client) Version() (string, error)           { return pg.Version() }
func (client) Classify(err error) engine.ErrClass { return pg.Classify(err) }

func (client) Open(ctx context.Context, ep engine.Endpoint, p target.PoolOptions) (target.DB, error) {
	cfg, err := pgx.ParseConfig(server.WithParam(ep.DSN, "default_query_exec_mode=exec&statement_cache_capacity=0&description_cache_capacity=0"))
	if err != nil {
		return nil, err
	}
	cfg.DialFunc = server.DialBlocking
	return newPool(ctx, cfg, ep, p)
}
