package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/litebench/litebench/internal/conform"
	"github.com/litebench/litebench/internal/report"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/store"
	"github.com/litebench/litebench/internal/target"
)

const conformHelp = `NAME
    litebench conform - check targets' workers against the Go reference

SYNOPSIS
    litebench conform [--target LIST] [--rows N] [--store FILE | --no-store]

DESCRIPTION
    Runs the same small, seeded, single-worker jobs on each target and on the
    Go reference (the Go worker on mattn, in this process) and compares:
    the rows every schema's data generators write (content digest after
    set-up), the rows a sequence of inserts and a sequence of updates by
    seeded keys leave behind (digest at the end), and, in an open-loop run,
    that what the worker reports adds up (histograms decode and hold every
    operation, response time is never below service time, the operation
    counts add up to what was counted, and the intervals to the final
    counts within one interval).

    Prints a pass/fail table and exits 1 if a check fails. Each target's
    outcome is stored (workload "conform"); later runs on a target whose
    latest conformance check failed carry a note saying so.
`

func cmdConform(ctx context.Context, args []string, out, errw io.Writer) error {
	fs := flag.NewFlagSet("conform", flag.ContinueOnError)
	targets := fs.String("target", "", "comma list of targets to check (default: every external target that is built; any target may be named)")
	rows := fs.Int("rows", 2000, "rows of each job")
	storePath := fs.String("store", "litebench.db", "results store file")
	noStore := fs.Bool("no-store", false, "do not save the outcome")
	page := helpPage{text: conformHelp, examples: []string{"litebench conform", "litebench conform --target python-sqlite3,node-better-sqlite3 --rows 500 --no-store"},
		seeAlso: []string{"list targets", "worker", "suite go-vs-python"},
		exit:    "0 every check passed, 1 a check failed, 2 bad input (nothing was touched), 130 interrupted."}
	if err := parse(fs, args, out, page.help(fs)); err != nil {
		return err
	}
	if *rows < 10 {
		return usagef("--rows %d: want 10 or more", *rows)
	}
	var ts []target.Target
	if *targets == "" {
		all, _ := target.All()
		for _, t := range all {
			if _, ok := t.Client().(target.External); ok && conformable(t) == nil {
				ts = append(ts, t)
			}
		}
		if len(ts) == 0 {
			return usagef("conform: no external target is built; name one with --target, or build the workers ('make workers')")
		}
	} else {
		for _, n := range strings.Split(*targets, ",") {
			t, err := target.Get(strings.TrimSpace(n))
			if err != nil {
				return usagef("--target: %v", err)
			}
			if err := conformable(t); err != nil {
				return usageError{err.Error()}
			}
			ts = append(ts, t)
		}
	}
	ref, err := target.Get(target.Default())
	if err != nil {
		return err
	}
	c := common{store: *storePath, noStore: *noStore, format: "table", repeat: 1, walWarn: "0"}
	if err := c.checkPaths(""); err != nil {
		return err
	}
	var st *store.Store
	if !*noStore {
		if st, err = store.Open(*storePath); err != nil {
			return usageError{err.Error()}
		}
		defer st.Close()
	}
	tb := &report.Table{Headers: []string{"target", "check", "result", "detail"}}
	failed := false
	for _, t := range ts {
		dir, err := os.MkdirTemp("", "litebench-conform-")
		if err != nil {
			return err
		}
		fmt.Fprintf(errw, "conform %s ...\n", t.Name())
		started := time.Now().UTC()
		checks := conform.Run(ctx, t, ref, dir, *rows)
		os.RemoveAll(dir)
		if ctx.Err() != nil {
			return errInterrupted
		}
		r := &results.Result{Schema: results.SchemaVersion, RunID: "conform-" + t.Name() + "-" + started.Format("20060102T150405.000"),
			Workload: "conform", Target: t.Name(), Engine: t.Engine().Name(), Client: t.Client().Name(), Placement: string(t.Placement()),
			Status: results.StatusOK, StartedAt: started, Elapsed: time.Since(started).Seconds(),
			Command: "litebench conform --target " + t.Name()}
		for _, ch := range checks {
			res := "pass"
			switch {
			case ch.Skip:
				res = "n/a"
			case !ch.OK:
				res, failed, r.Status = "FAIL", true, results.StatusFailed
				r.Notes = append(r.Notes, "conformance: "+ch.Name+": "+ch.Detail)
			}
			tb.Rows = append(tb.Rows, []string{t.Name(), ch.Name, res, ch.Detail})
		}
		if r.Status == results.StatusFailed {
			r.Error = fmt.Sprintf("%d conformance check(s) failed", len(r.Notes))
		}
		if st != nil {
			if err := st.Save(r); err != nil {
				return fmt.Errorf("saving the outcome: %w", err)
			}
		}
	}
	if err := tb.Render(out, "table"); err != nil {
		return err
	}
	if failed {
		return errFailed
	}
	return nil
}

// conformNote is the note a run on t carries when t's latest conformance
// check in the store failed, or "".
func conformNote(st *store.Store, t string) string {
	if st == nil {
		return ""
	}
	r, err := st.Latest("conform", t)
	if err != nil || r == nil || r.Status != results.StatusFailed {
		return ""
	}
	return fmt.Sprintf("%s failed its latest conformance check ('litebench conform', %s): %s", t, r.StartedAt.Format("2006-01-02 15:04"), strings.Join(r.Notes, "; "))
}
