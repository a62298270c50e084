package postgres

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/engine/server"
)

// runRole is the run's own role on a user's server: a login role, named
// as the run's database and owning it, with none of CREATEDB, CREATEROLE,
// SUPERUSER, REPLICATION or BYPASSRLS. The workload's SQL runs on its own
// connections as that role, so no statement of it (RESET ROLE included)
// acts with the --dsn user's rights: DROP DATABASE of another database,
// CREATE ROLE and the like are refused by the server.
var runRole = &server.UserKind{
	What: "role",
	Create: func(ctx context.Context, admin *sql.DB, name, password, comment string, _ []string) (bool, error) {
		q := quoteIdent(name)
		// The role and its stamp in one transaction: no role without it.
		tx, err := admin.BeginTx(ctx, nil)
		if err != nil {
			return false, err
		}
		for _, st := range []string{
			"CREATE ROLE " + q + " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD " + dialect.Quote(password),
			"COMMENT ON ROLE " + q + " IS " + dialect.Quote(comment),
		} {
			if _, err := tx.ExecContext(ctx, st); err != nil {
				tx.Rollback()
				return false, err
			}
		}
		if err := tx.Commit(); err != nil {
			return false, err
		}
		// Handing the database over takes membership in the role (the
		// --dsn user gains the role's rights, never the reverse).
		for _, st := range []string{
			"GRANT " + q + " TO CURRENT_USER",
			"ALTER DATABASE " + q + " OWNER TO " + q,
		} {
			if _, err := admin.ExecContext(ctx, st); err != nil {
				return true, err
			}
		}
		return true, nil
	},
	Drop: func(ctx context.Context, admin *sql.DB, name string, _ []string) error {
		_, err := admin.ExecContext(ctx, "DROP ROLE "+quoteIdent(name))
		return err
	},
	Keep: func(ctx context.Context, admin *sql.DB, name, comment string) error {
		_, err := admin.ExecContext(ctx, "COMMENT ON ROLE "+quoteIdent(name)+" IS "+dialect.Quote(comment))
		return err
	},
	Stamped: func(ctx context.Context, admin *sql.DB) ([]server.Object, error) {
		rows, err := admin.QueryContext(ctx, `SELECT 'database', datname, COALESCE(shobj_description(oid, 'pg_database'), '') FROM pg_database WHERE datname LIKE 'litebench!_%' ESCAPE '!'
UNION ALL SELECT 'role', rolname, COALESCE(shobj_description(oid, 'pg_authid'), '') FROM pg_roles WHERE rolname LIKE 'litebench!_%' ESCAPE '!'`)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []server.Object
		for rows.Next() {
			var o server.Object
			if err := rows.Scan(&o.Kind, &o.Name, &o.Comment); err != nil {
				return nil, err
			}
			out = append(out, o)
		}
		return out, rows.Err()
	},
	Note: func(name string, _ []string) string {
		return fmt.Sprintf("the workload's SQL ran as role %s, made for the run: owner of database %s alone, without CREATEDB, CREATEROLE or superuser; dropped with it", name, name)
	},
}

// CanFence says whether the --dsn user at u may make the run's role
// (superuser, or CREATEROLE), and if not, why.
func (pgEngine) CanFence(ctx context.Context, u string) (bool, string, error) {
	db, err := sql.Open("pgx", u)
	if err != nil {
		return false, "", err
	}
	defer db.Close()
	var who string
	var super, createRole bool
	err = db.QueryRowContext(ctx, "SELECT current_user, rolsuper, rolcreaterole FROM pg_roles WHERE rolname = current_user").Scan(&who, &super, &createRole)
	if err != nil {
		return false, "", err
	}
	if super || createRole {
		return true, "", nil
	}
	return false, "the --dsn user " + who + " has no CREATEROLE to make a role for the run", nil
}

// Refused names what makes q a database-level statement ("" for none).
func (pgEngine) Refused(q string) string { return server.Refused(q, false) }
