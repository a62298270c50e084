package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	flag "github.com/spf13/pflag"

	sweep "github.com/litebench/litebench/internal/plan"
	"github.com/litebench/litebench/internal/report"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/target"
)

type suiteDef struct {
	name    string
	summary string
	run     func(ctx context.Context, s *suiteRun) error
}

var suites []suiteDef

func init() {
	suites = []suiteDef{
		{"quick", "a newcomer's first answers in about a minute: the 'Benchmarking SQLite inserts' post's tuning ladder, sqlite3perf's batch-size and prepared-vs-not tables, a verified scan", suiteQuick},
	}
}

// suiteAliases are earlier names of suites, still accepted.
var suiteAliases = map[string]string{"turriate": "http-ladder"}

// suiteSources name the published experiment each suite reproduces.
var suiteSources = map[string]string{
	"quick":           "the tuning ladder of the post 'Benchmarking SQLite inserts' (2023), and the batch-size, prepared-statement and scan tables of mwmahlberg's sqlite3perf",
	"go-sqlite-bench": "the results matrix of go-sqlite-bench (readers and writers, WAL, sync, pool size, write mutex)",
	"limits":          "the test cases of 'SQLite Performance Limits' (a Java tool in a Docker box of 2 CPUs and 1 GiB)",
	"http-ladder":     "Sandro Turriate's 'Making SQLite faster in Go' (2020), step by step",
	"wal-growth":      "sqlite3perf's concurrent reads and writes, and its advice to set db.SetMaxOpenConns(1) against a growing WAL",
	"durability":      "the settings sqlite3perf, 'Benchmarking SQLite inserts' and go-sqlite-bench recommend, crashed on purpose",
	"go-vs-python":    "sqlite3perf's comparison of Go with Python reading every row",
	"outgrow":         "no single experiment: litebench's own comparison of SQLite with server engines",
}

// suiteExamples are command lines for a suite beyond running it.
var suiteExamples = map[string][]string{
	"quick":           {"litebench suite quick --target mattn,modernc --scale 0.1"},
	"go-sqlite-bench": {"litebench suite go-sqlite-bench -t 2 --target mattn"},
	"limits":          {"litebench suite limits --seed-sizes", "litebench suite limits --rate 500 --queries 2000"},
	"http-ladder":     {"litebench suite http-ladder --duration 5s --repeat 3"},
	"wal-growth":      {"litebench suite wal-growth --duration 30s --series 500ms"},
	"durability":      {"litebench suite durability --scale 0.1"},
	"go-vs-python":    {"litebench suite go-vs-python --scale 0.1"},
	"outgrow":         {"litebench suite outgrow --duration 5s"},
}

// suitePage is the manual page of 'litebench suite', or of one suite.
func suitePage(name string) helpPage {
	var b strings.Builder
	var def *suiteDef
	for i := range suites {
		if suites[i].name == name {
			def = &suites[i]
		}
	}
	p := helpPage{group: "SUITE FLAGS", seeAlso: []string{"list suites", "show", "report", "insert"}}
	if def == nil {
		b.WriteString("NAME\n    litebench suite - run a built-in suite of sweeps\n\n")
		b.WriteString("SYNOPSIS\n    litebench suite NAME [--target LIST] [--scale X] [flags]\n\n")
		b.WriteString("DESCRIPTION\n")
		b.WriteString(wrap("A suite runs the sweeps of a published experiment and prints its tables, one per section. Every run is stored; 'litebench show --last' prints the suite again, and an HTML report is written at the end. Setting flags are the suite's to set: each is refused (run 'litebench insert' with them for a sweep of your own). 'litebench suite NAME --help' describes one suite.", 4, 4))
		b.WriteString("\nSUITES\n")
		for _, s := range suites {
			b.WriteString("    " + s.name + "\n")
			b.WriteString(wrap(s.summary+". Reproduces "+suiteSources[s.name]+".", 8, 8))
		}
		p.examples = []string{"litebench suite quick", "litebench suite go-sqlite-bench -t 2", "litebench suite limits --cpus 2 --memory 1GiB"}
	} else {
		b.WriteString("NAME\n" + wrap("litebench suite "+name+" - "+def.summary, 4, 8) + "\n")
		b.WriteString("SYNOPSIS\n    litebench suite " + name + " [--target LIST] [--scale X] [flags]\n\n")
		b.WriteString("DESCRIPTION\n")
		b.WriteString(wrap("Reproduces "+suiteSources[name]+". Every run is stored; 'litebench show --last' prints the suite's tables again, and an HTML report is written at the end. Setting flags are the suite's to set: each is refused.", 4, 4))
		p.examples = append([]string{"litebench suite " + name}, suiteExamples[name]...)
	}
	p.text = b.String()
	return p
}

