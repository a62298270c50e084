package audit

import (
	"fmt"
	"strings"
)

// Outcome is what a fault may do to a database, from the safest.
type Outcome int

// Outcomes.
const (
	// Safe: no acknowledged transaction is lost, the database is sound.
	Safe Outcome = iota
	// MayLose: acknowledged transactions may be lost (the latest ones);
	// the database stays sound and every transaction whole.
	MayLose
	// MayCorrupt: the database may fail to open or to check, or hold
	// part of a transaction.
	MayCorrupt
)

func (o Outcome) String() string {
	switch o {
	case Safe:
		return "nothing lost, never corrupt"
	case MayLose:
		return "may lose acknowledged commits, never corrupt"
	}
	return "may corrupt"
}

// Faults.
const (
	ProcessKill = "process-kill"
	PowerLoss   = "power-loss"
)

// Faults lists the faults in the order they run.
var Faults = []string{ProcessKill, PowerLoss}

// Classes of durability, from the strongest. A cell's class is the
// strongest whose promise holds.
const (
	// SurvivesPowerLoss: neither a process crash nor a power cut loses an
	// acknowledged transaction or corrupts the database.
	SurvivesPowerLoss = "survives-power-loss"
	// MayLoseAcknowledged: a process crash loses nothing; a power cut may
	// lose the latest acknowledged transactions but leaves the database
	// sound.
	MayLoseAcknowledged = "may-lose-acknowledged"
	// SurvivesProcessCrash: a process crash loses nothing; a power cut may
	// corrupt the database.
	SurvivesProcessCrash = "survives-process-crash"
	// MayCorruptClass: even a process crash may corrupt the database or
	// lose acknowledged transactions.
	MayCorruptClass = "may-corrupt"
)

// Classes lists the classes from the strongest.
var Classes = []string{SurvivesPowerLoss, MayLoseAcknowledged, SurvivesProcessCrash, MayCorruptClass}

// ClassOf is the class of a cell where a process crash may do pk and a
// power cut pl.
func ClassOf(pk, pl Outcome) string {
	switch {
	case pk > Safe:
		return MayCorruptClass
	case pl == MayCorrupt:
		return SurvivesProcessCrash
	case pl == MayLose:
		return MayLoseAcknowledged
	}
	return SurvivesPowerLoss
}

// Expectation is what SQLite documents for one journal mode and
// synchronous level.
type Expectation struct {
	Journal, Sync string
	// ProcessKill and PowerLoss are what each fault may do.
	ProcessKill, PowerLoss Outcome
	// MaxLost bounds the acknowledged transactions a power cut may lose in
	// one trial (0: no bound beyond the outcome).
	MaxLost int64
	// Why is what the documentation says, and where.
	Why string
}

// Class is the cell's documented class.
func (e Expectation) Class() string { return ClassOf(e.ProcessKill, e.PowerLoss) }

// For returns what the fault may do.
func (e Expectation) For(fault string) Outcome {
	if fault == ProcessKill {
		return e.ProcessKill
	}
	return e.PowerLoss
}

// The documentation the oracle rests on.
const (
	docSync    = "https://sqlite.org/pragma.html#pragma_synchronous"
	docJournal = "https://sqlite.org/pragma.html#pragma_journal_mode"
	docWAL     = "https://sqlite.org/wal.html"
)

// Oracle is what SQLite documents for each journal mode × synchronous
// level, as data: docs/durability-audit.md prints it.
var Oracle = buildOracle()

