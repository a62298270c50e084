package cli

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/litebench/litebench/internal/audit"
	"github.com/litebench/litebench/internal/crashvfs"
	sweep "github.com/litebench/litebench/internal/plan"
	"github.com/litebench/litebench/internal/report"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/runner"
	"github.com/litebench/litebench/internal/target"
)

func init() {
	suites = append(suites, suiteDef{"durability", "the seeds' settings (sqlite3perf's sync=0 + WAL, the 'Benchmarking SQLite inserts' post's WAL + NORMAL, go-sqlite-bench's FULL, driver defaults) crashed on purpose: insert speed beside what a process crash and a power cut cost (default target ncruces-direct)", suiteDurability})
}

// durabilitySteps are the settings the seeds recommend or start from.
var durabilitySteps = []step{
	{"sqlite3perf: _journal=wal&_sync=0", "insert", nil, map[string]string{"journal": "wal", "sync": "off"}},
	{"Benchmarking SQLite inserts: WAL + synchronous=NORMAL", "insert", nil, map[string]string{"journal": "wal", "sync": "normal"}},
	{"go-sqlite-bench: WAL + synchronous=FULL", "insert", nil, map[string]string{"journal": "wal", "sync": "full"}},
	{"driver defaults", "insert", nil, nil},
}

// suiteDurability runs each of the seeds' settings once for its insert
// speed, then audits it under a process kill and, where the target can
// open through the crash VFS, a power cut.
func suiteDurability(ctx context.Context, s *suiteRun) error {
	ts := s.targets
	if !s.targetSet {
		t, err := target.Get("ncruces-direct")
		if err != nil {
			return err
		}
		ts = []target.Target{t}
	}
	with := func(rows string) []step {
		out := make([]step, len(durabilitySteps))
		for i, st := range durabilitySteps {
			st.params = map[string]string{"rows": rows, "schema": "bench"}
			st.set = map[string]string{"batch": "100"}
			for k, v := range durabilitySteps[i].set {
				st.set[k] = v
			}
			out[i] = st
		}
		return out
	}
	var speedSteps, auditSteps []sweep.Step
	for _, t := range ts {
		speedSteps = append(speedSteps, on("durability: speed", with(s.rows(100000)), t)...)
		auditSteps = append(auditSteps, on("durability", with("10m"), t)...)
	}
	speed, err := s.run(ctx, speedSteps)
	if err != nil {
		return err
	}
	cells, err := sweep.StepCells(s.suite.Name, s.suite.IDs, auditSteps)
	if err != nil {
		return usage(err)
	}
	// Cells whose target opens through the crash VFS are audited under
	// both faults, the others under a process kill only.
	var withVFS, without []sweep.Cell
	var powerless []string
	for _, c := range cells {
		if target.SupportsVFS(c.Target) {
			withVFS = append(withVFS, c)
		} else {
			without = append(without, c)
			if !slices.Contains(powerless, c.Target.Name()) {
				powerless = append(powerless, c.Target.Name())
			}
		}
	}
	var rs []*results.Result
	for _, group := range []struct {
		cells  []sweep.Cell
		faults []string
	}{{withVFS, audit.Faults}, {without, []string{audit.ProcessKill}}} {
		if len(group.cells) == 0 || ctx.Err() != nil {
			continue
		}
		cfg := audit.Config{Faults: group.faults, Models: []crashvfs.Model{crashvfs.Torn},
			Trials: max(3, int(20*s.scale)), FaultAt: [2]time.Duration{50 * time.Millisecond, 500 * time.Millisecond},
			Seed: 1, Dir: s.suite.Dir, Keep: s.c.keep, Section: "durability"}
		if s.c.progress > 0 {
			cfg.Progress = s.errw
		}
		cfg.Done = func(r *results.Result) error {
			sp := runner.Spec{Label: r.Label, Workload: group.cells[0].Workload}
			return s.suite.Exec.Done(&sp, r)
		}
		out, err := audit.Run(ctx, cfg, group.cells)
		rs = append(rs, out...)
		s.suite.Results = append(s.suite.Results, out...)
		if err != nil {
			return err
		}
	}
	t := durabilityTable(speed, rs)
	for _, n := range powerless {
		t.Notes = append(t.Notes, "power-loss not audited on "+n+": it cannot open the database through the crash VFS (--target ncruces-direct can)")
	}
	if err := s.emit(t, append(speed, rs...)); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return errInterrupted
	}
	return nil
}

// durabilityTable puts each setting's insert speed beside what the faults
// did to it.
func durabilityTable(speed, audited []*results.Result) *report.Table {
	t := &report.Table{Title: "Durability of the seeds' settings: insert speed beside what a crash costs",
		Headers: []string{"target", "setting", "journal", "sync", "rows/s", "process kill: lost / corrupt", "power cut: lost (max) / corrupt", "verdict", "class"},
		Right:   []bool{false, false, false, false, true, true, true, false, false}}
	var findings audit.Findings
	for i, sr := range speed {
		st := durabilitySteps[i%len(durabilitySteps)]
		row := []string{sr.Target, st.label, "", "", report.Num(sr.Headline().Value), "-", "-", "", ""}
		verdict := "as documented"
		for _, r := range audited {
			a := r.Audit
			if a == nil || r.Target != sr.Target || r.Settings["journal"] != sr.Settings["journal"] || r.Settings["sync"] != sr.Settings["sync"] {
				continue
			}
			row[2], row[3], row[8] = a.Journal, a.Sync, a.Class
			if a.Fault == audit.ProcessKill {
				row[5] = fmt.Sprintf("%d/%d trials / %d", a.LossTrials, a.Trials, a.CorruptTrials)
			} else {
				row[6] = fmt.Sprintf("%d/%d trials (max %d) / %d", a.LossTrials, a.Trials, a.LostAckedMax, a.CorruptTrials)
			}
			if v := findings.Verdict(t, r, st.label); v != "as documented" {
				verdict = v
			}
		}
		row[7] = verdict
		t.Rows = append(t.Rows, row)
	}
	t.Notes = append(t.Notes,
		"rows/s: a plain insert run in this process (100-row transactions); lost: trials that lost acknowledged transactions; corrupt: trials whose database failed to open or PRAGMA integrity_check",
		"process kill: SIGKILL of the worker; power cut: the crash VFS's torn model (docs/durability-audit.md); 'litebench audit' runs any cell, fault and model",
		"class: "+audit.SurvivesPowerLoss+" > "+audit.MayLoseAcknowledged+" > "+audit.SurvivesProcessCrash+" > "+audit.MayCorruptClass)
	return t
}
