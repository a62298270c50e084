package workload

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"litebench/internal/gen"
	"litebench/internal/loadgen"
	"litebench/internal/metrics"
	"litebench/internal/settings"
	"litebench/internal/target"
	"litebench/internal/units"
)

// Op kinds of read, write and mixed.
const (
	opRead = iota
	opWrite
)

var rwOps = metrics.Ops{"read", "write"}

// loadParams are the parameters every operation workload shares.
var loadParams = []Param{
	{"rows", "10000", "rows loaded before the measured part (not measured)", true},
	{"schema", "bench", "table: bench, users, account, pages (seeds 000, 002, 004, 003) or foo (seed 001)", true},
	{"keys", "uniform", "which rows reads and updates pick: uniform, zipfian, latest (YCSB)", true},
	{"zipf-theta", "0.99", "skew of zipfian and latest keys (0 < theta < 1)", true},
	{"duration", "10s", "length of the measured part (ignored when --count is set)", true},
	{"count", "0", "measured operations in total, instead of --duration (0 = use --duration)", true},
	{"warmup", "0s", "run this long first, unrecorded", false},
	{"rate", "0", "open loop: operations per second in total, whatever the target does (0 = closed loop)", true},
	{"arrivals", "uniform", "open-loop spacing: uniform or poisson", true},
	{"max-inflight", "100", "open loop: most operations in flight at once; later ones wait and their wait counts", true},
	{"seed", "1", "data and key seed", false},
}

func init() {
	Register(&Spec{
		Name:    "read",
		Summary: "point reads by primary key; closed loop (--workers) or open loop (--rate)",
		Params: append([]Param{
			{"workers", "1", "closed loop: concurrent readers", true},
		}, loadParams...),
		SettingDefaults: map[string]string{"batch": "1"},
		New:             func(p map[string]string, s settings.Settings) (Workload, error) { return newOps("read", p, s) },
	})
	Register(&Spec{
		Name:    "write",
		Summary: "single-row (or --batch row) inserts, updates or upserts; closed or open loop",
		Params: append([]Param{
			{"workers", "1", "closed loop: concurrent writers", true},
			{"write-kind", "insert", "insert (new rows), update (existing rows, by --keys) or upsert", true},
		}, loadParams...),
		SettingDefaults: map[string]string{"batch": "1"},
		New:             func(p map[string]string, s settings.Settings) (Workload, error) { return newOps("write", p, s) },
	})
	Register(&Spec{
		Name:    "mixed",
		Summary: "readers and writers at once (seed 001, seed 000 concurrent), or --rate with --write-ratio (seed 004)",
		Params: append([]Param{
			{"readers", "1", "closed loop: reading goroutines", true},
			{"writers", "1", "closed loop: writing goroutines", true},
			{"write-ratio", "10", "open loop: percent of operations that write", true},
			{"write-kind", "insert", "insert (new rows), update (existing rows, by --keys) or upsert", true},
		}, loadParams...),
		SettingDefaults: map[string]string{"batch": "1"},
		New:             func(p map[string]string, s settings.Settings) (Workload, error) { return newOps("mixed", p, s) },
	})
}

type opsW struct {
	name     string
	params   map[string]string
	schema   *Schema
	rows     int64
	keys     string
	theta    float64
	kind     string
	readers  int
	writers  int
	ratio    float64
	cfg      loadgen.Config
	seed     uint64
	batch    int
	prepared bool
	retries  int
	mutex    bool
	single   bool
	// next is the index of the next row an insert writes; inserted rows
	// become readable (for keys) once committed, in visible.
	next    atomic.Int64
	visible atomic.Int64
	claimMu sync.Mutex
	claims  []int64 // first rows of inserts in flight
	zipf    *gen.Zipf
	// updIdx are the positions of the schema's UpdateCols in a row.
	updIdx []int
}

func pFloat(p map[string]string, name string, lo, hi float64) (float64, error) {
	f, err := strconv.ParseFloat(p[name], 64)
	if err != nil || f < lo || f > hi {
		return 0, fmt.Errorf("--%s %q: want a number from %v to %v", name, p[name], lo, hi)
	}
	return f, nil
}

