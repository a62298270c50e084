package audit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/crashfs"
	"github.com/litebench/litebench/internal/crashvfs"
	"github.com/litebench/litebench/internal/results"
)

// needFUSE skips a test on a machine that cannot mount the crash file
// system, unless LITEBENCH_REQUIRE_FUSE=1 (as in CI) makes that a
// failure.
func needFUSE(t *testing.T) {
	t.Helper()
	if err := crashfs.Available(); err != nil {
		if os.Getenv("LITEBENCH_REQUIRE_FUSE") == "1" {
			t.Fatalf("%v (LITEBENCH_REQUIRE_FUSE=1)", err)
		}
		t.Skip(err)
	}
}

// noMountLeft fails the test if a crash file system is still mounted
// under dir.
func noMountLeft(t *testing.T, dir string) {
	t.Helper()
	ms, err := crashfs.Mounted()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if strings.HasPrefix(m, dir) {
			t.Errorf("crash file system left mounted at %s", m)
		}
	}
}

func auditFS(t *testing.T, tgt, journal, sync string, models []crashvfs.Model, trials int) []*results.Result {
	t.Helper()
	needFUSE(t)
	cs := cells(t, tgt, small, map[string]string{"journal": journal, "sync": sync, "batch": "20"})
	dir := t.TempDir()
	cfg := Config{Faults: []string{PowerLoss}, Models: models, Trials: trials, FaultAt: window, Seed: 1, Dir: dir, Section: "audit"}
	rs, err := Run(context.Background(), cfg, cs)
	noMountLeft(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Status != results.StatusOK {
			t.Fatalf("%s: %s %s", r.Label, r.Status, r.Error)
		}
		if r.Audit.Faulted == 0 {
			t.Fatalf("%s: no trial struck while the workload ran", describe(r))
		}
		for _, tr := range r.Audit.TrialResults {
			if !strings.HasPrefix(tr.Pattern, "crash file system") || strings.Contains(tr.Pattern, "disagree") {
				t.Fatalf("%s: trial pattern %q: want a complete log of the crash file system", describe(r), tr.Pattern)
			}
		}
	}
	return rs
}

// TestCrashFSWALFull: mattn (SQLite's unix VFS, in a worker process on the
// crash file system) with WAL and synchronous=FULL loses no acknowledged
// transaction and corrupts nothing under every power model: SQLite
// documents WAL + FULL as durable across a power loss.
func TestCrashFSWALFull(t *testing.T) {
	models := []crashvfs.Model{crashvfs.LoseUnsynced, crashvfs.Torn, crashvfs.Model(crashfs.Reorder)}
	for _, r := range auditFS(t, "mattn", "wal", "full", models, 10) {
		a := r.Audit
		t.Logf("%s: %d trials, %d acked, %d lost, %d corrupt", describe(r), a.Trials, a.Acked, a.LostAckedTotal, a.CorruptTrials)
		if a.Journal != "wal" || a.Sync != "full" {
			t.Fatalf("ran %s", describe(r))
		}
		if a.Acked == 0 || a.LostAckedTotal != 0 || a.CorruptTrials != 0 || a.AtomicityViolations != 0 {
			t.Errorf("%s: acked %d, lost %d, corrupt %d, partial %d: want nothing lost", describe(r), a.Acked, a.LostAckedTotal, a.CorruptTrials, a.AtomicityViolations)
		}
		if a.Verdict != "as documented" {
			t.Errorf("%s: verdict %q", describe(r), a.Verdict)
		}
	}
}

// TestCrashFSSyncOff: mattn with the rollback journal and
// synchronous=OFF, whose data SQLite never syncs: under lose-unsynced a
// power cut loses acknowledged transactions or corrupts the database in
// some trial (SQLite documents that it may); the verdict stays as
// documented.
func TestCrashFSSyncOff(t *testing.T) {
	rs := auditFS(t, "mattn", "delete", "off", []crashvfs.Model{crashvfs.LoseUnsynced, crashvfs.Torn}, 10)
	for _, r := range rs {
		a := r.Audit
		t.Logf("%s: %d trials, %d acked, %d lost in %d trials, %d corrupt", describe(r), a.Trials, a.Acked, a.LostAckedTotal, a.LossTrials, a.CorruptTrials)
		if a.Verdict != "as documented" {
			t.Errorf("%s: verdict %q", describe(r), a.Verdict)
		}
	}
	a := rs[0].Audit
	if a.LossTrials+a.CorruptTrials == 0 {
		t.Errorf("%s: no trial lost or corrupted anything, yet nothing was synced", describe(rs[0]))
	}
}

// TestCrashFSModelsKnown: the audit's models are the crash file system's.
func TestCrashFSModelsKnown(t *testing.T) {
	for _, m := range crashfs.Models {
		if got, err := ParseModel(string(m)); err != nil || string(got) != string(m) {
			t.Errorf("ParseModel(%s) = %s, %v", m, got, err)
		}
	}
	if _, err := ParseModel("gentle"); err == nil || !slices.Contains(strings.Fields(err.Error()), "reorder)") {
		t.Errorf("ParseModel(gentle): %v", err)
	}
}

