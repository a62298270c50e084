// Package worker is the contract between the runner and whatever executes
// a run. The runner hands a worker a Job (a workload kind with its
// parameters, the settings, the target and the database to use); the
// worker sets the workload up, runs its own load loop, times its own
// operations and reports Events: setup done, an interval every so often,
// acknowledgements of committed writes when asked, and a final event with
// the whole run's histograms and counts.
//
// Local runs a job in this process. Process runs it in a child process
// ('litebench worker') speaking the same contract as JSON lines over
// stdin/stdout (see docs/worker-protocol.md); workers written in other
// languages implement that protocol too. The runner consumes the same
// events whichever placement ran the job.
package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/spec"
	"github.com/litebench/litebench/internal/workload"
)

// Protocol is the version of the worker protocol, exchanged in hello.
const Protocol = 1

// Placements: where a job's client runs.
const (
	InProcess = "in-process"
	ChildProc = "process"
)

// Job is one run for a worker: plain data, so that it crosses a process
// boundary as JSON.
type Job struct {
	RunID    string `json:"run_id"`
	Workload string `json:"workload"`
	// Spec, for a workload defined by files (a workload file, pgbench
	// scripts), is their text: the worker builds the workload from it
	// instead of looking its name up.
	Spec *workload.Definition `json:"spec,omitempty"`
	// Program is the same workload compiled for the target's engine
	// (docs/workload-program.md), sent to workers that announce the
	// "program" capability instead of interpreting Spec.
	Program  json.RawMessage   `json:"program,omitempty"`
	Params   map[string]string `json:"params"`
	Settings map[string]string `json:"settings"`
	Target   string            `json:"target"`
	// Path is the bench database the controller provisioned (a file, or
	// the name of an in-memory database).
	Path string `json:"path"`
	// IntervalNS is how often the worker reports an interval (0 = never).
	IntervalNS int64 `json:"interval_ns,omitempty"`
	// Acks asks for an ack event after every committed write transaction.
	Acks bool `json:"acks,omitempty"`
	// Attach uses the database as it is, beside the litebench process that
	// owns it: neither stamped, reset nor set up.
	Attach bool `json:"attach,omitempty"`
	// InsertFrom and InsertTo are the rows this worker's inserts write:
	// from row InsertFrom (0: right after the rows loaded before the run)
	// up to InsertTo (0: no end), a range of its own beside other
	// processes writing the same database. Only workers with the
	// "insert_range" capability take them.
	InsertFrom int64 `json:"insert_from,omitempty"`
	InsertTo   int64 `json:"insert_to,omitempty"`
	// Digest asks for a content digest of the database after set-up and
	// at the end (type-tagged rows in key order; see the protocol doc).
	Digest bool `json:"digest,omitempty"`
	// VFS opens the database through the VFS of that name, registered in
	// Go in the worker's process (the durability audit's crash VFS);
	// only targets that can use a Go VFS accept it.
	VFS string `json:"vfs,omitempty"`
}

// CapProgram is the capability of a worker that runs workload programs.
const CapProgram = spec.CapProgram

// CapInsertRange is the capability of a worker that takes a job's range
// of rows for its inserts (InsertFrom, InsertTo).
const CapInsertRange = "insert_range"

// CheckInsertRange refuses a job with a range of rows for a worker (of
// the named target) that would not keep to it.
func CheckInsertRange(target string, j *Job, caps []string) error {
	if j.InsertFrom == 0 && j.InsertTo == 0 || slices.Contains(caps, CapInsertRange) {
		return nil
	}
	return fmt.Errorf("%s: its worker cannot keep its inserts to a range of rows (--processes, --from); use a Go target such as mattn", target)
}

// Programmed is a workload that compiles to a program for a dialect.
type Programmed interface {
	ProgramJSON(d dialect.Dialect) (json.RawMessage, error)
}

// CheckProgram refuses a job of a workload file for a worker (of the
// named target) whose capabilities do not include running programs.
func CheckProgram(target string, j *Job, caps []string) error {
	if j.Spec == nil || slices.Contains(caps, CapProgram) {
		return nil
	}
	return spec.NoProgram(target)
}

