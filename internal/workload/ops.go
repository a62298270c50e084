package workload

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync/atomic"
	"time"

	"litebench/internal/dialect"
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
	name    string
	params  map[string]string
	schema  *Schema
	rows    int64
	keys    string
	theta   float64
	kind    string
	readers int
	writers int
	ratio   float64
	cfg     loadgen.Config
	seed    uint64
	batch   int
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
	w := &opsW{name: name, params: p, batch: s.Int("batch")}
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
	if err := CreateSchema(ctx, env.Session, w.schema); err != nil {
		return err
	}
	if err := preload(ctx, env, w.schema, w.seed, w.rows); err != nil {
		return fmt.Errorf("loading %d rows: %w", w.rows, err)
	}
	env.Figure("table_rows_before", units.Rows, units.None, float64(w.rows))
	return nil
}

// shared is what the executors of one run share; nothing in it is locked
// per operation.
type shared struct {
	w     *opsW
	sess  *target.Session
	keys  *claims
	read  *target.Statement
	write *target.Statement
	// ack is called after each committed write (Env.Ack), or nil.
	ack func(first, n int64)
}

// newShared prepares what the executors of a run share, for up to
// executors of them.
func (w *opsW) newShared(ctx context.Context, sess *target.Session, executors int) (*shared, error) {
	sc, d := w.schema, sess.Dialect()
	sh := &shared{w: w, sess: sess, keys: newClaims(w.rows, executors)}
	var err error
	if sh.read, err = sess.Prepare(ctx, d.Select(sc.Table, sc.Columns, sc.KeyCol), target.Read); err != nil {
		return nil, err
	}
	if w.writers > 0 || w.ratio > 0 {
		if sh.write, err = sess.Prepare(ctx, w.writeSQL(d), target.Write); err != nil {
			sh.close()
			return nil, err
		}
	}
	return sh, nil
}

func (sh *shared) close() {
	for _, st := range []*target.Statement{sh.read, sh.write} {
		if st != nil {
			st.Close()
		}
	}
}

