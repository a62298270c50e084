// Package store keeps runs in a SQLite file (created whole and linked
// into place) or in a schema of its own on PostgreSQL (pg.go), shared by
// any number of litebench processes, each run
// recorded as running when it starts so that one whose process died shows
// as lost. It is the one package of the results model that links a SQLite
// driver.
package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/litebench/litebench/internal/own"
	"github.com/litebench/litebench/internal/results"
)

// Store keeps runs in a SQLite file. Any number of processes may append
// to one store at once.
type Store struct {
	db   *sql.DB
	path string
	// lock is the lock file of this process's run directory (own.Dir),
	// written beside runs that start, so that readers can tell a running
	// run from a lost one.
	lock string
	// Read-only stores are opened immutable when no -wal exists (nothing
	// is created beside the file); stamp tells whether the file changed
	// while it was read, in which case the read is done again.
	readOnly, immutable bool
	stamp               os.FileInfo
	version             int
	ctx                 context.Context // reads stop when it is cancelled (nil: never)
	// pg says the store is on PostgreSQL (pg.go); owner is the session
	// that holds this process's owner lock there.
	pg    bool
	owner *sql.Conn
}

// sql is q for the store's engine: as written for SQLite, rebound for
// PostgreSQL.
func (s *Store) sql(q string) string {
	if s.pg {
		return rebind(q)
	}
	return q
}

// schemaVersion is the store's user_version: 2 added the owner columns.
const schemaVersion = 2

const schema = `
CREATE TABLE runs(
	run_id TEXT PRIMARY KEY,
	sweep_id TEXT,
	started_at TEXT NOT NULL,
	workload TEXT NOT NULL,
	target TEXT NOT NULL,
	status TEXT NOT NULL,
	rows INTEGER NOT NULL,
	elapsed_seconds REAL NOT NULL,
	rows_per_second REAL NOT NULL,
	result TEXT NOT NULL,
	owner_pid INTEGER,
	owner_host TEXT,
	owner_lock TEXT
);
CREATE INDEX runs_sweep ON runs(sweep_id);
CREATE INDEX runs_started ON runs(started_at);
`

type connector struct{ dsn string }

func (c connector) Connect(context.Context) (driver.Conn, error) {
	return storeDriver.Open(storeDSN(c.dsn))
}
func (c connector) Driver() driver.Driver { return storeDriver }

func openDB(path, params string) *sql.DB {
	db := sql.OpenDB(connector{"file:" + escape(path) + "?" + params})
	db.SetMaxOpenConns(1)
	return db
}

// busy is the busy timeout of every store connection: writers of other
// processes are waited for, not failed on.
const busy = "_busy_timeout=10000"