// suiteRun carries a suite's flags and collects its runs.
type suiteRun struct {
	targetSet bool            // --target was given
	targets   []target.Target // --target
	flags     *suiteFlags
	c         *common
	scale     float64
	out       io.Writer
	errw      io.Writer
	suite     *sweep.Suite
	// save stores a run again (nil without a store).
	save func(*results.Result) error
}

func (s *suiteRun) rows(n int64) string {
	v := int64(float64(n) * s.scale)
	if v < 10 {
		v = 10
	}
	return strconv.FormatInt(v, 10)
}

// step is one run of a suite: a workload, its parameters and the settings
// that differ from the defaults.
type step struct {
	label    string
	workload string
	params   map[string]string
	set      map[string]string
}

// on is steps as run in section on target t.
func on(section string, steps []step, t target.Target) []sweep.Step {
	out := make([]sweep.Step, 0, len(steps))
	for _, st := range steps {
		out = append(out, sweep.Step{Section: section, Label: st.label, Workload: st.workload, Params: st.params, Set: st.set, Target: t})
	}
	return out
}

// runSteps runs steps on every target and returns results in step order
// per target.
func (s *suiteRun) runSteps(ctx context.Context, section string, steps []step) ([]*results.Result, error) {
	var all []sweep.Step
	for _, t := range s.targets {
		all = append(all, on(section, steps, t)...)
	}
	return s.run(ctx, all)
}

// runStepsOn is runSteps on target t only.
func (s *suiteRun) runStepsOn(ctx context.Context, section string, steps []step, t target.Target) ([]*results.Result, error) {
	return s.run(ctx, on(section, steps, t))
}

func (s *suiteRun) run(ctx context.Context, steps []sweep.Step) ([]*results.Result, error) {
	rs, err := s.suite.Run(ctx, steps)
	if errors.Is(err, sweep.ErrInterrupted) {
		return rs, errInterrupted
	}
	return rs, usage(err)
}

// section runs steps on every target and prints the table made of their
// results, if any run ended.
func (s *suiteRun) section(ctx context.Context, name string, steps []step, table func([]*results.Result) *report.Table) error {
	rs, err := s.runSteps(ctx, name, steps)
	if len(rs) > 0 {
		if err := s.emit(table(rs), rs); err != nil {
			return err
		}
	}
	return err
}