func pDuration(p map[string]string, name string) (time.Duration, error) {
	d, err := time.ParseDuration(p[name])
	if err != nil || d < 0 {
		return 0, fmt.Errorf("--%s %q: want a duration such as 500ms, 10s or 2m", name, p[name])
	}
	return d, nil
}

// loadConfig reads the load-model parameters every operation workload
// shares: duration or count, warm-up, rate, arrivals, max in flight.
func loadConfig(p map[string]string, ops metrics.Ops, seed uint64) (loadgen.Config, error) {
	c := loadgen.Config{Ops: ops, Seed: seed}
	var err error
	if c.Duration, err = pDuration(p, "duration"); err != nil {
		return c, err
	}
	if c.Warmup, err = pDuration(p, "warmup"); err != nil {
		return c, err
	}
	if c.Count, err = pInt(p, "count", 0); err != nil {
		return c, err
	}
	if c.Count > 0 {
		c.Duration = 0
	} else if c.Duration <= 0 {
		return c, fmt.Errorf("--duration %s: want a positive duration, or set --count", p["duration"])
	}
	if c.Rate, err = pFloat(p, "rate", 0, 1e9); err != nil {
		return c, err
	}
	if c.Arrivals, err = loadgen.ParseArrivals(p["arrivals"]); err != nil {
		return c, err
	}
	mi, err := pInt(p, "max-inflight", 1)
	if err != nil {
		return c, err
	}
	c.MaxInflight = int(mi)
	return c, nil
}

func newOps(name string, p map[string]string, s settings.Settings) (Workload, error) {
	w := &opsW{name: name, params: p, batch: s.Int("batch"), prepared: s.Bool("prepared"),
		retries: s.BusyRetries(), mutex: s.Bool("write-mutex"), single: s.Get("writer") == "single"}
	var err error
	if w.schema, err = pSchema(p); err != nil {
		return nil, err
	}
	if w.rows, err = pInt(p, "rows", 0); err != nil {
		return nil, err
	}
	if w.seed, err = pSeed(p); err != nil {
		return nil, err
	}
	w.keys = p["keys"]
	if w.theta, err = strconv.ParseFloat(p["zipf-theta"], 64); err != nil {
		return nil, fmt.Errorf("--zipf-theta %q: want a number between 0 and 1", p["zipf-theta"])
	}
	if err := CheckKeys(w.keys, w.theta); err != nil {
		return nil, err
	}
	for _, c := range w.schema.UpdateCols {
		for k, name := range w.schema.Columns {
			if name == c {
				w.updIdx = append(w.updIdx, k)
			}
		}
	}
	w.kind = p["write-kind"]
	switch w.kind {
	case "", "insert", "update", "upsert":
	default:
		return nil, fmt.Errorf("--write-kind %q: want insert, update or upsert", w.kind)
	}
	if w.kind == "" {
		w.kind = "insert"
	}
	if w.cfg, err = loadConfig(p, rwOps, w.seed); err != nil {
		return nil, err
	}
	c := &w.cfg
	switch name {
	case "read":
		n, err := pInt(p, "workers", 1)
		if err != nil {
			return nil, err
		}
		w.readers, w.ratio = int(n), 0
	case "write":
		n, err := pInt(p, "workers", 1)
		if err != nil {
			return nil, err
		}
		w.writers, w.ratio = int(n), 100
	case "mixed":
		r, err := pInt(p, "readers", 0)
		if err != nil {
			return nil, err
		}
		wr, err := pInt(p, "writers", 0)
		if err != nil {
			return nil, err
		}
		w.readers, w.writers = int(r), int(wr)
		if w.ratio, err = pFloat(p, "write-ratio", 0, 100); err != nil {
			return nil, err
		}
		if c.Rate == 0 && r+wr == 0 {
			return nil, fmt.Errorf("--readers 0 --writers 0: nothing to run; give at least one reader or writer")
		}
	}
	if (w.readers > 0 || w.kind != "insert") && w.rows == 0 && (name != "write" || w.kind != "insert") {
		return nil, fmt.Errorf("--rows 0: reads and updates need rows to pick from; load some with --rows N")
	}
	if w.keys != KeysUniform {
		w.zipf = gen.NewZipf(max(w.rows, 1), w.theta)
	}
	if c.Rate > 0 {
		ratio := w.ratio
		c.Choose = func(seq uint64) int {
			// Deterministic per operation number: the same seed gives the
			// same sequence of reads and writes.
			if gen.WriteOp(w.seed, seq, ratio) {
				return opWrite
			}
			return opRead
		}
	} else {
		for i := 0; i < w.readers; i++ {
			c.Roles = append(c.Roles, opRead)
		}
		for i := 0; i < w.writers; i++ {
			c.Roles = append(c.Roles, opWrite)
		}
	}
	return w, nil
}

