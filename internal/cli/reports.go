package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	flag "github.com/spf13/pflag"

	"github.com/litebench/litebench/internal/own"
	"github.com/litebench/litebench/internal/report"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/store"
)

// loadRuns reads runs by id (run, sweep or unique prefix), or the newest
// sweep with last.
func loadRuns(s *store.Store, ids []string, last bool) ([]*results.Result, error) {
	var rs []*results.Result
	if last {
		got, err := s.LastSweep()
		if err != nil {
			return nil, usageError{err.Error()}
		}
		rs = append(rs, got...)
	}
	for _, id := range ids {
		got, err := s.Get(id)
		if err != nil {
			return nil, usageError{err.Error()}
		}
		rs = append(rs, got...)
	}
	return rs, nil
}

// selectRuns is every stored run oldest first (all), or loadRuns.
func selectRuns(s *store.Store, ids []string, last, all bool) ([]*results.Result, error) {
	if !all {
		return loadRuns(s, ids, last)
	}
	rs, err := s.List(0)
	if err != nil {
		return nil, err
	}
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	if len(rs) == 0 {
		return nil, usagef("no runs in %s yet", s.Path())
	}
	return rs, nil
}

func cmdCompare(ctx context.Context, args []string, out, errw io.Writer) error {
	page := helpPage{text: `NAME
    litebench compare - are two sets of runs different, and by how much?

SYNOPSIS
    litebench compare A B
    litebench compare --where K=V[,K=V] --vs K=V[,K=V]
                      [RUN_OR_SWEEP... | --last | --all]

DESCRIPTION
    A and B are run ids, sweep ids or unique prefixes. Runs are grouped into
    cells; the fields that take one value on each side and differ between
    the sides are what is compared (say target=mattn against
    target=modernc), and cells are paired on every other field, so two
    sweeps compare line by line.

    For every metric (throughput, and p50/p99 latency of every op kind) it
    prints both medians with their 95% confidence intervals, the change, and
    the p-value of a two-sided Mann-Whitney U test (as benchstat does). A
    change that is not significant at 95% is shown as "~". Repeated runs
    (--repeat) are the samples; a single run per side can show a change but
    never a significant one.

    --where and --vs pick the two sides out of the given runs (default: the
    newest sweep; --all: every stored run). Keys: target, workload, any
    setting (journal, sync, pool, ...) or workload parameter, and litebench
    (the version that ran: 'litebench version --short').

    A median's 95% interval needs 6 runs, and a difference between 3+3
    runs can never be significant at 95%: use --repeat 6 for claims; the
    notes under the table say where the runs are too few.

A GATE FOR CI
    --fail-if 'METRIC < CHANGE%' or 'METRIC > CHANGE%' (several allowed)
    makes compare a gate: it exits 99 (as k6 does for thresholds) when a
    cell's change from A to B crosses a threshold beyond noise, that is
    when all three hold:
      - the change is significant (Mann-Whitney U, 95%);
      - its median is beyond the threshold;
      - its 95% confidence interval (Hodges-Lehmann, the interval that goes
        with the test) lies wholly beyond the threshold.
    METRIC is throughput (the headline), a latency figure of every op
    (p50, p99, p999, p9999, mean, max) or of one ('read p99'), or a figure
    the results name. CHANGE is signed: 'throughput < -5%' fails a drop of
    more than 5%, 'p99 > +10%' a rise of more than 10%.
    When the runs are too few to bound a change that crossed a threshold
    (fewer than 4 per side), the gate says "not enough runs to decide" with
    the --repeat to use and exits 0; --undecided fail makes that exit 99
    too. A threshold that matches no metric is bad input (exit 2).
    Every failing cell is printed with its change, interval and p-value.

    Runs from different machines (system, architecture, cores, CPU model)
    are not compared unless --across-machines is given.
`, examples: []string{
		"litebench compare 3f2a 9c1b",
		"litebench compare --where target=mattn --vs target=modernc --last",
		"litebench compare --where journal=delete --vs journal=wal --all --format csv",
		"litebench compare BASE NEW --fail-if 'throughput < -5%' --fail-if 'p99 > +10%'",
	}, seeAlso: []string{"runs", "show", "report"}}
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	storePath := fs.String("store", "litebench.db", "results store")
	format := fs.String("format", "table", "table, markdown, or csv: one raw row per cell and metric (labels, each side's n, median and interval bounds, change in percent, p, significant)")
	where := fs.String("where", "", "side A: key=value,...")
	vs := fs.String("vs", "", "side B: key=value,...")
	last := fs.Bool("last", false, "pick from the newest sweep")
	all := fs.Bool("all", false, "pick from every stored run")
	failIf := fs.StringArray("fail-if", nil, "a gate: exit 99 when a change crosses 'METRIC < CHANGE%' or 'METRIC > CHANGE%' beyond noise (repeatable; see A GATE FOR CI)")
	across := fs.Bool("across-machines", false, "compare runs from different machines (refused by default: their figures are not comparable)")
	undecided := fs.String("undecided", "pass", "what a gate does when the runs are too few to decide a crossing: pass (exit 0 with guidance) or fail (exit 99)")
	fs.SetAnnotation("where", "litebench-help-value", []string{"K=V[,K=V]"})
	fs.SetAnnotation("vs", "litebench-help-value", []string{"K=V[,K=V]"})
	fs.SetAnnotation("fail-if", "litebench-help-value", []string{"'METRIC <|> CHANGE%'"})
	if err := parse(fs, args, out, page.help(fs)); err != nil {
		return err
	}
	var thresholds []report.Threshold
	for _, v := range *failIf {
		t, err := report.ParseThreshold(v)
		if err != nil {
			return usagef("--fail-if %v", err)
		}
		thresholds = append(thresholds, t)
	}
	if *undecided != "pass" && *undecided != "fail" {
		return usagef("--undecided %q: give pass or fail", *undecided)
	}
	switch *format {
	case "table", "markdown", "csv":
	default:
		return usagef("--format %q: compare prints table, markdown or csv", *format)
	}
	if (*where == "") != (*vs == "") {
		return usagef("compare: --where and --vs go together")
	}
	if *where == "" && fs.NArg() != 2 {
		return usagef("compare: give two run or sweep ids, or --where K=V --vs K=V (see 'litebench compare --help')")
	}
	s, err := store.OpenReadOnly(*storePath)
	if err != nil {
		return usageError{err.Error()}
	}
	defer s.Close()
	s.SetContext(ctx)
	var a, b []*results.Result
	if *where == "" {
		if a, err = loadRuns(s, fs.Args()[:1], false); err != nil {
			return interruptedOr(ctx, err)
		}
		if b, err = loadRuns(s, fs.Args()[1:], false); err != nil {
			return interruptedOr(ctx, err)
		}
	} else {
		wa, err := report.ParseConds(*where)
		if err != nil {
			return usagef("--where %v", err)
		}
		wb, err := report.ParseConds(*vs)
		if err != nil {
			return usagef("--vs %v", err)
		}
		// The runs to pick from: as for report, the newest sweep by default.
		pool, err := selectRuns(s, fs.Args(), *last || fs.NArg() == 0, *all)
		if err != nil {
			return interruptedOr(ctx, err)
		}
		for _, r := range pool {
			if report.Match(r, wa) {
				a = append(a, r)
			}
			if report.Match(r, wb) {
				b = append(b, r)
			}
		}
	}
	if ms := results.Machines(append(append([]*results.Result(nil), a...), b...)); len(ms) > 1 && !*across {
		return usagef("compare: the runs come from %d machines (%s); figures from different machines are not comparable: compare runs of one machine, or pass --across-machines", len(ms), strings.Join(ms, "; "))
	}
	if len(thresholds) > 0 {
		return compareGate(a, b, thresholds, *undecided == "fail", *format, out)
	}
	c, err := report.Compare(a, b)
	if err != nil {
		return usageError{err.Error()}
	}
	if *format == "csv" {
		return c.WriteCSV(out)
	}
	return c.Table().Render(out, *format)
}

