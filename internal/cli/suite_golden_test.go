package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	sweep "github.com/litebench/litebench/internal/plan"
	"github.com/litebench/litebench/internal/report"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/target"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run 'go test ./internal/cli -run Golden -update' to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; if the change is intended, run 'go test ./internal/cli -run Golden -update'\n--- got ---\n%s", name, got)
	}
}

// synth makes results for a suite's steps without running anything: the
// cells are planned as the suite plans them, and every figure of a result
// is derived from its position in the suite (no clock, no randomness).
// Positions spread the cases the tables treat apart: errors, failed runs,
// op kinds that never ran, open-loop response times, series of unequal
// length.
type synth struct {
	n   int
	ids *sweep.IDs
}

func newSynth() *synth { return &synth{ids: sweep.NewIDs("golden")} }

func lat(base float64) results.Latency {
	return results.Latency{"count": 1000, "min": base * 0.25, "mean": base * 1.1, "max": base * 40,
		"p50": base, "p75": base * 1.3, "p90": base * 1.8, "p95": base * 2.4, "p99": base * 4.5, "p999": base * 12}
}

// results plans steps in section on each target in turn, as the suite
// does, and returns a synthetic result per cell.
func (y *synth) results(t *testing.T, section string, steps []step, targets ...string) []*results.Result {
	t.Helper()
	var all []sweep.Step
	for _, name := range targets {
		tg, err := target.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, on(section, steps, tg)...)
	}
	cells, err := sweep.StepCells("golden", y.ids, all)
	if err != nil {
		t.Fatal(err)
	}
	var rs []*results.Result
	for _, c := range cells {
		y.n++
		i, f := y.n, float64(y.n)
		r := &results.Result{RunID: c.RunID, SweepID: c.SweepID, Workload: c.Workload.Name(), Target: c.Target.Name(),
			Settings: c.Settings.Map(), Params: c.Params, Label: c.Label, Status: results.StatusOK,
			StartedAt: time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC), Command: c.Command,
			Rows: int64(1000 * i), Elapsed: 0.5 + 0.25*f,
			Section: c.Section, Metrics: []results.Metric{{Name: "query_returned", Unit: "µs", Value: 40 + 3*f}, {Name: "first_row", Unit: "µs", Value: 2 + f},
				{Name: "per_row", Unit: "µs", Value: 0.05 * f}, {Name: "table_rows_before", Unit: "rows", Value: 1000 * f},
				{Name: "table_rows_after", Unit: "rows", Value: 1000*f + 500}, {Name: results.WantedRate, Unit: "ops/s", Value: 1000}}}
		if i%7 != 3 {
			r.RowsPerSecond = float64(r.Rows) / r.Elapsed
		}
		open := c.Params["rate"] != "" && c.Params["rate"] != "0"
		for k, name := range c.Workload.Ops() {
			o := results.Op{Name: name, Count: int64(900*i + 100*k), Late: int64(i % 3), Service: lat(10*f + 7*float64(k))}
			if i%6 == 5 && k == 0 {
				o.Count = 0
			}
			if open {
				o.Response = lat(15*f + 7*float64(k))
			}
			if i%4 == 2 {
				o.Errors = map[string]int64{"busy": int64(i), "locked": 1}
			}
			r.Ops = append(r.Ops, o)
		}
		for s := 0; s < i%3+2; s++ {
			r.Series = append(r.Series, results.Point{T: float64(s + 1), Rows: int64(s * 100),
				WALBytes: int64((s + 1) * i * 40960), WALSeq: int64(s * (i % 4))})
		}
		if i%5 == 4 {
			r.Status, r.Error = results.StatusFailed, "synthetic failure in "+c.Label
		}
		rs = append(rs, r)
	}
	return rs
}

func render(t *testing.T, b *bytes.Buffer, tables ...*report.Table) {
	t.Helper()
	for _, tb := range tables {
		if err := tb.Render(b, "table"); err != nil {
			t.Fatal(err)
		}
	}
}

func goldenSuite() *suiteRun {
	var c common
	fs := pflag.NewFlagSet("suite", pflag.ContinueOnError)
	c.register(fs)
	return &suiteRun{c: &c, flags: registerSuiteFlags(fs), scale: 1}
}

func TestGoldenSuiteQuick(t *testing.T) {
	s, y := goldenSuite(), newSynth()
	var b bytes.Buffer
	ladder := s.ladderSteps()
	render(t, &b, ladderTable(ladder, y.results(t, "ladder", ladder, "mattn", "modernc")))
	render(t, &b, batchTable(y.results(t, "batch size", s.batchSteps(), "mattn", "modernc")))
	prep := s.prepSteps()
	render(t, &b, prepTable(prep, y.results(t, "prepared", prep, "mattn", "modernc")))
	render(t, &b, scanTable(y.results(t, "scan", s.scanSteps(), "mattn", "modernc", "zombie")))
	golden(t, "suite-quick.txt", b.Bytes())
}

