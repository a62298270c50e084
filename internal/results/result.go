// Package results is the model of what a run yields and its encoding, and
// the SQLite store that keeps every run.
//
// A result carries its own meaning. Labels say what was measured (workload,
// target, engine, client, placement, every setting and parameter) and in
// which order people read them; metrics are unit-tagged values that say
// which way is better, the first of them the headline the workload
// declared; a suite step names its section; and a schema version says how
// the encoding is to be read. Readers (report, compare, benchfmt) use these
// and know nothing of particular workloads.
package results

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/litebench/litebench/internal/units"
)

// SchemaVersion is the version of the encoding this package writes.
// Version 1 (no "schema" field) is read and upgraded (see v1.go).
const SchemaVersion = 2

// Status of a run.
const (
	StatusOK          = "ok"
	StatusInterrupted = "interrupted"
	StatusFailed      = "failed"
	// StatusRunning: a run's record written at its start; its process is
	// still running.
	StatusRunning = "running"
	// StatusLost: the run's process died (killed, out of memory, power
	// cut) before the run ended.
	StatusLost = "lost"
)

// Names of metrics that reports look for by name.
const (
	// Throughput is the headline rate's name; its unit says what it counts.
	Throughput = "throughput"
	// WantedRate is the rate an open-loop run was asked for.
	WantedRate = "wanted_rate"
	// WALSize is the WAL's size at the end of the run.
	WALSize = "wal_size"
	// ProcessCPU is the CPU the client's process used over the run, in
	// cores: litebench's own for an in-process target, the worker's for
	// a worker process.
	ProcessCPU = "process_cpu"
)

// Metric is one unit-tagged figure of a run.
type Metric struct {
	Name  string  `json:"name"`
	Unit  string  `json:"unit"`
	Value float64 `json:"value"`
	// Better says which way the figure is better; units.None for a figure
	// that describes the run rather than rates it.
	Better units.Direction `json:"better,omitempty"`
}

// Latency is a distribution in microseconds: count, min, mean, max and the
// percentiles p50 … p9999.
type Latency map[string]float64

// Op is the result for one operation kind.
type Op struct {
	Name string `json:"name"`
	// Of names the op kind this one is a part of (a statement's own
	// result within its transaction): its counts are not added to any
	// total or rate, its latency is its own.
	Of      string           `json:"of,omitempty"`
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
	// Hist is the service-time histogram (package histcodec's encoding).
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
	// InForce are a server's settings as it reported them at the start
	// of the run (SHOW, SELECT @@).
	InForce map[string]string `json:"server_settings,omitempty"`
}

// Machine is the machine's fingerprint as comparisons judge it: system,
// architecture, cores and CPU model (not the host name, which differs
// between identical machines of a CI matrix). "" when unknown.
func (e Env) Machine() string {
	if e.OS == "" && e.CPUModel == "" {
		return ""
	}
	m := fmt.Sprintf("%s/%s, %d cores", e.OS, e.Arch, e.Cores)
	if e.CPUModel != "" {
		m += ", " + e.CPUModel
	}
	return m
}

// Machines lists the distinct machine fingerprints of rs, in order of
// first appearance (unknown ones left out).
func Machines(rs []*Result) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range rs {
		if m := r.Env.Machine(); m != "" && !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
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
	// Hists are the interval's service-time histograms per op (package
	// histcodec's encoding), kept when the run was asked to
	// (--series-histograms): what HdrHistogram's interval log holds.
	Hists map[string]string `json:"hists,omitempty"`
	// Warning is what the run warned of at this sample (the WAL passing
	// its warning size), for reports to mark where it happened.
	Warning string `json:"warning,omitempty"`
}

// Control names a run's control runs: those of the same workload whose
// label Key has Value and that share the run's values of the labels in
// Match.
type Control struct {
	Key   string   `json:"key"`
	Value string   `json:"value"`
	Match []string `json:"match,omitempty"`
}