// errGate ends a compare whose --fail-if gate failed (exit 99).
var errGate = errors.New("a --fail-if threshold was crossed")

// compareGate prints the comparison, then the gate's verdicts.
func compareGate(a, b []*results.Result, ts []report.Threshold, strict bool, format string, out io.Writer) error {
	c, g, err := report.CompareGate(a, b, ts)
	if err != nil {
		return usageError{err.Error()}
	}
	if len(g.Unmatched) > 0 {
		return usagef("--fail-if %q: no compared metric has that name (throughput, p50, p99, 'OP p99', or a figure the results name)", g.Unmatched[0])
	}
	if format == "csv" {
		err = c.WriteCSV(out)
	} else {
		err = c.Table().Render(out, format)
	}
	if err != nil {
		return err
	}
	fails, undecided := 0, 0
	for _, v := range g.Verdicts {
		switch {
		case v.Fail:
			fails++
			fmt.Fprintf(out, "gate: FAIL %s: %s: %s %s\n", v.Threshold.Text, v.Cell, v.Row.Metric, v.Why)
		case v.Undecided:
			undecided++
			fmt.Fprintf(out, "gate: not enough runs to decide %s: %s: %s %s; use --repeat %d or more on both sides\n", v.Threshold.Text, v.Cell, v.Row.Metric, v.Why, report.RunsToDecide)
		}
	}
	switch {
	case g.Failed(strict):
		fmt.Fprintf(out, "gate: failed (%d of %d checks crossed a threshold beyond noise, %d undecided)\n", fails, g.Judged, undecided)
		return errGate
	case undecided > 0:
		fmt.Fprintf(out, "gate: passed, but %d of %d checks could not be decided (--undecided fail makes them fail)\n", undecided, g.Judged)
	default:
		fmt.Fprintf(out, "gate: passed (%d checks)\n", g.Judged)
	}
	return nil
}

