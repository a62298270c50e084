package report

import (
	"fmt"
	"strconv"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/units"
)

// Processes builds the table of runs of several processes on one
// database (--processes): one row per process and one with their sum (the
// counts, rows in their ranges, errors and retries added; the rate the run's
// headline, its count over the longest process's time; the WAL the
// largest seen). Nil when no run has processes.
func Processes(rs []*results.Result) *Table {
	var t *Table
	for _, r := range rs {
		if len(r.Processes) == 0 {
			continue
		}
		if t == nil {
			t = &Table{Title: "processes",
				Headers: []string{"run", "process", "status", "inserts from", "count", "seconds", "rate", "in its range", "busy", "errors", "retries", "WAL at start", "WAL max"},
				Right:   []bool{false, false, false, true, true, true, true, true, true, false, true, true, true}}
			t.Notes = append(t.Notes, "rate: each process's count over its measured time; the sum's, the count of all over the longest process's time",
				"busy: busy and locked errors; the WAL is the database's, shared by every process: its size while a process ran is every writer's doing")
		}
		unit := units.Count(r.Headline().Unit)
		var sum results.Process
		sum.Errors = map[string]int64{}
		for _, p := range r.Processes {
			from := "-"
			if p.InsertFrom > 0 || p.InsertTo > 0 {
				from = strconv.FormatInt(p.InsertFrom, 10)
			}
			t.Rows = append(t.Rows, []string{r.RunID, strconv.Itoa(p.Index), p.Status, from,
				strconv.FormatInt(p.Count, 10), fmt.Sprintf("%.3f", p.Elapsed), Num(p.Rate) + " " + unit + "/s",
				strconv.FormatInt(p.RowsInRange, 10), strconv.FormatInt(p.Busy(), 10), ErrorCell(p.Errors),
				strconv.FormatInt(p.Retries, 10), walCell(p.WALStart), walCell(p.WALMax)})
			sum.Count += p.Count
			sum.RowsInRange += p.RowsInRange
			sum.Retries += p.Retries
			sum.Elapsed = max(sum.Elapsed, p.Elapsed)
			sum.WALMax = max(sum.WALMax, p.WALMax)
			for k, n := range p.Errors {
				sum.Errors[k] += n
			}
		}
		t.Rows = append(t.Rows, []string{r.RunID, "sum", r.Status, "-",
			strconv.FormatInt(sum.Count, 10), fmt.Sprintf("%.3f", sum.Elapsed), Num(r.Headline().Value) + " " + unit + "/s",
			strconv.FormatInt(sum.RowsInRange, 10), strconv.FormatInt(sum.Busy(), 10), ErrorCell(sum.Errors),
			strconv.FormatInt(sum.Retries, 10), "-", walCell(sum.WALMax)})
	}
	return t
}

func walCell(n int64) string {
	if n == 0 {
		return "-"
	}
	return units.Bytes(n)
}