func cmdSuite(ctx context.Context, args []string, out, errw io.Writer) error {
	name := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
		if n, ok := suiteAliases[name]; ok {
			name = n
		}
	}
	fs := flag.NewFlagSet("suite", flag.ContinueOnError)
	var c common
	c.register(fs)
	scale := fs.Float64("scale", 1, "multiply row counts")
	sf := registerSuiteFlags(fs)
	reportPath := fs.String("report", "", "HTML report to write at the end (default litebench-SUITE.html in the current directory; none to skip)")
	inGroup(fs, "SUITE FLAGS", "scale", "report")
	for k := range c.settings {
		fs.MarkHidden(k) // the suite sets them; refused below
	}
	if err := parse(fs, args, out, suitePage(name).help(fs)); err != nil {
		return err
	}
	if name == "" {
		name = fs.Arg(0)
	}
	if n, ok := suiteAliases[name]; ok {
		name = n
	}
	var def *suiteDef
	for i := range suites {
		if suites[i].name == name {
			def = &suites[i]
		}
	}
	if def == nil {
		var names []string
		for _, s := range suites {
			names = append(names, s.name)
		}
		if name == "" {
			return usagef("suite: name a suite (%s); see 'litebench list suites'", strings.Join(names, ", "))
		}
		return usagef("suite: unknown suite %q (known: %s)", name, strings.Join(names, ", "))
	}
	switch *reportPath {
	case "":
		*reportPath = "litebench-" + name + ".html"
	case "none":
		*reportPath = ""
	}
	if *reportPath != "" {
		if err := checkReportPath("--report", *reportPath); err != nil {
			return err
		}
	}
	if err := sf.validate(); err != nil {
		return err
	}
	if *scale <= 0 {
		return usagef("--scale %v: want a positive number", *scale)
	}
	for k, v := range c.settings {
		if *v != "" {
			return usagef("suite: --%s is set by the suite itself; run 'litebench insert --%s ...' for your own sweep", k, k)
		}
	}
	if c.db != "" {
		return usagef("suite: --db is not used by suites; use --dir to choose where bench files go")
	}
	if c.shard != "" || c.sweepID != "" {
		return usagef("suite: --shard and --sweep-id shard the sweeps of one workload ('litebench insert ... --shard 1/3 --sweep-id ID'); a suite's steps depend on each other's results and run in one process")
	}
	ts, err := c.targetList()
	if err != nil {
		return err
	}
	if err := c.checkPaths(""); err != nil {
		return err
	}
	if name == "limits" {
		c.defaultLimits()
	}
	ids := sweep.NewIDs("")
	p := &plan{sweepID: ids.Sweep(), c: &c}
	if err := p.open(ctx); err != nil {
		return err
	}
	defer p.close()
	s := &suiteRun{targets: ts, flags: sf, c: &c, scale: *scale, out: out, errw: errw,
		suite: &sweep.Suite{Name: name, IDs: ids, Dir: p.dir, Exec: p.executor(out, errw),
			Check: func(cell sweep.Cell) error { return c.checkDemand(cell.Workload, cell.Settings) }}}
	if p.store != nil {
		s.save = p.store.Save
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "target" {
			s.targetSet = true
		}
	})
	err = def.run(ctx, s)
	all := s.suite.Results
	if c.format == "csv" && len(all) > 0 {
		if werr := report.WriteCSV(out, all); werr != nil && err == nil {
			err = werr
		}
	}
	if p.store != nil && len(all) > 0 {
		fmt.Fprintf(errw, "saved %d run(s) as sweep %s in %s ('litebench show %s')\n", len(all), p.sweepID, p.store.Path(), p.sweepID)
	}
	if *reportPath != "" && len(all) > 0 {
		// Written after an interrupt too: it shows the runs that finished.
		if werr := writeReport(context.WithoutCancel(ctx), *reportPath, all, "litebench suite "+name+" (sweep "+p.sweepID+")"); werr != nil {
			fmt.Fprintf(errw, "report not written: %v\n", werr)
		} else {
			abs, _ := filepath.Abs(*reportPath)
			fmt.Fprintf(out, "\nreport: %s\n", abs)
		}
	}
	if err != nil {
		return err
	}
	if sweep.OutcomeOf(all, len(all)) == sweep.Failed {
		return errFailed
	}
	return nil
}

// emit prints a suite's table of rs, and keeps it with the last of rs in
// the store so that 'litebench show' prints the suite as it ran.
func (s *suiteRun) emit(t *report.Table, rs []*results.Result) error {
	if len(rs) > 0 && s.save != nil {
		last := rs[len(rs)-1]
		last.Tables = append(last.Tables, results.Table{Title: t.Title, Headers: t.Headers, Right: t.Right, Rows: t.Rows, Notes: t.Notes})
		if err := s.save(last); err != nil {
			return fmt.Errorf("saving run %s: %w", last.RunID, err)
		}
	}
	switch s.c.format {
	case "json":
		return nil // already streamed run by run
	case "csv":
		return nil // every run, one row each, at the end
	case "benchfmt":
		return report.WriteBenchfmt(s.out, rs)
	}
	return t.Render(s.out, s.c.format)
}