// Result is one run: one workload on one target with one settings value.
type Result struct {
	// Schema is the encoding's version: SchemaVersion once decoded.
	Schema  int    `json:"schema"`
	RunID   string `json:"run_id"`
	SweepID string `json:"sweep_id,omitempty"`
	// Section is the suite section the run is a step of ("" outside
	// suites).
	Section string `json:"section,omitempty"`
	// Label names the run for people: its workload, target and what
	// varies in its sweep, or a suite step's name such as "+ journal_mode=WAL
	// (mattn)".
	Label string `json:"label,omitempty"`
	// Repeat numbers the repetitions of one cell (--repeat), from 1.
	Repeat int `json:"repeat,omitempty"`

	// The labels: what the run measured.
	Workload  string            `json:"workload"`
	Target    string            `json:"target"`
	Engine    string            `json:"engine"`    // "sqlite"
	Client    string            `json:"client"`    // how statements were issued: the driver
	Placement string            `json:"placement"` // where the workload ran: "in-process"
	Settings  map[string]string `json:"settings"`
	// Params are the workload's own parameters (rows, schema, seed, …).
	Params map[string]string `json:"params"`
	// Order is the display order of the parameters' and settings' keys
	// (see LabelOrder).
	Order []string `json:"label_order,omitempty"`
	// Control names the runs this run's headline is compared with, when
	// the workload has a control (e.g. serving a file instead of querying
	// a database).
	Control *Control `json:"control,omitempty"`

	// InForce are settings as the connection reported them once set up
	// (journal_mode, synchronous, …): what ran, asked for or not.
	InForce map[string]string `json:"in_force,omitempty"`

	// Versions of what ran.
	EngineVersion string `json:"engine_version"`
	ClientVersion string `json:"client_version,omitempty"`

	Status    string    `json:"status"`
	Error     string    `json:"error,omitempty"`
	StartedAt time.Time `json:"started_at"`
	// Rows counts what the headline counts (rows, operations or
	// requests) over the measured interval; the field keeps the name of
	// the store's column, the encoding calls it count.
	Rows    int64   `json:"count"`
	Elapsed float64 `json:"elapsed_seconds"`
	// Metrics are the run's figures; the first is the headline.
	Metrics []Metric `json:"metrics"`
	// RowsPerSecond is the headline's value.
	//
	// Deprecated: read Headline. It is set with the headline (SetHeadline,
	// decoding) for the store's rows_per_second column and is not encoded.
	RowsPerSecond float64  `json:"-"`
	Ops           []Op     `json:"ops"`
	Notes         []string `json:"notes,omitempty"`
	Series        []Point  `json:"series,omitempty"`
	Env           Env      `json:"env"`
	Command       string   `json:"command,omitempty"`
	// Processes are the parts of a run of several worker processes on
	// one database (--processes), one each; empty for a run of one.
	Processes []Process `json:"processes,omitempty"`
	// Audit is set on the results of a durability audit (one per cell and
	// fault).
	Audit *Audit `json:"audit,omitempty"`
	// Tables are the tables a suite printed once this run ended (it is
	// the last run each is made of), so that the suite can be printed
	// again as it ran.
	Tables []Table `json:"tables,omitempty"`
	// Warnings say what a reader must know before trusting a run that
	// ended ok (Judge's rule: more than 1% of its operations failed; an
	// audit's trials that could not be verified).
	Warnings []string `json:"warnings,omitempty"`
}

// Table is a table as a suite printed it: a title, column headers (Right
// marks the numeric ones), rows of cells and notes under it.
type Table struct {
	Title   string     `json:"title,omitempty"`
	Headers []string   `json:"headers"`
	Right   []bool     `json:"right,omitempty"`
	Rows    [][]string `json:"rows"`
	Notes   []string   `json:"notes,omitempty"`
}

// Headline is the run's headline metric (the zero Metric if it has none).
func (r *Result) Headline() Metric {
	if len(r.Metrics) == 0 {
		return Metric{}
	}
	return r.Metrics[0]
}