func buildOracle() []Expectation {
	var o []Expectation
	add := func(journal, sync string, pk, pl Outcome, maxLost int64, why string) {
		o = append(o, Expectation{journal, sync, pk, pl, maxLost, why})
	}
	syncs := []string{"off", "normal", "full", "extra"}
	for _, j := range []string{"memory", "off"} {
		for _, s := range syncs {
			add(j, s, MayCorrupt, MayCorrupt, 0,
				"journal_mode="+strings.ToUpper(j)+": \"if the application crashes in the middle of a transaction ... the database file will very likely go corrupt\" ("+docJournal+")")
		}
	}
	rollbackOff := "synchronous=OFF: \"If the application running SQLite crashes, the data will be safe, but the database might become corrupted if the operating system crashes or the computer loses power\" (" + docSync + ")"
	for _, j := range []string{"delete", "truncate", "persist"} {
		add(j, "off", Safe, MayCorrupt, 0, rollbackOff)
		add(j, "normal", Safe, MayCorrupt, 0,
			"synchronous=NORMAL in rollback mode: \"a very small (though non-zero) chance that a power failure at just the wrong time could corrupt the database\" ("+docSync+")")
		switch j {
		case "delete":
			add(j, "full", Safe, MayLose, 1,
				"synchronous=FULL: \"an operating system crash or power failure will not corrupt the database\"; the journal's deletion that commits a transaction is not synced: \"EXTRA provides additional durability if the commit is followed closely by a power loss\", so the last commit may roll back ("+docSync+")")
		default:
			add(j, "full", Safe, Safe, 0,
				"synchronous=FULL: \"an operating system crash or power failure will not corrupt the database\"; journal_mode="+strings.ToUpper(j)+" syncs the journal's reset before the commit returns ("+docSync+")")
		}
		add(j, "extra", Safe, Safe, 0,
			"synchronous=EXTRA: FULL, and \"the directory containing a rollback journal is synced after that journal is unlinked to commit a transaction\" ("+docSync+")")
	}
	add("wal", "off", Safe, MayCorrupt, 0, rollbackOff)
	add("wal", "normal", Safe, MayLose, 0,
		"WAL with synchronous=NORMAL: \"might roll back following a power loss or system crash\"; \"Transactions are durable across application crashes\"; \"WAL mode is always consistent with synchronous=NORMAL\" ("+docWAL+", "+docSync+")")
	for _, s := range []string{"full", "extra"} {
		add("wal", s, Safe, Safe, 0,
			"WAL with synchronous="+strings.ToUpper(s)+": the WAL is synced at every commit, \"ensures that an operating system crash or power failure will not corrupt the database\" ("+docSync+")")
	}
	return o
}

// Lookup returns what SQLite documents for a journal mode and synchronous
// level as SQLite reports them (journal_mode lower case; synchronous as a
// number or a name).
func Lookup(journal, sync string) (Expectation, error) {
	journal, sync = strings.ToLower(journal), SyncName(sync)
	for _, e := range Oracle {
		if e.Journal == journal && e.Sync == sync {
			return e, nil
		}
	}
	return Expectation{}, fmt.Errorf("no documented durability for journal_mode=%s synchronous=%s", journal, sync)
}

// SyncName is the name of a synchronous level given as PRAGMA synchronous
// reads it back (0-3) or by name.
func SyncName(s string) string {
	switch strings.ToLower(s) {
	case "0", "off":
		return "off"
	case "1", "normal":
		return "normal"
	case "2", "full":
		return "full"
	case "3", "extra":
		return "extra"
	}
	return strings.ToLower(s)
}

// Measured is what a set of trials showed for one fault.
func Measured(lost, corruptTrials, atomicity int64) Outcome {
	switch {
	case corruptTrials > 0 || atomicity > 0:
		return MayCorrupt
	case lost > 0:
		return MayLose
	}
	return Safe
}

// Verdict compares a measurement with what SQLite documents: "as
// documented", or a finding that says how they disagree.
func Verdict(e Expectation, fault string, a Summary) (verdict, finding string) {
	want := e.For(fault)
	got := Measured(a.LostTotal, int64(a.Corrupt), a.Atomicity)
	seen := a.Trials - a.Unverified
	cell := fmt.Sprintf("journal_mode=%s synchronous=%s", e.Journal, e.Sync)
	switch {
	case got > want:
		var what []string
		if a.Corrupt > 0 {
			what = append(what, fmt.Sprintf("%d of %d trials corrupt", a.Corrupt, seen))
		}
		if a.Atomicity > 0 {
			what = append(what, fmt.Sprintf("%d transactions partly present", a.Atomicity))
		}
		if a.LostTotal > 0 {
			what = append(what, fmt.Sprintf("%d acknowledged transactions lost in %d of %d trials", a.LostTotal, a.LossTrials, seen))
		}
		return "finding", fmt.Sprintf("%s after %s, where SQLite documents %q for %s", strings.Join(what, ", "), fault, want.String(), cell)
	case fault == PowerLoss && e.MaxLost > 0 && a.LostMax > e.MaxLost:
		return "finding", fmt.Sprintf("%d acknowledged transactions lost in one trial after %s, where SQLite documents at most the last %d for %s", a.LostMax, fault, e.MaxLost, cell)
	}
	return "as documented", ""
}

// Summary is what the trials of one cell and fault add up to.
type Summary struct {
	Trials, Faulted, Corrupt, LossTrials int
	// Unverified trials could not be verified: they count in no figure.
	Unverified                           int
	Acked, LostTotal, LostMax, Atomicity int64
	UnackedPresent                       int64
}