// TestCrashFSSameSeedSameDisk: a trial's kept log, rebuilt again with the
// trial's seed, gives byte-identical files (the digest the trial
// recorded before the verifier opened them); the same --fault-seed
// strikes a cell at the same moments.
func TestCrashFSSameSeedSameDisk(t *testing.T) {
	needFUSE(t)
	cs := cells(t, "mattn", small, map[string]string{"journal": "wal", "sync": "normal", "batch": "20"})
	dir := t.TempDir()
	cfg := Config{Faults: []string{PowerLoss}, Models: []crashvfs.Model{crashvfs.Torn, crashvfs.Model(crashfs.Reorder)}, Trials: 3,
		FaultAt: window, Seed: 7, Dir: dir, Keep: true, Section: "audit"}
	rs, err := Run(context.Background(), cfg, cs)
	noMountLeft(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	for k, r := range rs {
		if r.Status != results.StatusOK {
			t.Fatalf("%s: %s", r.Status, r.Error)
		}
		for i, tr := range r.Audit.TrialResults {
			seed := TrialSeed(cfg.Seed, cs[0], PowerLoss, i)
			if want := FaultMoment(seed, window); tr.FaultMS != ms(want) {
				t.Errorf("trial %d struck at %v ms, its seed says %v", i+1, tr.FaultMS, ms(want))
			}
			l, err := crashfs.LoadFile(filepath.Join(dir, fmt.Sprintf("%s-%s-%d", sanitize(cs[0].RunID), PowerLoss, i+1), "crashfs.log"))
			if err != nil {
				t.Fatal(err)
			}
			im, err := crashfs.Rebuild(l, crashfs.Power{Model: crashfs.Model(cfg.Models[k]), Device: crashfs.DefaultDevice, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(tr.Pattern, "disk "+im.Digest()+" ") {
				t.Errorf("%s trial %d: rebuilt again, disk %s; the trial recorded %q", cfg.Models[k], i+1, im.Digest(), tr.Pattern)
			}
		}
	}
}

// TestCrashFSPoint: --fault-at sync:wal:5 strikes WAL + FULL during the
// 5th sync of the WAL in the measured part: each commit syncs the WAL
// once, so exactly 4 transactions are acknowledged in each trial, all of
// them durable, and the 5th, whose sync never completed, is absent.
func TestCrashFSPoint(t *testing.T) {
	needFUSE(t)
	cs := cells(t, "mattn", small, map[string]string{"journal": "wal", "sync": "full", "batch": "20"})
	dir := t.TempDir()
	pt, err := crashfs.ParsePoint("sync:wal:5")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Faults: []string{PowerLoss}, Models: []crashvfs.Model{crashvfs.LoseUnsynced, crashvfs.Torn}, Trials: 3,
		Point: &pt, Seed: 1, Dir: dir, Section: "audit"}
	rs, err := Run(context.Background(), cfg, cs)
	noMountLeft(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		a := r.Audit
		if r.Status != results.StatusOK || a.Faulted != 3 {
			t.Fatalf("%s: %s %s, %d of 3 struck while running", describe(r), r.Status, r.Error, a.Faulted)
		}
		for i, tr := range a.TrialResults {
			if tr.FaultMS <= 0 || tr.FaultMS >= float64(PointLimit.Milliseconds()) {
				t.Errorf("trial %d: fault moment %v ms, want when the sync came", i+1, tr.FaultMS)
			}
			if tr.Acked != 4 || tr.Lost != 0 || tr.Corrupt != "" || tr.UnackedPresent != 0 {
				t.Errorf("%s trial %d: %d acknowledged, %d lost, corrupt %q, %d in flight present: want 4, none lost, the 5th absent", describe(r), i+1, tr.Acked, tr.Lost, tr.Corrupt, tr.UnackedPresent)
			}
		}
	}
}

// TestCrashFSInterrupt: an audit interrupted mid-trial (Ctrl-C) leaves
// no crash file system mounted.
func TestCrashFSInterrupt(t *testing.T) {
	needFUSE(t)
	cs := cells(t, "mattn", small, map[string]string{"journal": "wal", "sync": "full", "batch": "20"})
	dir := t.TempDir()
	cfg := Config{Faults: []string{PowerLoss}, Models: []crashvfs.Model{crashvfs.Torn}, Trials: 3,
		FaultAt: [2]time.Duration{time.Minute, time.Minute}, Seed: 1, Dir: dir, Section: "audit"}
	ctx, cancel := context.WithCancel(context.Background())
	mounted := make(chan bool, 1)
	go func() {
		// Interrupt once the trial's file system is up.
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if ms, _ := crashfs.Mounted(); slices.ContainsFunc(ms, func(m string) bool { return strings.HasPrefix(m, dir) }) {
				mounted <- true
				time.Sleep(200 * time.Millisecond)
				break
			}
		}
		cancel()
	}()
	rs, _ := Run(ctx, cfg, cs)
	if len(rs) != 1 || rs[0].Status != results.StatusInterrupted {
		t.Fatalf("results %v, want one interrupted", rs)
	}
	select {
	case <-mounted:
	default:
		t.Fatal("the trial's crash file system was never mounted")
	}
	noMountLeft(t, dir)
}
