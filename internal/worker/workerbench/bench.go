// Package workerbench is the harness-cost benchmark of the Go workers of
// their own (a driver litebench cannot link): a driver's plain loops, the
// driver used directly, against the same jobs run through the worker
// program, each side giving its rate per second of wall time and per
// second of CPU time. compare.sh, next to this file, runs the rounds.
//
// The jobs: a 1M-row insert of the bench table (prepared, 1000-row
// transactions, WAL, synchronous off, one row per statement), and 10 s of
// single-thread point reads by uniform random ID, every column read, on
// the 1M rows loaded (not measured) as the worker's read loads them: 100
// rows per statement, 10000 per transaction, on the connection that then
// reads.
package workerbench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/litebench/litebench/internal/proc"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/worker"
	"github.com/litebench/litebench/internal/workload"
)

// The jobs' settings.
const (
	Batch = 1000
	Seed  = 1
	// How the worker's read loads its table (workload.Preload).
	LoadBatch   = 10000
	LoadPerStmt = 100
)

// The jobs' sizes: Rows rows, and reads for Duration, or Reads reads when
// it is set. LITEBENCH_BENCH_ROWS and LITEBENCH_BENCH_READS change them
// for callgrind.sh, which counts instructions on smaller jobs (a 1M-row
// load under valgrind takes many minutes).
var (
	Rows     int64 = 1_000_000
	Duration       = 10 * time.Second
	Reads    int64
)

// Interval is how often the worker reports an interval. callgrind.sh
// sets LITEBENCH_BENCH_INTERVAL=0 (none): under valgrind a clock-driven
// report comes some fifty times as often per operation as at full speed,
// and how often depends on the machine's load, which the count of
// instructions per operation must not.
var Interval = time.Second

// sizes reads the environment's sizes.
func sizes() error {
	if s := os.Getenv("LITEBENCH_BENCH_INTERVAL"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return fmt.Errorf("LITEBENCH_BENCH_INTERVAL=%q: want a duration (0: none)", s)
		}
		Interval = d
	}
	for _, v := range []struct {
		name string
		to   *int64
	}{{"LITEBENCH_BENCH_ROWS", &Rows}, {"LITEBENCH_BENCH_READS", &Reads}} {
		if s := os.Getenv(v.name); s != "" {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n < 1 {
				return fmt.Errorf("%s=%q: want a positive whole number", v.name, s)
			}
			*v.to = n
		}
	}
	return nil
}

// Pragmas are the worker's per-connection pragmas for these jobs
// (busy_timeout is the setting's default).
var Pragmas = []string{"PRAGMA busy_timeout = 5000", "PRAGMA journal_mode = wal", "PRAGMA synchronous = off"}

// CreateTable is the bench table's DDL, as the worker creates it.
const CreateTable = "CREATE TABLE bench(ID int PRIMARY KEY, rand TEXT, hash TEXT)"

// SelectRow is the worker's point read.
const SelectRow = "SELECT ID,rand,hash FROM bench WHERE ID = ?"

// InsertRows is the worker's insert of k rows in one statement.
// The statements' text is the worker's (its SQLite dialect's).
func InsertRows(k int) string {
	return "INSERT INTO bench(ID,rand,hash) VALUES " + strings.TrimSuffix(strings.Repeat("(?,?,?),", k), ",")
}

// Plain is a driver's plain loops on its connection type C.
type Plain[C any] struct {
	// Open opens a read-write-create connection on path and runs Pragmas.
	Open  func(path string) (C, error)
	Close func(C)
	// Exec runs one statement that returns no rows.
	Exec func(c C, sql string) error
	// Insert creates no table: it inserts rows [0, Rows) with batch rows
	// per transaction and perStmt rows per statement (InsertRows), taking
	// each transaction's rows from b and timing each transaction with m.
	Insert func(c C, b *RowBuf, batch, perStmt int, m *Meter) error
	// Read runs SelectRow by r.Key while m.Running(), reading every
	// column of each row, and returns how many it ran.
	Read func(c C, r *Keys, m *Meter) (int64, error)
}