func cmdExport(ctx context.Context, args []string, out, errw io.Writer) error {
	page := helpPage{text: `NAME
    litebench export - write stored runs as JSON lines

SYNOPSIS
    litebench export [--store FILE] RUN_OR_SWEEP... | --last | --all
                     > runs.jsonl

DESCRIPTION
    One run per line, complete (settings, histograms, time series,
    environment). 'litebench import' reads it into another store; the round
    trip is exact, so runs from several machines can be compared and
    reported together. Ctrl-C stops it between two runs: the lines written
    are whole runs (exit 130).
`, examples: []string{"litebench export --last > runs.jsonl", "litebench export --all --store laptop.db > laptop.jsonl"},
		seeAlso: []string{"import", "runs", "report"}}
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	storePath := fs.String("store", "litebench.db", "results store")
	last := fs.Bool("last", false, "the newest sweep")
	all := fs.Bool("all", false, "every stored run")
	if err := parse(fs, args, out, page.help(fs)); err != nil {
		return err
	}
	if fs.NArg() == 0 && !*last && !*all {
		return usagef("export: name runs or sweeps, or pass --last or --all")
	}
	s, err := store.OpenReadOnly(*storePath)
	if err != nil {
		return usageError{err.Error()}
	}
	defer s.Close()
	s.SetContext(ctx)
	rs, err := selectRuns(s, fs.Args(), *last, *all)
	if err != nil {
		return interruptedOr(ctx, err)
	}
	w := bufio.NewWriter(out)
	for i, r := range rs {
		if ctx.Err() != nil {
			// Every line written is whole: a run is written in one call.
			w.Flush()
			return stoppedError(fmt.Sprintf("interrupted; exported %d of %d run(s), each line complete", i, len(rs)))
		}
		b, err := results.MarshalJSONLine(r)
		if err != nil {
			return err
		}
		w.Write(b)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(errw, "exported %d run(s)\n", len(rs))
	return nil
}

func cmdImport(ctx context.Context, args []string, out, errw io.Writer) error {
	page := helpPage{text: `NAME
    litebench import - add runs from 'litebench export' to a store

SYNOPSIS
    litebench import [--store FILE] [--replace] FILE.jsonl...   (- reads stdin)

DESCRIPTION
    Every line must be a complete run: a run id, workload, target, start
    time and a status (ok, failed, interrupted or lost), counts that are
    not negative and finite numbers. Everything is checked before anything
    is written, and the runs are written in one transaction: a bad line
    leaves the store untouched.

    A run whose id is already in the store (or twice in the input) is
    refused, naming the line; --replace replaces stored runs with the
    imported ones and says how many it replaced.
`, examples: []string{"litebench import laptop.jsonl server.jsonl", "litebench export --last --store a.db | litebench import --store b.db -", "litebench import --replace runs.jsonl"},
		seeAlso: []string{"export", "runs", "compare", "report"}}
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	storePath := fs.String("store", "litebench.db", "results store")
	replace := fs.Bool("replace", false, "replace stored runs that have the same run id")
	if err := parse(fs, args, out, page.help(fs)); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef("import: name a file of runs from 'litebench export' (- for stdin)")
	}
	exists := store.IsPostgres(*storePath) // a database: duplicates are checked there
	if !exists {
		if err := own.WritableDir(filepath.Dir(*storePath)); err != nil {
			return usagef("--store %s: directory %v", *storePath, err)
		}
		var err error
		if exists, err = own.Check(*storePath, own.Store); err != nil {
			return usagef("--store: %v", err)
		}
	}
	var rs []*results.Result
	where := map[string]string{} // run id → file:line
	for _, name := range fs.Args() {
		var rd io.Reader
		if name == "-" {
			rd = os.Stdin
		} else {
			f, err := openInput(name)
			if err != nil {
				return usagef("import: %v", err)
			}
			defer f.Close()
			rd = f
		}
		sc := bufio.NewScanner(rd)
		sc.Buffer(make([]byte, 1<<20), 1<<28)
		line := 0
		for sc.Scan() {
			line++
			if strings.TrimSpace(sc.Text()) == "" {
				continue
			}
			at := fmt.Sprintf("%s line %d", name, line)
			r, err := results.UnmarshalJSONLine(sc.Bytes())
			if err == nil {
				err = results.Validate(r)
			}
			if err != nil {
				return usagef("import: %s: %v; import reads what 'litebench export' writes", at, err)
			}
			if prev, ok := where[r.RunID]; ok {
				return usagef("import: %s: run %s is also at %s; import each run once", at, r.RunID, prev)
			}
			where[r.RunID] = at
			rs = append(rs, r)
		}
		if err := sc.Err(); err != nil {
			return usagef("import: %s: %v", name, err)
		}
	}
	if exists && !*replace {
		ids := make([]string, len(rs))
		for i, r := range rs {
			ids[i] = r.RunID
		}
		s, err := store.OpenReadOnly(*storePath)
		if err != nil {
			return usageError{err.Error()}
		}
		have, err := s.Existing(ids)
		s.Close()
		if err != nil {
			return err
		}
		for _, r := range rs {
			if have[r.RunID] {
				return usagef("import: %s: run %s is already in %s; pass --replace to replace stored runs", where[r.RunID], r.RunID, *storePath)
			}
		}
	}
	s, err := store.Open(*storePath)
	if err != nil {
		return err
	}
	defer s.Close()
	replaced, err := s.Import(rs, *replace)
	var dup *store.DuplicateError
	if errors.As(err, &dup) {
		// Stored by another process since the check above.
		return usagef("import: %s: run %s is already in %s; pass --replace to replace stored runs", where[dup.RunID], dup.RunID, *storePath)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(errw, "imported %d run(s) into %s", len(rs), s.Path())
	if *replace {
		fmt.Fprintf(errw, ", replacing %d stored run(s) with the same id", replaced)
	}
	fmt.Fprintln(errw)
	return nil
}

// openInput opens a file a command reads: a regular file, or a named pipe
// (a shell's process substitution), never a device or directory.
func openInput(name string) (*os.File, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() && fi.Mode()&os.ModeNamedPipe == 0 {
		return nil, fmt.Errorf("%s is not a file", name)
	}
	return os.Open(name)
}

// writeReport writes the HTML report of rs to path, refusing to replace a
// file that is not a litebench report. The page is written under a
// temporary name and renamed when complete, so path holds a whole report
// or is untouched; cancelling ctx abandons the page at once (errStopped).
func writeReport(ctx context.Context, path string, rs []*results.Result, title string) error {
	if err := checkReportPath("-o", path); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".litebench-report-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	tmp.Chmod(0o644) //nolint:errcheck // best effort: reports are for sharing
	done := make(chan error, 1)
	go func() {
		err := report.WriteHTML(tmp, rs, report.Options{Title: title, Defaults: settings.Default().Map()})
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			return err
		}
	case <-ctx.Done():
		// The renderer's remaining writes fail on the closed file, and
		// the temporary file goes with the deferred Remove.
		tmp.Close()
		return errStopped
	}
	return os.Rename(tmp.Name(), path)
}

