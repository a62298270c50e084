package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	sweep "github.com/litebench/litebench/internal/plan"
	"github.com/litebench/litebench/internal/report"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/target"
)

func init() {
	suites = append(suites, suiteDef{"outgrow",
		"when one file is outgrown: the same mixed workload on SQLite, PostgreSQL, MariaDB and a dqlite cluster of 1 and 3 nodes, at equal durability (a commit acknowledged is on disk) and relaxed, throughput and p99 side by side",
		suiteOutgrow})
}

// outgrowEngine is one column of suite outgrow: a target and the settings
// that make it what it is (dqlite's node count).
type outgrowEngine struct {
	label, target string
	set           map[string]string
}

// outgrowEngines are the engines compared: SQLite with the seeds' best
// settings (WAL, one writer connection, a busy timeout), the two servers
// litebench starts itself, and dqlite on one node and on three.
func outgrowEngines(sqliteTarget string) []outgrowEngine {
	return []outgrowEngine{
		{"SQLite, WAL, one writer", sqliteTarget, map[string]string{"journal": "wal", "writer": "single", "busy-timeout": "5000"}},
		{"PostgreSQL", "postgres", nil},
		{"MariaDB", "mariadb", nil},
		{"dqlite, 1 node", "dqlite", map[string]string{"nodes": "1"}},
		{"dqlite, 3 nodes", "dqlite", map[string]string{"nodes": "3"}},
	}
}

// outgrowLevels are the two durabilities compared. full: a commit
// acknowledged is on this node's disk (SQLite synchronous=FULL, PostgreSQL
// synchronous_commit=on, MariaDB innodb_flush_log_at_trx_commit=1; dqlite
// always syncs its Raft log on a majority). normal: a power cut may lose
// the last commits (SQLite's NORMAL in WAL, synchronous_commit=off,
// innodb_flush_log_at_trx_commit=2), which dqlite cannot relax.
var outgrowLevels = []struct{ sync, label string }{
	{"full", "durable: acknowledged = on disk"},
	{"normal", "relaxed: a power cut may lose the last commits"},
}

func (s *suiteRun) outgrowSteps(e outgrowEngine, sync string) step {
	set := map[string]string{"sync": sync, "busy-retry": "until", "batch": "1"}
	if e.target == "dqlite" {
		set["sync"] = "full" // its only durability: the Raft log synced on a majority
	}
	for k, v := range e.set {
		set[k] = v
	}
	return step{e.label, "mixed", map[string]string{
		"rows": s.rows(100000), "readers": "4", "writers": "2", "write-kind": "update",
		"duration": s.flags.durationOr(5 * time.Second),
	}, set}
}

func suiteOutgrow(ctx context.Context, s *suiteRun) error {
	sqliteTarget := target.Default()
	if s.targetSet {
		if len(s.targets) != 1 {
			return usagef("suite outgrow: --target names the one SQLite target to compare with the servers (default %s)", sqliteTarget)
		}
		sqliteTarget = s.targets[0].Name()
	}
	engines := outgrowEngines(sqliteTarget)
	var cells []sweep.Step
	var missing []string
	for _, lv := range outgrowLevels {
		for _, e := range engines {
			t, err := target.Get(e.target)
			if err != nil {
				if lv.sync == "full" {
					missing = append(missing, e.label+": "+err.Error())
				}
				continue
			}
			if e.target == "dqlite" && lv.sync != "full" {
				continue // nothing to relax: shown once, under durable
			}
			cells = append(cells, on(lv.label, []step{s.outgrowSteps(e, lv.sync)}, t)...)
		}
	}
	if len(missing) == len(engines) {
		return usagef("suite outgrow: no engine is available")
	}
	for _, m := range missing {
		fmt.Fprintf(s.errw, "suite outgrow: leaving out %s\n", m)
	}
	rs, err := s.run(ctx, cells)
	if len(rs) > 0 {
		t := outgrowTable(rs)
		for _, m := range missing {
			t.Notes = append(t.Notes, "left out: "+m)
		}
		if werr := s.emit(t, rs); werr != nil {
			return werr
		}
	}
	return err
}

func outgrowTable(rs []*results.Result) *report.Table {
	t := &report.Table{Title: "What leaving one file costs: the same mixed workload (4 readers, 2 writers updating rows, each write its own transaction)",
		Headers: []string{"durability", "engine", "version", "reads/s", "writes/s", "read p99 µs", "write p99 µs", "errors", "retries", "status"},
		Right:   []bool{false, false, false, true, true, true, true, false, true, false}}
	for _, r := range rs {
		rd, wr := r.Op("read"), r.Op("write")
		rate := func(o *results.Op) string {
			if o == nil || r.Elapsed <= 0 {
				return "-"
			}
			return report.Num(float64(o.Count) / r.Elapsed)
		}
		_, rp99 := opLat(r, "read")
		_, wp99 := opLat(r, "write")
		var retries int64
		for _, o := range r.Ops {
			retries += o.Retries
		}
		label := strings.TrimPrefix(r.Label, r.Section+": ")
		if r.Error != "" {
			t.Notes = append(t.Notes, label+": "+r.Error)
		}
		t.Rows = append(t.Rows, []string{strings.SplitN(r.Section, ":", 2)[0], label, r.EngineVersion,
			rate(rd), rate(wr), rp99, wp99, report.ErrorCell(r.ErrorTotals()), fmt.Sprint(retries), string(r.Status)})
	}
	t.Notes = append(t.Notes,
		"durable: SQLite synchronous=FULL, PostgreSQL synchronous_commit=on, MariaDB innodb_flush_log_at_trx_commit=1, dqlite's Raft log synced on a majority (its only setting).",
		"relaxed: SQLite synchronous=NORMAL (WAL), PostgreSQL synchronous_commit=off, MariaDB innodb_flush_log_at_trx_commit=2; each run's notes show what the server ran, read back.",
		"The servers run on this machine on loopback, started by litebench; SQLite runs in litebench's process. One run per cell: differences under about ±25% are within a shared machine's noise.")
	return t
}
