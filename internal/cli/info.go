package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	flag "github.com/spf13/pflag"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/engine/sqlite"
	"github.com/litebench/litebench/internal/own"
	"github.com/litebench/litebench/internal/report"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/runner"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/store"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/units"
	"github.com/litebench/litebench/internal/workload"
)

func cmdList(ctx context.Context, args []string, out, errw io.Writer) error {
	page := helpPage{text: `NAME
    litebench list - list what litebench knows

SYNOPSIS
    litebench list targets|suites|workloads|settings

DESCRIPTION
    targets    every target: its engine, the language its client runs in,
               its API, SQLite and driver versions, the faults the audit
               can strike it with, and why a target is not loaded
    suites     the built-in suites and the published experiment each
               reproduces
    workloads  the built-in workloads, and the libraries of tables that
               workload files may include
    settings   every setting flag with its default and meaning
`, examples: []string{"litebench list targets", "litebench list suites", "litebench list settings"},
		seeAlso: []string{"run", "suite", "workload show"}}
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	if err := parse(fs, args, out, page.help(fs)); err != nil {
		return err
	}
	what := fs.Arg(0)
	switch what {
	case "targets":
		t := &report.Table{Headers: []string{"target", "engine", "language", "placement", "api", "engine version", "driver", "driver version", "audit faults", "status"}}
		ts, us := target.All()
		for _, x := range ts {
			v, err := x.Version()
			status := "loaded"
			if err != nil {
				status = "error: " + err.Error()
			}
			t.Rows = append(t.Rows, []string{x.Name(), x.Engine().Name(), x.Placement().Language(), string(x.Placement()), x.API(), v, x.Module(), orDash(runner.ClientVersion(x)), auditFaultsOf(x), status})
		}
		for _, u := range us {
			t.Rows = append(t.Rows, []string{u.Name, u.Engine, "-", "-", u.API, "-", u.Module, "-", "-", "not loaded: " + u.Reason})
		}
		return t.Render(out, "table")
	case "suites":
		t := &report.Table{Headers: []string{"suite", "what it runs"}}
		for _, s := range suites {
			t.Rows = append(t.Rows, []string{s.name, s.summary + " (reproduces " + suiteSources[s.name] + ")"})
		}
		return t.Render(out, "table")
	case "workloads":
		return listWorkloads(out)
	case "settings":
		t := &report.Table{Headers: []string{"flag", "default", "meaning"}}
		for _, s := range settings.Specs {
			t.Rows = append(t.Rows, []string{"--" + s.Key, s.Default, s.Help})
		}
		return t.Render(out, "table")
	case "":
		return usagef("list: say what to list: targets, suites, workloads or settings")
	}
	return usagef("list: unknown list %q; want targets, suites, workloads or settings", what)
}

func cmdRuns(ctx context.Context, args []string, out, errw io.Writer) error {
	page := helpPage{text: `NAME
    litebench runs - list stored runs, newest first

SYNOPSIS
    litebench runs [--store FILE] [--limit N]

DESCRIPTION
    One line per run: its id, when it started, the workload and target,
    its status (ok, failed, interrupted, or lost when the process running
    it died), the count and throughput, and the parameters and settings
    that differ from the workload's defaults, written as the flags that
    repeat the run.
`, examples: []string{"litebench runs", "litebench runs --limit 0 --store results/laptop.db"},
		seeAlso: []string{"show", "compare", "export"}}
	fs := flag.NewFlagSet("runs", flag.ContinueOnError)
	storePath := fs.String("store", "litebench.db", "results store file")
	limit := fs.Int("limit", 50, "show at most N runs (0 = all)")
	if err := parse(fs, args, out, page.help(fs)); err != nil {
		return err
	}
	s, err := store.OpenReadOnly(*storePath)
	if err != nil {
		return usageError{err.Error()}
	}
	defer s.Close()
	s.SetContext(ctx)
	rs, err := s.List(*limit)
	if err != nil {
		return interruptedOr(ctx, err)
	}
	t := &report.Table{Headers: []string{"run", "started", "workload", "target", "status", "count", "throughput", "parameters and settings"},
		Right: []bool{false, false, false, false, false, true, true, false}}
	for _, r := range rs {
		h := r.Headline()
		count := strconv.FormatInt(r.Rows, 10)
		if u := units.Count(h.Unit); u != h.Unit {
			count += " " + u
		}
		t.Rows = append(t.Rows, []string{r.RunID, r.StartedAt.Local().Format("2006-01-02 15:04:05"), r.Workload, r.Target,
			r.StatusText(), count, units.Format(h.Value, h.Unit), differs(r)})
	}
	t.Notes = append(t.Notes, "parameters and settings: what differs from the workload's own defaults, as the flags that repeat the run")
	return t.Render(out, "table")
}

