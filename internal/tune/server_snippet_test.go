package tune_test

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/litebench/litebench/internal/engine/mariadb"
	"github.com/litebench/litebench/internal/engine/postgres"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/tune"
)

// needEngine skips a test whose server is not installed, but fails it in
// CI (LITEBENCH_REQUIRE_ENGINES=1).
func needEngine(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("LITEBENCH_REQUIRE_ENGINES") == "1" {
		t.Fatalf("%v (LITEBENCH_REQUIRE_ENGINES=1)", err)
	}
	t.Skip(err)
}

// statements splits a snippet into its SQL statements, comments left out.
func statements(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "--") {
			out = append(out, strings.TrimSuffix(l, ";"))
		}
	}
	return out
}

func syncSettings(t *testing.T, v string) settings.Settings {
	s := settings.Default()
	if err := s.Set("sync", v); err != nil {
		t.Fatal(err)
	}
	return s
}

// The PostgreSQL snippet, run on a server litebench starts, leaves the
// settings it names in force.
func TestPostgresSnippetRoundTrip(t *testing.T) {
	_, err := postgres.Version()
	needEngine(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := postgres.Start(ctx, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for sync, want := range map[string][2]string{"normal": {"off", "on"}, "off": {"off", "off"}, "full": {"on", "on"}} {
		sn, ok := tune.ServerSnippet("postgres", syncSettings(t, sync))
		if !ok {
			t.Fatalf("--sync %s: no snippet", sync)
		}
		c, err := pgx.Connect(ctx, srv.URL())
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range statements(sn.Text) {
			if _, err := c.Exec(ctx, st); err != nil {
				t.Fatalf("%s: %v\n%s", st, err, sn.Text)
			}
		}
		c.Close(ctx)
		// A new session reads what the server now runs.
		c, err = pgx.Connect(ctx, srv.URL())
		if err != nil {
			t.Fatal(err)
		}
		var sc, fs string
		if err := c.QueryRow(ctx, "SELECT current_setting('synchronous_commit'), current_setting('fsync')").Scan(&sc, &fs); err != nil {
			t.Fatal(err)
		}
		c.Close(ctx)
		if sc != want[0] || fs != want[1] {
			t.Errorf("--sync %s: synchronous_commit=%s fsync=%s, want %s %s\n%s", sync, sc, fs, want[0], want[1], sn.Text)
		}
	}
}

// The MariaDB snippet, run on a server litebench starts, leaves the
// settings it names in force.
func TestMariaDBSnippetRoundTrip(t *testing.T) {
	_, err := mariadb.Version()
	needEngine(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := mariadb.Start(ctx, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dsn, err := mariadb.DriverDSN(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for sync, want := range map[string][2]string{"normal": {"2", "0"}, "off": {"0", "0"}, "full": {"1", "1"}} {
		sn, ok := tune.ServerSnippet("mariadb", syncSettings(t, sync))
		if !ok {
			t.Fatalf("--sync %s: no snippet", sync)
		}
		for _, st := range statements(sn.Text) {
			if _, err := db.ExecContext(ctx, st); err != nil {
				t.Fatalf("%s: %v\n%s", st, err, sn.Text)
			}
		}
		var flush, binlog string
		if err := db.QueryRowContext(ctx, "SELECT @@GLOBAL.innodb_flush_log_at_trx_commit, @@GLOBAL.sync_binlog").Scan(&flush, &binlog); err != nil {
			t.Fatal(err)
		}
		if flush != want[0] || binlog != want[1] {
			t.Errorf("--sync %s: innodb_flush_log_at_trx_commit=%s sync_binlog=%s, want %s %s\n%s", sync, flush, binlog, want[0], want[1], sn.Text)
		}
	}
}
