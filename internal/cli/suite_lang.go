package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/litebench/litebench/internal/engine/sqlite"
	sweep "github.com/litebench/litebench/internal/plan"
	"github.com/litebench/litebench/internal/report"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/target/external"
)

func init() {
	suites = append(suites, suiteDef{"go-vs-python",
		"Go against Python reading every row of a 1.5M-row table and verifying each row's hash: the time until the query returned, until the first row, and for the whole task (mwmahlberg's sqlite3perf comparison)",
		suiteGoVsPython})
}

// workerTargets are the targets of other languages' workers that this
// checkout has built, in the registry's order, and one line naming the
// ones that are not (nil when every worker is there).
func workerTargets(skip []target.Target) ([]target.Target, []string) {
	var ts []target.Target
	var missing []string
next:
	for _, w := range external.Workers {
		if w.Engine != "" && w.Engine != sqlite.Name {
			continue // a worker of another engine (a cluster), not a language
		}
		for _, t := range skip {
			if t.Name() == w.Name {
				continue next
			}
		}
		t, err := target.Get(w.Name)
		if err != nil {
			if w.Missing == "" { // buildable here, not built
				missing = append(missing, w.Name)
			}
			continue
		}
		ts = append(ts, t)
	}
	return ts, missing
}

// languageSection is suite quick's cross-language table: the ladder's last
// step (prepared inserts in 1000-row transactions, WAL, synchronous=NORMAL)
// and the verified scan, on the suite's targets and on every language's
// worker this checkout has built.
func (s *suiteRun) languageSection(ctx context.Context) error {
	workers, missing := workerTargets(s.targets)
	ladder := s.ladderSteps()
	steps := []step{ladder[len(ladder)-1], s.langScanStep()}
	all := append(append([]target.Target{}, s.targets...), workers...)
	var cells []sweep.Step
	for _, t := range all {
		cells = append(cells, on("languages", steps, t)...)
	}
	rs, err := s.run(ctx, cells)
	if len(rs) > 0 {
		t := languageTable(rs)
		if len(missing) > 0 {
			t.Notes = append(t.Notes, "not built here: "+strings.Join(missing, ", ")+" ('make workers' builds them; 'litebench list targets' says what each needs)")
		}
		if werr := s.emit(t, rs); werr != nil {
			return werr
		}
	}
	return err
}

func (s *suiteRun) langScanStep() step {
	return step{"verified scan", "scan", map[string]string{"rows": s.rows(100000)}, nil}
}

func languageTable(rs []*results.Result) *report.Table {
	t := &report.Table{Title: "Every language on this machine: prepared inserts in 1000-row transactions (WAL, synchronous=NORMAL), then a verified scan",
		Headers: []string{"target", "language", "driver", "SQLite", "insert rows/s", "insert p99 µs", "scan rows/s", "query returned µs", "first row µs", "scan µs/row", "errors"},
		Right:   []bool{false, false, false, false, true, true, true, true, true, true, false}}
	type pair struct{ ins, scan *results.Result }
	var order []string
	by := map[string]*pair{}
	for _, r := range rs {
		p := by[r.Target]
		if p == nil {
			p = &pair{}
			by[r.Target] = p
			order = append(order, r.Target)
		}
		switch r.Workload {
		case "insert":
			p.ins = r
		case "scan":
			p.scan = r
		}
	}
	cell := func(r *results.Result, f func(*results.Result) string) string {
		if r == nil || r.Status != results.StatusOK {
			if r != nil {
				return string(r.Status)
			}
			return "-"
		}
		return f(r)
	}
	for _, name := range order {
		p := by[name]
		first := p.ins
		if first == nil {
			first = p.scan
		}
		errs := map[string]int64{}
		for _, r := range []*results.Result{p.ins, p.scan} {
			if r != nil {
				for k, n := range r.ErrorTotals() {
					errs[k] += n
				}
			}
		}
		driver := first.Client
		if first.ClientVersion != "" {
			driver += " " + first.ClientVersion
		}
		t.Rows = append(t.Rows, []string{name, target.Placement(first.Placement).Language(), driver, first.EngineVersion,
			cell(p.ins, func(r *results.Result) string { return report.Num(r.RowsPerSecond) }),
			cell(p.ins, func(r *results.Result) string { _, p99 := opLat(r, "insert"); return p99 }),
			cell(p.scan, func(r *results.Result) string { return report.Num(r.RowsPerSecond) }),
			cell(p.scan, func(r *results.Result) string { return report.Num(figure(r, "query_returned")) }),
			cell(p.scan, func(r *results.Result) string { return report.Num(figure(r, "first_row")) }),
			cell(p.scan, func(r *results.Result) string { return report.Num(figure(r, "per_row")) }),
			report.ErrorCell(errs)})
	}
	t.Notes = append(t.Notes,
		"Each worker times itself in its own language and process; the data are the same seeded rows everywhere ('litebench conform' checks it).",
		"One run per cell: differences under about ±25% are within a shared machine's noise; 'litebench run insert --target A,B --repeat 5' gives medians.")
	return t
}

