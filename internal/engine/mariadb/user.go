package mariadb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/engine/server"
)

// runUser is the run's own user on a user's server: named as the run's
// database, from the client hosts litebench connects from (loopback, or
// any for a remote server), granted ALL on that database alone. The
// workload's SQL runs on its connections as that user, so no statement of
// it reaches another database (USE, DROP DATABASE, a table of another
// database) or makes users. MariaDB keeps no comment on a user: the run's
// database carries the stamp, and a user is removed as an orphan only
// with a stamped database of its name.
var runUser = &server.UserKind{
	What: "user",
	Create: func(ctx context.Context, admin *sql.DB, name, password, _ string, hosts []string) (bool, error) {
		// On a failure the accounts made so far are dropped here: Drop
		// would name every host, one of which this run did not make.
		var made []string
		undo := func(err error) (bool, error) {
			if len(made) > 0 {
				admin.ExecContext(ctx, "DROP USER IF EXISTS "+strings.Join(made, ", "))
			}
			return false, err
		}
		for _, h := range hosts {
			acct := account(name, h)
			if _, err := admin.ExecContext(ctx, "CREATE USER "+acct+" IDENTIFIED BY "+dialect.Quote(password)); err != nil {
				return undo(err)
			}
			made = append(made, acct)
			if _, err := admin.ExecContext(ctx, "GRANT ALL PRIVILEGES ON "+dialect.MySQL.Ident(name)+".* TO "+acct); err != nil {
				return undo(err)
			}
		}
		return true, nil
	},
	Drop: func(ctx context.Context, admin *sql.DB, name string, hosts []string) error {
		if hosts == nil {
			hosts = userHosts(ctx, admin, name)
		}
		var accts []string
		for _, h := range hosts {
			accts = append(accts, account(name, h))
		}
		_, err := admin.ExecContext(ctx, "DROP USER IF EXISTS "+strings.Join(accts, ", "))
		return err
	},
	Stamped: func(ctx context.Context, admin *sql.DB) ([]server.Object, error) {
		rows, err := admin.QueryContext(ctx, "SELECT schema_name, COALESCE(schema_comment, '') FROM information_schema.schemata WHERE schema_name LIKE 'litebench!_%' ESCAPE '!'")
		if err != nil {
			return nil, err
		}
		var out []server.Object
		for rows.Next() {
			o := server.Object{Kind: "database"}
			if err := rows.Scan(&o.Name, &o.Comment); err != nil {
				rows.Close()
				return nil, err
			}
			out = append(out, o)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		// The users of a stamped database's name carry its stamp.
		for _, o := range out {
			if _, ok := server.ParseOwner(o.Comment); ok && len(userHosts(ctx, admin, o.Name)) > 0 {
				out = append(out, server.Object{Kind: "user", Name: o.Name, Comment: o.Comment})
			}
		}
		return out, nil
	},
	Note: func(name string, hosts []string) string {
		return fmt.Sprintf("the workload's SQL ran as user %s@%s, made for the run: granted ALL on database %s alone; dropped with it", name, strings.Join(hosts, ","), name)
	},
}

func account(name, host string) string { return dialect.Quote(name) + "@" + dialect.Quote(host) }

// userHosts are the hosts of user name's accounts (none when mysql.user
// cannot be read).
func userHosts(ctx context.Context, admin *sql.DB, name string) []string {
	rows, err := admin.QueryContext(ctx, "SELECT host FROM mysql.user WHERE user = ?", name)
	if err != nil {
		return nil
	}
	defer rows.Close()
	var hosts []string
	for rows.Next() {
		var h string
		if rows.Scan(&h) == nil {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// CanFence says whether the --dsn user at u may make the run's user
// (CREATE USER), and if not, why.
func (mariaEngine) CanFence(ctx context.Context, u string) (bool, string, error) {
	dsn, err := DriverDSN(u)
	if err != nil {
		return false, "", err
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return false, "", err
	}
	defer db.Close()
	var who string
	var n int
	err = db.QueryRowContext(ctx, `SELECT CURRENT_USER(), (SELECT COUNT(*) FROM information_schema.USER_PRIVILEGES WHERE PRIVILEGE_TYPE = 'CREATE USER'
  AND GRANTEE = CONCAT('''', SUBSTRING_INDEX(CURRENT_USER(), '@', 1), '''@''', SUBSTRING_INDEX(CURRENT_USER(), '@', -1), ''''))`).Scan(&who, &n)
	if err != nil {
		return false, "", err
	}
	if n > 0 {
		return true, "", nil
	}
	return false, "the --dsn user " + who + " has no CREATE USER privilege to make a user for the run", nil
}

// Refused names what makes q a database-level statement ("" for none).
func (mariaEngine) Refused(q string) string { return server.Refused(q, true) }