// differs is what a run's parameters and settings change from its
// workload's defaults, as flags: read from the command that repeats the
// run (which names exactly those), or worked out from the workload's
// defaults for a run stored without one.
func differs(r *results.Result) string {
	cmd, _, _ := strings.Cut(r.Command, "  #")
	if _, rest, ok := strings.Cut(cmd, " --target "); ok {
		_, flags, _ := strings.Cut(rest, " ")
		if flags = strings.TrimSpace(flags); flags != "" {
			return flags
		}
		return "defaults"
	}
	def := settings.Default()
	var parts []string
	if sp, err := workload.Get(r.Workload); err == nil {
		for k, v := range sp.SettingDefaults {
			def.Set(k, v)
		}
		for _, p := range sp.Params {
			if v, ok := r.Params[p.Name]; ok && v != p.Default {
				parts = append(parts, "--"+p.Name+" "+v)
			}
		}
	}
	set := settings.FromMap(r.Settings)
	for _, k := range set.Keys() {
		if v := set.Get(k); v != def.Get(k) {
			parts = append(parts, "--"+k+"="+v)
		}
	}
	if len(parts) == 0 {
		return "defaults"
	}
	return strings.Join(parts, " ")
}

func cmdShow(ctx context.Context, args []string, out, errw io.Writer) error {
	page := helpPage{text: `NAME
    litebench show - print stored runs again

SYNOPSIS
    litebench show [--format F] [--store FILE] RUN_OR_SWEEP_ID... | --last
    litebench show --format hgrm|hlog [--op NAME] RUN_ID

DESCRIPTION
    Prints runs (by run id, a unique prefix of one, or a sweep id) in any
    output format: table, markdown, csv, json, benchfmt. A suite's sweep
    prints as the suite printed it, its own tables in order (as table or
    markdown; the other formats print every run).

    For other tools: github-action-benchmark writes that action's
    customBiggerIsBetter JSON (one entry per cell: the median headline over
    its repetitions, its 95% interval as the range); bencher writes the
    Bencher Metric Format (per cell: throughput with lower and upper
    values, and each op's p50 and p99 in microseconds); hgrm writes one
    run's latency histogram of one op (--op; by default the op the run's
    tables show) as HdrHistogram's percentile distribution, wrk2's --latency
    layout that the HdrHistogram plotter reads, in milliseconds: response
    time under a target rate, service time otherwise. hlog writes one
    op's interval histograms as HdrHistogram's interval log (format 1.3,
    for HistogramLogReader and HdrHistogram's tools) from a run made with
    --series-histograms, which keeps each interval's histogram in the
    time series.
`, examples: []string{"litebench show --last", "litebench show 3f2a --format benchfmt",
		"litebench show --last --format bencher > bmf.json", "litebench show 3f2a --format hgrm --op read > read.hgrm"},
		seeAlso: []string{"runs", "compare", "report", "export"}}
	fs := flag.NewFlagSet("show", flag.ContinueOnError)
	storePath := fs.String("store", "litebench.db", "results store file")
	format := fs.String("format", "table", "table, markdown, csv, json, benchfmt, github-action-benchmark, bencher, hgrm, hlog")
	last := fs.Bool("last", false, "show the newest sweep")
	op := fs.String("op", "", "with --format hgrm or hlog: the op whose latency to write")
	if err := parse(fs, args, out, page.help(fs)); err != nil {
		return err
	}
	if *format != "hgrm" && *format != "hlog" {
		if err := report.CheckFormat(*format); err != nil {
			return usageError{fmt.Sprintf("%v, hgrm, hlog", err)}
		}
		if *op != "" {
			return usagef("show: --op goes with --format hgrm or hlog")
		}
	}
	if fs.NArg() == 0 && !*last {
		return usagef("show: name a run or sweep id (see 'litebench runs'), or pass --last")
	}
	s, err := store.OpenReadOnly(*storePath)
	if err != nil {
		return usageError{err.Error()}
	}
	defer s.Close()
	s.SetContext(ctx)
	var rs []*results.Result
	if *last {
		if rs, err = s.LastSweep(); err != nil {
			return interruptedOr(ctx, usageError{err.Error()})
		}
	}
	for _, id := range fs.Args() {
		got, err := s.Get(id)
		if err != nil {
			return interruptedOr(ctx, usageError{err.Error()})
		}
		rs = append(rs, got...)
	}
	if *format == "hgrm" || *format == "hlog" {
		if len(rs) != 1 {
			return usagef("show --format %s: name one run (%d given); 'litebench runs' lists their ids", *format, len(rs))
		}
		write := report.WriteHgrm
		if *format == "hlog" {
			write = report.WriteHlog
		}
		if err := write(out, rs[0], *op); err != nil {
			return usageError{err.Error()}
		}
		return nil
	}
	if *format == "table" || *format == "markdown" {
		if ts := suiteTables(rs); len(ts) > 0 {
			return renderTables(out, ts, *format)
		}
	}
	return report.Write(out, rs, *format)
}

