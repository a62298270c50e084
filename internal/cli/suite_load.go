package cli

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/litebench/litebench/internal/limits"
	sweep "github.com/litebench/litebench/internal/plan"
	"github.com/litebench/litebench/internal/report"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/target"
)

// suiteFlags are the flags of the load suites.
type suiteFlags struct {
	cell     string // go-sqlite-bench -t
	duration time.Duration
	rate     float64
	queries  int64
	seedSize bool
}

func registerSuiteFlags(fs *flag.FlagSet) *suiteFlags {
	f := &suiteFlags{}
	fs.StringVar(&f.cell, "t", "1", "go-sqlite-bench: seconds per cell (as its -t), or a duration such as 500ms")
	fs.DurationVar(&f.duration, "duration", 0, "wal-growth and the HTTP suite: length of each run (default 10s and 3s)")
	fs.Float64Var(&f.rate, "rate", 1000, "limits: target operations per second of the single-row cases")
	fs.Int64Var(&f.queries, "queries", 5000, "limits: operations per single-row case")
	fs.BoolVar(&f.seedSize, "seed-sizes", false, "limits: the sizes of 'SQLite Performance Limits' (1,000 batches of 1,000 rows at 20/s, 1M rows; ~1 minute for that case alone)")
	return f
}

// validate checks the suite flags before anything is created.
func (f *suiteFlags) validate() error {
	if _, err := f.cellDuration(); err != nil {
		return err
	}
	if f.rate <= 0 || f.queries < 1 {
		return usagef("suite: --rate and --queries must be positive (got %v and %d)", f.rate, f.queries)
	}
	if f.duration < 0 {
		return usagef("suite: --duration %s: want a positive duration", f.duration)
	}
	return nil
}

func (f *suiteFlags) cellDuration() (string, error) {
	if n, err := strconv.Atoi(f.cell); err == nil && n > 0 {
		return strconv.Itoa(n) + "s", nil
	}
	if d, err := time.ParseDuration(f.cell); err == nil && d > 0 {
		return d.String(), nil
	}
	return "", usagef("-t %q: want seconds per cell (1) or a duration (500ms)", f.cell)
}

func init() {
	suites = append(suites,
		suiteDef{"go-sqlite-bench", "go-sqlite-bench's matrix: readers × writers, WAL, sync, pool 0/1/2, write mutex; -t seconds per cell (default targets mattn,modernc)", suiteGoSQLiteBench},
		suiteDef{"limits", "the test cases of 'SQLite Performance Limits' on the account table at target rates, latency as in the seed; --cpus 2 --memory 1GiB when the machine allows", suiteLimits},
		suiteDef{"http-ladder", "Making SQLite faster in Go: one 5.4 KB page over HTTP, from database/sql defaults to a pool of prepared statements and a direct driver (zombie, and the seed's go-sqlite-lite and go-crawshaw when built), against serving the file; WAL and a private cache, and one row opened as the seed did (cache=shared, rollback journal)", suiteTurriate},
		suiteDef{"wal-growth", "sqlite3perf's concurrent experiment: 100 readers + 100 writers, pool unlimited vs pool 1, WAL size over time", suiteWALGrowth},
	)
}

type gsbCell struct {
	readers, writers int
	wal              bool
	sync             string
	conns            int
	mutex            bool
}

// The seed's testsuite, in its order and sections.
var gsbSections = []struct {
	name  string
	cells []gsbCell
}{
	{"Read only", []gsbCell{
		{1, 0, true, "normal", 1, false}, {1, 0, true, "normal", 0, false},
		{10, 0, true, "normal", 1, false}, {10, 0, true, "normal", 0, false},
		{100, 0, true, "normal", 0, false}, {100, 0, true, "normal", 1, false}, {100, 0, true, "normal", 2, false},
	}},
	{"Write only", []gsbCell{
		{0, 100, false, "normal", 0, false}, {0, 100, true, "full", 0, false},
		{0, 1, true, "normal", 1, false}, {0, 1, true, "normal", 0, false},
		{0, 10, true, "normal", 1, false}, {0, 10, true, "normal", 0, false},
		{0, 100, true, "normal", 1, false}, {0, 100, true, "normal", 0, false},
		{0, 100, true, "normal", 1, true}, {0, 100, true, "normal", 0, true},
	}},
	{"Read Heavy", []gsbCell{
		{100, 10, true, "normal", 1, false}, {100, 10, true, "normal", 0, false},
		{100, 10, true, "normal", 1, true}, {100, 10, true, "normal", 0, true},
	}},
	{"Write Heavy", []gsbCell{
		{10, 100, true, "normal", 1, false}, {10, 100, true, "normal", 0, false},
		{10, 100, true, "normal", 1, true}, {10, 100, true, "normal", 0, true},
	}},
}

