// Package workertest holds the tests every Go worker of its own (a driver
// that cannot be linked into litebench: go-crawshaw, go-sqlite-lite)
// passes: the direct target's adapter checks (DirectTarget) and the end-to-end
// conformance against the reference, 'litebench worker' on mattn (Conformance).
// Each such worker's tests call them with its target's name.
package workertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/histcodec"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/worker"
)

// The reference: litebench's own worker ('litebench worker') on mattn.
const refTarget = "mattn"

// conformJob is a small job run by both workers; final says whether its
// final content is deterministic (a single writer) and must match.
type conformJob struct {
	name     string
	workload string
	params   map[string]string
	settings map[string]string
	final    bool
}

var conformJobs = []conformJob{
	{"insert bench", "insert", map[string]string{"rows": "3000", "schema": "bench"}, map[string]string{"batch": "100", "journal": "wal", "sync": "off"}, true},
	{"insert users multi-row", "insert", map[string]string{"rows": "1000", "schema": "users"}, map[string]string{"batch": "200", "rows-per-stmt": "10", "tx": "immediate"}, true},
	{"insert account unprepared", "insert", map[string]string{"rows": "500", "schema": "account"}, map[string]string{"batch": "50", "prepared": "false"}, true},
	{"insert pages", "insert", map[string]string{"rows": "100", "schema": "pages"}, map[string]string{"batch": "10"}, true},
	{"insert foo in memory", "insert", map[string]string{"rows": "1000", "schema": "foo"}, map[string]string{"batch": "1000", "in-memory": "true"}, true},
	{"scan", "scan", map[string]string{"rows": "5000"}, nil, true},
	{"read", "read", map[string]string{"rows": "2000", "count": "2000"}, map[string]string{"pool": "2"}, true},
	{"read zipfian open loop", "read", map[string]string{"rows": "2000", "count": "500", "rate": "5000", "keys": "zipfian", "arrivals": "poisson"}, nil, true},
	{"write insert", "write", map[string]string{"rows": "500", "count": "500"}, map[string]string{"journal": "wal"}, true},
	{"write update batched", "write", map[string]string{"rows": "500", "count": "600", "write-kind": "update", "schema": "account"}, map[string]string{"batch": "20", "busy-retry": "until", "journal": "wal", "sync": "normal"}, true},
	{"write upsert unprepared", "write", map[string]string{"rows": "500", "count": "300", "write-kind": "upsert"}, map[string]string{"prepared": "false", "conn-per-op": "true"}, true},
	{"mixed", "mixed", map[string]string{"rows": "1000", "count": "1000", "readers": "2", "writers": "1"}, map[string]string{"journal": "wal", "pool": "3"}, false},
	{"mixed open loop", "mixed", map[string]string{"rows": "1000", "count": "400", "rate": "2000", "write-ratio": "25"}, map[string]string{"journal": "wal", "writer": "single"}, false},
}

// Conformance runs every conformJob through the reference worker and through the
// worker of target name and compares what they wrote and counted.
func Conformance(t *testing.T, name string) {
	ref, self := os.Getenv("LITEBENCH_BIN"), os.Getenv("WORKER_BIN")
	if ref == "" || self == "" {
		t.Skip("set LITEBENCH_BIN (litebench built from this tree) and WORKER_BIN (this worker): test.sh does")
	}
	for _, cj := range conformJobs {
		t.Run(strings.ReplaceAll(cj.name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			want, wsetup := runJob(t, cj, refTarget, filepath.Join(dir, "ref.db"), ref, "worker")
			got, gsetup := runJob(t, cj, name, filepath.Join(dir, "self.db"), self)
			if t.Failed() {
				return
			}
			if gsetup.Client != name || gsetup.Engine != "sqlite" || gsetup.EngineVersion == "" || len(gsetup.CompileOptions) == 0 || gsetup.JournalMode == "" {
				t.Errorf("%s: setup_done describes %q %q %q, %d compile options, journal %q", cj.name, gsetup.Client, gsetup.Engine, gsetup.EngineVersion, len(gsetup.CompileOptions), gsetup.JournalMode)
			}
			if gsetup.JournalMode != wsetup.JournalMode {
				t.Errorf("%s: journal mode %s, reference %s", cj.name, gsetup.JournalMode, wsetup.JournalMode)
			}
			if gsetup.Digest != wsetup.Digest {
				t.Errorf("%s: digest after setup %s, reference %s", cj.name, gsetup.Digest, wsetup.Digest)
			}
			if cj.final && got.Digest != want.Digest {
				t.Errorf("%s: final digest %s, reference %s", cj.name, got.Digest, want.Digest)
			}
			if got.Done != want.Done {
				t.Errorf("%s: done %d, reference %d", cj.name, got.Done, want.Done)
			}
			// Concurrent closed-loop roles split the count by speed: only
			// a deterministic job's split must match.
			if g, w := opCounts(got, cj.final), opCounts(want, cj.final); g != w {
				t.Errorf("%s: op counts %s, reference %s", cj.name, g, w)
			}
			// rows_inserted is reported only when writes ran, which in a
			// concurrent job depends on how the count split.
			if g, w := metricNames(got), metricNames(want); g != w && (cj.final || strings.ReplaceAll(g, ",rows_inserted", "") != strings.ReplaceAll(w, ",rows_inserted", "")) {
				t.Errorf("%s: metrics %s, reference %s", cj.name, g, w)
			}
			if cj.workload == "scan" {
				// sqlite3perf's figures: the query returned, then the first
				// row arrived, both within the scan.
				m := metrics(got)
				if !(m["query_returned"] > 0 && m["query_returned"] <= m["first_row"] && m["first_row"] <= 1e6*got.ElapsedS && m["per_row"] > 0) {
					t.Errorf("%s: query_returned %v µs, first_row %v µs, per_row %v µs over %v s", cj.name, m["query_returned"], m["first_row"], m["per_row"], got.ElapsedS)
				}
			}
		})
	}
}