// OpenStore opens the store at path for appending runs, creating it if it
// does not exist. A new store is made whole under a temporary name and
// linked into place (own.Create), so a kill at any instant leaves no store
// or a valid one, and processes creating it at once are serialised.
func Open(path string) (*Store, error) {
	if IsPostgres(path) {
		return openPG(path, false)
	}
	err := own.Create(path, own.Store, 30*time.Second, func(tmp string) error {
		db := openDB(tmp, "_txlock=immediate")
		_, err := db.Exec(fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = %d; PRAGMA journal_mode = WAL;", own.StoreAppID, schemaVersion) + schema)
		if cerr := db.Close(); err == nil {
			err = cerr
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("results store: %w", err)
	}
	s := &Store{db: openDB(path, busy+"&_txlock=immediate"), path: path}
	if err := s.migrate(); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("results store %s: %v", path, err)
	}
	return s, nil
}

// migrate brings a store of an older litebench to schemaVersion.
func (s *Store) migrate() error {
	if err := s.db.QueryRow("PRAGMA user_version").Scan(&s.version); err != nil {
		return err
	}
	if s.version == schemaVersion {
		return nil
	}
	if s.version > schemaVersion {
		return fmt.Errorf("written by a newer litebench (schema %d); use that version or another --store", s.version)
	}
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	if err := tx.QueryRow("PRAGMA user_version").Scan(&s.version); err != nil || s.version == schemaVersion {
		return err
	}
	for _, q := range []string{
		"ALTER TABLE runs ADD COLUMN owner_pid INTEGER",
		"ALTER TABLE runs ADD COLUMN owner_host TEXT",
		"ALTER TABLE runs ADD COLUMN owner_lock TEXT",
		fmt.Sprintf("PRAGMA user_version = %d", schemaVersion),
	} {
		if _, err := tx.Exec(q); err != nil {
			return err
		}
	}
	s.version = schemaVersion
	return tx.Commit()
}

// OpenStoreReadOnly opens an existing store without creating or changing
// anything: no -shm or -wal is created beside it, and it stays
// byte-identical.
func OpenReadOnly(path string) (*Store, error) {
	if IsPostgres(path) {
		return openPG(path, true)
	}
	s := &Store{path: path, readOnly: true}
	if err := s.openReadOnly(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Store) openReadOnly() error {
	in, err := own.Read(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("results store %s does not exist (run a benchmark first, or pass --store)", s.path)
	}
	if err != nil {
		return fmt.Errorf("results store %w", err)
	}
	if in.Kind != own.Store.Name {
		return fmt.Errorf("results store %s is not a litebench results store (application_id %#x); pass --store with a litebench store", s.path, uint32(in.AppID))
	}
	s.stamp, _ = os.Stat(s.path)
	s.immutable = in.Immutable
	params := "mode=ro&" + busy
	if s.immutable {
		params = "mode=ro&immutable=1"
	}
	s.db = openDB(s.path, params)
	if err := s.db.QueryRow("PRAGMA user_version").Scan(&s.version); err != nil {
		s.db.Close()
		return fmt.Errorf("results store %s: %v", s.path, err)
	}
	return nil
}

// read runs fn, and again if the file changed under an immutable reader
// (another process wrote the store meanwhile).
func (s *Store) read(fn func() error) error {
	for range 3 {
		err := fn()
		if !s.immutable || !s.changed() {
			return err
		}
		s.db.Close()
		if err := s.openReadOnly(); err != nil {
			return err
		}
	}
	return fn()
}

func (s *Store) changed() bool {
	st, err := os.Stat(s.path)
	if err != nil || s.stamp == nil || st.Size() != s.stamp.Size() || !st.ModTime().Equal(s.stamp.ModTime()) {
		return true
	}
	_, err = os.Lstat(s.path + "-wal")
	return err == nil
}

func escape(p string) string {
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return r.Replace(p)
}

// Path returns the store's file path.
func (s *Store) Path() string { return s.path }

// SetLock names the lock file (an own.Dir's) that Begin records as the
// owner of the runs this process starts.
func (s *Store) SetLock(path string) { s.lock = path }

// Close closes the store.
func (s *Store) Close() error {
	if s.owner != nil {
		s.owner.Close()
	}
	return s.db.Close()
}

// insertRun writes r's row (owner: pid, host and lock, or nils).
func (s *Store) insertRun(ex interface {
	Exec(string, ...any) (sql.Result, error)
}, r *results.Result, b []byte, status string, owner ...any) error {
	a := args(r, b)
	if status != "" {
		a[5] = status
	}
	if len(owner) == 0 {
		owner = []any{nil, nil, nil}
	}
	q := insert
	if s.pg {
		q = pgInsert
	}
	_, err := ex.Exec(q, append(a, owner...)...)
	return err
}

const insert = `INSERT OR REPLACE INTO runs(run_id, sweep_id, started_at, workload, target, status, rows, elapsed_seconds, rows_per_second, result, owner_pid, owner_host, owner_lock)
	VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)`

func args(r *results.Result, b []byte) []any {
	return []any{r.RunID, r.SweepID, r.StartedAt.UTC().Format(time.RFC3339Nano), r.Workload, r.Target, r.Status, r.Rows, r.Elapsed, r.RowsPerSecond, string(b)}
}

// Begin records r (a run about to start) as running, owned by this
// process: should the process die before Save, readers show it as lost.
// A nil store records nothing.
func (s *Store) Begin(r *results.Result) error {
	if s == nil {
		return nil
	}
	b, err := results.MarshalJSONLine(r)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	return s.insertRun(s.db, r, b, results.StatusRunning, os.Getpid(), host, s.lock)
}

// Save records r as ended, replacing its row from Begin.
func (s *Store) Save(r *results.Result) error {
	b, err := results.MarshalJSONLine(r)
	if err != nil {
		return err
	}
	return s.insertRun(s.db, r, b, "")
}

// Existing returns which of ids the store holds.
func (s *Store) Existing(ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	err := s.read(func() error {
		clear(out)
		for _, id := range ids {
			var n int
			if err := s.db.QueryRow(s.sql("SELECT count(*) FROM runs WHERE run_id = ?"), id).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				out[id] = true
			}
		}
		return nil
	})
	return out, err
}

// DuplicateError is Import's refusal of a run whose id the store holds.
type DuplicateError struct{ RunID string }

func (e *DuplicateError) Error() string {
	return "run " + e.RunID + " is already in the store"
}

// Import adds rs in one transaction: all or nothing. A run whose id is in
// the store is an error (*DuplicateError) unless replace is set; it
// returns how many runs it replaced.
func (s *Store) Import(rs []*results.Result, replace bool) (replaced int, err error) {
	tx, err := s.db.Begin()
	if err != nil {
		return 0, err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	for _, r := range rs {
		var n int
		if err := tx.QueryRow(s.sql("SELECT count(*) FROM runs WHERE run_id = ?"), r.RunID).Scan(&n); err != nil {
			return 0, err
		}
		if n > 0 {
			if !replace {
				return 0, &DuplicateError{r.RunID}
			}
			replaced++
		}
		b, err := results.MarshalJSONLine(r)
		if err != nil {
			return 0, err
		}
		if err := s.insertRun(tx, r, b, ""); err != nil {
			return 0, err
		}
	}
	return replaced, tx.Commit()
}

// Get returns the run with id, or a sweep's runs when id is a sweep id.
// A unique prefix of a run id is accepted.
func (s *Store) Get(id string) ([]*results.Result, error) {
	rs, err := s.query(`WHERE run_id = ? OR sweep_id = ? ORDER BY started_at, run_id`, id, id)
	if err != nil || len(rs) > 0 {
		// A sweep's runs in plan order, which for a sweep run in shards
		// (each shard's runs in their own time) is not their start order.
		sort.SliceStable(rs, func(i, j int) bool { return runNumber(rs[i]) < runNumber(rs[j]) })
		return rs, err
	}
	rs, err = s.query(`WHERE run_id LIKE ? ORDER BY started_at`, id+"%")
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("no run or sweep %q in %s (see 'litebench runs')", id, s.path)
	}
	if len(rs) > 1 {
		return nil, fmt.Errorf("%q matches %d runs; give more of the id", id, len(rs))
	}
	return rs, nil
}

// runNumber is the n of a run id SWEEP.n (0 for ids of another form).
func runNumber(r *results.Result) int {
	if r.SweepID == "" || !strings.HasPrefix(r.RunID, r.SweepID+".") {
		return 0
	}
	n, _ := strconv.Atoi(r.RunID[len(r.SweepID)+1:])
	return n
}

// List returns the newest runs first, at most limit (0 = all).
func (s *Store) List(limit int) ([]*results.Result, error) {
	q := `ORDER BY started_at DESC, run_id DESC`
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	return s.query(q)
}

// Latest returns the newest run of workload on target, or nil.
func (s *Store) Latest(workload, target string) (*results.Result, error) {
	rs, err := s.query(`WHERE workload = ? AND target = ? ORDER BY started_at DESC, run_id DESC LIMIT 1`, workload, target)
	if err != nil || len(rs) == 0 {
		return nil, err
	}
	return rs[0], nil
}

// LastSweep returns the runs of the newest sweep.
func (s *Store) LastSweep() ([]*results.Result, error) {
	var sweep string
	err := s.read(func() error {
		return s.db.QueryRow(s.sql(`SELECT sweep_id FROM runs ORDER BY started_at DESC LIMIT 1`)).Scan(&sweep)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("no runs in %s yet", s.path)
	}
	if err != nil {
		return nil, err
	}
	return s.Get(sweep)
}

// SetContext makes the store's reads stop, with ctx's error, once ctx is
// cancelled.
func (s *Store) SetContext(ctx context.Context) { s.ctx = ctx }

// query reads the runs the clause selects. A row still marked running
// whose process is gone (its lock free) is returned as lost.
func (s *Store) query(clause string, args ...any) ([]*results.Result, error) {
	owner := "owner_host, owner_lock, false"
	switch {
	case s.pg:
		owner = "owner_host, owner_lock, " + pgAlive
	case s.version < 2:
		owner = "NULL, NULL, false"
	}
	host, _ := os.Hostname()
	var out []*results.Result
	err := s.read(func() error {
		out = out[:0]
		ctx := s.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		rows, err := s.db.QueryContext(ctx, s.sql(`SELECT result, status, `+owner+` FROM runs `+clause), args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var b, status string
			var ownerHost, lock sql.NullString
			var alive bool
			if err := rows.Scan(&b, &status, &ownerHost, &lock, &alive); err != nil {
				return err
			}
			r, err := results.UnmarshalJSONLine([]byte(b))
			if err != nil {
				return err
			}
			r.Status = status
			if status == results.StatusRunning && (!lock.Valid || s.pg && !alive || !s.pg && ownerHost.String == host && !own.Alive(lock.String)) {
				r.Status = results.StatusLost
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	return out, err
}
