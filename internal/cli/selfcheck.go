package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/litebench/litebench/internal/report"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/runner"
	"github.com/litebench/litebench/internal/selfcheck"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/workload"
)

const selfcheckHelp = `NAME
    litebench selfcheck - measure litebench's own overhead

SYNOPSIS
    litebench selfcheck [--checks insert,read,placement] [--rows N]
                        [--duration D] [--repeat K] [--batch B]

DESCRIPTION
    Each check runs two sides K times each, interleaved, the side that goes
    first alternating, and prints every pass, the medians and the median of
    the per-pass ratios (each pass's two sides run back to back, so the
    paired ratio cancels most of a noisy machine's drift). Every ratio
    should reach at least 0.95.

    insert     N bench rows with mattn (WAL, synchronous=OFF, prepared, B rows
               per transaction): a plain Go loop over values generated before
               the clock starts, against 'litebench insert'.
    read       point reads by uniformly random ID on an N-row bench table for
               D, one connection: a plain Go loop of prepared reads against
               'litebench read --workers 1 --keys uniform'.
    placement  the insert and the read run of litebench in this process
               against the same runs in a 'litebench worker' child process
               (--placement process).
`

// side is one side of a check: it measures once and returns a rate.
type side func(ctx context.Context, pass int) (float64, error)

type check struct {
	name, unit string
	aName      string
	bName      string
	a, b       side
}