// runJob runs cj on tgt through the worker program and checks the
// figures' own consistency.
func runJob(t *testing.T, cj conformJob, tgt, path string, prog string, args ...string) (fin, setup worker.Event) {
	t.Helper()
	who := cj.name + " on " + tgt
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p, err := worker.StartCommand(prog, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.Hello(ctx); err != nil {
		t.Fatalf("%s: hello: %v", who, err)
	}
	set := map[string]string{}
	for k, v := range cj.settings {
		set[k] = v
	}
	job := &worker.Job{RunID: "conform", Workload: cj.workload, Params: cj.params, Settings: set, Target: tgt, Path: path, Digest: true,
		IntervalNS: int64(50 * time.Millisecond)}
	if set["in-memory"] == "true" {
		job.Path = "conform-" + tgt
	}
	if setup, err = p.Setup(ctx, job); err != nil {
		t.Fatalf("%s: setup: %v", who, err)
	}
	if fin, err = p.Run(ctx, func(worker.Event) {}); err != nil {
		t.Fatalf("%s: run: %v", who, err)
	}
	if fin.Status != results.StatusOK {
		t.Fatalf("%s: final status %s: %s", who, fin.Status, fin.Error)
	}
	if fin.ElapsedS <= 0 || fin.Conns < 1 {
		t.Errorf("%s: elapsed %v s, %d connections", who, fin.ElapsedS, fin.Conns)
	}
	for _, op := range fin.FinalOps {
		checkOp(t, who, op)
	}
	return fin, setup
}

// checkOp checks one op's figures: no errors, histograms that decode and
// hold the count, response time never under service time.
func checkOp(t *testing.T, who string, op results.Op) {
	t.Helper()
	if len(op.Errors) > 0 {
		t.Errorf("%s %s: errors %v", who, op.Name, op.Errors)
	}
	if op.Count == 0 {
		return
	}
	h, err := histcodec.Decode(op.Hist)
	if err != nil {
		t.Errorf("%s %s: service histogram: %v", who, op.Name, err)
		return
	}
	if h.TotalCount() < 1 || int64(op.Service["count"]) != h.TotalCount() {
		t.Errorf("%s %s: service histogram holds %d values, summary %v", who, op.Name, h.TotalCount(), op.Service["count"])
	}
	if op.RespHist == "" {
		return
	}
	r, err := histcodec.Decode(op.RespHist)
	if err != nil {
		t.Errorf("%s %s: response histogram: %v", who, op.Name, err)
		return
	}
	if r.TotalCount() != h.TotalCount() {
		t.Errorf("%s %s: %d response times, %d service times", who, op.Name, r.TotalCount(), h.TotalCount())
	}
	for _, q := range []string{"min", "p50", "p99", "max"} {
		if op.Response[q] < op.Service[q] {
			t.Errorf("%s %s: response %s %v µs under service %v µs", who, op.Name, q, op.Response[q], op.Service[q])
		}
	}
}

// opCounts renders every op's name and count, "read=2000 write=0", or
// their total only ("total=2000").
func opCounts(ev worker.Event, each bool) string {
	var b strings.Builder
	var total int64
	for _, op := range ev.FinalOps {
		if each {
			fmt.Fprintf(&b, "%s=%d ", op.Name, op.Count)
		}
		total += op.Count
	}
	if !each {
		fmt.Fprintf(&b, "total=%d", total)
	}
	return strings.TrimSpace(b.String())
}

// metrics returns the final event's workload figures by name.
func metrics(ev worker.Event) map[string]float64 {
	m := map[string]float64{}
	for _, f := range ev.Metrics {
		m[f.Name] = f.Value
	}
	return m
}

// metricNames lists the workload figures the final event carries (scan's
// query_returned, first_row and per_row among them).
func metricNames(ev worker.Event) string {
	var names []string
	for _, m := range ev.Metrics {
		names = append(names, m.Name)
	}
	return strings.Join(names, ",")
}