// suiteGoVsPython reproduces the comparison of Go's mattn driver with
// Python's sqlite3 module on a full read of sqlite3perf's bench table: every
// row's random value is decoded, hashed and checked against its stored
// hash. Python's figure "until the query returned" looked faster in the
// original; the whole task tells the truth.
func suiteGoVsPython(ctx context.Context, s *suiteRun) error {
	goTargets := s.targets
	var py []target.Target
	var missing []string
	for _, name := range []string{"python-sqlite3", "python-apsw"} {
		t, err := target.Get(name)
		if err != nil {
			if name == "python-sqlite3" {
				return usagef("suite go-vs-python: target python-sqlite3 is not available: %v", err)
			}
			missing = append(missing, name)
			continue
		}
		py = append(py, t)
	}
	st := step{"verified scan", "scan", map[string]string{"rows": s.rows(1500000)}, nil}
	var cells []sweep.Step
	for _, t := range append(append([]target.Target{}, goTargets...), py...) {
		cells = append(cells, on("go vs python", []step{st}, t)...)
	}
	rs, err := s.run(ctx, cells)
	if len(rs) > 0 {
		t := goVsPythonTable(rs)
		if len(missing) > 0 {
			t.Notes = append(t.Notes, "not built here: "+strings.Join(missing, ", ")+" ('make workers' builds them)")
		}
		if werr := s.emit(t, rs); werr != nil {
			return werr
		}
	}
	return err
}

func goVsPythonTable(rs []*results.Result) *report.Table {
	t := &report.Table{Title: "Go and Python reading every row and verifying its hash (sqlite3perf's bench table)",
		Headers: []string{"target", "language", "rows", "query returned", "first row", "whole task", "µs/row", "vs first", "verified"},
		Right:   []bool{false, false, true, true, true, true, true, true, false}}
	var base float64
	for i, r := range rs {
		ratio, v := "-", "yes"
		if r.Status != results.StatusOK {
			v = "NO: " + r.Error
		}
		if i == 0 {
			base = r.Elapsed
		} else if base > 0 && r.Elapsed > 0 {
			ratio = fmt.Sprintf("×%.2f time", r.Elapsed/base)
		}
		t.Rows = append(t.Rows, []string{r.Target, target.Placement(r.Placement).Language(), strconv.FormatInt(r.Rows, 10),
			report.Num(figure(r, "query_returned")) + "µs", report.Num(figure(r, "first_row")) + "µs",
			fmt.Sprintf("%.3fs", r.Elapsed), report.Num(figure(r, "per_row")), ratio, v})
	}
	t.Notes = append(t.Notes,
		"'query returned' is the time until the driver's query call came back; 'first row' until the first row was in hand; 'whole task' reads, decodes, hashes and checks every row.",
		"A driver that defers work until rows are fetched looks fast at the first figure and pays later: compare the whole task.",
		"'vs first' is each whole task's time over the first row's target's (×2.00 = twice as long).")
	return t
}