func yn(b bool) string {
	if b {
		return "Y"
	}
	return "N"
}

func suiteGoSQLiteBench(ctx context.Context, s *suiteRun) error {
	d, err := s.flags.cellDuration()
	if err != nil {
		return err
	}
	ts := s.targets
	if s.c.targets == target.Default() && !s.targetSet {
		if ts, err = sweep.Targets("mattn,modernc"); err != nil {
			return usage(err)
		}
	}
	for _, t := range ts {
		tb := gsbTable(t.Name(), d)
		var all []*results.Result
		for _, sec := range gsbSections {
			rs, err := s.runStepsOn(ctx, sec.name, s.gsbSteps(sec.cells, d), t)
			all = append(all, rs...)
			tb.Rows = append(tb.Rows, gsbRows(sec.name, sec.cells, rs)...)
			if err != nil {
				s.emit(tb, all)
				return err
			}
		}
		tb.Notes = append(tb.Notes, gsbNotes...)
		if err := s.emit(tb, all); err != nil {
			return err
		}
	}
	return nil
}

// gsbSteps are the seed's cells as steps, d long each.
func (s *suiteRun) gsbSteps(cells []gsbCell, d string) []step {
	var steps []step
	for _, c := range cells {
		journal := "delete"
		if c.wal {
			journal = "wal"
		}
		steps = append(steps, step{
			label:    fmt.Sprintf("readers=%d writers=%d WAL=%s sync=%s conns=%d mutex=%s", c.readers, c.writers, yn(c.wal), strings.ToUpper(c.sync), c.conns, yn(c.mutex)),
			workload: "mixed",
			params: map[string]string{"schema": "foo", "rows": s.rows(100000), "readers": strconv.Itoa(c.readers),
				"writers": strconv.Itoa(c.writers), "duration": d},
			// The seed's busy timeout is 10 s (_timeout=10000).
			set: map[string]string{"journal": journal, "sync": c.sync, "pool": strconv.Itoa(c.conns),
				"write-mutex": strconv.FormatBool(c.mutex), "busy-timeout": "10000"},
		})
	}
	return steps
}

// gsbTable is the seed's results table for one target, without rows.
func gsbTable(target, d string) *report.Table {
	return &report.Table{Title: fmt.Sprintf("go-sqlite-bench on %s: operations per second over %s per cell", target, d),
		Headers: []string{"section", "readers", "writers", "WAL", "sync", "conns", "mutex", "read/s", "write/s", "total/s", "read p99 µs", "write p99 µs", "errors", "max WAL"},
		Right:   []bool{false, true, true, false, false, true, false, true, true, true, true, true, false, true}}
}

// gsbRows are the table rows of a section's results, rs[i] the run of
// cells[i].
func gsbRows(section string, cells []gsbCell, rs []*results.Result) [][]string {
	var rows [][]string
	for i, r := range rs {
		c := cells[i]
		rd, wr := opRate(r, "read"), opRate(r, "write")
		_, rp99 := opLat(r, "read")
		_, wp99 := opLat(r, "write")
		rows = append(rows, []string{section, strconv.Itoa(c.readers), strconv.Itoa(c.writers), yn(c.wal), strings.ToUpper(c.sync),
			strconv.Itoa(c.conns), yn(c.mutex), report.Num(rd), report.Num(wr), report.Num(rd + wr), rp99, wp99,
			report.ErrorCell(r.ErrorTotals()), report.MaxWAL(r)})
	}
	return rows
}

var gsbNotes = []string{
	"Same table, rows and statements as the seed: foo(id INTEGER PRIMARY KEY, name TEXT), 100,000 seeded rows, reads SELECT * FROM foo WHERE id=?, writes INSERT of a 30-letter name.",
	"Differences from the seed: statements are prepared once (the seed prepares on every call; add --prepared=false to a 'litebench mixed' run to match); rows come from --seed instead of the clock; rates count operations completed within the window (the seed also counts those that finish after it, which flatters cells whose writers wait seconds in the busy handler, such as 100 writers without WAL).",
}

func opRate(r *results.Result, op string) float64 {
	o := r.Op(op)
	if o == nil || r.Elapsed <= 0 {
		return 0
	}
	return float64(o.Count) / r.Elapsed
}

