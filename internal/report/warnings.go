package report

import (
	"fmt"
	"strings"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/stats"
)

// walWarn is the WAL size past which the summary warns of WAL growth (the
// default of --wal-warn).
const walWarn = 64 << 20

// minCIRuns is how many runs the 95% interval of a median needs.
const minCIRuns = 6

// warnings says in words what a reader must know before trusting the
// figures: runs that did not finish, errors, repetitions too few or too
// far apart, open-loop runs that fell behind their rate, WAL growth,
// durability classes, and the runs' own notes.
func (b *builder) warnings(rs []*results.Result) {
	d := b.d
	ref := func(i int) string { return "#" + itoa(d.Cells[i].Index) }
	var failed, errs, spread, slow, wal, dur []string
	maxN, minN, repeated := 0, 0, false
	for i, c := range d.Cells {
		maxN = max(maxN, c.Runs)
		if i == 0 || c.Runs < minN {
			minN = c.Runs
		}
		repeated = repeated || c.Runs > 1
		if c.N < c.Runs {
			var why []string
			for _, ri := range c.RunInfo {
				if ri.Status != results.StatusOK {
					why = append(why, ri.Status)
				}
			}
			failed = append(failed, fmt.Sprintf("%s (%s)", ref(i), strings.Join(why, ", ")))
		}
		if c.Errors != "0" && c.Errors != "" {
			errs = append(errs, ref(i)+" "+c.Errors)
		}
		if c.N > 1 && c.Spread > stats.SpreadWarn {
			spread = append(spread, fmt.Sprintf("%s %.0f%%", ref(i), 100*c.Spread))
		}
		if c.Wanted > 0 && c.Achieved < 0.95*c.Wanted {
			slow = append(slow, fmt.Sprintf("%s achieved %s of %s wanted (%.0f%%)", ref(i), si(c.Achieved), si(c.Wanted), 100*c.Achieved/c.Wanted))
		}
		if r := c.rep; r != nil {
			peak, moved := 0.0, false
			for k, p := range r.Series {
				peak = max(peak, float64(p.WALBytes))
				moved = moved || (k > 0 && p.WALSeq != r.Series[k-1].WALSeq)
			}
			if v, ok := r.Metric(results.WALSize); ok {
				peak = max(peak, v)
			}
			if peak >= walWarn {
				s := ref(i) + " reached " + iec(peak)
				if len(r.Series) > 1 && !moved {
					s += " with no checkpoint completing"
				}
				wal = append(wal, s)
			}
		}
		if v := c.labels["durability"]; v != "" {
			dur = append(dur, ref(i)+" "+v)
		}
	}
	add := func(s string) { d.Warnings = append(d.Warnings, s) }
	if len(failed) > 0 {
		add(fmt.Sprintf("Runs that did not finish ok are left out of the figures: %s.", list(failed)))
	}
	if len(errs) > 0 {
		add(fmt.Sprintf("Errors were counted in %s: %s.", cellsWord(len(errs)), list(errs)))
	}
	if len(spread) > 0 {
		add(fmt.Sprintf("Repetitions spread more than %.0f%% in %s: %s; differences smaller than that are noise.",
			100*stats.SpreadWarn, cellsWord(len(spread)), list(spread)))
	}
	switch {
	case len(d.Cells) > 0 && maxN == 1:
		add(fmt.Sprintf("Each cell ran once: there is no confidence interval or spread; --repeat %d gives both.", minCIRuns))
	case repeated && minN < minCIRuns:
		add(fmt.Sprintf("Some cells ran %d times: the 95%% interval of a median needs %d runs (--repeat %d); with fewer it is unbounded (±∞).",
			minN, minCIRuns, minCIRuns))
	}
	if len(slow) > 0 {
		add(fmt.Sprintf("Open-loop runs fell behind their rate, so their response times include the queue: %s.", list(slow)))
	}
	if len(wal) > 0 {
		add(fmt.Sprintf("The WAL grew past %s: %s (checkpoints could not keep up; see the WAL panels).", iec(walWarn), list(wal)))
	}
	if len(dur) > 0 {
		add(fmt.Sprintf("Durability, as audited: %s.", list(dur)))
	}
	// The runs' own warnings (results.Result.Judge's rule, an audit's
	// unverified trials), each with its cell.
	warned := map[string][]string{}
	for _, r := range rs {
		if len(r.Warnings) > 0 {
			warned[r.RunID] = r.Warnings
		}
	}
	for i, c := range d.Cells {
		for _, ri := range c.RunInfo {
			for _, w := range warned[ri.RunID] {
				add(fmt.Sprintf("%s (%s): %s.", ref(i), ri.RunID, w))
			}
		}
	}
	// The runs' own notes, each once, with the cells that have it.
	cellOf := map[string]int{}
	for i, c := range d.Cells {
		for _, ri := range c.RunInfo {
			cellOf[ri.RunID] = i
		}
	}
	notes := map[string][]string{}
	var order []string
	for _, r := range rs {
		for _, n := range r.Notes {
			if _, ok := notes[n]; !ok {
				order = append(order, n)
			}
			if c := ref(cellOf[r.RunID]); !contains(notes[n], c) {
				notes[n] = append(notes[n], c)
			}
		}
	}
	// Checks that passed are listed as passed, not as warnings.
	var rest []string
	for _, n := range order {
		if passedCheck(n) {
			d.Passed = append(d.Passed, fmt.Sprintf("%s: %s", list(notes[n]), n))
		} else {
			rest = append(rest, n)
		}
	}
	order = rest
	for k, n := range order {
		if k == maxListed {
			add(fmt.Sprintf("and %d more notes (see each run's notes in 'litebench show').", len(order)-maxListed))
			break
		}
		add(fmt.Sprintf("%s: %s", list(notes[n]), n))
	}
}

// list joins items, naming at most maxListed of them.
func list(items []string) string {
	if len(items) > maxListed {
		return strings.Join(items[:maxListed], ", ") + fmt.Sprintf(" and %d more", len(items)-maxListed)
	}
	return strings.Join(items, ", ")
}

func cellsWord(n int) string {
	if n == 1 {
		return "1 cell"
	}
	return itoa(n) + " cells"
}
