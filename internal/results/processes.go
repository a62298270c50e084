package results

// Process is one worker process's part of a run of several on one
// database (--processes N): its own figures, which the run's add up.
// The run's count is the sum of its processes' counts and its headline
// the sum of their rates; its ops merge theirs.
type Process struct {
	// Index numbers the processes from 0; process 0 set the database up
	// (unless the whole run was attached), the others attached to it.
	Index int `json:"index"`
	// Attached says the process used the database as it was, beside the
	// one that set it up.
	Attached bool `json:"attached,omitempty"`
	// InsertFrom and InsertTo are the row indexes its inserts kept to:
	// from InsertFrom up to, not including, InsertTo (0: no end).
	InsertFrom int64 `json:"insert_from"`
	InsertTo   int64 `json:"insert_to,omitempty"`
	// RowsInRange counts the rows the database held in its range after
	// the run: what its inserts committed, counted in the database (for
	// tables keyed by a sequence; 0 otherwise).
	RowsInRange int64  `json:"rows_in_range"`
	Status      string `json:"status"`
	Error       string `json:"error,omitempty"`
	// Count and Elapsed are its count of the headline's unit and its
	// measured seconds; Rate is Count / Elapsed, the headline's unit.
	Count   int64   `json:"count"`
	Elapsed float64 `json:"elapsed_seconds"`
	Rate    float64 `json:"rate"`
	// Errors are its failed operations by kind (busy, locked, …) and
	// Retries the operations it tried again (--busy-retry).
	Errors  map[string]int64 `json:"errors,omitempty"`
	Retries int64            `json:"retries,omitempty"`
	// WALStart is the WAL's size as the process's measured part started
	// and WALMax the largest the runner saw while it ran (the WAL is the
	// database's, shared by every process: its growth over one process's
	// run is every writer's, not that process's alone).
	WALStart int64 `json:"wal_start_bytes,omitempty"`
	WALMax   int64 `json:"wal_max_bytes,omitempty"`
	// Metrics and Ops are its own figures and operations, as a run of its
	// own reports them (ops without their histograms).
	Metrics []Metric `json:"metrics,omitempty"`
	Ops     []Op     `json:"ops,omitempty"`
}

// Busy counts the process's busy and locked errors.
func (p *Process) Busy() int64 { return p.Errors["busy"] + p.Errors["locked"] }
