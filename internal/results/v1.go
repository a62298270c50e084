package results

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/litebench/litebench/internal/units"
)

// v1Result is schema 1, the encoding before results carried their meaning:
// what the headline counted and the units of the workload's figures were
// known only to the code that wrote them. Every schema-1 run was a SQLite
// driver in the litebench process.
type v1Result struct {
	RunID         string             `json:"run_id"`
	SweepID       string             `json:"sweep_id"`
	Workload      string             `json:"workload"`
	Target        string             `json:"target"`
	SQLite        string             `json:"sqlite_version"`
	Settings      map[string]string  `json:"settings"`
	Params        map[string]string  `json:"params"`
	Label         string             `json:"label"`
	Repeat        int                `json:"repeat"`
	Status        string             `json:"status"`
	Error         string             `json:"error"`
	StartedAt     time.Time          `json:"started_at"`
	Rows          int64              `json:"rows"`
	Elapsed       float64            `json:"elapsed_seconds"`
	RowsPerSecond float64            `json:"rows_per_second"`
	Extra         map[string]float64 `json:"extra"`
	Ops           []Op               `json:"ops"`
	Notes         []string           `json:"notes"`
	Series        []Point            `json:"series"`
	Env           Env                `json:"env"`
	Command       string             `json:"command"`
}

// v1Figures are the schema-1 "extra" figures, as metrics, in the order
// the upgrade writes them. The first four were the summary table's extra
// columns, in its order (the figures of merit).
var v1Figures = []struct {
	key string
	Metric
}{
	{"time_to_query_us", Metric{Name: "query_returned", Unit: units.Microseconds, Better: units.Lower}},
	{"first_row_us", Metric{Name: "first_row", Unit: units.Microseconds, Better: units.Lower}},
	{"us_per_row", Metric{Name: "per_row", Unit: units.Microseconds, Better: units.Lower}},
	{"vacuum_seconds", Metric{Name: "vacuum", Unit: units.Seconds, Better: units.Lower}},
	{"generate_seconds", Metric{Name: "generate", Unit: units.Seconds}},
	{"db_bytes", Metric{Name: "db_size", Unit: units.ByteSize}},
	{"wal_bytes", Metric{Name: WALSize, Unit: units.ByteSize}},
	{"connections_opened", Metric{Name: "connections_opened", Unit: "connections"}},
	{"table_rows_before", Metric{Name: "table_rows_before", Unit: units.Rows}},
	{"table_rows_after", Metric{Name: "table_rows_after", Unit: units.Rows}},
	{"rows_inserted", Metric{Name: "rows_inserted", Unit: units.Rows}},
	{"executors", Metric{Name: "executors", Unit: "executors"}},
	{"issued_ops_per_s", Metric{Name: "issued_rate", Unit: units.OpsPerSecond}},
	{"wanted_ops_per_s", Metric{Name: WantedRate, Unit: units.OpsPerSecond}},
	{"sched_lag_p99_us", Metric{Name: "sched_lag_p99", Unit: units.Microseconds}},
	{"body_bytes", Metric{Name: "body_size", Unit: units.ByteSize}},
}

// v1Suffixes give the unit of a schema-1 figure the table does not know.
var v1Suffixes = []struct{ suffix, unit string }{
	{"_us", units.Microseconds}, {"_seconds", units.Seconds}, {"_bytes", units.ByteSize}, {"_per_s", units.OpsPerSecond},
}

// v1SettingOrder is the display order of schema-1 settings.
var v1SettingOrder = []string{"journal", "sync", "busy-timeout", "cache-size", "mmap-size", "temp-store", "locking-mode",
	"page-size", "shared-cache", "in-memory", "pool", "conn-per-op", "prepared", "batch", "rows-per-stmt", "tx",
	"write-mutex", "writer", "busy-retry"}

// v1Control is what schema-1 reports compared request runs with: serving
// the file under the same load.
var v1Control = Control{Key: "strategy", Value: "file", Match: []string{"concurrency", "rate"}}

// upgradeV1 reads a schema-1 line as a current result, by the rules the
// schema-1 readers used: a run that recorded read, write or request
// operations had, as its headline, those operations of every kind per
// second (requests per second for requests); any other run its rows per
// second. Request runs with a strategy were compared with serving the
// file. A suite step was labelled "section: step (target)". Parameters
// were shown by name, settings in the settings' order.
func upgradeV1(b []byte) (*Result, error) {
	var o v1Result
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, err
	}
	r := &Result{
		Schema: SchemaVersion, RunID: o.RunID, SweepID: o.SweepID, Label: o.Label, Repeat: o.Repeat,
		Workload: o.Workload, Target: o.Target, Engine: "sqlite", Client: o.Target, Placement: "in-process",
		Settings: o.Settings, Params: o.Params, EngineVersion: o.SQLite,
		Status: o.Status, Error: o.Error, StartedAt: o.StartedAt, Rows: o.Rows, Elapsed: o.Elapsed,
		Ops: o.Ops, Notes: o.Notes, Series: o.Series, Env: o.Env, Command: o.Command,
	}
	r.Order = sortedKeys(o.Params)
	for _, k := range v1SettingOrder {
		if _, ok := o.Settings[k]; ok {
			r.Order = append(r.Order, k)
		}
	}
	if section, step, ok := strings.Cut(o.Label, ": "); ok {
		r.Section, r.Label = section, step
	}
	unit := ""
	var ops int64
	for _, op := range o.Ops {
		switch op.Name {
		case "read", "write":
			unit = units.OpsPerSecond
		case "request":
			unit = units.RequestsPerSecond
		}
		ops += op.Count
	}
	if unit == units.RequestsPerSecond && o.Params["strategy"] != "" {
		c := v1Control
		r.Control = &c
	}
	known := map[string]bool{}
	for _, f := range v1Figures {
		known[f.key] = true
		if v, ok := o.Extra[f.key]; ok {
			m := f.Metric
			m.Value = v
			r.Metrics = append(r.Metrics, m)
		}
	}
	for _, k := range sortedKeys(o.Extra) {
		if known[k] {
			continue
		}
		m := Metric{Name: k, Value: o.Extra[k]}
		for _, s := range v1Suffixes {
			if strings.HasSuffix(k, s.suffix) {
				m.Unit = s.unit
				break
			}
		}
		r.Metrics = append(r.Metrics, m)
	}
	head := Metric{Name: Throughput, Unit: units.RowsPerSecond, Value: o.RowsPerSecond, Better: units.Higher}
	if unit != "" {
		head.Unit, head.Value = unit, 0
		if o.Elapsed > 0 {
			head.Value = float64(ops) / o.Elapsed
		}
	}
	r.SetHeadline(head)
	return r, nil
}
