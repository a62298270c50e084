// Package selfcheck measures litebench's own overhead: the same inserts as
// a plain Go loop (same driver, same statement, values generated before the
// clock starts) against a litebench insert run, interleaved.
package selfcheck

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/litebench/litebench/internal/workload"
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

// Create writes the bench rows vals into a new file at path with mattn
// (WAL, synchronous=OFF, 10,000-row transactions), for read checks.
func Create(path string, vals [][3]any) error {
	db := sql.OpenDB(connector{"file:" + path + "?_journal_mode=WAL&_synchronous=OFF"})
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("CREATE TABLE bench(ID int PRIMARY KEY ASC, rand TEXT, hash TEXT)"); err != nil {
		return err
	}
	for i := 0; i < len(vals); i += 10000 {
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		for j := i; j < i+10000 && j < len(vals); j++ {
			v := &vals[j]
			if _, err := tx.Exec("INSERT INTO bench(ID,rand,hash) VALUES (?,?,?)", v[0], v[1], v[2]); err != nil {
				tx.Rollback()
				return err
			}
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// PlainReads runs prepared point reads by uniformly random ID on the bench
// table at path for d, one connection, and returns reads per second. Keys
// come from a seeded PCG (not litebench's generator: this loop is the
// yardstick, written as anyone would).
func PlainReads(ctx context.Context, path string, rows int64, d time.Duration) (float64, error) {
	db := sql.OpenDB(connector{"file:" + path + "?mode=ro"})
	defer db.Close()
	db.SetMaxOpenConns(1)
	stmt, err := db.Prepare("SELECT ID,rand,hash FROM bench WHERE ID = ?")
	if err != nil {
		return 0, err
	}
	defer stmt.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	var id int64
	var r, h string
	n := 0
	start := time.Now()
	end := start.Add(d)
	for {
		// Check the clock every 256 reads, as a tight loop would.
		for k := 0; k < 256; k++ {
			if err := stmt.QueryRow(rng.Int64N(rows)).Scan(&id, &r, &h); err != nil {
				return 0, err
			}
		}
		n += 256
		if now := time.Now(); now.After(end) || ctx.Err() != nil {
			return float64(n) / now.Sub(start).Seconds(), ctx.Err()
		}
	}
}