// RowBuf holds the bench table's rows, a transaction's worth at a time,
// generated before the transaction's clock starts by the generator the
// worker's inline source uses (workload.Schema.Row into an arena), so that
// generation costs the same on both sides of an instruction count
// (callgrind.sh) as it is left out of both sides' time.
type RowBuf struct {
	ID         []int64
	Rand, Hash []string
	arena      workload.Arena
	row        [3]any
}

// Fill generates rows [start, start+n). The strings stay valid until the
// next Fill.
func (b *RowBuf) Fill(start int64, n int) {
	b.ID, b.Rand, b.Hash = b.ID[:0], b.Rand[:0], b.Hash[:0]
	b.arena.Reset()
	s := workload.Schemas["bench"]
	for i := start; i < start+int64(n); i++ {
		s.Row(Seed, i, b.row[:], &b.arena)
		b.ID = append(b.ID, b.row[0].(int64))
		b.Rand, b.Hash = append(b.Rand, b.row[1].(string)), append(b.Hash, b.row[2].(string))
	}
}

// Keys are the reads' keys: uniform over the rows.
type Keys struct{ r *rand.Rand }

// Key is the next key.
func (k *Keys) Key() int64 { return k.r.Int64N(Rows) }

// Meter sums the wall and CPU time of the measured parts.
type Meter struct {
	wall, cpu time.Duration
	t0, end   time.Time
	c0        time.Duration
	reads     int64 // reads run so far, when Reads is set
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru) //nolint:errcheck // cannot fail with these arguments
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Start starts a measured part.
func (m *Meter) Start() {
	m.c0 = cpuTime()
	m.t0 = time.Now()
}

// Stop ends the measured part.
func (m *Meter) Stop() { m.stopAt(time.Now()) }

func (m *Meter) stopAt(now time.Time) {
	m.wall += now.Sub(m.t0)
	m.cpu += cpuTime() - m.c0
}

// Running reports whether the read duration, started by the first call,
// is still running (with Reads set: whether fewer reads than that have
// run); the call that says no ends it.
func (m *Meter) Running() bool {
	now := time.Now()
	if m.end.IsZero() {
		m.Start()
		m.t0, m.end = now, now.Add(Duration)
	}
	if Reads > 0 {
		m.reads++
		if m.reads <= Reads {
			return true
		}
	} else if now.Before(m.end) {
		return true
	}
	m.stopAt(now)
	return false
}

// rates are n per second of wall time and per second of CPU time.
func (m *Meter) rates(n int64) (float64, float64) {
	return float64(n) / m.wall.Seconds(), float64(n) / m.cpu.Seconds()
}

