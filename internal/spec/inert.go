package spec

import (
	"fmt"
	"strings"

	"github.com/litebench/litebench/internal/workload"
)

// InsertsRows reports whether the measured part inserts a table's rows
// (an [insert] section), where --batch and --rows-per-stmt shape the
// transactions and statements.
func (w *Workload) InsertsRows() bool { return w.ins != nil }

// CheckParams rejects --rows-per-stmt past an engine's limit of max bound
// parameters per statement, where the measured part inserts rows.
func (w *Workload) CheckParams(max int, engine string) error {
	if w.ins == nil {
		return nil
	}
	return workload.CheckParams(w.ins.t.schema, w.set.Int("rows-per-stmt"), max, engine)
}

// ExplicitTx reports whether every write runs in an explicit transaction,
// even a single statement: a BEGIN mode other than SQLite's own was asked
// for (--tx immediate or exclusive), and autocommit cannot say it.
func ExplicitTx(tx string) bool { return tx == "immediate" || tx == "exclusive" }

// Inert returns a note for every setting that changes nothing in this run
// or does something other than its name says, so that no setting is
// silently without effect.
func (w *Workload) Inert() []string {
	s := w.set
	batch, rps := s.Int("batch"), s.Int("rows-per-stmt")
	tx := s.Get("tx")
	var notes []string
	add := func(format string, a ...any) { notes = append(notes, fmt.Sprintf(format, a...)) }
	workers := w.executors
	if w.ins != nil {
		workers = w.ins.workers
		switch {
		case batch < rps:
			add("--batch %d is less than --rows-per-stmt %d: a transaction holds whole statements, so each holds one %d-row INSERT (as --batch %d)", batch, rps, rps, rps)
		case batch%rps != 0:
			add("--batch %d is not a multiple of --rows-per-stmt %d: each transaction is %d INSERTs of %d rows and one of %d", batch, rps, batch/rps, rps, batch%rps)
		}
		if ExplicitTx(tx) && batch <= rps {
			add("--tx %s: every INSERT runs in its own BEGIN %s … COMMIT (one statement per transaction)", tx, strings.ToUpper(tx))
		}
	} else {
		writes, begins := w.writes()
		if rps != 1 {
			add("--rows-per-stmt %d has no effect: %s does not insert with multi-row statements (only an [insert] section does)", rps, w.f.Name)
		}
		if !writes && batch != 1 {
			add("--batch %d has no effect: %s has no table write operation to batch", batch, w.f.Name)
		}
		switch {
		case ExplicitTx(tx) && writes && batch == 1:
			add("--tx %s: every write runs in its own BEGIN %s … COMMIT (one row per transaction)", tx, strings.ToUpper(tx))
		case ExplicitTx(tx) && !writes && !begins:
			add("--tx %s has no effect: %s neither begins a transaction nor has a table write operation", tx, w.f.Name)
		}
	}
	if workers <= 1 && w.cfg.Rate == 0 {
		if r := s.Get("busy-retry"); r != "none" {
			add("--busy-retry %s: with one worker nothing in this run contends for the database; it takes effect only if another process writes it", r)
		}
		if s.Bool("write-mutex") {
			add("--write-mutex has no effect with one worker: there is no other write to wait for")
		}
		if p := s.Int("pool"); p > 1 && s.Get("writer") != "single" {
			add("--pool %d has no effect with one worker: it uses one connection at a time", p)
		}
	}
	return notes
}

// writes reports whether any transaction that runs has a table write
// operation (where --batch and --tx shape the transaction), and whether
// any begins a transaction of its own.
func (w *Workload) writes() (writes, begins bool) {
	for k, t := range w.txns {
		if k < len(w.active) && !w.active[k] {
			continue
		}
		for _, st := range t.steps {
			switch {
			case st.top != nil && st.top.kind != opRead:
				writes = true
			case st.kind == sBegin:
				begins = true
			}
		}
	}
	return writes, begins
}
