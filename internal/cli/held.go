package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/litebench/litebench/internal/engine/sqlite"
	"github.com/litebench/litebench/internal/own"
	"github.com/litebench/litebench/internal/runner"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/workload"
)

// reloadUsage is --reload's help line.
const reloadUsage = "remove the bench database --db names (one litebench created) and load --rows afresh; without it, the bench rows it holds are read as they are"

// readsHeld reports whether spec's workload reads the bench rows a kept
// --db holds (scan, paginate) rather than starting from an empty file.
func readsHeld(spec *workload.Spec) bool {
	p := map[string]string{}
	for _, ps := range spec.Params {
		p[ps.Name] = ps.Default
	}
	w, err := spec.New(p, settings.Default())
	if err != nil {
		return false
	}
	_, ok := w.(runner.Reuser)
	return ok
}

// adoptHeld makes a workload that reads the bench rows of a kept --db use
// the rows the file holds: unless --reload is given, --rows becomes their
// count, a --rows that differs is refused, and so is a file whose tables do
// not fit the workload. It returns the note that says so (printed before
// anything runs) and whether --rows changed (the plan is built again).
// With --reload nothing is read: the file is removed once the plan holds
// it (reload).
func adoptHeld(ctx context.Context, p *plan, params map[string]*string, given map[string]bool, reload bool) (string, bool, error) {
	c := p.c
	switch {
	case reload && p.dbPath == "":
		return "", false, usagef("--reload needs --db FILE: the kept bench database to load afresh")
	case reload && c.attach:
		return "", false, usagef("--reload: an attached database is read as it is; leave out --attach or --reload")
	case p.dbPath == "" || c.attach || !p.usesFile() || reload:
		return "", false, nil
	}
	in, err := own.Read(p.dbPath)
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, usagef("--db: %v", err)
	}
	v, err := own.OpenView(p.dbPath, in)
	if err != nil {
		return "", false, err
	}
	defer v.Close()
	t, err := inProcessTarget("--db", target.Default())
	if err != nil {
		t, err = target.Get(target.InProcessNames()[0])
		if err != nil {
			return "", false, err
		}
	}
	d, err := t.Open(ctx, sqlite.ReadOnly(v.Path, v.Immutable), target.PoolOptions{})
	if err != nil {
		return "", false, usagef("--db %s: open: %v", p.dbPath, err)
	}
	defer d.Close()
	var tables []string
	err = d.Query(ctx, "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name", nil, func(r target.Row) error {
		var n string
		err := r.Scan(&n)
		tables = append(tables, n)
		return err
	})
	if err != nil {
		return "", false, usagef("--db %s: %v", p.dbPath, err)
	}
	sc := workload.Schemas["bench"]
	what := p.specs[0].Workload.Name()
	rows := *params["rows"]
	bench := ""
	for _, n := range tables {
		if strings.EqualFold(n, sc.Table) {
			bench = n
		}
	}
	if bench == "" {
		if len(tables) == 0 {
			return "", false, nil // an empty database: the rows are loaded
		}
		return "", false, usagef("--db %s holds table %s, not the %s table %s reads; pass --reload to replace it with %s bench rows, or name another file",
			p.dbPath, strings.Join(tables, ", "), sc.Table, what, rows)
	}
	cols := map[string]bool{}
	err = d.Query(ctx, "SELECT name FROM pragma_table_info('"+bench+"')", nil, func(r target.Row) error {
		var n string
		err := r.Scan(&n)
		cols[strings.ToLower(n)] = true
		return err
	})
	if err != nil {
		return "", false, usagef("--db %s: %v", p.dbPath, err)
	}
	for _, col := range sc.Columns {
		if !cols[strings.ToLower(col)] {
			return "", false, usagef("--db %s: its %s table has no column %s, so %s cannot read it; pass --reload to replace it with %s bench rows, or name another file",
				p.dbPath, bench, col, what, rows)
		}
	}
	var n int64
	err = d.Query(ctx, `SELECT count(*) FROM "`+bench+`"`, nil, func(r target.Row) error { return r.Scan(&n) })
	if err != nil {
		return "", false, usagef("--db %s: %v", p.dbPath, err)
	}
	if given["rows"] {
		for _, s := range strings.Split(rows, ",") {
			if want, err := settings.ParseCount(strings.TrimSpace(s)); err == nil && want != n {
				return "", false, usagef("--rows %s: --db %s holds %d bench rows; leave out --rows to %s them, or pass --reload to load %s afresh",
					rows, p.dbPath, n, what, strings.TrimSpace(s))
			}
		}
	}
	if n == 0 {
		return "", false, nil
	}
	note := fmt.Sprintf("--db %s holds %d bench rows: %s reads them as they are (--reload loads --rows afresh)", p.dbPath, n, what)
	held := strconv.FormatInt(n, 10)
	if rows == held {
		return note, false, nil
	}
	*params["rows"] = held
	return note, true, nil
}

// reload removes the bench database the plan holds (--reload), so that the
// first run loads its rows afresh.
func (p *plan) reload(errw io.Writer) error {
	if p.dbPath == "" || p.dbLock == nil {
		return nil
	}
	if _, err := os.Lstat(p.dbPath); err != nil {
		return nil
	}
	if err := own.Remove(p.dbPath, p.c.kind); err != nil {
		return usagef("--reload: %v", err)
	}
	fmt.Fprintf(errw, "--reload: removed %s; its bench rows are loaded afresh\n", p.dbPath)
	return nil
}

// heldErr adds to a usage error of a plan built with the rows a kept --db
// holds that they are its rows: raising --rows means --reload.
func heldErr(err error, db, rows string) error {
	var ue usageError
	if !errors.As(err, &ue) {
		return err
	}
	return usagef("%s (--db %s holds %s bench rows; to load more, pass --reload with --rows)", ue.msg, db, rows)
}