func cmdSelfcheck(ctx context.Context, args []string, out, errw io.Writer) error {
	fs := flag.NewFlagSet("selfcheck", flag.ContinueOnError)
	checksS := fs.String("checks", "insert,read,placement", "comma list of checks: insert, read, placement")
	rowsS := fs.String("rows", "1000000", "rows per insert pass, and rows of the read table")
	dur := fs.Duration("duration", 10*time.Second, "length of each read pass")
	repeat := fs.Int("repeat", 5, "passes per side")
	batch := fs.Int("batch", 1000, "rows per transaction of the insert check")
	page := helpPage{text: selfcheckHelp, examples: []string{"litebench selfcheck", "litebench selfcheck --checks insert --rows 200k --repeat 3", "litebench selfcheck --checks read,placement --duration 5s"},
		seeAlso: []string{"insert", "read", "worker"}}
	if err := parse(fs, args, out, page.help(fs)); err != nil {
		return err
	}
	rows, err := settings.ParseCount(*rowsS)
	if err != nil || rows < 1 {
		return usagef("--rows %q: want a positive whole number", *rowsS)
	}
	if *repeat < 1 || *batch < 1 {
		return usagef("--repeat and --batch must be at least 1")
	}
	if *dur <= 0 {
		return usagef("--duration %s: want a positive duration such as 10s", *dur)
	}
	want := map[string]bool{}
	for _, c := range strings.Split(*checksS, ",") {
		switch c = strings.TrimSpace(c); c {
		case "insert", "read", "placement":
			want[c] = true
		default:
			return usagef("--checks %q: unknown check %q (known: insert, read, placement)", *checksS, c)
		}
	}
	dir, err := os.MkdirTemp("", "litebench-selfcheck-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	t, err := target.Get(target.Default())
	if err != nil {
		return err
	}
	s := settings.Default()
	for k, v := range map[string]string{"journal": "wal", "sync": "off", "prepared": "true", "batch": strconv.Itoa(*batch)} {
		s.Set(k, v)
	}
	n := strconv.FormatInt(rows, 10)
	lbRun := func(wl string, params map[string]string, placement string) side {
		return func(ctx context.Context, pass int) (float64, error) {
			spec, _ := workload.Get(wl)
			ss := s.Clone()
			for k, v := range spec.SettingDefaults {
				ss.Set(k, v)
			}
			ss.Set("placement", placement)
			p := map[string]string{}
			for _, pr := range spec.Params {
				p[pr.Name] = pr.Default
			}
			for k, v := range params {
				p[k] = v
			}
			w, err := spec.New(p, ss)
			if err != nil {
				return 0, err
			}
			runtime.GC()
			r := runner.Run(ctx, runner.Spec{RunID: fmt.Sprintf("selfcheck-%s-%s-%d", wl, placement, pass), Workload: w, Target: t, Settings: ss, Dir: dir})
			if r.Status == results.StatusInterrupted {
				return 0, context.Canceled
			}
			if r.Status != "ok" {
				return 0, fmt.Errorf("litebench %s pass %d: %s %s", wl, pass, r.Status, r.Error)
			}
			return r.Headline().Value, nil
		}
	}
	insertParams := map[string]string{"rows": n, "schema": "bench", "workers": "1", "seed": "1"}
	readParams := map[string]string{"rows": n, "schema": "bench", "workers": "1", "keys": "uniform", "duration": dur.String(), "seed": "1"}
	var checks []check
	if want["insert"] {
		plain := func(ctx context.Context, pass int) (float64, error) {
			// Values are built per pass and dropped before litebench's
			// pass, so neither side runs with the other's heap live.
			vals, err := selfcheck.Values(ctx, int(rows), 1)
			if err != nil {
				return 0, err
			}
			runtime.GC()
			el, err := selfcheck.PlainLoop(ctx, dir, vals, *batch)
			if err != nil {
				return 0, err
			}
			return float64(rows) / el.Seconds(), nil
		}
		checks = append(checks, check{"insert", "rows/s", "plain Go loop", "litebench", plain, lbRun("insert", insertParams, "in-process")})
	}
	if want["read"] {
		table := filepath.Join(dir, "plain-reads.db")
		var made bool
		plain := func(ctx context.Context, pass int) (float64, error) {
			if !made {
				vals, err := selfcheck.Values(ctx, int(rows), 1)
				if err != nil {
					return 0, err
				}
				if err := selfcheck.Create(table, vals); err != nil {
					return 0, err
				}
				made = true
				runtime.GC()
			}
			return selfcheck.PlainReads(ctx, table, rows, *dur)
		}
		checks = append(checks, check{"read", "reads/s", "plain Go loop", "litebench", plain, lbRun("read", readParams, "in-process")})
	}
	if want["placement"] {
		checks = append(checks,
			check{"insert, child process", "rows/s", "in-process", "process", lbRun("insert", insertParams, "in-process"), lbRun("insert", insertParams, "process")},
			check{"read, child process", "reads/s", "in-process", "process", lbRun("read", readParams, "in-process"), lbRun("read", readParams, "process")})
	}
	var summary []string
	for _, c := range checks {
		mr, err := runCheck(ctx, c, *repeat, out, errw)
		if err != nil {
			return err
		}
		verdict := "meets"
		if mr < 0.95 {
			verdict = "misses"
		}
		summary = append(summary, fmt.Sprintf("%-22s %s/%s median paired ratio %.3f (%s the 0.95 goal)", c.name, c.bName, c.aName, mr, verdict))
	}
	fmt.Fprintln(out)
	for _, l := range summary {
		fmt.Fprintln(out, l)
	}
	return nil
}

// runCheck runs a check's two sides interleaved and prints its table; it
// returns the median of the paired ratios b/a.
func runCheck(ctx context.Context, c check, repeat int, out, errw io.Writer) (float64, error) {
	var as, bs, ratios []float64
	tb := &report.Table{Headers: []string{"pass", c.aName + " " + c.unit, c.bName + " " + c.unit, "ratio"}, Right: []bool{true, true, true, true}}
	for i := 0; i < repeat; i++ {
		if ctx.Err() != nil {
			return 0, errStopped
		}
		var a, b float64
		doA := func() (err error) { a, err = c.a(ctx, i+1); return }
		doB := func() (err error) { b, err = c.b(ctx, i+1); return }
		// Which side goes first alternates, so warm-up and drift within a
		// pass favour neither.
		first, second := doA, doB
		if i%2 == 1 {
			first, second = doB, doA
		}
		if err := first(); err != nil {
			return 0, interruptedOr(ctx, err)
		}
		if err := second(); err != nil {
			return 0, interruptedOr(ctx, err)
		}
		as, bs, ratios = append(as, a), append(bs, b), append(ratios, b/a)
		tb.Rows = append(tb.Rows, []string{strconv.Itoa(i + 1), report.Num(a), report.Num(b), fmt.Sprintf("%.3f", b/a)})
		fmt.Fprintf(errw, "%s pass %d/%d: %s %.0f, %s %.0f %s\n", c.name, i+1, repeat, c.aName, a, c.bName, b, c.unit)
	}
	mr := median(ratios)
	tb.Rows = append(tb.Rows, []string{"median", report.Num(median(as)), report.Num(median(bs)), fmt.Sprintf("%.3f", mr)})
	fmt.Fprintf(out, "\n%s\n", c.name)
	if err := tb.Render(out, "table"); err != nil {
		return 0, err
	}
	fmt.Fprintf(out, "median of the %d paired ratios: %.3f; ratio of the medians: %.3f\n", len(ratios), mr, median(bs)/median(as))
	return mr, nil
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