func (w *opsW) Name() string              { return w.name }
func (w *opsW) Unit() string              { return "op" }
func (w *opsW) Ops() metrics.Ops          { return rwOps }
func (w *opsW) Params() map[string]string { return w.params }
func (w *opsW) Total() int64              { return w.cfg.Count }

func (w *opsW) Setup(ctx context.Context, env *Env) error {
	if err := CreateSchema(ctx, env.DB, w.schema); err != nil {
		return err
	}
	if err := preload(ctx, env, w.schema, w.seed, w.rows); err != nil {
		return fmt.Errorf("loading %d rows: %w", w.rows, err)
	}
	w.next.Store(w.rows)
	w.visible.Store(w.rows)
	env.Figure("table_rows_before", units.Rows, units.None, float64(w.rows))
	return nil
}

// shared is what the executors of one run share.
type shared struct {
	w      *opsW
	env    *Env
	reads  target.DB
	writes target.DB
	mu     sync.Mutex // --write-mutex
	// statements prepared once per run (the DB's statements are usable
	// from any connection)
	readSQL, writeSQL string
	readSt, writeSt   target.Stmt
}

func (w *opsW) Run(ctx context.Context, env *Env) error {
	sh := &shared{w: w, env: env, reads: env.DB, writes: env.DB}
	sc := w.schema
	sh.readSQL = "SELECT " + strings.Join(sc.Columns, ",") + " FROM " + sc.Table + " WHERE " + sc.KeyCol + " = ?"
	sh.writeSQL = w.writeSQL()
	if w.single && (w.writers > 0 || w.ratio > 0) {
		o := env.Options
		o.MaxOpen, o.ConnPerOp = 1, false
		db, err := env.Target.Open(ctx, o)
		if err != nil {
			return fmt.Errorf("opening the single writer connection: %w", err)
		}
		defer db.Close()
		sh.writes = db
	}
	stmtCtx := context.WithoutCancel(ctx)
	if w.prepared {
		var err error
		if sh.readSt, err = sh.reads.Prepare(stmtCtx, sh.readSQL); err != nil {
			return err
		}
		defer sh.readSt.Close()
		if sh.writeSt, err = sh.writes.Prepare(stmtCtx, sh.writeSQL); err != nil {
			return err
		}
		defer sh.writeSt.Close()
	}
	cfg := w.cfg
	cfg.Classify = func(err error) string {
		if errors.Is(err, errMissing) {
			return "missing"
		}
		return target.Classify(env.Target, err)
	}
	cfg.NewExecutor = func(i int) (loadgen.Executor, error) {
		return &executor{sh: sh, ctx: stmtCtx, keys: gen.NewKeyGen(w.keys, w.zipf, w.seed, i),
			row: make([]any, len(sc.Columns)), dest: scanDest(sc, w.seed), idx: make([]int64, w.batch)}, nil
	}
	st, err := runLoad(ctx, env, cfg)
	if cfg.Rate > 0 {
		if el := st.End.Sub(st.Start).Seconds(); el > 0 {
			env.Figure("issued_rate", units.OpsPerSecond, units.None, float64(st.Issued)/el)
		}
		env.Figure("executors", "executors", units.None, float64(st.Executors))
	}
	if w.next.Load() > w.rows {
		env.Figure("rows_inserted", units.Rows, units.None, float64(w.next.Load()-w.rows))
	}
	// The table's row count after the run, as seed 004 prints it (not
	// measured: the clock stopped at env.End).
	var n int64
	if cerr := env.DB.Query(context.WithoutCancel(ctx), "SELECT count(*) FROM "+w.schema.Table, nil, func(r target.Row) error { return r.Scan(&n) }); cerr == nil {
		env.Figure("table_rows_after", units.Rows, units.None, float64(n))
	}
	return err
}

