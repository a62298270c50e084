// Package results is the model of what a run yields, its encoders and the
// SQLite store that keeps every run.
package results

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Status of a run.
const (
	StatusOK          = "ok"
	StatusInterrupted = "interrupted"
	StatusFailed      = "failed"
)

// Latency is a distribution in microseconds: count, min, mean, max and the
// percentiles p50 … p9999.
type Latency map[string]float64

// Op is the result for one operation kind.
type Op struct {
	Name    string           `json:"name"`
	Count   int64            `json:"count"`
	Errors  map[string]int64 `json:"errors,omitempty"`
	Retries int64            `json:"retries,omitempty"`
	// Late counts open-loop operations that started behind schedule.
	Late int64 `json:"late,omitempty"`
	// Overrun counts closed-loop operations still running when the
	// measured window closed: in the latency, not in Count or rates.
	Overrun int64 `json:"overrun,omitempty"`
	// Service is measured from the actual start of each operation.
	Service Latency `json:"service"`
	// Response is measured from the scheduled start (open loop only).
	Response Latency `json:"response,omitempty"`
	// Hist is the service-time histogram, HdrHistogram V2 compressed, base64.
	Hist string `json:"hist,omitempty"`
	// RespHist is the response-time histogram in the same encoding.
	RespHist string `json:"resp_hist,omitempty"`
}

// Env is the environment fingerprint of a run.
type Env struct {
	Target         string            `json:"target"`
	API            string            `json:"api"`
	Module         string            `json:"module"`
	SQLiteVersion  string            `json:"sqlite_version"`
	CompileOptions []string          `json:"compile_options,omitempty"`
	OS             string            `json:"os"`
	Kernel         string            `json:"kernel,omitempty"`
	Arch           string            `json:"arch"`
	CPUModel       string            `json:"cpu_model,omitempty"`
	Cores          int               `json:"cores"`
	GOMAXPROCS     int               `json:"gomaxprocs"`
	Filesystem     string            `json:"filesystem,omitempty"`
	BenchDir       string            `json:"bench_dir,omitempty"`
	GoVersion      string            `json:"go_version"`
	Litebench      string            `json:"litebench_version"`
	Hostname       string            `json:"hostname,omitempty"`
	Limits         map[string]string `json:"limits,omitempty"`
}

// Point is one sample of a run's time series.
type Point struct {
	T        float64            `json:"t"` // seconds since the measured start
	Rows     int64              `json:"rows"`
	OpsPerS  map[string]float64 `json:"ops_per_s,omitempty"`
	P99us    map[string]float64 `json:"p99_us,omitempty"`
	DBBytes  int64              `json:"db_bytes,omitempty"`
	WALBytes int64              `json:"wal_bytes,omitempty"`
	SHMBytes int64              `json:"shm_bytes,omitempty"`
	// WALSeq is the WAL header's checkpoint sequence: it moves each time a
	// checkpoint completes and the WAL restarts.
	WALSeq int64            `json:"wal_checkpoint_seq,omitempty"`
	Errors map[string]int64 `json:"errors,omitempty"`
}

// Result is one run: one workload on one target with one settings value.
type Result struct {
	RunID    string            `json:"run_id"`
	SweepID  string            `json:"sweep_id,omitempty"`
	Workload string            `json:"workload"`
	Target   string            `json:"target"`
	SQLite   string            `json:"sqlite_version"`
	Settings map[string]string `json:"settings"`
	// Params are the workload's own parameters (rows, schema, seed, …).
	Params map[string]string `json:"params"`
	// Label names the run for people: "insert mattn batch=10", or a suite
	// step such as "ladder: + journal_mode=WAL (mattn)".
	Label string `json:"label,omitempty"`
	// Repeat numbers the repetitions of one cell (--repeat), from 1.
	Repeat    int       `json:"repeat,omitempty"`
	Status    string    `json:"status"`
	Error     string    `json:"error,omitempty"`
	StartedAt time.Time `json:"started_at"`
	// Rows is the number of rows the workload wrote or read.
	Rows          int64   `json:"rows"`
	Elapsed       float64 `json:"elapsed_seconds"`
	RowsPerSecond float64 `json:"rows_per_second"`
	// Extra holds workload-specific figures (e.g. time_to_query_us,
	// first_row_us, vacuum_seconds, db_bytes).
	Extra   map[string]float64 `json:"extra,omitempty"`
	Ops     []Op               `json:"ops"`
	Notes   []string           `json:"notes,omitempty"`
	Series  []Point            `json:"series,omitempty"`
	Env     Env                `json:"env"`
	Command string             `json:"command,omitempty"`
}