// The seed's test cases: name, workload, parameters.
func limitsCases(f *suiteFlags, s *suiteRun) []step {
	batches, batchRate := "100", "20"
	if f.seedSize {
		batches = "1000"
	}
	q := strconv.FormatInt(f.queries, 10)
	rate := strconv.FormatFloat(f.rate, 'f', -1, 64)
	loaded := s.rows(100000)
	if f.seedSize {
		loaded = "1000000"
	}
	common := func(extra map[string]string) map[string]string {
		m := map[string]string{"schema": "account", "rows": loaded, "count": q, "rate": rate, "max-inflight": "100"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	return []step{
		{"BATCH_INSERTS", "write", map[string]string{"schema": "account", "rows": "0", "count": batches, "rate": batchRate, "write-kind": "insert"},
			map[string]string{"journal": "wal", "batch": "1000"}},
		{"WRITES_100", "write", common(map[string]string{"write-kind": "insert"}), map[string]string{"journal": "wal"}},
		{"READS_100", "read", common(nil), map[string]string{"journal": "wal"}},
		{"WRITES_50_READS_50", "mixed", common(map[string]string{"write-ratio": "50", "readers": "0", "writers": "0"}), map[string]string{"journal": "wal"}},
		{"WRITES_10_READS_90", "mixed", common(map[string]string{"write-ratio": "10", "readers": "0", "writers": "0"}), map[string]string{"journal": "wal"}},
	}
}

func suiteLimits(ctx context.Context, s *suiteRun) error {
	// The SQLite Performance Limits benchmark ran in Docker with 2 CPUs and 1 GB: cmdSuite applies the
	// same (defaultLimits) unless the user chose limits.
	notes := s.c.limitNotes
	l := limits.Current()
	notes = append(notes, fmt.Sprintf("limits in force: cpus=%d memory=%s", l.CPUs, report.Bytes(l.MemoryBytes)))
	cases := limitsCases(s.flags, s)
	rs, err := s.runSteps(ctx, "limits", cases)
	for i, r := range rs {
		var n []string
		if i == 0 {
			n = notes
		}
		if err := s.emit(limitsTable(cases[i%len(cases)].label, r, n), []*results.Result{r}); err != nil {
			return err
		}
	}
	return err
}

// limitsTable is the SQLite Performance Limits benchmark's report of one test case.
func limitsTable(label string, r *results.Result, notes []string) *report.Table {
	tb := &report.Table{Title: fmt.Sprintf("SQLite Performance Limits %s on %s", label, r.Target),
		Headers: []string{"", "value"}, Right: []bool{false, true}}
	add := func(k, v string) { tb.Rows = append(tb.Rows, []string{k, v}) }
	add("account rows before", report.Num(figure(r, "table_rows_before")))
	add("account rows after", report.Num(figure(r, "table_rows_after")))
	add("test duration", fmt.Sprintf("%.3fs", r.Elapsed))
	var n int64
	for _, o := range r.Ops {
		n += o.Count
	}
	add("executed queries", strconv.FormatInt(n, 10))
	add("wanted queries rate", report.Num(figure(r, results.WantedRate))+"/s")
	add("actual queries rate", report.Num(float64(n)/max(r.Elapsed, 1e-9))+"/s")
	add("errors", report.ErrorCell(r.ErrorTotals()))
	for _, o := range r.Ops {
		if o.Count == 0 {
			continue
		}
		l := o.Response
		if l == nil {
			l = o.Service
		}
		ms := func(us float64) string { return fmt.Sprintf("%.3f ms", us/1000) }
		add(o.Name+" min", ms(l["min"]))
		add(o.Name+" max", ms(l["max"]))
		add(o.Name+" mean", ms(l["mean"]))
		for _, p := range []string{"p50", "p75", "p90", "p95", "p99", "p999"} {
			add(o.Name+" percentile "+strings.TrimPrefix(strings.Replace(p, "p999", "99.9", 1), "p"), ms(l[p]))
		}
		add(o.Name+" service p99 (from actual start)", ms(o.Service["p99"]))
		add(o.Name+" late (started >1ms behind schedule)", strconv.FormatInt(o.Late, 10))
	}
	tb.Notes = notes
	return tb
}

func limitsCPUs() int { return runtime.NumCPU() }

func (f *suiteFlags) durationOr(def time.Duration) string {
	if f.duration > 0 {
		return f.duration.String()
	}
	return def.String()
}

func suiteWALGrowth(ctx context.Context, s *suiteRun) error {
	steps := s.walGrowthSteps()
	rs, err := s.runSteps(ctx, "wal-growth", steps)
	if len(rs) == 0 {
		return err
	}
	sum, series := walGrowthTables(steps, rs)
	if e := s.emit(sum, rs); e != nil {
		return e
	}
	if s.c.format == "table" || s.c.format == "markdown" {
		if e := series.Render(s.out, s.c.format); e != nil {
			return e
		}
	}
	return err
}

// walGrowthSteps is sqlite3perf's concurrent experiment: an unlimited pool
// against one connection.
func (s *suiteRun) walGrowthSteps() []step {
	d := s.flags.durationOr(10 * time.Second)
	return []step{
		{"pool unlimited", "mixed", map[string]string{"schema": "bench", "rows": s.rows(10000), "readers": "100", "writers": "100", "duration": d},
			map[string]string{"journal": "wal", "sync": "normal", "pool": "0", "busy-timeout": "10000"}},
		{"pool 1", "mixed", map[string]string{"schema": "bench", "rows": s.rows(10000), "readers": "100", "writers": "100", "duration": d},
			map[string]string{"journal": "wal", "sync": "normal", "pool": "1", "busy-timeout": "10000"}},
	}
}

// walGrowthTables are the summary of the runs and their WAL sizes over
// time, one column per run.
func walGrowthTables(steps []step, rs []*results.Result) (sum, series *report.Table) {
	sum = &report.Table{Title: "sqlite3perf concurrent: 100 readers + 100 writers, WAL, synchronous=NORMAL",
		Headers: []string{"target", "pool", "read/s", "write/s", "max WAL", "final WAL", "checkpoints completed", "errors"},
		Right:   []bool{false, false, true, true, true, true, true, false}}
	series = &report.Table{Title: "WAL size over time", Headers: []string{"t (s)"}, Right: []bool{true}}
	for i, r := range rs {
		var final, first, last int64
		if n := len(r.Series); n > 0 {
			final = r.Series[n-1].WALBytes
			first, last = r.Series[0].WALSeq, r.Series[n-1].WALSeq
		}
		sum.Rows = append(sum.Rows, []string{r.Target, steps[i%len(steps)].label, report.Num(opRate(r, "read")), report.Num(opRate(r, "write")),
			report.MaxWAL(r), report.Bytes(final), strconv.FormatInt(last-first, 10), report.ErrorCell(r.ErrorTotals())})
		series.Headers = append(series.Headers, r.Target+" "+steps[i%len(steps)].label)
		series.Right = append(series.Right, true)
	}
	sum.Notes = append(sum.Notes, "A checkpoint completes only when no reader holds an older snapshot; with an unlimited pool 100 readers overlap all the time and the WAL grows without bound (checkpoint starvation). One connection serialises readers and writers, so every commit can checkpoint.")
	// Row k holds every run's k-th sample, at the time of the first run
	// that has one; a run with fewer samples shows "-".
	for k := 0; ; k++ {
		row := []string{""}
		any := false
		for _, r := range rs {
			if k >= len(r.Series) {
				row = append(row, "-")
				continue
			}
			if !any {
				row[0] = report.Num(r.Series[k].T)
				any = true
			}
			row = append(row, report.Bytes(r.Series[k].WALBytes))
		}
		if !any {
			break
		}
		series.Rows = append(series.Rows, row)
	}
	return sum, series
}

func suiteTurriate(ctx context.Context, s *suiteRun) error {
	drivers, skipped := s.turriateDrivers()
	steps := append(s.turriateSteps(), drivers...)
	for _, sk := range skipped {
		fmt.Fprintln(s.errw, "http-ladder: "+sk)
	}
	rs, err := s.runSteps(ctx, "http ladder", steps)
	if len(rs) == 0 {
		return err
	}
	if e := s.emit(turriateTable(steps, rs, skipped), rs); e != nil {
		return e
	}
	return err
}

// The journal and cache of the HTTP ladder: WAL and a private cache on
// every step but seedOpen, which opens the database as the seed did.
const (
	turriateJournal = "wal"
	seedOpen        = "pool of prepared statements (100), the seed's open"
)

// turriateSteps are Turriate's HTTP benchmark's steps in its order: the control, then each
// improvement, then the best pool opened as the seed opened its database.
func (s *suiteRun) turriateSteps() []step {
	d := s.flags.durationOr(3 * time.Second)
	st := func(label, strategy, handles string, extra map[string]string) step {
		p := map[string]string{"strategy": strategy, "handles": handles, "concurrency": "50", "duration": d}
		for k, v := range extra {
			p[k] = v
		}
		return step{label, "http", p, map[string]string{"journal": turriateJournal}}
	}
	seed := st(seedOpen, "stmt-pool", "100", nil)
	// file:db.sqlite3?cache=shared&mode=rwc to set up, cache=shared&mode=ro
	// to serve, and SQLite's default journal.
	seed.set = map[string]string{"journal": "delete", "shared-cache": "true"}
	return []step{
		st("file from disk (control)", "file", "5", nil),
		st("database/sql QueryRow", "plain", "5", nil),
		st("+ prepared statement", "prepared", "5", nil),
		st("connection pool (5)", "conn-pool", "5", nil),
		st("pool of prepared statements (5)", "stmt-pool", "5", nil),
		st("pool of prepared statements (20)", "stmt-pool", "20", nil),
		st("pool of prepared statements (100)", "stmt-pool", "100", nil),
		st("+ immutable", "stmt-pool", "100", map[string]string{"immutable": "true"}),
		seed,
		st("direct driver, statement pool (20)", "direct", "20", nil),
	}
}

// turriateDriverNames are the direct drivers the seed measured last, each
// a worker of its own (their cgo builds of SQLite cannot share litebench's
// binary).
var turriateDriverNames = []string{"go-sqlite-lite", "go-crawshaw"}

// turriateDrivers are the direct-driver steps on the seed's drivers that
// this checkout has built, and a line for each that is not.
func (s *suiteRun) turriateDrivers() (steps []step, skipped []string) {
	for _, name := range turriateDriverNames {
		if _, err := target.Get(name); err != nil {
			skipped = append(skipped, fmt.Sprintf("%s skipped: %v (workers/%s/build.sh builds it)", name, err, name))
			continue
		}
		steps = append(steps, s.turriateDriver(name))
	}
	return steps, skipped
}

func (s *suiteRun) turriateDriver(name string) step {
	st := s.turriateSteps()
	direct := st[len(st)-1]
	p := map[string]string{"direct-target": name}
	for k, v := range direct.params {
		p[k] = v
	}
	p["direct-target"] = name
	return step{direct.label, direct.workload, p, direct.set}
}

func turriateTable(steps []step, rs []*results.Result, skipped []string) *report.Table {
	tb := &report.Table{Title: "Making SQLite faster in Go: one page row over HTTP, 50 concurrent clients (hey -z -c 50 in the seed)",
		Headers: []string{"step", "target", "journal", "cache", "req/s", "vs file", "p50 µs", "p99 µs", "errors"},
		Right:   []bool{false, false, false, false, true, true, true, true, false}}
	var file float64
	for i, r := range rs {
		st := steps[i%len(steps)]
		rate := opRate(r, "request")
		if st.params["strategy"] == "file" {
			file = rate
		}
		vs := "-"
		if file > 0 {
			vs = fmt.Sprintf("%.0f%%", 100*rate/file)
		}
		p50, p99 := opLat(r, "request")
		errs := report.ErrorCell(r.ErrorTotals())
		if r.Status != results.StatusOK {
			errs = r.Status + ": " + r.Error
		}
		cache := "private"
		if st.set["shared-cache"] == "true" {
			cache = "shared"
		}
		tb.Rows = append(tb.Rows, []string{st.label, r.Target, st.set["journal"], cache, report.Num(rate), vs, p50, p99, errs})
	}
	tb.Notes = append(tb.Notes, "Every response is checked (status 200, body length); a mismatch is an error. The built-in client runs in the same process as the server, like hey on the seed's laptop; 'scripts/compare-loadgen' checks it against wrk and hey.",
		"Journal and cache: WAL and a private cache (SQLite's default) on every step but '"+seedOpen+"', which opens the database as the seed did: cache=shared (mode=rwc to set up), SQLite's default rollback journal (delete). The page is served on handles opened read-only (mode=ro) on every step, immutable=1 too on '+ immutable'.",
		"'direct' runs on zombie (on --target when it names a direct-API target), then on the seed's own drivers, go-sqlite-lite and go-crawshaw, where built, each in a worker process of its own with the server and the load in it (their 'vs file' compares with the control in litebench's process); the other steps run on --target (default mattn).")
	for _, sk := range skipped {
		tb.Notes = append(tb.Notes, sk)
	}
	return tb
}

// figure is r's metric called name, or 0 when it has none.
func figure(r *results.Result, name string) float64 {
	v, _ := r.Metric(name)
	return v
}