// suiteTables are the tables a suite printed as its runs rs ended, in
// order; none unless every run is a suite's step.
func suiteTables(rs []*results.Result) []results.Table {
	var ts []results.Table
	for _, r := range rs {
		if r.Section == "" {
			return nil
		}
		ts = append(ts, r.Tables...)
	}
	return ts
}

func renderTables(w io.Writer, ts []results.Table, format string) error {
	for _, t := range ts {
		rt := &report.Table{Title: t.Title, Headers: t.Headers, Right: t.Right, Rows: t.Rows, Notes: t.Notes}
		if err := rt.Render(w, format); err != nil {
			return err
		}
	}
	return nil
}

func cmdPragma(ctx context.Context, args []string, out, errw io.Writer) error {
	page := helpPage{text: `NAME
    litebench pragma - print a pragma's value on targets or a database file

SYNOPSIS
    litebench pragma NAME [--db FILE[?PARAMS]] [--target LIST] [setting flags]

DESCRIPTION
    Without --db, opens a fresh in-memory database on each target with the
    given settings applied and prints the value a new connection sees. With
    --db, opens FILE read-only and prints its value there; the file is not
    changed and nothing is created beside it (a database in WAL mode, or
    with a -wal or -shm beside it, is read through a private link or copy,
    so that journal_mode says wal and the WAL is read). Seed-style
    parameters after '?' map onto the settings as they do for 'litebench
    insert' (_busy_timeout, _sync, _cache_size, ...); those that would
    change the file (_journal, _page_size, _locking_mode) are refused with
    --db. With several targets, each gets a column; a pragma that returns
    several columns (wal_checkpoint: busy, log, checkpointed) prints one
    line per column.
`, group: groupTarget, examples: []string{
		"litebench pragma busy_timeout --target mattn,modernc,zombie",
		"litebench pragma busy_timeout --db 'a.db?_busy_timeout=100'",
		"litebench pragma wal_checkpoint --db a.db",
		"litebench pragma cache_size --cache-size 64MiB",
	}, seeAlso: []string{"inspect", "list settings"}}
	fs := flag.NewFlagSet("pragma", flag.ContinueOnError)
	var c common
	fs.StringVar(&c.db, "db", "", "database file to read (opened read-only), optionally with seed-style parameters: 'a.db?_busy_timeout=100'")
	fs.StringVar(&c.targets, "target", target.Default(), "comma list of targets, one column each (see 'litebench list targets')")
	c.settings = registerSettings(fs)
	// Allow the pragma name before the flags.
	name := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := parse(fs, args, out, page.help(fs)); err != nil {
		return err
	}
	if name == "" {
		name = fs.Arg(0)
	}
	if name == "" || fs.NArg() > 1 || strings.ContainsAny(name, " ;()'\"=") {
		return usagef("pragma: give one pragma name, e.g. 'litebench pragma busy_timeout'")
	}
	m, path, err := c.matrix()
	if err != nil {
		return err
	}
	if vary := m.Varying(); len(vary) > 0 {
		return usagef("pragma: --%s takes one value here, not a list", vary[0])
	}
	s := m.Points()[0]
	if err := s.Validate(); err != nil {
		return usageError{err.Error()}
	}
	if path != "" {
		for _, k := range []string{"journal", "page-size", "locking-mode", "in-memory"} {
			if s.Get(k) != settings.Lookup(k).Default {
				return usagef("pragma: --%s would change %s, which pragma opens read-only; leave out --db to see what a new database gets", k, path)
			}
		}
	}
	ts, err := c.targetList()
	if err != nil {
		return err
	}
	for _, t := range ts {
		if _, err := inProcessTarget("pragma", t.Name()); err != nil {
			return err
		}
	}
	for _, n := range c.notes {
		fmt.Fprintln(errw, n)
	}
	var answers []pragmaAnswer
	for _, t := range ts {
		a, err := pragmaOn(ctx, t, name, s, path)
		if err != nil {
			return err
		}
		answers = append(answers, a)
	}
	return writePragma(out, name, ts, answers)
}