// Felt is the latency users of the op experienced: response time under a
// target rate (from the scheduled start), service time otherwise.
func (o *Op) Felt() Latency {
	if o.Response != nil {
		return o.Response
	}
	return o.Service
}

// Op returns the op named name, or nil.
func (r *Result) Op(name string) *Op {
	for i := range r.Ops {
		if r.Ops[i].Name == name {
			return &r.Ops[i]
		}
	}
	return nil
}

// ErrorTotals sums errors over op kinds.
func (r *Result) ErrorTotals() map[string]int64 {
	m := map[string]int64{}
	for _, o := range r.Ops {
		for k, n := range o.Errors {
			m[k] += n
		}
	}
	return m
}

// RetryTotal sums retries over op kinds.
func (r *Result) RetryTotal() int64 {
	var n int64
	for _, o := range r.Ops {
		n += o.Retries
	}
	return n
}

// wire is the JSON line format: the Result plus derived, flat views that
// scripts want (latency_us, errors). Derived fields are ignored on decode.
type wire struct {
	*Result
	LatencyUS map[string]map[string]any `json:"latency_us"`
	Errors    map[string]int64          `json:"errors"`
	Retries   int64                     `json:"retries"`
}

// MarshalJSONLine encodes r as one JSON object (no trailing newline).
func MarshalJSONLine(r *Result) ([]byte, error) {
	w := wire{Result: r, LatencyUS: map[string]map[string]any{}, Errors: r.ErrorTotals(), Retries: r.RetryTotal()}
	for _, o := range r.Ops {
		m := map[string]any{}
		// The flat percentiles are what the user experienced: response
		// time under a target rate, service time otherwise.
		top := o.Felt()
		for k, v := range top {
			m[k] = v
		}
		m["service"] = o.Service
		if o.Response != nil {
			m["response"] = o.Response
		}
		w.LatencyUS[o.Name] = m
	}
	return json.Marshal(w)
}

// UnmarshalJSONLine decodes one line written by MarshalJSONLine.
func UnmarshalJSONLine(b []byte) (*Result, error) {
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	if r.RunID == "" {
		return nil, fmt.Errorf("not a litebench run: no run_id")
	}
	return &r, nil
}

// VaryingKeys returns the setting keys whose values differ among rs, in the
// settings' display order given by order.
func VaryingKeys(rs []*Result, order []string) []string {
	return varying(rs, order, func(r *Result) map[string]string { return r.Settings })
}

// VaryingParams returns the workload parameters whose values differ among rs,
// sorted by name.
func VaryingParams(rs []*Result) []string {
	keys := map[string]bool{}
	for _, r := range rs {
		for k := range r.Params {
			keys[k] = true
		}
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	return varying(rs, sorted, func(r *Result) map[string]string { return r.Params })
}

func varying(rs []*Result, keys []string, of func(*Result) map[string]string) []string {
	var out []string
	for _, k := range keys {
		for _, r := range rs[min(1, len(rs)):] {
			if of(r)[k] != of(rs[0])[k] {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// CellKey identifies what a run measured: workload, target, settings and
// parameters. Repetitions of one cell share it.
func (r *Result) CellKey() string {
	var b strings.Builder
	b.WriteString(r.Workload + "|" + r.Target)
	for _, m := range []map[string]string{r.Settings, r.Params} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("|")
		for _, k := range keys {
			b.WriteString(k + "=" + m[k] + ";")
		}
	}
	return b.String()
}

// Throughput is a run's headline rate: operations per second for
// operation workloads (all kinds), rows per second otherwise.
func (r *Result) Throughput() float64 {
	switch r.Workload {
	case "read", "write", "mixed", "http":
		var n int64
		for _, o := range r.Ops {
			n += o.Count
		}
		if r.Elapsed > 0 {
			return float64(n) / r.Elapsed
		}
		return 0
	}
	return r.RowsPerSecond
}

// Cell is the runs of one cell, in order.
type Cell struct {
	Key  string
	Runs []*Result
}

// Cells groups runs by CellKey, in order of first appearance.
func Cells(rs []*Result) []Cell {
	var out []Cell
	idx := map[string]int{}
	for _, r := range rs {
		k := r.CellKey()
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Cell{Key: k})
		}
		out[i].Runs = append(out[i].Runs, r)
	}
	return out
}