// runLoad drives cfg against env: recorders that feed the time series,
// progress, the measured start after a warm-up, the end of the measured
// interval, and the open-loop figures every load workload reports.
func runLoad(ctx context.Context, env *Env, cfg loadgen.Config) (loadgen.Stats, error) {
	cfg.Done = &env.Done
	cfg.NewRecorder = func() *metrics.Recorder { return env.NewLiveRecorder(cfg.Ops) }
	cfg.OnMeasure = env.MarkStart
	if cfg.Warmup > 0 {
		env.MarkStart(time.Time{}) // the engine marks the end of the warm-up
	}
	st, err := loadgen.Run(ctx, cfg)
	env.End = st.End
	if cfg.Rate > 0 {
		env.Figure("wanted_rate", units.OpsPerSecond, units.None, cfg.Rate) // reports read it by this name
		if st.Lag != nil && st.Lag.TotalCount() > 0 {
			env.Figure("sched_lag_p99", units.Microseconds, units.None, float64(st.Lag.ValueAtQuantile(99))/1e3)
		}
	}
	return st, err
}

func (w *opsW) writeSQL() string {
	sc := w.schema
	switch w.kind {
	case "update":
		var set []string
		for _, c := range sc.UpdateCols {
			set = append(set, c+" = ?")
		}
		return "UPDATE " + sc.Table + " SET " + strings.Join(set, ", ") + " WHERE " + sc.KeyCol + " = ?"
	case "upsert":
		var set []string
		for _, c := range sc.UpdateCols {
			set = append(set, c+" = excluded."+c)
		}
		return "INSERT INTO " + sc.Table + "(" + strings.Join(sc.Columns, ",") + ") VALUES (" +
			strings.TrimSuffix(strings.Repeat("?,", len(sc.Columns)), ",") + ") ON CONFLICT(" + sc.KeyCol + ") DO UPDATE SET " + strings.Join(set, ", ")
	}
	return "INSERT INTO " + sc.Table + "(" + strings.Join(sc.Columns, ",") + ") VALUES (" +
		strings.TrimSuffix(strings.Repeat("?,", len(sc.Columns)), ",") + ")"
}

var errMissing = errors.New("row not found")

// claim reserves n new row indexes for an insert.
func (w *opsW) claim(n int) int64 {
	w.claimMu.Lock()
	defer w.claimMu.Unlock()
	first := w.next.Add(int64(n)) - int64(n)
	w.claims = append(w.claims, first)
	return first
}

// release ends the insert that claimed first. Reads pick rows below the
// oldest insert still in flight, so they only ask for committed rows
// (rows of an insert that failed stay missing, and reads count them).
func (w *opsW) release(first int64) {
	w.claimMu.Lock()
	defer w.claimMu.Unlock()
	lo := w.next.Load()
	for k := 0; k < len(w.claims); k++ {
		if w.claims[k] == first {
			w.claims = append(w.claims[:k], w.claims[k+1:]...)
			k--
			continue
		}
		lo = min(lo, w.claims[k])
	}
	w.visible.Store(lo)
}

// scanDest builds scan destinations matching the schema's column types.
func scanDest(sc *Schema, seed uint64) []any {
	row := make([]any, len(sc.Columns))
	sc.Row(seed, 0, row, nil)
	dest := make([]any, len(row))
	for i, v := range row {
		switch v.(type) {
		case int64:
			dest[i] = new(int64)
		default:
			dest[i] = new(string)
		}
	}
	return dest
}