// pragmaAnswer is what one target's connection returned: the pragma's
// columns and its rows.
type pragmaAnswer struct {
	cols []string
	rows [][]string
}

// pragmaColumns names the columns of the pragmas that return more than one
// (SQLite's documentation); others are named by position.
var pragmaColumns = map[string][]string{
	"wal_checkpoint":    {"busy", "log", "checkpointed"},
	"database_list":     {"seq", "name", "file"},
	"collation_list":    {"seq", "name"},
	"foreign_key_list":  {"id", "seq", "table", "from", "to", "on_update", "on_delete", "match"},
	"foreign_key_check": {"table", "rowid", "parent", "fkid"},
	"table_list":        {"schema", "name", "type", "ncol", "wr", "strict"},
	"function_list":     {"name", "builtin", "type", "enc", "narg", "flags"},
}

// pragmaOn runs PRAGMA name on one target: on a fresh in-memory database
// with s applied, or read-only on path with the settings a reader may set.
func pragmaOn(ctx context.Context, t target.Target, name string, s settings.Settings, path string) (pragmaAnswer, error) {
	var ep engine.Endpoint
	pool := target.PolicyOf(s).PoolOptions
	view := "" // the file opened for path, when another (database_list names it)
	if path != "" {
		v, err := readView("pragma", path)
		if err != nil {
			return pragmaAnswer{}, err
		}
		defer v.Close()
		if !v.Immutable && strings.EqualFold(name, "wal_checkpoint") {
			// SQLite answers a read-only checkpoint with an I/O error.
			return pragmaAnswer{}, usagef("pragma wal_checkpoint --db %s: a checkpoint writes the database, and pragma opens it read-only; checkpoint it with the program that owns it", path)
		}
		ep, pool = sqlite.ReadOnly(v.Path, v.Immutable), target.PoolOptions{}
		view = v.Path
		ep.Init = sqlite.Pragmas(s, true)
	} else {
		mem := s.Clone()
		mem.Set("in-memory", "true")
		inst, err := t.Engine().Provision(ctx, engine.Request{Settings: mem, Name: "pragma"})
		if err != nil {
			return pragmaAnswer{}, err
		}
		defer inst.Destroy()
		ep = inst.Endpoint()
	}
	d, err := t.Open(ctx, ep, pool)
	if err != nil {
		return pragmaAnswer{}, usagef("pragma: open: %v", err)
	}
	defer d.Close()
	if err := knownPragma(ctx, d, name); err != nil {
		return pragmaAnswer{}, err
	}
	n, err := resultColumns(ctx, d, "PRAGMA "+name)
	if err != nil {
		return pragmaAnswer{}, usagef("pragma %s: %v", name, err)
	}
	a := pragmaAnswer{cols: pragmaColumns[strings.ToLower(name)]}
	if len(a.cols) != n {
		a.cols = nil
		for i := 1; i <= n; i++ {
			a.cols = append(a.cols, fmt.Sprintf("column %d", i))
		}
	}
	err = d.Query(ctx, "PRAGMA "+name, nil, func(r target.Row) error {
		vals := make([][]byte, n)
		dest := make([]any, n)
		for i := range vals {
			dest[i] = &vals[i]
		}
		if err := r.Scan(dest...); err != nil {
			return err
		}
		row := make([]string, n)
		for i, v := range vals {
			row[i] = string(v)
			if view != "" && row[i] == view {
				row[i] = path
			}
		}
		a.rows = append(a.rows, row)
		return nil
	})
	if err != nil {
		return pragmaAnswer{}, usagef("pragma %s: %v", name, err)
	}
	return a, nil
}

