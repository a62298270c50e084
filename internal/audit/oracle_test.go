package audit

import (
	"os"
	"strings"
	"testing"
)

func TestOracleCoversEveryCell(t *testing.T) {
	for _, j := range []string{"delete", "truncate", "persist", "memory", "off", "wal"} {
		for _, s := range []string{"off", "normal", "full", "extra"} {
			n := 0
			for _, e := range Oracle {
				if e.Journal == j && e.Sync == s {
					n++
					if !strings.Contains(e.Why, "https://sqlite.org/") {
						t.Errorf("%s/%s cites nothing: %s", j, s, e.Why)
					}
				}
			}
			if n != 1 {
				t.Errorf("%s/%s: %d entries", j, s, n)
			}
		}
	}
	e, err := Lookup("WAL", "1")
	if err != nil || e.Journal != "wal" || e.Sync != "normal" || e.Class() != MayLoseAcknowledged {
		t.Errorf("Lookup(WAL, 1) = %+v, %v", e, err)
	}
	if _, err := Lookup("wal", "9"); err == nil {
		t.Error("an unknown level has an expectation")
	}
}

func TestVerdictAndClass(t *testing.T) {
	walFull, _ := Lookup("wal", "full")
	delFull, _ := Lookup("delete", "full")
	cases := []struct {
		e       Expectation
		fault   string
		s       Summary
		verdict string
	}{
		{walFull, PowerLoss, Summary{Trials: 50, Acked: 900}, "as documented"},
		{walFull, PowerLoss, Summary{Trials: 50, LostTotal: 2, LostMax: 1, LossTrials: 2}, "finding"},
		{walFull, ProcessKill, Summary{Trials: 50, Atomicity: 1}, "finding"},
		{delFull, PowerLoss, Summary{Trials: 50, LostTotal: 9, LostMax: 1, LossTrials: 9}, "as documented"},
		{delFull, PowerLoss, Summary{Trials: 50, LostTotal: 3, LostMax: 2, LossTrials: 2}, "finding"},
		{delFull, PowerLoss, Summary{Trials: 50, Corrupt: 1}, "finding"},
	}
	for i, c := range cases {
		v, f := Verdict(c.e, c.fault, c.s)
		if v != c.verdict || (v == "finding") != (f != "") {
			t.Errorf("case %d: %q %q", i, v, f)
		}
	}
	for _, c := range []struct {
		pk, pl Outcome
		want   string
	}{{Safe, Safe, SurvivesPowerLoss}, {Safe, MayLose, MayLoseAcknowledged}, {Safe, MayCorrupt, SurvivesProcessCrash},
		{MayLose, Safe, MayCorruptClass}, {MayCorrupt, MayCorrupt, MayCorruptClass}} {
		if got := ClassOf(c.pk, c.pl); got != c.want {
			t.Errorf("ClassOf(%v, %v) = %s, want %s", c.pk, c.pl, got, c.want)
		}
	}
}

// TestOracleDocumented: the oracle's table in docs/durability-audit.md
// says what the data says, for every journal mode and synchronous level.
func TestOracleDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/durability-audit.md")
	if err != nil {
		t.Fatal(err)
	}
	outcome := func(s string) Outcome {
		switch {
		case strings.HasPrefix(s, "nothing lost"):
			return Safe
		case strings.HasPrefix(s, "may lose"):
			return MayLose
		}
		return MayCorrupt
	}
	covered := map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 5 || cells[0] == "journal" || strings.HasPrefix(cells[0], "---") {
			continue
		}
		syncs := strings.Split(cells[1], ", ")
		if cells[1] == "any" {
			syncs = []string{"off", "normal", "full", "extra"}
		}
		for _, j := range strings.Split(cells[0], ", ") {
			for _, s := range syncs {
				e, err := Lookup(j, s)
				if err != nil {
					t.Errorf("%s/%s: %v", j, s, err)
					continue
				}
				if e.ProcessKill != outcome(cells[2]) || e.PowerLoss != outcome(cells[3]) || e.Class() != cells[4] {
					t.Errorf("%s/%s: the doc says %v, the oracle %+v", j, s, cells, e)
				}
				covered[j+"/"+s]++
			}
		}
	}
	for _, e := range Oracle {
		if covered[e.Journal+"/"+e.Sync] != 1 {
			t.Errorf("%s/%s is in the doc's table %d times", e.Journal, e.Sync, covered[e.Journal+"/"+e.Sync])
		}
	}
}
