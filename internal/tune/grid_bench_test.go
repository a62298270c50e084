package tune_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/audit"
	"github.com/litebench/litebench/internal/plan"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/runner"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
	_ "github.com/litebench/litebench/internal/target/all"
	"github.com/litebench/litebench/internal/tune"
	"github.com/litebench/litebench/internal/workload"
)

// settingsOf is the settings of the cell whose key is key.
func settingsOf(sp *tune.Space, key string, cells []tune.Cell) settings.Settings {
	for _, c := range cells {
		if sp.Key(c) == key {
			return sp.Settings(c)
		}
	}
	return sp.Base
}

// envInt reads a size from the environment.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// BenchmarkTuneVsGrid measures the search against an exhaustive grid on
// real SQLite: insert on mattn (LITEBENCH_TUNE_ROWS rows, 100 per
// transaction) over 3 journal modes × 3 synchronous levels × 6 binary
// settings = 576 cells, of which may-lose-acknowledged keeps 256. The
// grid runs every kept cell LITEBENCH_TUNE_GRID_REPEAT times (3),
// interleaved; the tune then runs with a budget of a quarter of the
// grid's runs. It reports the grid's best median, the grid's median of
// the tune's answer and their ratio, and the runs each used.
//
//	go test -run '^$' -bench TuneVsGrid -benchtime 1x ./internal/tune
//
// LITEBENCH_TUNE_VERIFY (10) is how many interleaved runs each of the
// grid's best and the tune's answer get once both are done, to compare
// them without the grid's winner's curse. LITEBENCH_TUNE_AXES=3 keeps the first three binary settings (72 cells,
// 32 kept) for a quick look.
func BenchmarkTuneVsGrid(b *testing.B) {
	rows := envInt("LITEBENCH_TUNE_ROWS", 5000)
	repeat := envInt("LITEBENCH_TUNE_GRID_REPEAT", 3)
	nAxes := envInt("LITEBENCH_TUNE_AXES", 6)
	wsp, err := workload.Get("insert")
	if err != nil {
		b.Fatal(err)
	}
	t, err := target.Get("mattn")
	if err != nil {
		b.Fatal(err)
	}
	base := settings.Default()
	for k, v := range wsp.SettingDefaults {
		base.Set(k, v)
	}
	base.Set("batch", "100")
	axes := []tune.Axis{tune.JournalSync([]string{"delete", "truncate", "wal"}, []string{"off", "normal", "full"})}
	for _, kv := range [][2]string{{"cache-size", "-65536"}, {"page-size", "16384"}, {"locking-mode", "exclusive"},
		{"temp-store", "memory"}, {"tx", "immediate"}, {"mmap-size", "268435456"}}[:nAxes] {
		def := settings.Lookup(kv[0]).Default
		axes = append(axes, tune.Axis{Keys: []string{kv[0]}, Values: [][]string{{def}, {kv[1]}}})
	}
	sp := &tune.Space{Base: base, Axes: axes, Require: audit.MayLoseAcknowledged,
		Class: tune.SQLiteClass(func(string) (string, string) { return "delete", "normal" })}
	cells := sp.EligibleCells()
	params := map[string][]string{"rows": {strconv.Itoa(rows)}}
	dir := b.TempDir()
	ids := plan.NewIDs("bench")
	ctx := context.Background()
	run := func(s settings.Settings) (float64, error) {
		m := settings.NewMatrix()
		m.Base = s
		pl, err := plan.Build(plan.Request{Workload: wsp, Params: params, Settings: m, Targets: []target.Target{t}, IDs: ids})
		if err != nil {
			return 0, err
		}
		c := pl.Cells[0]
		c.Dir = dir
		r := runner.Run(ctx, c.Spec)
		if r.Status != results.StatusOK {
			return 0, fmt.Errorf("%s: %s", c.Label, r.Error)
		}
		return r.Headline().Value, nil
	}
	// LITEBENCH_TUNE_LOG=FILE writes every run of the tune and its trace
	// there.
	var logf *os.File
	if p := os.Getenv("LITEBENCH_TUNE_LOG"); p != "" {
		if logf, err = os.Create(p); err != nil {
			b.Fatal(err)
		}
		defer logf.Close()
	}
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		grid := map[string][]float64{}
		for rep := 0; rep < repeat; rep++ {
			for _, c := range cells {
				v, err := run(sp.Settings(c))
				if err != nil {
					b.Fatal(err)
				}
				grid[sp.Key(c)] = append(grid[sp.Key(c)], v)
			}
		}
		gridTime := time.Since(t0)
		med := func(v []float64) float64 {
			x := append([]float64(nil), v...)
			sort.Float64s(x)
			if len(x)%2 == 1 {
				return x[len(x)/2]
			}
			return (x[len(x)/2-1] + x[len(x)/2]) / 2
		}
		bestKey, best := "", 0.0
		for k, v := range grid {
			if m := med(v); m > best {
				bestKey, best = k, m
			}
		}
		gridRuns := len(cells) * repeat
		start := sp.Start(base)
		for v, tuple := range axes[0].Values {
			if tuple[0] == "delete" && tuple[1] == "full" {
				start[0] = v
			}
		}
		t1 := time.Now()
		s := tune.New(sp, tune.Config{Higher: true, Budget: gridRuns / 4, Start: start}, func(ctx context.Context, c tune.Cell) (tune.Sample, error) {
			v, err := run(sp.Settings(c))
			if logf != nil {
				fmt.Fprintf(logf, "run %s: %.0f\n", sp.Key(c), v)
			}
			return tune.Sample{Value: v}, err
		})
		res, err := s.Search(ctx)
		if err != nil {
			b.Fatal(err)
		}
		tuneTime := time.Since(t1)
		runs, _ := s.Runs()
		got := med(grid[sp.Key(res.Best)])
		// The grid's best is the largest of many noisy medians, so it
		// overstates its cell (the winner's curse). Run both answers
		// again, interleaved, LITEBENCH_TUNE_VERIFY times each, and compare
		// those medians too.
		verify := envInt("LITEBENCH_TUNE_VERIFY", 10)
		bestCell, _ := sp.Find(settingsOf(sp, bestKey, cells))
		var vg, vt []float64
		for k := 0; k < verify; k++ {
			for _, side := range []struct {
				c   tune.Cell
				out *[]float64
			}{{bestCell, &vg}, {res.Best, &vt}} {
				v, err := run(sp.Settings(side.c))
				if err != nil {
					b.Fatal(err)
				}
				*side.out = append(*side.out, v)
			}
		}
		b.ReportMetric(med(vt)/med(vg), "verified-ratio")
		b.Logf("verified, %d interleaved runs each: grid's best %.0f rows/s, tune's answer %.0f rows/s: ratio %.3f", verify, med(vg), med(vt), med(vt)/med(vg))
		b.ReportMetric(float64(sp.Size()), "space-cells")
		b.ReportMetric(float64(len(cells)), "kept-cells")
		b.ReportMetric(float64(gridRuns), "grid-runs")
		b.ReportMetric(float64(runs), "tune-runs")
		b.ReportMetric(got/best, "ratio")
		b.Logf("space %d cells, %d kept by %s; grid %d runs in %s, best %s at %.0f rows/s", sp.Size(), len(cells), sp.Require, gridRuns, gridTime.Round(time.Second), bestKey, best)
		b.Logf("tune %d runs (%.0f%% of the grid's) in %s, stopped %q: %s, grid median %.0f rows/s (tune's own %.0f): ratio %.3f",
			runs, 100*float64(runs)/float64(gridRuns), tuneTime.Round(time.Second), res.Stopped, sp.Key(res.Best), got, s.Median(res.Best), got/best)
		for _, l := range res.Trace {
			b.Logf("  %s", l)
			if logf != nil {
				fmt.Fprintln(logf, l)
			}
		}
	}
}
