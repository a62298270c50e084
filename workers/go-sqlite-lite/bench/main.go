// Command bench is the plain loop litebench-worker-sqlite-lite is measured
// against: go-sqlite-lite used directly, without litebench's harness,
// on the same data and settings as the worker's jobs. It also runs those
// jobs through the worker, so that one program prints both figures.
//
//	bench insert DB        1M-row insert: prepared, 1000-row transactions,
//	                       WAL, synchronous off, one row per statement
//	bench read DB          10 s of single-thread point reads by uniform
//	                       random id on the table insert left
//	bench worker-insert PROGRAM DB
//	bench worker-read PROGRAM DB
//	                       the same through the worker program
//
// Each prints one line: the rate (rows/s or reads/s).
package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/bvinc/go-sqlite-lite/sqlite3"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/worker"
	"github.com/litebench/litebench/internal/workload"
)

const (
	rows     = 1_000_000
	batch    = 1000
	seed     = 1
	duration = 10 * time.Second
)

// The worker's jobs: the same table, data and pragmas (busy_timeout is
// the setting's default).
var (
	readSettings   = map[string]string{"journal": "wal", "sync": "off", "prepared": "true"}
	insertSettings = map[string]string{"journal": "wal", "sync": "off", "prepared": "true", "batch": strconv.Itoa(batch), "rows-per-stmt": "1"}
	pragmas        = []string{"PRAGMA busy_timeout = 5000", "PRAGMA journal_mode = wal", "PRAGMA synchronous = off"}
)

func main() {
	var rate float64
	var err error
	switch {
	case len(os.Args) == 3 && os.Args[1] == "insert":
		rate, err = plainInsert(os.Args[2])
	case len(os.Args) == 3 && os.Args[1] == "read":
		rate, err = plainRead(os.Args[2])
	case len(os.Args) == 4 && os.Args[1] == "worker-insert":
		rate, err = viaWorker(os.Args[2], os.Args[3], "insert", insertSettings, map[string]string{"rows": strconv.Itoa(rows), "schema": "bench", "workers": "1", "seed": strconv.Itoa(seed)})
	case len(os.Args) == 4 && os.Args[1] == "worker-read":
		rate, err = viaWorker(os.Args[2], os.Args[3], "read", readSettings, map[string]string{"rows": strconv.Itoa(rows), "schema": "bench", "workers": "1", "keys": "uniform", "duration": duration.String(), "seed": strconv.Itoa(seed)})
	default:
		fmt.Fprintln(os.Stderr, "usage: bench insert DB | read DB | worker-insert PROGRAM DB | worker-read PROGRAM DB")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	fmt.Printf("%.0f\n", rate)
}

func open(path string) (*sqlite3.Conn, error) {
	c, err := sqlite3.Open(path, sqlite3.OPEN_READWRITE|sqlite3.OPEN_CREATE|sqlite3.OPEN_URI|sqlite3.OPEN_NOMUTEX)
	if err != nil {
		return nil, err
	}
	for _, p := range pragmas {
		if err := c.Exec(p); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// plainInsert inserts rows [0, rows) of the bench table. Generating a
// transaction's rows is left out of the time, as the worker leaves it out.
func plainInsert(path string) (float64, error) {
	c, err := open(path)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	if err := c.Exec("CREATE TABLE bench(ID int PRIMARY KEY, rand TEXT, hash TEXT)"); err != nil {
		return 0, err
	}
	st, err := c.Prepare("INSERT INTO bench(ID,rand,hash) VALUES (?,?,?)")
	if err != nil {
		return 0, err
	}
	defer st.Close()
	var rnd, hash [batch]string
	var took time.Duration
	for start := int64(0); start < rows; start += batch {
		for k := range batch {
			rnd[k], hash[k] = workload.BenchValues(seed, start+int64(k))
		}
		t := time.Now()
		if err := c.Begin(); err != nil {
			return 0, err
		}
		for k := range batch {
			if err := st.Bind(start+int64(k), rnd[k], hash[k]); err != nil {
				return 0, err
			}
			if _, err := st.Step(); err != nil {
				return 0, err
			}
			if err := st.Reset(); err != nil {
				return 0, err
			}
		}
		if err := c.Commit(); err != nil {
			return 0, err
		}
		took += time.Since(t)
	}
	return rows / took.Seconds(), nil
}

// plainRead reads rows by uniform random ID for the duration.
func plainRead(path string) (float64, error) {
	c, err := open(path)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	st, err := c.Prepare("SELECT ID,rand,hash FROM bench WHERE ID = ?")
	if err != nil {
		return 0, err
	}
	defer st.Close()
	r := rand.New(rand.NewPCG(seed, 2))
	var n int64
	start := time.Now()
	end := start.Add(duration)
	var now time.Time
	for now = start; now.Before(end); now = time.Now() {
		if err := st.Bind(r.Int64N(rows)); err != nil {
			return 0, err
		}
		ok, err := st.Step()
		if err != nil {
			return 0, err
		}
		if !ok {
			return 0, errors.New("a read found no row")
		}
		if _, _, err := st.ColumnInt64(0); err != nil {
			return 0, err
		}
		if _, _, err := st.ColumnText(1); err != nil {
			return 0, err
		}
		if _, _, err := st.ColumnText(2); err != nil {
			return 0, err
		}
		if err := st.Reset(); err != nil {
			return 0, err
		}
		n++
	}
	return float64(n) / now.Sub(start).Seconds(), nil
}

// viaWorker runs a job through the worker program and returns its rate:
// rows or operations counted over the measured time.
func viaWorker(prog, path, wl string, set, params map[string]string) (float64, error) {
	ctx := context.Background()
	p, err := worker.StartCommand(prog)
	if err != nil {
		return 0, err
	}
	defer p.Close()
	if _, err := p.Hello(ctx); err != nil {
		return 0, err
	}
	job := &worker.Job{RunID: "bench", Workload: wl, Params: params, Settings: set, Target: "go-sqlite-lite", Path: path}
	if _, err := p.Setup(ctx, job); err != nil {
		return 0, err
	}
	fin, err := p.Run(ctx, func(worker.Event) {})
	if err != nil {
		return 0, err
	}
	if fin.Status != results.StatusOK {
		return 0, fmt.Errorf("%s: %s %s", wl, fin.Status, fin.Error)
	}
	var n int64
	for _, op := range fin.FinalOps {
		if len(op.Errors) > 0 {
			return 0, fmt.Errorf("%s: %s errors %v", wl, op.Name, op.Errors)
		}
		if op.Name == wl {
			n = op.Count
		}
	}
	return float64(n) / fin.ElapsedS, nil
}
