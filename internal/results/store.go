package results

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// Application ids that mark the SQLite files litebench creates.
const (
	StoreAppID = 0x4c420001 // results store
	BenchAppID = 0x4c420002 // bench database
)

// ErrNotOurs is wrapped by errors about files litebench did not create.
var ErrNotOurs = errors.New("not created by litebench")

// CheckOwned returns nil when path does not exist or is an empty file, and
// an error wrapping ErrNotOurs when it is anything but a SQLite database
// carrying appID. It never writes.
func CheckOwned(path string, appID int32) error {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	if st.Size() == 0 {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var hdr [100]byte
	n, _ := f.ReadAt(hdr[:], 0)
	if n < 100 || string(hdr[:16]) != "SQLite format 3\x00" {
		return fmt.Errorf("%s: %w (not a SQLite database)", path, ErrNotOurs)
	}
	got := int32(uint32(hdr[68])<<24 | uint32(hdr[69])<<16 | uint32(hdr[70])<<8 | uint32(hdr[71]))
	if got != appID {
		return fmt.Errorf("%s: %w (application_id %#x)", path, ErrNotOurs, uint32(got))
	}
	return nil
}

// Store keeps runs in a SQLite file.
type Store struct {
	db   *sql.DB
	path string
	ctx  context.Context // reads stop when it is cancelled (nil: never)
}

const schema = `
CREATE TABLE IF NOT EXISTS runs(
	run_id TEXT PRIMARY KEY,
	sweep_id TEXT,
	started_at TEXT NOT NULL,
	workload TEXT NOT NULL,
	target TEXT NOT NULL,
	status TEXT NOT NULL,
	rows INTEGER NOT NULL,
	elapsed_seconds REAL NOT NULL,
	rows_per_second REAL NOT NULL,
	result TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_sweep ON runs(sweep_id);
CREATE INDEX IF NOT EXISTS runs_started ON runs(started_at);
`

var storeDriver = &sqlite3.SQLiteDriver{}

type connector struct{ dsn string }

func (c connector) Connect(context.Context) (driver.Conn, error) { return storeDriver.Open(c.dsn) }
func (c connector) Driver() driver.Driver                        { return storeDriver }

// OpenStore opens (creating if needed) the store at path. It refuses a file
// that is not a litebench store.
func OpenStore(path string) (*Store, error) {
	if err := CheckOwned(path, StoreAppID); err != nil {
		return nil, fmt.Errorf("results store %w; pass --store with a new path", err)
	}
	db := sql.OpenDB(connector{"file:" + escape(path) + "?_busy_timeout=10000&_journal_mode=WAL&_txlock=immediate"})
	db.SetMaxOpenConns(1)
	s := &Store{db: db, path: path}
	if err := s.init(); err != nil {
		db.Close()
		return nil, fmt.Errorf("results store %s: %v", path, err)
	}
	return s, nil
}

// OpenStoreReadOnly opens an existing store without creating or changing it.
func OpenStoreReadOnly(path string) (*Store, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("results store %s: %v (run a benchmark first, or pass --store)", path, errors.Unwrap(err))
	}
	if err := CheckOwned(path, StoreAppID); err != nil {
		return nil, fmt.Errorf("results store %w; pass --store with a litebench store", err)
	}
	db := sql.OpenDB(connector{"file:" + escape(path) + "?mode=ro&_busy_timeout=10000"})
	db.SetMaxOpenConns(1)
	return &Store{db: db, path: path}, nil
}

func escape(p string) string {
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return r.Replace(p)
}

func (s *Store) init() error {
	var id int32
	if err := s.db.QueryRow("PRAGMA application_id").Scan(&id); err != nil {
		return err
	}
	if id == 0 {
		if _, err := s.db.Exec(fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = 1", int32(StoreAppID))); err != nil {
			return err
		}
	}
	_, err := s.db.Exec(schema)
	return err
}

// Path returns the store's file path.
func (s *Store) Path() string { return s.path }

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// Save inserts or replaces r.
func (s *Store) Save(r *Result) error {
	b, err := MarshalJSONLine(r)
	if err != nil {
		return err
	}
	_, err = s.db.Exec(`INSERT OR REPLACE INTO runs(run_id, sweep_id, started_at, workload, target, status, rows, elapsed_seconds, rows_per_second, result)
		VALUES(?,?,?,?,?,?,?,?,?,?)`,
		r.RunID, r.SweepID, r.StartedAt.UTC().Format(time.RFC3339Nano), r.Workload, r.Target, r.Status, r.Rows, r.Elapsed, r.RowsPerSecond, string(b))
	return err
}

// Get returns the run with id, or a sweep's runs when id is a sweep id.
// A unique prefix of a run id is accepted.
func (s *Store) Get(id string) ([]*Result, error) {
	rs, err := s.query(`SELECT result FROM runs WHERE run_id = ? OR sweep_id = ? ORDER BY started_at, run_id`, id, id)
	if err != nil || len(rs) > 0 {
		return rs, err
	}
	rs, err = s.query(`SELECT result FROM runs WHERE run_id LIKE ? ORDER BY started_at`, id+"%")
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

// List returns the newest runs first, at most limit (0 = all).
func (s *Store) List(limit int) ([]*Result, error) {
	q := `SELECT result FROM runs ORDER BY started_at DESC, run_id DESC`
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	return s.query(q)
}

// LastSweep returns the runs of the newest sweep.
func (s *Store) LastSweep() ([]*Result, error) {
	var sweep string
	err := s.db.QueryRow(`SELECT sweep_id FROM runs ORDER BY started_at DESC LIMIT 1`).Scan(&sweep)
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

func (s *Store) query(q string, args ...any) ([]*Result, error) {
	ctx := s.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Result
	for rows.Next() {
		var b string
		if err := rows.Scan(&b); err != nil {
			return nil, err
		}
		r, err := UnmarshalJSONLine([]byte(b))
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
