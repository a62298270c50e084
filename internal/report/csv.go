package report

import (
	"encoding/csv"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/units"
)

// latencyStats are the latency figures of an op, in the order CSV columns
// give them.
var latencyStats = []string{"min", "mean", "p50", "p75", "p90", "p95", "p99", "p999", "p9999", "max"}

// WriteCSV writes one row per run, raw: every label and every figure in a
// column of its own, numbers as measured (not rounded), units in the
// column names ("throughput (rows/s)", "read service p99 (µs)"). Columns a
// run lacks are empty. The table formats are for people; this is for
// scripts and spreadsheets.
func WriteCSV(w io.Writer, rs []*results.Result) error {
	c := csvColumns(rs)
	cw := csv.NewWriter(w)
	if err := cw.Write(c.names); err != nil {
		return err
	}
	for _, r := range rs {
		row := make([]string, len(c.names))
		set := func(col, v string) {
			if i, ok := c.idx[col]; ok {
				row[i] = v
			}
		}
		set("run_id", r.RunID)
		set("sweep_id", r.SweepID)
		set("section", r.Section)
		set("label", r.Label)
		if r.Repeat > 0 {
			set("repeat", strconv.Itoa(r.Repeat))
		}
		set("status", r.Status)
		set("error", r.Error)
		set("started_at", r.StartedAt.UTC().Format(time.RFC3339Nano))
		for _, l := range r.Labels() {
			set(c.label[labelKey{l.Key, l.Kind == results.KindSetting}], l.Value)
		}
		set("engine_version", r.EngineVersion)
		set("client_version", r.ClientVersion)
		h := r.Headline()
		set("headline", metricColumn(h))
		set(countColumn(h.Unit), strconv.FormatInt(r.Rows, 10))
		set("elapsed (s)", raw(r.Elapsed))
		for _, m := range r.Metrics {
			set(metricColumn(m), raw(m.Value))
		}
		for _, o := range r.Ops {
			set(o.Name+" count", strconv.FormatInt(o.Count, 10))
			var errs int64
			for k, n := range o.Errors {
				errs += n
				set(o.Name+" errors ("+k+")", strconv.FormatInt(n, 10))
			}
			set(o.Name+" errors", strconv.FormatInt(errs, 10))
			set(o.Name+" retries", strconv.FormatInt(o.Retries, 10))
			set(o.Name+" late", strconv.FormatInt(o.Late, 10))
			set(o.Name+" overrun", strconv.FormatInt(o.Overrun, 10))
			for _, kind := range []struct {
				name string
				l    results.Latency
			}{{"service", o.Service}, {"response", o.Response}} {
				for _, st := range latencyStats {
					if v, ok := kind.l[st]; ok {
						set(latencyColumn(o.Name, kind.name, st), raw(v))
					}
				}
			}
		}
		set("notes", strings.Join(r.Notes, "; "))
		set("command", r.Command)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// raw renders a number as measured: as many digits as it takes, no
// exponent.
func raw(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// metricColumn names a metric's column: "throughput (rows/s)".
func metricColumn(m results.Metric) string {
	if m.Unit == "" {
		return m.Name
	}
	return m.Name + " (" + m.Unit + ")"
}

// countColumn names the column of what a headline of unit counts:
// "count (rows)".
func countColumn(unit string) string {
	if units.IsRate(unit) {
		return "count (" + units.Count(unit) + ")"
	}
	return "count"
}

func latencyColumn(op, kind, stat string) string {
	return op + " " + kind + " " + stat + " (" + units.Microseconds + ")"
}

type labelKey struct {
	key     string
	setting bool
}

type columns struct {
	names []string
	idx   map[string]int
	label map[labelKey]string // a label's column
}

func (c *columns) add(name string) {
	if _, ok := c.idx[name]; !ok {
		c.idx[name] = len(c.names)
		c.names = append(c.names, name)
	}
}

// csvColumns are the columns of rs, in order: the run, its labels
// (parameters and settings in display order), versions, the headline and
// every metric, then each op kind's counts and latency, notes and the
// command.
func csvColumns(rs []*results.Result) *columns {
	c := &columns{idx: map[string]int{}, label: map[labelKey]string{}}
	for _, n := range []string{"run_id", "sweep_id", "section", "label", "repeat", "status", "error", "started_at",
		"workload", "target", "engine", "client", "placement"} {
		c.add(n)
	}
	for _, k := range []string{"workload", "target", "engine", "client", "placement"} {
		c.label[labelKey{k, false}] = k
	}
	params, sets := results.LabelOrder(rs)
	// A parameter or setting named like another column is told apart by
	// its kind.
	for _, kind := range []struct {
		keys    []string
		setting bool
		prefix  string
	}{{params, false, "param "}, {sets, true, "setting "}} {
		for _, k := range kind.keys {
			name := k
			if _, taken := c.idx[name]; taken {
				name = kind.prefix + k
			}
			c.label[labelKey{k, kind.setting}] = name
			c.add(name)
		}
	}
	c.add("engine_version")
	c.add("client_version")
	c.add("headline")
	for _, r := range rs {
		c.add(countColumn(r.Headline().Unit))
	}
	c.add("elapsed (s)")
	for _, r := range rs {
		for _, m := range r.Metrics {
			c.add(metricColumn(m))
		}
	}
	var ops []string
	classes := map[string][]string{}
	response := map[string]bool{}
	for _, r := range rs {
		for _, o := range r.Ops {
			if !contains(ops, o.Name) {
				ops = append(ops, o.Name)
			}
			for _, k := range sortedKeys(o.Errors) {
				if !contains(classes[o.Name], k) {
					classes[o.Name] = append(classes[o.Name], k)
				}
			}
			response[o.Name] = response[o.Name] || o.Response != nil
		}
	}
	for _, op := range ops {
		c.add(op + " count")
		c.add(op + " errors")
		for _, k := range classes[op] {
			c.add(op + " errors (" + k + ")")
		}
		for _, n := range []string{"retries", "late", "overrun"} {
			c.add(op + " " + n)
		}
		for _, st := range latencyStats {
			c.add(latencyColumn(op, "service", st))
		}
		if response[op] {
			for _, st := range latencyStats {
				c.add(latencyColumn(op, "response", st))
			}
		}
	}
	c.add("notes")
	c.add("command")
	return c
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
