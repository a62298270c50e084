package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// A store on PostgreSQL (--store postgres://…) holds the same runs as a
// SQLite store, in a schema of litebench's own: litebench creates the
// schema, stamps it, and reads or writes nothing else in the database. A
// schema of that name it did not stamp is refused. Each process that
// appends runs holds a session-level advisory lock for its life; a run
// still marked running whose owner's lock is no longer held (the process
// died, its connection closed) reads as lost, from any machine.

// PGSchema is the schema a PostgreSQL store lives in.
const PGSchema = "litebench_results"

// pgStamp is the schema's comment: what marks it as litebench's.
const pgStamp = "litebench results store, schema "

// pgLockSpace is the first key of the owners' advisory locks ("lb").
const pgLockSpace = 0x6c62

// IsPostgres says whether a --store value names a PostgreSQL store.
func IsPostgres(path string) bool {
	return strings.HasPrefix(path, "postgres://") || strings.HasPrefix(path, "postgresql://")
}

// redact is a DSN without its password, for messages.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://…"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

const pgSchemaSQL = `
CREATE TABLE ` + PGSchema + `.runs(
	run_id TEXT PRIMARY KEY,
	sweep_id TEXT,
	started_at TEXT NOT NULL,
	workload TEXT NOT NULL,
	target TEXT NOT NULL,
	status TEXT NOT NULL,
	rows BIGINT NOT NULL,
	elapsed_seconds DOUBLE PRECISION NOT NULL,
	rows_per_second DOUBLE PRECISION NOT NULL,
	result TEXT NOT NULL,
	owner_pid BIGINT,
	owner_host TEXT,
	owner_lock TEXT
);
CREATE INDEX runs_sweep ON ` + PGSchema + `.runs(sweep_id);
CREATE INDEX runs_started ON ` + PGSchema + `.runs(started_at);
`

// pgInsert is insert's PostgreSQL form.
const pgInsert = `INSERT INTO ` + PGSchema + `.runs(run_id, sweep_id, started_at, workload, target, status, rows, elapsed_seconds, rows_per_second, result, owner_pid, owner_host, owner_lock)
	VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)
	ON CONFLICT (run_id) DO UPDATE SET sweep_id = EXCLUDED.sweep_id, started_at = EXCLUDED.started_at,
	workload = EXCLUDED.workload, target = EXCLUDED.target, status = EXCLUDED.status, rows = EXCLUDED.rows,
	elapsed_seconds = EXCLUDED.elapsed_seconds, rows_per_second = EXCLUDED.rows_per_second, result = EXCLUDED.result,
	owner_pid = EXCLUDED.owner_pid, owner_host = EXCLUDED.owner_host, owner_lock = EXCLUDED.owner_lock`

// openPG opens the store at dsn; for appending it creates the schema if
// it is not there and takes this process's owner lock.
func openPG(dsn string, readOnly bool) (*Store, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("results store %s: %v", redact(dsn), err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	db := stdlib.OpenDB(*cfg)
	s := &Store{db: db, path: redact(dsn), pg: true, readOnly: readOnly}
	fail := func(err error) (*Store, error) {
		db.Close()
		return nil, fmt.Errorf("results store %s: %v", s.path, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stamped, err := s.pgStamped(ctx)
	if err != nil {
		return fail(err)
	}
	if !stamped && readOnly {
		return fail(fmt.Errorf("no litebench results store in that database (schema %s): run a benchmark with this --store first", PGSchema))
	}
	if !stamped {
		if err := s.pgCreate(ctx); err != nil {
			return fail(err)
		}
	}
	s.version = schemaVersion
	if readOnly {
		return s, nil
	}
	if err := s.pgOwn(ctx); err != nil {
		return fail(err)
	}
	return s, nil
}

// pgStamped says whether the schema exists and is litebench's; a schema
// of that name that is not stamped is an error.
func (s *Store) pgStamped(ctx context.Context) (bool, error) {
	var comment sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname = $1`, PGSchema).Scan(&comment)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !strings.HasPrefix(comment.String, pgStamp) {
		return false, fmt.Errorf("the database has a schema %s that litebench did not make; litebench leaves it alone: use another database for --store", PGSchema)
	}
	v, _ := strconv.Atoi(strings.TrimPrefix(comment.String, pgStamp))
	if v > schemaVersion {
		return false, fmt.Errorf("written by a newer litebench (schema %d); use that version or another --store", v)
	}
	return true, nil
}

// pgCreate makes the schema whole in one transaction; processes creating
// it at once are serialised by a transaction-level advisory lock.
func (s *Store) pgCreate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1, 0)`, pgLockSpace); err != nil {
		return err
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pg_namespace WHERE nspname = $1`, PGSchema).Scan(&n); err != nil {
		return err
	}
	if n > 0 { // another process made it meanwhile
		return tx.Commit()
	}
	for _, q := range []string{"CREATE SCHEMA " + PGSchema, pgSchemaSQL,
		fmt.Sprintf("COMMENT ON SCHEMA %s IS '%s%d'", PGSchema, pgStamp, schemaVersion)} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("creating schema %s: %v", PGSchema, err)
		}
	}
	return tx.Commit()
}

// pgOwn takes this process's owner lock on a session of its own, held
// until Close (or until the process dies and the server drops the
// connection).
func (s *Store) pgOwn(ctx context.Context) error {
	c, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	for range 100 {
		key := 1 + rand.Int32N(1<<31-2)
		var ok bool
		if err := c.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1, $2)`, pgLockSpace, key).Scan(&ok); err != nil {
			c.Close()
			return err
		}
		if ok {
			s.owner, s.lock = c, "pg:"+strconv.Itoa(int(key))
			return nil
		}
	}
	c.Close()
	return errors.New("no free owner lock")
}

// pgAlive is the SELECT column that tells whether a row's owner is still
// holding its lock.
const pgAlive = `COALESCE(owner_lock LIKE 'pg:%' AND EXISTS(SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted
	AND l.classid = ` + "27746" + ` AND l.objid = substr(owner_lock, 4)::bigint::oid AND l.objsubid = 2), false)`

// rebind turns a statement's ? placeholders into PostgreSQL's $n and
// names the store's table in its schema.
func rebind(q string) string {
	var b strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return strings.ReplaceAll(b.String(), " FROM runs", " FROM "+PGSchema+".runs")
}
