package results

// Audit is what a durability audit measured in one cell under one fault:
// the result's labels say which cell, its headline is the workload's
// throughput in that cell, and this section counts what the faults did.
// Results of ordinary runs have none.
type Audit struct {
	// Fault is process-kill or power-loss; PowerModel the model of a
	// power cut (torn, lose-unsynced).
	Fault      string `json:"fault"`
	PowerModel string `json:"power_model,omitempty"`
	// Journal and Sync are the journal mode and synchronous level the
	// database ran, read back (the oracle's key).
	Journal string `json:"journal_mode"`
	Sync    string `json:"synchronous"`
	// Seed is the fault seed: the same seed gives the same fault moments
	// and the same torn pattern.
	Seed uint64 `json:"fault_seed"`
	// Trials were run; Faulted of them were struck while the workload ran
	// (the others ended first and were struck after).
	Trials  int `json:"trials"`
	Faulted int `json:"faulted"`
	// Acked counts the write transactions acknowledged to the controller.
	Acked int64 `json:"acked"`
	// LostAckedTotal and LostAckedMax count acknowledged transactions
	// missing (wholly or in part) after recovery, over all trials and in
	// the worst trial; LossTrials how many trials lost any.
	LostAckedTotal int64 `json:"lost_acked_total"`
	LostAckedMax   int64 `json:"lost_acked_max"`
	LossTrials     int   `json:"loss_trials"`
	// LostWindowMS is how long before the fault the oldest lost
	// transaction was acknowledged, in the worst trial.
	LostWindowMS float64 `json:"lost_window_ms"`
	// CorruptTrials failed to open as a database (SQLite found it
	// malformed, or not a database) or failed PRAGMA integrity_check.
	CorruptTrials int `json:"corrupt_trials"`
	// UnverifiedTrials could not be verified (their files could not be
	// copied or opened for another reason): errors of the trials, counted
	// in no other figure and in no verdict.
	UnverifiedTrials int `json:"unverified_trials"`
	// AtomicityViolations counts transactions partly present.
	AtomicityViolations int64 `json:"atomicity_violations"`
	// UnackedPresent counts transactions in flight at the fault (never
	// acknowledged) that are wholly present: committed, not yet told.
	UnackedPresent int64 `json:"unacked_present"`
	// Recovery is open + first query after the fault, in milliseconds.
	RecoveryMSP50 float64 `json:"recovery_ms_p50"`
	RecoveryMSMax float64 `json:"recovery_ms_max"`
	// Expected is what SQLite documents for this fault in this cell;
	// Verdict is "as documented" or "finding", and Finding says how the
	// measurement disagrees.
	Expected string `json:"expected"`
	Verdict  string `json:"verdict"`
	Finding  string `json:"finding,omitempty"`
	// Class is the cell's durability class, the weaker of what SQLite
	// documents (OracleClass) and what this audit measured:
	// survives-power-loss, may-lose-acknowledged, survives-process-crash
	// or may-corrupt.
	Class       string `json:"class"`
	OracleClass string `json:"oracle_class"`
	// TrialResults are the trials one by one.
	TrialResults []AuditTrial `json:"trial_results,omitempty"`
}

// AuditTrial is one trial of an audit.
type AuditTrial struct {
	// FaultMS is the seeded fault moment, after the measured part began.
	FaultMS float64 `json:"fault_ms"`
	Faulted bool    `json:"faulted"`
	Acked   int64   `json:"acked"`
	Lost    int64   `json:"lost"`
	// Corrupt says why the database failed to open or to check ("" when
	// sound).
	Corrupt string `json:"corrupt,omitempty"`
	// Unverified says why the trial could not be verified ("" when it
	// was): its other figures are then zero and mean nothing.
	Unverified     string  `json:"unverified,omitempty"`
	Atomicity      int64   `json:"atomicity,omitempty"`
	UnackedPresent int64   `json:"unacked_present,omitempty"`
	RecoveryMS     float64 `json:"recovery_ms"`
	// Pattern is what the power model did (torn pieces kept, dropped or
	// garbled; directory changes kept).
	Pattern string `json:"pattern,omitempty"`
}