// checkReportPath allows a new file or a litebench report (a regular file
// that starts with report.HTMLMarker).
func checkReportPath(flagName, path string) error {
	if _, err := own.CheckMarked(path, report.HTMLMarker, "report"); err != nil {
		return usagef("%s: %v", flagName, err)
	}
	return nil
}

func cmdReport(ctx context.Context, args []string, out, errw io.Writer) error {
	page := helpPage{text: `NAME
    litebench report - write an HTML report of stored runs

SYNOPSIS
    litebench report [RUN_OR_SWEEP... | --last | --all] [-o FILE] [--title T]

DESCRIPTION
    One self-contained HTML file (SVG charts drawn by litebench, CSS and a
    few lines of JavaScript; nothing is fetched, it opens offline):
    a summary (each suite section's or workload's best cell and its
    speed-up over the defaults with a 95% interval; warnings in words);
    throughput, one panel per section or workload, log-scaled where values
    span more than 10x; latency by percentile on HdrHistogram's 1/(1-p)
    axis for every op kind of every cell, response and service time for
    open-loop runs with wanted and achieved rates; throughput, p99 and WAL
    size over time with checkpoints and warnings marked; the sortable
    cells table, the command line that repeats each run, and the
    environments. Cells are numbered in every chart and legend. Runs from
    several stores can be reported together after 'litebench import'.
    docs/reports.md explains each chart.
`, examples: []string{"litebench report", "litebench report --all -o all.html --title 'WAL or not'", "litebench report 3f2a 9c1b -o pair.html"},
		seeAlso: []string{"show", "compare", "import"}}
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	storePath := fs.String("store", "litebench.db", "results store")
	outPath := fs.String("o", "litebench-report.html", "output file; an existing file is replaced only if it is a litebench report")
	title := fs.String("title", "", "page title")
	last := fs.Bool("last", false, "the newest sweep (the default without ids)")
	all := fs.Bool("all", false, "every stored run")
	if err := parse(fs, args, out, page.help(fs)); err != nil {
		return err
	}
	if err := checkReportPath("-o", *outPath); err != nil {
		return err
	}
	s, err := store.OpenReadOnly(*storePath)
	if err != nil {
		return usageError{err.Error()}
	}
	defer s.Close()
	s.SetContext(ctx)
	rs, err := selectRuns(s, fs.Args(), *last || fs.NArg() == 0, *all)
	if err != nil {
		return interruptedOr(ctx, err)
	}
	t := *title
	if t == "" {
		t = "litebench: " + rs[0].Workload
		if sw := rs[0].SweepID; sw != "" {
			t += " (sweep " + sw + ")"
		}
	}
	if err := writeReport(ctx, *outPath, rs, t); err != nil {
		return err
	}
	abs, _ := filepath.Abs(*outPath)
	fmt.Fprintf(out, "wrote %s (%d runs)\n", abs, len(rs))
	return nil
}
