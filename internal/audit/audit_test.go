package audit

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/crashvfs"
	"github.com/litebench/litebench/internal/plan"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/workload"
)

// cells plans an insert sweep of target over settings, as the audit
// command does.
func cells(t *testing.T, tgt string, params map[string][]string, set map[string]string) []plan.Cell {
	t.Helper()
	spec, err := workload.Get("insert")
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := plan.Matrix(spec.SettingDefaults, "", set)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := plan.Targets(tgt)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Build(plan.Request{Workload: spec, Params: params, Settings: m, Targets: ts})
	if err != nil {
		t.Fatal(err)
	}
	return p.Cells
}

// small is a workload that commits many small transactions and runs past
// any fault moment of the tests' window.
var small = map[string][]string{"rows": {"10m"}}

// window keeps trials short: the fault strikes 10 to 100 ms into the run.
var window = [2]time.Duration{10 * time.Millisecond, 100 * time.Millisecond}

func audit(t *testing.T, journal, sync, batch string, faults []string, trials int) []*results.Result {
	t.Helper()
	cs := cells(t, "ncruces-direct", small, map[string]string{"journal": journal, "sync": sync, "batch": batch})
	cfg := Config{Faults: faults, Models: []crashvfs.Model{crashvfs.LoseUnsynced, crashvfs.Torn}, Trials: trials,
		FaultAt: window, Seed: 1, Dir: t.TempDir(), Section: "audit"}
	rs, err := Run(context.Background(), cfg, cs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Status != results.StatusOK {
			t.Fatalf("%s: %s %s", r.Label, r.Status, r.Error)
		}
	}
	return rs
}

func describe(r *results.Result) string {
	a := r.Audit
	return a.Fault + " " + a.PowerModel + " journal_mode=" + a.Journal + " synchronous=" + a.Sync
}

// TestFullSyncSurvivesPowerLoss: with every commit synced, a power cut
// loses no acknowledged transaction and corrupts nothing, under both
// power models, over 50 trials: WAL with synchronous=FULL, and the
// rollback journal with synchronous=EXTRA. With the rollback journal and
// synchronous=FULL the journal's deletion, which commits, is not synced
// (SQLite documents it; EXTRA syncs it), so a power cut may bring the
// journal back and roll the last commit back: never more than that one,
// never a corrupt database, and only with the journal back.
func TestFullSyncSurvivesPowerLoss(t *testing.T) {
	for _, c := range []struct{ journal, sync string }{{"wal", "full"}, {"delete", "extra"}, {"delete", "full"}} {
		t.Run(c.journal+"-"+c.sync, func(t *testing.T) {
			t.Parallel()
			for _, r := range audit(t, c.journal, c.sync, "20", []string{PowerLoss}, 50) {
				a := r.Audit
				t.Logf("%s: %d trials (%d struck while running), %d acknowledged, %d lost in %d trials, %d corrupt, recovery p50 %.2fms",
					describe(r), a.Trials, a.Faulted, a.Acked, a.LostAckedTotal, a.LossTrials, a.CorruptTrials, a.RecoveryMSP50)
				if a.Trials != 50 || a.Faulted < 45 || a.Acked < 50 {
					t.Errorf("%s: %d trials, %d struck while running, %d acknowledged: the faults did not strike running workloads", describe(r), a.Trials, a.Faulted, a.Acked)
				}
				if a.CorruptTrials != 0 || a.AtomicityViolations != 0 {
					t.Errorf("%s: %d corrupt trials, %d partial transactions", describe(r), a.CorruptTrials, a.AtomicityViolations)
				}
				if c.sync == "full" && c.journal == "delete" {
					if a.LostAckedMax > 1 {
						t.Errorf("%s: %d acknowledged transactions lost in one trial, want at most the last", describe(r), a.LostAckedMax)
					}
					for _, tr := range a.TrialResults {
						if tr.Lost > 0 && !strings.Contains(tr.Pattern, "back: bench.db-journal") {
							t.Errorf("%s: a loss without the journal back: %+v", describe(r), tr)
						}
					}
					if a.Verdict != "as documented" || a.Class != MayLoseAcknowledged {
						t.Errorf("%s: verdict %q, class %s", describe(r), a.Verdict, a.Class)
					}
					continue
				}
				if a.LostAckedTotal != 0 {
					t.Errorf("%s: %d acknowledged transactions lost", describe(r), a.LostAckedTotal)
				}
				if a.Verdict != "as documented" || a.Class != SurvivesPowerLoss {
					t.Errorf("%s: verdict %q (%s), class %s", describe(r), a.Verdict, a.Finding, a.Class)
				}
			}
		})
	}
}

