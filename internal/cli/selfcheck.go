package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strconv"

	"litebench/internal/report"
	"litebench/internal/results"
	"litebench/internal/runner"
	"litebench/internal/selfcheck"
	"litebench/internal/settings"
	"litebench/internal/target"
	"litebench/internal/workload"
)

func cmdSelfcheck(ctx context.Context, args []string, out, errw io.Writer) error {
	help := simpleHelp(`NAME
    litebench selfcheck - measure litebench's overhead against a plain Go loop

SYNOPSIS
    litebench selfcheck [--rows N] [--repeat K] [--batch B]

DESCRIPTION
    Inserts N bench rows with mattn (WAL, synchronous=OFF, prepared, B rows
    per transaction) K times each way, interleaved, the side that goes first
    alternating: once as a plain Go loop over values generated before the
    clock starts, once as 'litebench insert' with the same settings. Prints every pass, the medians, and the median of
    the per-pass ratios (each pass's two sides run back to back, so the
    paired ratio cancels most of a noisy machine's drift); litebench
    should reach at least 0.95.
`)
	fs := flag.NewFlagSet("selfcheck", flag.ContinueOnError)
	rowsS := fs.String("rows", "1000000", "rows per pass")
	repeat := fs.Int("repeat", 5, "passes per side")
	batch := fs.Int("batch", 1000, "rows per transaction")
	if err := parse(fs, args, out, help); err != nil {
		return err
	}
	rows, err := settings.ParseCount(*rowsS)
	if err != nil || rows < 1 {
		return usagef("--rows %q: want a positive whole number", *rowsS)
	}
	if *repeat < 1 || *batch < 1 {
		return usagef("--repeat and --batch must be at least 1")
	}
	dir, err := os.MkdirTemp("", "litebench-selfcheck-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	t, err := target.Get("mattn")
	if err != nil {
		return err
	}
	s := settings.Default()
	for k, v := range map[string]string{"journal": "wal", "sync": "off", "prepared": "true", "batch": strconv.Itoa(*batch)} {
		s.Set(k, v)
	}
	spec, _ := workload.Get("insert")
	var plain, lb []float64
	tb := &report.Table{Headers: []string{"pass", "plain Go loop rows/s", "litebench rows/s", "ratio"}, Right: []bool{true, true, true, true}}
	for i := 0; i < *repeat; i++ {
		if ctx.Err() != nil {
			return errStopped
		}
		// Which side goes first alternates, so warm-up and drift within a
		// pass favour neither.
		var p float64
		var r *results.Result
		plainPass := func() error {
			// Values are built per pass and dropped before litebench's pass,
			// so neither side runs with the other's heap live.
			vals, err := selfcheck.Values(ctx, int(rows), 1)
			if err != nil {
				return err
			}
			runtime.GC()
			el, err := selfcheck.PlainLoop(ctx, dir, vals, *batch)
			if err != nil {
				return err
			}
			vals = nil
			runtime.GC()
			p = float64(rows) / el.Seconds()
			return nil
		}
		lbPass := func() error {
			w, err := spec.New(map[string]string{"rows": strconv.FormatInt(rows, 10), "schema": "bench", "workers": "1", "seed": "1", "vacuum": "false"}, s)
			if err != nil {
				return err
			}
			runtime.GC()
			r = runner.Run(ctx, runner.Spec{RunID: fmt.Sprintf("selfcheck-%d", i), Workload: w, Target: t, Settings: s, Dir: dir})
			if r.Status == results.StatusInterrupted {
				return context.Canceled
			}
			if r.Status != "ok" {
				return fmt.Errorf("litebench pass %d: %s %s", i+1, r.Status, r.Error)
			}
			return nil
		}
		first, second := plainPass, lbPass
		if i%2 == 1 {
			first, second = lbPass, plainPass
		}
		if err := first(); err != nil {
			return interruptedOr(ctx, err)
		}
		if err := second(); err != nil {
			return interruptedOr(ctx, err)
		}
		plain, lb = append(plain, p), append(lb, r.RowsPerSecond)
		tb.Rows = append(tb.Rows, []string{strconv.Itoa(i + 1), report.Num(p), report.Num(r.RowsPerSecond), fmt.Sprintf("%.3f", r.RowsPerSecond/p)})
		fmt.Fprintf(errw, "pass %d/%d: plain %.0f rows/s, litebench %.0f rows/s\n", i+1, *repeat, p, r.RowsPerSecond)
	}
	mp, ml := median(plain), median(lb)
	ratios := make([]float64, len(lb))
	for i := range lb {
		ratios[i] = lb[i] / plain[i]
	}
	mr := median(ratios)
	tb.Rows = append(tb.Rows, []string{"median", report.Num(mp), report.Num(ml), fmt.Sprintf("%.3f", mr)})
	if err := tb.Render(out, "table"); err != nil {
		return err
	}
	verdict := "meets"
	if mr < 0.95 {
		verdict = "misses"
	}
	fmt.Fprintf(out, "\nmedian of the %d paired ratios: %.3f (%s the 0.95 goal); ratio of the medians: %.3f\n", len(ratios), mr, verdict, ml/mp)
	return nil
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