// Main is the bench program of a worker serving target with the driver
// of p:
//
//	bench insert DB                 the plain insert
//	bench read DB                   the plain reads
//	bench worker-insert PROGRAM DB  the same through the worker program
//	bench worker-read PROGRAM DB
//
// Each prints one line: the rate per second of wall time and per second
// of CPU time (rows/s for insert, reads/s for read). The plain loops run
// under the worker's start-up (proc.Start): the same garbage-collector
// setting, and LITEBENCH_CPUPROFILE profiles them as it profiles the
// worker.
func Main[C any](target string, p Plain[C]) {
	if len(os.Args) == 3 {
		defer proc.Start()()
	}
	if err := sizes(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	readParams := map[string]string{"rows": strconv.FormatInt(Rows, 10), "schema": "bench", "workers": "1", "keys": "uniform", "duration": Duration.String(), "seed": strconv.Itoa(Seed)}
	if Reads > 0 {
		readParams["count"] = strconv.FormatInt(Reads, 10)
	}
	var wall, cpu float64
	var err error
	switch {
	case len(os.Args) == 3 && os.Args[1] == "insert":
		wall, cpu, err = plainInsert(p, os.Args[2])
	case len(os.Args) == 3 && os.Args[1] == "read":
		wall, cpu, err = plainRead(p, os.Args[2])
	case len(os.Args) == 4 && os.Args[1] == "worker-insert":
		wall, cpu, err = viaWorker(os.Args[2], os.Args[3], target, "insert", insertSettings, map[string]string{"rows": strconv.FormatInt(Rows, 10), "schema": "bench", "workers": "1", "seed": strconv.Itoa(Seed)})
	case len(os.Args) == 4 && os.Args[1] == "worker-read":
		wall, cpu, err = viaWorker(os.Args[2], os.Args[3], target, "read", readSettings, readParams)
	default:
		fmt.Fprintln(os.Stderr, "usage: bench insert DB | read DB | worker-insert PROGRAM DB | worker-read PROGRAM DB")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	fmt.Printf("%.0f %.0f\n", wall, cpu)
}

// The worker's jobs' settings.
var (
	readSettings   = map[string]string{"journal": "wal", "sync": "off", "prepared": "true"}
	insertSettings = map[string]string{"journal": "wal", "sync": "off", "prepared": "true", "batch": strconv.Itoa(Batch), "rows-per-stmt": "1"}
)

func open[C any](p Plain[C], path string) (C, error) {
	c, err := p.Open(path)
	if err != nil {
		return c, err
	}
	if err := p.Exec(c, CreateTable); err != nil {
		p.Close(c)
		return c, err
	}
	return c, nil
}

func plainInsert[C any](p Plain[C], path string) (float64, float64, error) {
	c, err := open(p, path)
	if err != nil {
		return 0, 0, err
	}
	defer p.Close(c)
	var m Meter
	if err := p.Insert(c, &RowBuf{}, Batch, 1, &m); err != nil {
		return 0, 0, err
	}
	wall, cpu := m.rates(Rows)
	return wall, cpu, nil
}

func plainRead[C any](p Plain[C], path string) (float64, float64, error) {
	c, err := open(p, path)
	if err != nil {
		return 0, 0, err
	}
	defer p.Close(c)
	if err := p.Insert(c, &RowBuf{}, LoadBatch, LoadPerStmt, &Meter{}); err != nil {
		return 0, 0, err
	}
	var m Meter
	n, err := p.Read(c, &Keys{rand.New(rand.NewPCG(Seed, 2))}, &m)
	if err != nil {
		return 0, 0, err
	}
	wall, cpu := m.rates(n)
	return wall, cpu, nil
}

// viaWorker runs a job through the worker program and returns its rates:
// rows or operations counted over the measured time, and over the CPU
// time the worker's process used over that measured part (its process_cpu
// figure), less the rows' generation it left out of the measured time (the
// plain loops leave it out of both).
func viaWorker(prog, path, target, wl string, set, params map[string]string) (float64, float64, error) {
	ctx := context.Background()
	p, err := worker.StartCommand(prog)
	if err != nil {
		return 0, 0, err
	}
	defer p.Close()
	if _, err := p.Hello(ctx); err != nil {
		return 0, 0, err
	}
	job := &worker.Job{RunID: "bench", Workload: wl, Params: params, Settings: set, Target: target, Path: path,
		IntervalNS: int64(Interval)}
	if _, err := p.Setup(ctx, job); err != nil {
		return 0, 0, err
	}
	fin, err := p.Run(ctx, func(worker.Event) {})
	if err != nil {
		return 0, 0, err
	}
	if fin.Status != results.StatusOK {
		return 0, 0, fmt.Errorf("%s: %s %s", wl, fin.Status, fin.Error)
	}
	var n int64
	for _, op := range fin.FinalOps {
		if len(op.Errors) > 0 {
			return 0, 0, fmt.Errorf("%s: %s errors %v", wl, op.Name, op.Errors)
		}
		if op.Name == wl {
			n = op.Count
		}
	}
	// process_cpu is in cores over the measured part, whose wall time is
	// elapsed_s and the rows' generation the worker left out of it; the
	// generation's CPU time, which the worker does not measure (its wall
	// time is no measure of it on a busy machine), is estimated in the
	// same proportion, so that the rest is process_cpu × elapsed_s.
	if !p.OwnCPU {
		return 0, 0, fmt.Errorf("%s: the worker reported no process_cpu", wl)
	}
	var cpu float64
	for _, m := range fin.Metrics {
		if m.Name == results.ProcessCPU {
			cpu = m.Value * fin.ElapsedS
		}
	}
	return float64(n) / fin.ElapsedS, float64(n) / cpu, nil
}