func suiteQuick(ctx context.Context, s *suiteRun) error {
	ladder := s.ladderSteps()
	if err := s.section(ctx, "ladder", ladder, func(rs []*results.Result) *report.Table { return ladderTable(ladder, rs) }); err != nil {
		return err
	}
	if err := s.section(ctx, "batch size", s.batchSteps(), batchTable); err != nil {
		return err
	}
	prep := s.prepSteps()
	if err := s.section(ctx, "prepared", prep, func(rs []*results.Result) *report.Table { return prepTable(prep, rs) }); err != nil {
		return err
	}
	if err := s.section(ctx, "scan", s.scanSteps(), scanTable); err != nil {
		return err
	}
	return s.languageSection(ctx)
}

// ladderSteps is the rusqlite inserts benchmark: from the driver's defaults to a tuned
// configuration, one change per row, on the rusqlite inserts benchmark's users table.
func (s *suiteRun) ladderSteps() []step {
	return []step{
		{"driver defaults", "insert", map[string]string{"schema": "users", "rows": s.rows(1000)}, map[string]string{"prepared": "false", "batch": "1"}},
		{"+ journal_mode=WAL", "insert", map[string]string{"schema": "users", "rows": s.rows(30000)}, map[string]string{"prepared": "false", "batch": "1", "journal": "wal"}},
		{"+ synchronous=NORMAL", "insert", map[string]string{"schema": "users", "rows": s.rows(30000)}, map[string]string{"prepared": "false", "batch": "1", "journal": "wal", "sync": "normal"}},
		{"+ prepared statements", "insert", map[string]string{"schema": "users", "rows": s.rows(30000)}, map[string]string{"prepared": "true", "batch": "1", "journal": "wal", "sync": "normal"}},
		{"+ 1000-row transactions", "insert", map[string]string{"schema": "users", "rows": s.rows(30000)}, map[string]string{"prepared": "true", "batch": "1000", "journal": "wal", "sync": "normal"}},
	}
}

func ladderTable(ladder []step, rs []*results.Result) *report.Table {
	t := &report.Table{Title: "Benchmarking SQLite inserts ladder: insert into users, one change per row",
		Headers: []string{"target", "step", "rows", "rows/s", "speed-up", "in force (read back)", "insert p50 µs", "insert p99 µs", "errors"},
		Right:   []bool{false, false, true, true, true, false, true, true, false}}
	for i, r := range rs {
		up, force := "-", inForce(r, nil)
		if i%len(ladder) > 0 {
			prev := rs[i-1]
			force = inForce(r, prev)
			if prev.RowsPerSecond > 0 {
				ratio := r.RowsPerSecond / prev.RowsPerSecond
				up = fmt.Sprintf("×%.1f (1 run)", ratio)
				if ratio > 0.8 && ratio < 1.25 {
					up = fmt.Sprintf("×%.1f (1 run, within noise)", ratio)
				}
			}
		}
		p50, p99 := opLat(r, "insert")
		t.Rows = append(t.Rows, []string{r.Target, ladder[i%len(ladder)].label, strconv.FormatInt(r.Rows, 10),
			report.Num(r.RowsPerSecond), up, force, p50, p99, report.ErrorCell(r.ErrorTotals())})
	}
	t.Notes = append(t.Notes,
		"in force: journal_mode and synchronous as each step's connection reported them; \"already\" marks a step whose change was this build's default.",
		"speed-ups compare single runs: on a busy machine differences under ±25% are noise; for a claim, repeat the two settings with 'litebench insert --repeat 6' and 'litebench compare'.",
		"journal_mode=WAL and synchronous=NORMAL trade durability: a power cut can lose the last transactions (not corrupt the file).")
	return t
}

// syncNames are PRAGMA synchronous's values by number.
var syncNames = map[string]string{"0": "OFF", "1": "NORMAL", "2": "FULL", "3": "EXTRA"}