// Interval returns the job's interval period.
func (j *Job) Interval() time.Duration { return time.Duration(j.IntervalNS) }

// Event types, the "t" of every message.
const (
	THello     = "hello"
	TSetup     = "setup"
	TSetupDone = "setup_done"
	TRun       = "run"
	TInterval  = "interval"
	TAck       = "ack"
	TFinal     = "final"
	TError     = "error"
	TCancel    = "cancel"
	TClose     = "close"
)

// Event is one message of the stream, from the worker to the runner (and
// the few the runner sends: hello, setup, run, cancel, close). Fields are
// set according to T.
type Event struct {
	T string `json:"t"`

	// hello
	Protocol int      `json:"protocol,omitempty"`
	Lang     string   `json:"lang,omitempty"`
	Version  string   `json:"version,omitempty"`
	Caps     []string `json:"caps,omitempty"`
	// Driver and DriverVersion name a worker's driver (workers of other
	// languages say so in hello; EngineVersion is then the SQLite it runs).
	Driver        string `json:"driver,omitempty"`
	DriverVersion string `json:"driver_version,omitempty"`

	// setup
	Job *Job `json:"job,omitempty"`

	// setup_done: what the worker's client runs, read back from the
	// connection.
	Client         string   `json:"client,omitempty"`
	Engine         string   `json:"engine,omitempty"`
	EngineVersion  string   `json:"engine_version,omitempty"`
	CompileOptions []string `json:"compile_options,omitempty"`
	JournalMode    string   `json:"journal_mode,omitempty"`
	// InForce are the engine's settings as the connection or server reports
	// them (journal_mode, synchronous, a server's), read back after the
	// settings were applied.
	InForce map[string]string `json:"in_force,omitempty"`
	SetupMS float64           `json:"setup_ms,omitempty"`

	// interval: AtS is seconds since the measured start at the end of the
	// interval, SpanS its length; Done counts rows or operations so far.
	AtS   float64      `json:"at_s,omitempty"`
	SpanS float64      `json:"span_s,omitempty"`
	Done  int64        `json:"done,omitempty"`
	Ops   []IntervalOp `json:"ops,omitempty"`

	// ack: first row indexes (or write sequence numbers) of committed
	// write transactions, and how many rows each committed.
	Seqs []int64 `json:"seqs,omitempty"`
	Rows []int64 `json:"rows,omitempty"`

	// final
	Status    string           `json:"status,omitempty"`
	ElapsedS  float64          `json:"elapsed_s,omitempty"`
	FinalOps  []results.Op     `json:"final_ops,omitempty"`
	Metrics   []results.Metric `json:"metrics,omitempty"`
	Notes     []string         `json:"notes,omitempty"`
	Conns     int64            `json:"connections_opened,omitempty"`
	Digest    string           `json:"digest,omitempty"`
	MeasuredS float64          `json:"measured_start_s,omitempty"`

	// error (fatal), or the reason of a failed final.
	Error string `json:"error,omitempty"`
}

// IntervalOp is one op kind's figures over one interval: successes,
// errors and the latency users felt (response time in open loop, service
// time otherwise), as an HdrHistogram V2-compressed base64 string.
type IntervalOp struct {
	Name   string `json:"name"`
	Count  int64  `json:"n"`
	Errors int64  `json:"err,omitempty"`
	Hist   string `json:"hist,omitempty"`
}

// Worker executes jobs. Setup provisions the workload's schema and data
// (not measured); Run measures. emit receives every event in order, on one
// goroutine at a time; it must not block for long (the worker's interval
// ticker waits for it).
type Worker interface {
	Hello(ctx context.Context) (Event, error)
	Setup(ctx context.Context, j *Job) (Event, error)
	Run(ctx context.Context, emit func(Event)) (Event, error)
	Close() error
}

// For returns the worker for a placement.
func For(placement string) (Worker, error) {
	switch placement {
	case "", InProcess:
		return NewLocal(), nil
	case ChildProc:
		return StartProcess()
	}
	return nil, &PlacementError{placement}
}

// PlacementError names an unknown placement.
type PlacementError struct{ Name string }

func (e *PlacementError) Error() string {
	return "unknown placement " + e.Name + " (known: " + InProcess + ", " + ChildProc + ")"
}