// TestSyncOffPowerLossLoses: with synchronous=OFF nothing is synced, and
// the simulator must find what a power cut does then: acknowledged
// transactions lost, and with the rollback journal and torn writes,
// corrupt databases. A simulator that never loses anything is a stub.
func TestSyncOffPowerLossLoses(t *testing.T) {
	for _, journal := range []string{"delete", "wal"} {
		t.Run(journal, func(t *testing.T) {
			t.Parallel()
			for _, r := range audit(t, journal, "off", "20", []string{PowerLoss}, 20) {
				a := r.Audit
				t.Logf("%s: acknowledged transactions lost in %d of %d trials (%d in all, at most %d, up to %.0fms before the fault), corrupt in %d of %d",
					describe(r), a.LossTrials, a.Trials, a.LostAckedTotal, a.LostAckedMax, a.LostWindowMS, a.CorruptTrials, a.Trials)
				if a.LossTrials+a.CorruptTrials == 0 {
					t.Errorf("%s: no trial lost or corrupted anything", describe(r))
				}
				if a.PowerModel == string(crashvfs.LoseUnsynced) && a.LossTrials == 0 {
					t.Errorf("%s: no acknowledged transaction lost", describe(r))
				}
				if journal == "delete" && a.PowerModel == string(crashvfs.Torn) && a.CorruptTrials == 0 {
					t.Errorf("%s: no corrupt trial", describe(r))
				}
				if a.Verdict != "as documented" || a.Class != SurvivesProcessCrash {
					t.Errorf("%s: verdict %q (%s), class %s", describe(r), a.Verdict, a.Finding, a.Class)
				}
			}
		})
	}
}

// TestProcessKillSyncOff: killing the process loses nothing even with
// synchronous=OFF, since the operating system keeps what was written:
// what tells the two faults apart.
func TestProcessKillSyncOff(t *testing.T) {
	for _, journal := range []string{"delete", "wal"} {
		t.Run(journal, func(t *testing.T) {
			t.Parallel()
			r := audit(t, journal, "off", "20", []string{ProcessKill}, 20)[0]
			a := r.Audit
			t.Logf("%s: %d trials, %d acknowledged, %d in flight and kept", describe(r), a.Trials, a.Acked, a.UnackedPresent)
			if a.Faulted < 18 || a.Acked < 100 {
				t.Errorf("%d of %d trials struck while running, %d acknowledged", a.Faulted, a.Trials, a.Acked)
			}
			if a.LostAckedTotal != 0 || a.CorruptTrials != 0 || a.AtomicityViolations != 0 {
				t.Errorf("%s: %d lost, %d corrupt, %d partial", describe(r), a.LostAckedTotal, a.CorruptTrials, a.AtomicityViolations)
			}
			if a.Verdict != "as documented" {
				t.Errorf("verdict %q: %s", a.Verdict, a.Finding)
			}
		})
	}
}

// TestSameSeedSameFaults: a seed fixes every trial's fault moment and
// torn pattern; another seed changes them.
func TestSameSeedSameFaults(t *testing.T) {
	cs := cells(t, "ncruces-direct", small, map[string]string{"journal": "wal", "sync": "off", "batch": "20"})
	run := func(seed uint64, dir string) *results.Result {
		cfg := Config{Faults: []string{PowerLoss}, Models: []crashvfs.Model{crashvfs.Torn}, Trials: 3, FaultAt: window,
			Seed: seed, Dir: dir, Keep: true, Section: "audit"}
		rs, err := Run(context.Background(), cfg, cs)
		if err != nil || len(rs) != 1 || rs[0].Status != results.StatusOK {
			t.Fatalf("%v %v", err, rs)
		}
		return rs[0]
	}
	moments := func(r *results.Result) []float64 {
		var m []float64
		for _, tr := range r.Audit.TrialResults {
			m = append(m, tr.FaultMS)
		}
		return m
	}
	dir := t.TempDir()
	a, b, c := run(7, dir), run(7, t.TempDir()), run(8, t.TempDir())
	if !slices.Equal(moments(a), moments(b)) || slices.Equal(moments(a), moments(c)) {
		t.Errorf("fault moments: seed 7 %v and %v, seed 8 %v", moments(a), moments(b), moments(c))
	}

	// The same crash judged twice with a trial's seed gives the same disk;
	// another seed tears it otherwise.
	logs, _ := filepath.Glob(filepath.Join(dir, "*", "bench.db-crashlog"))
	if len(logs) != 3 {
		t.Fatalf("crash logs: %v", logs)
	}
	db := strings.TrimSuffix(logs[0], "-crashlog")
	seed := TrialSeed(7, cs[0], PowerLoss, 0)
	x, err := crashvfs.Crash(db, crashvfs.Torn, seed)
	if err != nil {
		t.Fatal(err)
	}
	y, _ := crashvfs.Crash(db, crashvfs.Torn, seed)
	z, _ := crashvfs.Crash(db, crashvfs.Torn, seed+1)
	if x.Stats.Pieces == 0 {
		t.Fatalf("no unsynced write to tear: %+v", x.Stats)
	}
	if x.Pattern != y.Pattern || !sameFiles(x, y) {
		t.Error("the same seed tore the same crash differently")
	}
	if x.Pattern == z.Pattern {
		t.Error("another seed tore the same crash the same way")
	}
	if got := a.Audit.TrialResults[0].Pattern; !strings.Contains(got, "kept") {
		t.Errorf("trial pattern %q", got)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(db), "torn", "bench.db")); err != nil {
		t.Errorf("the judged disk is not kept: %v", err)
	}
}

func sameFiles(a, b *crashvfs.Image) bool {
	if len(a.Files) != len(b.Files) {
		return false
	}
	for k, v := range a.Files {
		if string(b.Files[k]) != string(v) {
			return false
		}
	}
	return true
}