// inForce renders the journal mode and synchronous level r's connection
// reported, marking those that were already so in prev, the step before,
// where r's step asked for them.
func inForce(r, prev *results.Result) string {
	if r.InForce == nil {
		return "-"
	}
	var parts []string
	for _, k := range []struct{ pragma, setting string }{{"journal_mode", "journal"}, {"synchronous", "sync"}} {
		v, ok := r.InForce[k.pragma]
		if !ok {
			continue
		}
		if n, ok := syncNames[v]; ok && k.pragma == "synchronous" {
			v = n
		}
		part := k.pragma + "=" + strings.ToUpper(v)
		if prev != nil && prev.InForce != nil && prev.InForce[k.pragma] == r.InForce[k.pragma] && r.Settings[k.setting] != prev.Settings[k.setting] {
			part += " (already " + strings.ToUpper(v) + ": this build's default)"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " ")
}

// batchSteps is sqlite3perf: rows per multi-row INSERT statement (each its
// own transaction), prepared.
func (s *suiteRun) batchSteps() []step {
	var batch []step
	for _, b := range []string{"10", "100", "500", "1000"} {
		batch = append(batch, step{"rows-per-stmt " + b, "insert", map[string]string{"schema": "bench", "rows": s.rows(10000)},
			map[string]string{"rows-per-stmt": b, "batch": b, "prepared": "true"}})
	}
	return batch
}

func batchTable(rs []*results.Result) *report.Table {
	t := &report.Table{Title: "sqlite3perf: rows per INSERT statement (prepared, each statement its own transaction)",
		Headers: []string{"target", "rows per INSERT", "rows", "cost", "rows/s"},
		Right:   []bool{false, true, true, true, true}}
	for _, r := range rs {
		t.Rows = append(t.Rows, []string{r.Target, r.Settings["rows-per-stmt"], strconv.FormatInt(r.Rows, 10),
			fmt.Sprintf("%.0fms", r.Elapsed*1000), report.Num(r.RowsPerSecond)})
	}
	return t
}

// prepSteps is sqlite3perf: prepared vs not.
func (s *suiteRun) prepSteps() []step {
	return []step{
		{"prepared", "insert", map[string]string{"schema": "bench", "rows": s.rows(30000)}, map[string]string{"prepared": "true", "batch": "1000"}},
		{"not prepared", "insert", map[string]string{"schema": "bench", "rows": s.rows(30000)}, map[string]string{"prepared": "false", "batch": "1000"}},
	}
}

func prepTable(prep []step, rs []*results.Result) *report.Table {
	t := &report.Table{Title: "sqlite3perf: prepared vs ad hoc statements (1000-row transactions)",
		Headers: []string{"target", "statements", "rows", "rows/s", "insert p50 µs"},
		Right:   []bool{false, false, true, true, true}}
	for i, r := range rs {
		p50, _ := opLat(r, "insert")
		t.Rows = append(t.Rows, []string{r.Target, prep[i%len(prep)].label, strconv.FormatInt(r.Rows, 10), report.Num(r.RowsPerSecond), p50})
	}
	return t
}

// scanSteps is sqlite3perf: read every row and verify its hash.
func (s *suiteRun) scanSteps() []step {
	return []step{{"verified scan", "scan", map[string]string{"rows": s.rows(300000)}, nil}}
}

func scanTable(rs []*results.Result) *report.Table {
	t := &report.Table{Title: "sqlite3perf: full scan, every row re-hashed and verified",
		Headers: []string{"target", "rows", "query returned", "first row", "µs/row", "rows/s", "verified"},
		Right:   []bool{false, true, true, true, true, true, false}}
	for _, r := range rs {
		v := "yes"
		if r.Status != results.StatusOK {
			v = "NO: " + r.Error
		}
		t.Rows = append(t.Rows, []string{r.Target, strconv.FormatInt(r.Rows, 10),
			fmt.Sprintf("%sµs", report.Num(figure(r, "query_returned"))), fmt.Sprintf("%sµs", report.Num(figure(r, "first_row"))),
			report.Num(figure(r, "per_row")), report.Num(r.RowsPerSecond), v})
	}
	return t
}

func opLat(r *results.Result, op string) (string, string) {
	o := r.Op(op)
	if o == nil || o.Count == 0 {
		return "-", "-"
	}
	l := o.Felt()
	return report.Num(l["p50"]), report.Num(l["p99"])
}