func (w *opsW) Run(ctx context.Context, env *Env) error {
	sess := env.Session
	cfg := w.cfg
	// Statements run under a context that cannot be cancelled: a
	// cancellable one makes drivers (mattn, database/sql) start a watcher
	// goroutine per statement, which would be measured. The load engine
	// checks for cancellation between operations.
	stmtCtx := context.WithoutCancel(ctx)
	executors := len(cfg.Roles)
	if cfg.Rate > 0 {
		executors = cfg.MaxInflight
	}
	sh, err := w.newShared(stmtCtx, sess, executors)
	if err != nil {
		return err
	}
	defer func() {
		if !env.Abandoned {
			sh.close() // never under an operation still running
		}
	}()
	sh.ack = env.Ack
	cfg.Classify = func(err error) string {
		if errors.Is(err, errMissing) {
			return "missing"
		}
		return sess.Classify(err).String()
	}
	cfg.NewExecutor = func(i int) (loadgen.Executor, error) { return newExecutor(sh, stmtCtx, i) }
	st, err := runLoad(ctx, env, cfg)
	if cfg.Rate > 0 {
		if el := st.End.Sub(st.Start).Seconds(); el > 0 {
			env.Figure("issued_rate", units.OpsPerSecond, units.None, float64(st.Issued)/el)
		}
		env.Figure("executors", "executors", units.None, float64(st.Executors))
	}
	if n := sh.keys.next.Load(); n > w.rows {
		env.Figure("rows_inserted", units.Rows, units.None, float64(n-w.rows))
	}
	// The table's row count after the run, as seed 004 prints it (not
	// measured: the clock stopped at env.End). Not after an interrupt: it
	// could wait behind the writers still running.
	if ctx.Err() != nil {
		return err
	}
	var n int64
	if cerr := sess.DB().Query(context.WithoutCancel(ctx), "SELECT count(*) FROM "+w.schema.Table, nil, func(r target.Row) error { return r.Scan(&n) }); cerr == nil {
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
	if st.Abandoned > 0 {
		env.Abandoned = true
		env.Notes = append(env.Notes, fmt.Sprintf("interrupted: %d operation(s) still running %s after the interrupt were left unfinished (not counted)", st.Abandoned, drainOf(cfg)))
	}
	if cfg.Rate > 0 {
		env.Figure("wanted_rate", units.OpsPerSecond, units.None, cfg.Rate) // reports read it by this name
		if st.Lag != nil && st.Lag.TotalCount() > 0 {
			env.Figure("sched_lag_p99", units.Microseconds, units.None, float64(st.Lag.ValueAtQuantile(99))/1e3)
		}
	}
	return st, err
}

func (w *opsW) writeSQL(d dialect.Dialect) string {
	sc := w.schema
	switch w.kind {
	case "update":
		return d.Update(sc.Table, sc.UpdateCols, sc.KeyCol)
	case "upsert":
		return d.Upsert(sc.Table, sc.Columns, sc.KeyCol, sc.UpdateCols)
	}
	return d.Insert(sc.Table, sc.Columns, 1)
}

var errMissing = errors.New("row not found")

// claims hands out the row indexes of inserts and tracks which rows are
// committed, without a lock: each writer claims its rows with one atomic
// add and publishes its insert in flight in a slot of its own. Reads pick
// rows below the oldest insert still in flight, so they only ask for
// committed rows (rows of an insert that failed stay missing, and reads
// count them).
type claims struct {
	next    padded // the first row no insert has claimed
	visible padded // every row below it is committed (or failed)
	slots   []padded
}

// padded keeps a hot counter on a cache line of its own.
type padded struct {
	atomic.Int64
	_ [56]byte
}

const idle = math.MaxInt64

func newClaims(rows int64, executors int) *claims {
	c := &claims{slots: make([]padded, executors)}
	c.next.Store(rows)
	c.visible.Store(rows)
	for i := range c.slots {
		c.slots[i].Store(idle)
	}
	return c
}

// claim reserves n new rows for executor slot's insert and returns the
// first.
func (c *claims) claim(slot, n int) int64 {
	s := &c.slots[slot]
	// Publish a lower bound of the claim before making it, so that no
	// release can see the rows as committed in between.
	s.Store(c.next.Load())
	first := c.next.Add(int64(n)) - int64(n)
	s.Store(first)
	return first
}

// release ends executor slot's insert and moves the visible bound up to
// the oldest insert still in flight.
func (c *claims) release(slot int) {
	c.slots[slot].Store(idle)
	lo := c.next.Load()
	for i := range c.slots {
		lo = min(lo, c.slots[i].Load())
	}
	for v := c.visible.Load(); lo > v && !c.visible.CompareAndSwap(v, lo); v = c.visible.Load() {
	}
}

// scanDest builds scan destinations matching the schema's column types:
// integers, and byte buffers that every read refills in place.
func scanDest(sc *Schema, seed uint64) []any {
	row := make([]any, len(sc.Columns))
	sc.Row(seed, 0, row, nil)
	dest := make([]any, len(row))
	for i, v := range row {
		switch v.(type) {
		case int64:
			dest[i] = new(int64)
		default:
			b := make([]byte, 0, 64)
			dest[i] = &b
		}
	}
	return dest
}

// executor runs one worker's reads and writes. It allocates nothing per
// operation: values are generated into its arena, bound from its typed
// Args, rows scanned into its reused destinations.
type executor struct {
	sh    *shared
	ctx   context.Context
	slot  int
	keys  *gen.KeyGen
	arena Arena
	row   []any
	args  target.Args
	dest  []any
	found bool
	sink  func(target.Row) error // e.scan, bound once
	idx   []int64                // rows of the current write
	w     *target.Writer
}

func newExecutor(sh *shared, ctx context.Context, i int) (*executor, error) {
	w := sh.w
	if i >= len(sh.keys.slots) {
		return nil, fmt.Errorf("executor %d past the %d planned", i, len(sh.keys.slots))
	}
	e := &executor{sh: sh, ctx: ctx, slot: i, keys: gen.NewKeyGen(w.keys, w.zipf, w.seed, i),
		row: make([]any, len(w.schema.Columns)), dest: scanDest(w.schema, w.seed), idx: make([]int64, w.batch),
		w: sh.sess.Writer()}
	e.sink = e.scan
	return e, nil
}

func (e *executor) Do(_ context.Context, op int) (int, error) {
	if op == opRead {
		return 0, e.read()
	}
	return e.write()
}

// scan reads the row of a point read by primary key: there is at most
// one, so the query ends there.
func (e *executor) scan(r target.Row) error {
	e.found = true
	if err := r.Scan(e.dest...); err != nil {
		return err
	}
	return target.Stop
}

func (e *executor) read() error {
	w := e.sh.w
	i := e.keys.Next(e.sh.keys.visible.Load())
	e.arena.Reset()
	e.args.Reset()
	e.args.Add(w.schema.Key(w.seed, i, &e.arena))
	e.found = false
	if err := e.sh.read.Query(e.ctx, &e.args, e.sink); err != nil {
		return e.classify(err)
	}
	if !e.found {
		return fmt.Errorf("%w: %s %s = %v", errMissing, w.schema.Table, w.schema.KeyCol, w.schema.Key(w.seed, i, nil))
	}
	return nil
}

// classify passes the engine's expected errors (busy, locked, constraint,
// interrupted) on to be counted and makes anything else end the run.
func (e *executor) classify(err error) error {
	if e.sh.sess.Classify(err).Fatal() {
		return loadgen.Fatal(err)
	}
	return err
}

// write runs one write operation: --batch rows in one transaction (or one
// autocommit statement), retried per --busy-retry.
func (e *executor) write() (int, error) {
	w := e.sh.w
	// Rows this operation writes are chosen once, so a retry writes the
	// same rows.
	idx := e.idx
	if w.kind == "insert" {
		first := e.sh.keys.claim(e.slot, len(idx))
		defer e.sh.keys.release(e.slot)
		for k := range idx {
			idx[k] = first + int64(k)
		}
	} else {
		span := e.sh.keys.visible.Load()
		if w.kind == "upsert" {
			span += span / 10 // some upserts insert
		}
		for k := range idx {
			idx[k] = e.keys.Next(span)
		}
	}
	for retries := 0; ; retries++ {
		err := e.writeOnce(idx)
		if err == nil {
			if e.sh.ack != nil {
				e.sh.ack(idx[0], int64(len(idx)))
			}
			return retries, nil
		}
		if !e.sh.sess.Again(err, retries) {
			return retries, e.classify(err)
		}
	}
}

func (e *executor) writeOnce(idx []int64) error {
	if len(idx) == 1 {
		return e.execWrite(idx[0])
	}
	if err := e.w.Begin(e.ctx); err != nil {
		return err
	}
	for _, i := range idx {
		if err := e.execWrite(i); err != nil {
			e.w.Rollback()
			return err
		}
	}
	return e.w.Commit()
}

// execWrite writes row i: its values (for an update, those of row i under
// another seed, keyed by row i's key).
func (e *executor) execWrite(i int64) error {
	w := e.sh.w
	sc := w.schema
	e.arena.Reset()
	e.args.Reset()
	switch w.kind {
	case "update":
		sc.Row(w.seed+1, i, e.row, &e.arena)
		for _, k := range w.updIdx {
			e.args.Add(e.row[k])
		}
		e.args.Add(sc.Key(w.seed, i, &e.arena))
	default:
		sc.Row(w.seed, i, e.row, &e.arena)
		for _, v := range e.row {
			e.args.Add(v)
		}
	}
	return e.w.Exec(e.ctx, e.sh.write, &e.args)
}

// drainOf is how long the engine waited for operations in flight after an
// interrupt.
func drainOf(cfg loadgen.Config) time.Duration {
	if cfg.Drain > 0 {
		return cfg.Drain
	}
	return 300 * time.Millisecond
}
