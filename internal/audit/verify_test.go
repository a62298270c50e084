package audit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/results"
)

// TestUnverifiedIsNotCorrupt: a trial whose files cannot be copied or
// opened is an error of the trial, counted apart, in no verdict; a file
// that SQLite finds is not a database is corrupt.
func TestUnverifiedIsNotCorrupt(t *testing.T) {
	c := cells(t, "mattn", small, map[string]string{"journal": "wal", "sync": "full", "batch": "10"})[0]
	l, err := layoutFor(c)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dir := t.TempDir()

	// A database that cannot be read: a directory in its place.
	unreadable := filepath.Join(dir, "unreadable", "bench.db")
	if err := os.MkdirAll(unreadable, 0o755); err != nil {
		t.Fatal(err)
	}
	ck := verify(ctx, unreadable, l, nil, nil, false)
	if ck.unverified == "" || ck.corrupt != "" {
		t.Errorf("unreadable files: unverified %q, corrupt %q; want unverified only", ck.unverified, ck.corrupt)
	}
	// A file that is no database: SQLite says so, and that is corruption.
	garbage := filepath.Join(dir, "garbage", "bench.db")
	os.MkdirAll(filepath.Dir(garbage), 0o755)
	if err := os.WriteFile(garbage, []byte(strings.Repeat("not a database ", 400)), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := verify(ctx, garbage, l, nil, nil, false)
	if bad.corrupt == "" || bad.unverified != "" {
		t.Errorf("garbage: corrupt %q, unverified %q; want corrupt only", bad.corrupt, bad.unverified)
	}
	if b, _ := os.ReadFile(garbage); !strings.HasPrefix(string(b), "not a database") {
		t.Error("the crashed file was changed: the verifier must open a copy")
	}

	// One trial unverified beside a sound one: a warning, not a finding.
	acks := []ack{{first: 0, n: 10}}
	sound := check{recovery: 1e6, journal: "wal", sync: "full"}
	sum := func(checks ...check) *results.Result {
		s := &tally{}
		for i, ck := range checks {
			s.add(&trial{index: i, faulted: true, acks: acks}, ck, "")
		}
		r := newResult(Config{Section: "audit"}, c, ProcessKill, "")
		finish(r, c, ProcessKill, s, rateSum{})
		return r
	}
	r := sum(sound, ck)
	a := r.Audit
	if a.Trials != 2 || a.UnverifiedTrials != 1 || a.CorruptTrials != 0 || a.Verdict != "as documented" || a.Finding != "" {
		t.Errorf("one unverified trial: %d trials, %d unverified, %d corrupt, verdict %q (%s)", a.Trials, a.UnverifiedTrials, a.CorruptTrials, a.Verdict, a.Finding)
	}
	if r.Status != results.StatusOK || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "1 of 2 trials could not be verified") {
		t.Errorf("status %s, warnings %q", r.Status, r.Warnings)
	}
	if tr := a.TrialResults[1]; tr.Unverified == "" || tr.Corrupt != "" {
		t.Errorf("trial 2: %+v", tr)
	}
	// Every trial unverified: the result failed, with no verdict.
	r = sum(ck, ck)
	if a := r.Audit; r.Status != results.StatusFailed || a.CorruptTrials != 0 || a.Verdict != "unverified" || !strings.Contains(r.Error, "no trial could be verified") {
		t.Errorf("every trial unverified: status %s (%s), %d corrupt, verdict %q", r.Status, r.Error, a.CorruptTrials, a.Verdict)
	}
	// A corrupt trial is still a finding where SQLite documents none.
	r = sum(sound, bad)
	if a := r.Audit; a.CorruptTrials != 1 || a.Verdict != "finding" || !strings.Contains(a.Finding, "1 of 2 trials corrupt") {
		t.Errorf("a corrupt trial: %d corrupt, verdict %q (%s)", a.CorruptTrials, a.Verdict, a.Finding)
	}
}