// knownPragma refuses a name that is not one of the engine's pragmas,
// naming close ones.
func knownPragma(ctx context.Context, d target.DB, name string) error {
	var names []string
	d.Query(ctx, "SELECT name FROM pragma_pragma_list", nil, func(r target.Row) error {
		var n string
		if err := r.Scan(&n); err != nil {
			return err
		}
		names = append(names, n)
		return nil
	})
	if len(names) == 0 {
		return nil // a build without the list: SQLite itself decides
	}
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return nil
		}
	}
	msg := fmt.Sprintf("pragma: unknown pragma %q", name)
	if near := closeNames(name, names); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
	} else {
		msg += "; 'litebench pragma pragma_list' lists them"
	}
	return usageError{msg}
}

// resultColumns returns how many columns query returns, from its compiled
// program (EXPLAIN runs nothing).
func resultColumns(ctx context.Context, d target.DB, query string) (int, error) {
	n := 0
	err := d.Query(ctx, "EXPLAIN "+query, nil, func(r target.Row) error {
		var addr, p1, p2, p3, p5 int64
		var op string
		var p4, comment []byte
		if err := r.Scan(&addr, &op, &p1, &p2, &p3, &p4, &p5, &comment); err != nil {
			return err
		}
		if op == "ResultRow" && int(p2) > n {
			n = int(p2)
		}
		return nil
	})
	return n, err
}

// writePragma prints the answers: 'name = value' for one target and one
// column, else a table with a column per target and a line per column of
// the pragma (and per row, when it returns several).
func writePragma(out io.Writer, name string, ts []target.Target, as []pragmaAnswer) error {
	if len(ts) == 1 && len(as[0].cols) <= 1 {
		for _, r := range as[0].rows {
			fmt.Fprintf(out, "%s = %s\n", name, r[0])
		}
		if len(as[0].rows) == 0 {
			fmt.Fprintf(out, "%s: no value (a pragma that sets, or returns nothing here)\n", name)
		}
		return nil
	}
	t := &report.Table{Headers: []string{"pragma"}}
	for _, x := range ts {
		t.Headers = append(t.Headers, x.Name())
	}
	var labels []string
	cell := map[string][]string{}
	for i, a := range as {
		for ri, r := range a.rows {
			for ci, v := range r {
				l := name
				if len(a.cols) > 1 {
					l += " " + a.cols[ci]
				}
				if len(a.rows) > 1 {
					l += fmt.Sprintf(" #%d", ri+1)
				}
				if cell[l] == nil {
					labels = append(labels, l)
					cell[l] = make([]string, len(as))
					for k := range cell[l] {
						cell[l][k] = "-"
					}
				}
				cell[l][i] = v
			}
		}
	}
	for _, l := range labels {
		t.Rows = append(t.Rows, append([]string{l}, cell[l]...))
	}
	if len(labels) == 0 {
		t.Notes = append(t.Notes, name+": no value (a pragma that sets, or returns nothing here)")
	}
	return t.Render(out, "table")
}