// SetHeadline makes m the run's headline, ahead of its other metrics.
func (r *Result) SetHeadline(m Metric) {
	r.Metrics = append([]Metric{m}, r.Metrics...)
	r.RowsPerSecond = m.Value
}

// Metric returns the value of the metric called name.
func (r *Result) Metric(name string) (float64, bool) {
	for _, m := range r.Metrics {
		if m.Name == name {
			return m.Value, true
		}
	}
	return 0, false
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

// ErrorTotals sums errors over op kinds (not their parts, which their
// whole counts).
func (r *Result) ErrorTotals() map[string]int64 {
	m := map[string]int64{}
	for _, o := range r.Ops {
		if o.Of != "" {
			continue
		}
		for k, n := range o.Errors {
			m[k] += n
		}
	}
	return m
}

// RetryTotal sums retries over op kinds (not their parts).
func (r *Result) RetryTotal() int64 {
	var n int64
	for _, o := range r.Ops {
		if o.Of != "" {
			continue
		}
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
	// Flat fields of schema 1, derived, kept for scripts written against
	// it: rows is count, rows_per_second the headline's value (rows,
	// operations or requests per second), sqlite_version the engine's.
	Rows          int64   `json:"rows"`
	RowsPerSecond float64 `json:"rows_per_second"`
	SQLiteVersion string  `json:"sqlite_version,omitempty"`
	// Labels are every label typed as its canonical string spells it:
	// true and false as booleans, numbers as numbers, the rest as
	// strings (settings and params keep the strings, exactly).
	Labels map[string]any `json:"labels"`
}

// jsonNumber matches JSON's grammar of numbers.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// typed is the JSON value a label's canonical string spells.
func typed(v string) any {
	switch {
	case v == "true":
		return true
	case v == "false":
		return false
	case jsonNumber.MatchString(v):
		return json.Number(v)
	}
	return v
}

// MarshalJSONLine encodes r as one JSON object (no trailing newline), in
// the current schema.
func MarshalJSONLine(r *Result) ([]byte, error) {
	c := *r
	c.Schema = SchemaVersion
	w := wire{Result: &c, LatencyUS: map[string]map[string]any{}, Errors: r.ErrorTotals(), Retries: r.RetryTotal(),
		Rows: r.Rows, RowsPerSecond: r.Headline().Value, SQLiteVersion: r.EngineVersion, Labels: map[string]any{}}
	for _, l := range r.Labels() {
		w.Labels[l.Key] = typed(l.Value)
	}
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

// UnmarshalJSONLine decodes one line written by MarshalJSONLine, or by an
// earlier litebench (schema 1), which it upgrades.
func UnmarshalJSONLine(b []byte) (*Result, error) {
	var head struct {
		Schema int    `json:"schema"`
		RunID  string `json:"run_id"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, err
	}
	if head.RunID == "" {
		return nil, fmt.Errorf("not a litebench run: no run_id")
	}
	switch head.Schema {
	case 0, 1: // schema 1 had no field
		return upgradeV1(b)
	case SchemaVersion:
	default:
		return nil, fmt.Errorf("run %s has schema %d, newer than this litebench reads (%d): use a newer litebench", head.RunID, head.Schema, SchemaVersion)
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	r.RowsPerSecond = r.Headline().Value
	return &r, nil
}

// Label is one label of a run.
type Label struct {
	Key, Value string
	Kind       Kind
}

// Kind is what a label is.
type Kind int

// Kinds of label, in display order.
const (
	KindWorkload Kind = iota
	KindTarget        // target; engine, client and placement are its parts
	KindPart
	KindParam
	KindSetting
)

// Labels returns r's labels in display order: workload, target and its
// parts, then parameters and settings as r.Order gives them (any r.Order
// leaves out follow, sorted).
func (r *Result) Labels() []Label {
	ls := []Label{{"workload", r.Workload, KindWorkload}, {"target", r.Target, KindTarget},
		{"engine", r.Engine, KindPart}, {"client", r.Client, KindPart}, {"placement", r.Placement, KindPart}}
	params, sets := LabelOrder([]*Result{r})
	for _, k := range params {
		ls = append(ls, Label{k, r.Params[k], KindParam})
	}
	for _, k := range sets {
		ls = append(ls, Label{k, r.Settings[k], KindSetting})
	}
	return ls
}

// Get returns r's value of a label (workload, target, engine, client,
// placement, a parameter or a setting), or of section, engine_version or
// client_version (sqlite_version, schema 1's name, is engine_version).
func (r *Result) Get(key string) (string, bool) {
	switch key {
	case "workload":
		return r.Workload, true
	case "target":
		return r.Target, true
	case "engine":
		return r.Engine, true
	case "client":
		return r.Client, true
	case "placement":
		return r.Placement, true
	case "section":
		return r.Section, true
	case "engine_version", "sqlite_version":
		return r.EngineVersion, true
	case "client_version":
		return r.ClientVersion, true
	case "litebench":
		return r.Env.Litebench, true
	}
	if v, ok := r.Settings[key]; ok {
		return v, true
	}
	v, ok := r.Params[key]
	return v, ok
}

// LabelOrder merges the display orders of rs into one: the parameters'
// keys and the settings' keys, each key after every key some result
// orders before it, and otherwise by name (so runs of different workloads
// list their parameters by name, and settings keep the order every run
// gives them). Keys no result orders are placed by name.
func LabelOrder(rs []*Result) (params, settings []string) {
	return mergeOrder(rs, func(r *Result) map[string]string { return r.Params }),
		mergeOrder(rs, func(r *Result) map[string]string { return r.Settings })
}

// mergeOrder orders the keys of of(r) over rs: a topological sort of the
// results' orders that takes the smallest name among the keys free to
// come next (and breaks a cycle, from orders that disagree, the same way).
func mergeOrder(rs []*Result, of func(*Result) map[string]string) []string {
	after := map[string]map[string]bool{} // key → keys that must follow it
	before := map[string]int{}            // key → how many must precede it
	keys := map[string]bool{}
	for _, r := range rs {
		m := of(r)
		for k := range m {
			keys[k] = true
		}
		prev := ""
		for _, k := range r.Order {
			if _, ok := m[k]; !ok {
				continue
			}
			if prev != "" && !after[prev][k] {
				if after[prev] == nil {
					after[prev] = map[string]bool{}
				}
				after[prev][k] = true
				before[k]++
			}
			prev = k
		}
	}
	left := sortedKeys(keys)
	out := make([]string, 0, len(left))
	for len(left) > 0 {
		i := 0
		for j, k := range left {
			if before[k] == 0 {
				i = j
				break
			}
		}
		k := left[i]
		left = append(left[:i], left[i+1:]...)
		out = append(out, k)
		for n := range after[k] {
			before[n]--
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// VaryingKeys returns the setting keys whose values differ among rs, in
// display order.
func VaryingKeys(rs []*Result) []string {
	_, sets := LabelOrder(rs)
	return varying(rs, sets, func(r *Result) map[string]string { return r.Settings })
}

// VaryingParams returns the workload parameters whose values differ among
// rs, in display order.
func VaryingParams(rs []*Result) []string {
	params, _ := LabelOrder(rs)
	return varying(rs, params, func(r *Result) map[string]string { return r.Params })
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

// CellKey identifies what a run measured: its section and its labels, in
// any order. Repetitions of one cell share it.
func (r *Result) CellKey() string {
	var b strings.Builder
	b.WriteString(r.Section)
	for _, l := range []string{r.Workload, r.Target, r.Engine, r.Client, r.Placement} {
		b.WriteString("|" + l)
	}
	for _, m := range []map[string]string{r.Params, r.Settings} {
		b.WriteString("|")
		for _, k := range sortedKeys(m) {
			b.WriteString(k + "=" + m[k] + ";")
		}
	}
	return b.String()
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
