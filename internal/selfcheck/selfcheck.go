// Package selfcheck measures litebench's own overhead: the same inserts as
// a plain Go loop (same driver, same statement, values generated before the
// clock starts) against a litebench insert run, interleaved.
package selfcheck

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"os"
	"path/filepath"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"

	"litebench/internal/workload"
)

type connector struct{ dsn string }

func (c connector) Connect(context.Context) (driver.Conn, error) {
	return (&sqlite3.SQLiteDriver{}).Open(c.dsn)
}
func (c connector) Driver() driver.Driver { return &sqlite3.SQLiteDriver{} }

// Values precomputes the bench rows [0, rows) for seed; it stops with
// ctx's error once ctx is cancelled.
func Values(ctx context.Context, rows int, seed uint64) ([][3]any, error) {
	vals := make([][3]any, rows)
	for i := range vals {
		if i&0xffff == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r, h := workload.BenchValues(seed, int64(i))
		vals[i] = [3]any{int64(i), r, h}
	}
	return vals, nil
}

// PlainLoop inserts vals into a new bench table in dir with mattn through
// database/sql — WAL, synchronous=OFF, one prepared single-row INSERT,
// batch rows per transaction — and returns the time the inserts took. It
// stops between transactions once ctx is cancelled, as litebench does.
func PlainLoop(ctx context.Context, dir string, vals [][3]any, batch int) (time.Duration, error) {
	path := filepath.Join(dir, "plain-loop.db")
	defer func() {
		for _, s := range []string{"", "-wal", "-shm"} {
			os.Remove(path + s)
		}
	}()
	db := sql.OpenDB(connector{"file:" + path + "?_journal_mode=WAL&_synchronous=OFF"})
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("CREATE TABLE bench(ID int PRIMARY KEY ASC, rand TEXT, hash TEXT)"); err != nil {
		return 0, err
	}
	stmt, err := db.Prepare("INSERT INTO bench(ID,rand,hash) VALUES (?,?,?)")
	if err != nil {
		return 0, err
	}
	defer stmt.Close()
	start := time.Now()
	for i := 0; i < len(vals); i += batch {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		tx, err := db.Begin()
		if err != nil {
			return 0, err
		}
		ts := tx.Stmt(stmt)
		for j := i; j < i+batch && j < len(vals); j++ {
			v := &vals[j]
			if _, err := ts.Exec(v[0], v[1], v[2]); err != nil {
				tx.Rollback()
				return 0, err
			}
		}
		if err := tx.Commit(); err != nil {
			return 0, err
		}
	}
	el := time.Since(start)
	var n int
	if err := db.QueryRow("SELECT count(*) FROM bench").Scan(&n); err != nil || n != len(vals) {
		return 0, fmt.Errorf("plain loop wrote %d rows, want %d (%v)", n, len(vals), err)
	}
	return el, nil
}