func cmdInspect(ctx context.Context, args []string, out, errw io.Writer) error {
	page := helpPage{text: `NAME
    litebench inspect - describe a database file without changing it

SYNOPSIS
    litebench inspect --db FILE [--target T]
    litebench inspect FILE

DESCRIPTION
    Opens FILE read-only and prints its journal mode, page size and count,
    freelist, file sizes (database, -wal, -shm), whether litebench created
    it, its tables with row counts, and the SQLite compile options. Nothing
    is created or written beside it, not even a -shm file: a database in
    WAL mode, or with a -wal or -shm beside it, is read through a private
    link or copy, so that its WAL is read too.
`, examples: []string{"litebench inspect --db bench.db", "litebench inspect litebench.db --target modernc"},
		seeAlso: []string{"pragma", "list targets"}}
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	db := fs.String("db", "", "database file to describe (or name it as the argument)")
	tname := fs.String("target", target.Default(), "target that reads it: one whose client runs in this process")
	if err := parse(fs, args, out, page.help(fs)); err != nil {
		return err
	}
	if *db == "" && fs.NArg() > 0 {
		*db = fs.Arg(0)
	}
	if *db == "" {
		return usagef("inspect: name the database with --db FILE")
	}
	in, err := readOnly("inspect", *db)
	if err != nil {
		return err
	}
	t, err := inProcessTarget("inspect", *tname)
	if err != nil {
		return err
	}
	v, err := own.OpenView(*db, in)
	if err != nil {
		return fmt.Errorf("inspect: %w", err)
	}
	defer v.Close()
	d, err := t.Open(ctx, sqlite.ReadOnly(v.Path, v.Immutable), target.PoolOptions{})
	if err != nil {
		return usagef("inspect: open %s: %v", *db, err)
	}
	defer d.Close()
	one := func(q string) string {
		var v string
		d.Query(ctx, q, nil, func(r target.Row) error { return r.Scan(&v) })
		return v
	}
	tb := &report.Table{Headers: []string{"property", "value"}}
	add := func(k, v string) { tb.Rows = append(tb.Rows, []string{k, v}) }
	add("file", *db)
	owner := fmt.Sprintf("not litebench (application_id %#x)", uint32(in.AppID))
	switch in.Kind {
	case workload.BenchDB.Name:
		owner = "litebench bench database"
		if f := own.Foreign(in.Database, workload.BenchDB.Tables); len(f) > 0 {
			owner += " with objects litebench did not create: " + strings.Join(f, ", ")
		}
	case own.Store.Name:
		owner = "litebench results store"
	}
	add("created by", owner)
	add("sqlite (reader)", func() string { v, _ := t.Version(); return v }())
	// The header says whether the file is in WAL mode; an immutable
	// reader's journal_mode would not.
	mode := "delete (rollback journal)"
	if in.WAL {
		mode = "wal"
	}
	add("journal_mode", mode)
	add("page_size", one("PRAGMA page_size"))
	add("page_count", one("PRAGMA page_count"))
	add("freelist_count", one("PRAGMA freelist_count"))
	add("auto_vacuum", one("PRAGMA auto_vacuum"))
	add("user_version", one("PRAGMA user_version"))
	for _, suf := range []string{"", "-wal", "-shm", "-journal"} {
		if st, err := os.Lstat(*db + suf); err == nil {
			add("size"+suf, fmt.Sprintf("%d bytes", st.Size()))
		}
	}
	var tables []string
	d.Query(ctx, "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name", nil, func(r target.Row) error {
		var n string
		r.Scan(&n)
		tables = append(tables, n)
		return nil
	})
	for _, tn := range tables {
		add("table "+tn, one(`SELECT count(*) FROM "`+strings.ReplaceAll(tn, `"`, `""`)+`"`)+" rows")
	}
	var opts []string
	d.Query(ctx, "PRAGMA compile_options", nil, func(r target.Row) error {
		var o string
		r.Scan(&o)
		opts = append(opts, o)
		return nil
	})
	add("compile_options", strings.Join(opts, " "))
	return tb.Render(out, "table")
}

// readOnly looks at the database file a read-only command is given: a
// non-empty regular file (never a pipe, device or link), a SQLite database.
// It says how to open it without writing or creating anything.
func readOnly(cmd, path string) (*own.Info, error) {
	in, err := own.Read(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, usagef("%s: --db %s does not exist", cmd, path)
	}
	if err != nil {
		return nil, usagef("%s: %v", cmd, err)
	}
	return in, nil
}

// readView is readOnly and how to open the file without writing beside it
// (own.View); the caller closes it.
func readView(cmd, path string) (*own.View, error) {
	in, err := readOnly(cmd, path)
	if err != nil {
		return nil, err
	}
	v, err := own.OpenView(path, in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	return v, nil
}

// inProcessTarget is the target cmd reads through: one whose client runs
// in this process.
func inProcessTarget(cmd, name string) (target.Target, error) {
	t, err := target.Get(name)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	if t.Placement().IsProcess() {
		return nil, usagef("%s --target %s: %s runs in a worker process of its own; %s reads through one of %s",
			cmd, name, name, cmd, strings.Join(target.InProcessNames(), ", "))
	}
	return t, nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
