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
    per transaction) K times each way, interleaved: once as a plain Go loop
    over values generated before the clock starts, once as 'litebench insert'
    with the same settings. Prints every pass and the medians; litebench
    should reach at least 95% of the plain loop.
`)
	fs := flag.NewFlagSet("selfcheck", flag.ContinueOnError)
	rowsS := fs.String("rows", "1000000", "rows per pass")
	repeat := fs.Int("repeat", 3, "passes per side")
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
			return errInterrupted
		}
		// Values are built per pass and dropped before litebench's pass, so
		// neither side runs with the other's heap live.
		vals := selfcheck.Values(int(rows), 1)
		runtime.GC()
		el, err := selfcheck.PlainLoop(dir, vals, *batch)
		if err != nil {
			return err
		}
		vals = nil
		runtime.GC()
		p := float64(rows) / el.Seconds()
		w, err := spec.New(map[string]string{"rows": strconv.FormatInt(rows, 10), "schema": "bench", "workers": "1", "seed": "1", "vacuum": "false"}, s)
		if err != nil {
			return err
		}
		r := runner.Run(ctx, runner.Spec{RunID: fmt.Sprintf("selfcheck-%d", i), Workload: w, Target: t, Settings: s, Dir: dir})
		if r.Status != "ok" {
			return fmt.Errorf("litebench pass %d: %s %s", i+1, r.Status, r.Error)
		}
		plain, lb = append(plain, p), append(lb, r.RowsPerSecond)
		tb.Rows = append(tb.Rows, []string{strconv.Itoa(i + 1), report.Num(p), report.Num(r.RowsPerSecond), fmt.Sprintf("%.3f", r.RowsPerSecond/p)})
		fmt.Fprintf(errw, "pass %d/%d: plain %.0f rows/s, litebench %.0f rows/s\n", i+1, *repeat, p, r.RowsPerSecond)
	}
	mp, ml := median(plain), median(lb)
	tb.Rows = append(tb.Rows, []string{"median", report.Num(mp), report.Num(ml), fmt.Sprintf("%.3f", ml/mp)})
	return tb.Render(out, "table")
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