type executor struct {
	sh   *shared
	ctx  context.Context
	keys *gen.KeyGen
	row  []any
	args []any
	dest []any
	idx  []int64 // rows of the current write
}

func (e *executor) Do(_ context.Context, op int) (int, error) {
	if op == opRead {
		return 0, e.read()
	}
	return e.write()
}

func (e *executor) read() error {
	w := e.sh.w
	i := e.keys.Next(w.visible.Load())
	key := w.schema.Key(w.seed, i)
	found := false
	fn := func(r target.Row) error {
		found = true
		return r.Scan(e.dest...)
	}
	var err error
	if e.sh.readSt != nil {
		err = e.sh.readSt.Query(e.ctx, []any{key}, fn)
	} else {
		err = e.sh.reads.Query(e.ctx, e.sh.readSQL, []any{key}, fn)
	}
	if err != nil {
		return e.classify(err)
	}
	if !found {
		return fmt.Errorf("%w: %s %s = %v", errMissing, w.schema.Table, w.schema.KeyCol, key)
	}
	return nil
}

// classify passes SQLite's expected errors (busy, locked, constraint) on
// to be counted and makes anything else end the run.
func (e *executor) classify(err error) error {
	switch target.Classify(e.sh.env.Target, err) {
	case "busy", "locked", "constraint", "interrupted":
		return err
	}
	return loadgen.Fatal(err)
}

// write runs one write operation: --batch rows in one transaction (or one
// autocommit statement), retried per --busy-retry.
func (e *executor) write() (int, error) {
	sh, w := e.sh, e.sh.w
	if w.mutex {
		sh.mu.Lock()
		defer sh.mu.Unlock()
	}
	// Rows this operation writes are chosen once, so a retry writes the
	// same rows.
	idx := e.idx
	if w.kind == "insert" {
		first := w.claim(len(idx))
		defer w.release(first)
		for k := range idx {
			idx[k] = first + int64(k)
		}
	} else {
		span := w.visible.Load()
		if w.kind == "upsert" {
			span += span / 10 // some upserts insert
		}
		for k := range idx {
			idx[k] = e.keys.Next(span)
		}
	}
	retries := 0
	for {
		err := e.writeOnce(idx)
		if err == nil {
			if sh.env.Ack != nil {
				sh.env.Ack(idx[0], int64(len(idx)))
			}
			return retries, nil
		}
		if target.Retryable(sh.env.Target, err) && (w.retries < 0 || retries < w.retries) {
			retries++
			continue
		}
		return retries, e.classify(err)
	}
}

func (e *executor) writeOnce(idx []int64) error {
	sh := e.sh
	if len(idx) == 1 {
		return e.execWrite(nil, idx[0])
	}
	tx, err := sh.writes.Begin(e.ctx)
	if err != nil {
		return err
	}
	for _, i := range idx {
		if err := e.execWrite(tx, i); err != nil {
			tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}

func (e *executor) execWrite(tx target.Tx, i int64) error {
	sh, w := e.sh, e.sh.w
	sc := w.schema
	switch w.kind {
	case "update":
		// The new values are row i generated under another seed.
		sc.Row(w.seed+1, i, e.row, nil)
		e.args = e.args[:0]
		for _, k := range w.updIdx {
			e.args = append(e.args, e.row[k])
		}
		e.args = append(e.args, sc.Key(w.seed, i))
	default:
		sc.Row(w.seed, i, e.row, nil)
		e.args = append(e.args[:0], e.row...)
	}
	switch {
	case sh.writeSt != nil && tx != nil:
		return tx.Stmt(sh.writeSt).Exec(e.ctx, e.args...)
	case sh.writeSt != nil:
		return sh.writeSt.Exec(e.ctx, e.args...)
	case tx != nil:
		return tx.Exec(e.ctx, sh.writeSQL, e.args...)
	}
	return sh.writes.Exec(e.ctx, sh.writeSQL, e.args...)
}