func TestGoldenSuiteGoSQLiteBench(t *testing.T) {
	s, y := goldenSuite(), newSynth()
	d, err := s.flags.cellDuration()
	if err != nil {
		t.Fatal(err)
	}
	tb := gsbTable("mattn", d)
	for _, sec := range gsbSections {
		tb.Rows = append(tb.Rows, gsbRows(sec.name, sec.cells, y.results(t, sec.name, s.gsbSteps(sec.cells, d), "mattn"))...)
	}
	tb.Notes = append(tb.Notes, gsbNotes...)
	var b bytes.Buffer
	render(t, &b, tb)
	golden(t, "suite-go-sqlite-bench.txt", b.Bytes())
}

func TestGoldenSuiteLimits(t *testing.T) {
	s, y := goldenSuite(), newSynth()
	cases := limitsCases(s.flags, s)
	notes := []string{"memory limit not applied: synthetic reason", "limits in force: cpus=2 memory=0B"}
	var b bytes.Buffer
	for i, r := range y.results(t, "limits", cases, "mattn") {
		var n []string
		if i == 0 {
			n = notes
		}
		render(t, &b, limitsTable(cases[i].label, r, n))
	}
	golden(t, "suite-limits.txt", b.Bytes())
}

func TestGoldenSuiteWALGrowth(t *testing.T) {
	s, y := goldenSuite(), newSynth()
	steps := s.walGrowthSteps()
	sum, series := walGrowthTables(steps, y.results(t, "wal-growth", steps, "mattn", "modernc"))
	var b bytes.Buffer
	render(t, &b, sum, series)
	golden(t, "suite-wal-growth.txt", b.Bytes())
}

func TestGoldenSuiteTurriate(t *testing.T) {
	s, y := goldenSuite(), newSynth()
	steps := s.turriateSteps()
	rs := y.results(t, "http ladder", steps, "mattn")
	var b bytes.Buffer
	// The seed's drivers are workers this test does not need built: their
	// rows are planned in TestSuiteHTTPLadderRows; here they are skipped.
	render(t, &b, turriateTable(steps, rs, []string{"go-sqlite-lite skipped: (why)", "go-crawshaw skipped: (why)"}))
	golden(t, "suite-turriate.txt", b.Bytes())
	// The direct step runs on a direct-API target although --target is mattn.
	if last := rs[len(rs)-1]; last.Target != "zombie" || !strings.Contains(b.String(), "direct driver, statement pool (20)                  zombie") {
		t.Errorf("direct step on %s:\n%s", last.Target, b.String())
	}
}

func TestGoldenSuiteLanguages(t *testing.T) {
	s, y := goldenSuite(), newSynth()
	ladder := s.ladderSteps()
	steps := []step{ladder[len(ladder)-1], s.langScanStep()}
	rs := y.results(t, "languages", steps, "mattn", "modernc", "zombie")
	for _, r := range rs {
		r.Client, r.EngineVersion = r.Target, "3.54.1"
		if r.Target == "zombie" { // stands for a worker of another language
			r.Placement, r.ClientVersion = "process:python", "3.11.7"
		}
	}
	var b bytes.Buffer
	render(t, &b, languageTable(rs))
	out := b.String()
	if !strings.Contains(out, "python") || strings.Count(out, "\nmattn ") != 1 {
		t.Errorf("one row per target with its language expected:\n%s", out)
	}
	golden(t, "suite-languages.txt", b.Bytes())
}

func TestGoldenSuiteGoVsPython(t *testing.T) {
	y := newSynth()
	st := step{"verified scan", "scan", map[string]string{"rows": "1500000"}, nil}
	rs := y.results(t, "go vs python", []step{st}, "mattn", "zombie", "modernc")
	rs[1].Placement = "process:python"
	var b bytes.Buffer
	render(t, &b, goVsPythonTable(rs))
	golden(t, "suite-go-vs-python.txt", b.Bytes())
}

func TestGoldenSuiteOutgrow(t *testing.T) {
	s, y := goldenSuite(), newSynth()
	var rs []*results.Result
	for _, lv := range outgrowLevels {
		// In-process targets stand for the servers here: the table is
		// what is checked, and it reads only results.
		for i, e := range outgrowEngines("mattn")[:3] {
			st := s.outgrowSteps(e, lv.sync)
			rs = append(rs, y.results(t, lv.label, []step{st}, []string{"mattn", "modernc", "zombie"}[i])...)
		}
	}
	var b bytes.Buffer
	render(t, &b, outgrowTable(rs))
	out := b.String()
	if strings.Count(out, "\ndurable ") != 3 || strings.Count(out, "\nrelaxed ") != 3 {
		t.Errorf("three engines at each durability expected:\n%s", out)
	}
	golden(t, "suite-outgrow.txt", b.Bytes())
}
