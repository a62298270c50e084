package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/target"
)

// mixed on a real SQLite file: counts add up, the rows written are in the
// database, and the JSON carries latency per op kind and a time series.
func TestMixedCountsAndSeries(t *testing.T) {
	for _, name := range target.InProcessNames() {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "bench.db")
			o := run(t, context.Background(), "mixed", "--target", name, "--rows", "2000", "--readers", "2", "--writers", "2",
				"--count", "3000", "--journal", "wal", "--sync", "normal", "--busy-retry", "until", "--db", db, "--keep",
				"--no-store", "--format", "json", "--progress", "0", "--series", "100ms")
			if o.code != 0 {
				t.Fatalf("exit %d: %s", o.code, o.err)
			}
			j := jsonLines(t, o.out)[0]
			lat := j["latency_us"].(map[string]any)
			// How the count splits between readers and writers depends on
			// scheduling (an op kind that never ran has no entry).
			service := func(op string) map[string]any {
				if l, ok := lat[op].(map[string]any); ok {
					return l["service"].(map[string]any)
				}
				return map[string]any{"count": 0.0}
			}
			reads, writes := service("read"), service("write")
			nr, nw := reads["count"].(float64), writes["count"].(float64)
			if nr+nw != 3000 || j["count"].(float64) != 3000 {
				t.Errorf("reads %v + writes %v != count %v != 3000", nr, nw, j["count"])
			}
			if v, u, _ := metric(j, "throughput"); u != "ops/s" || v != 3000/j["elapsed_seconds"].(float64) {
				t.Errorf("headline %v %s, want 3000 ops in %vs", v, u, j["elapsed_seconds"])
			}
			for _, k := range []string{"min", "mean", "p50", "p75", "p90", "p95", "p99", "p999", "p9999", "max"} {
				if _, ok := reads[k]; !ok {
					t.Errorf("read latency lacks %s", k)
				}
			}
			n, _ := countRows(t, db, "bench")
			if n != 2000+int64(nw) {
				t.Errorf("bench has %d rows, want 2000 + %v written", n, nw)
			}
			if _, ok := j["series"]; !ok {
				t.Errorf("no time series in %v", j["metrics"])
			}
		})
	}
}

// Settings that provoke SQLITE_BUSY (rollback journal, no busy timeout,
// several writers) must produce counted busy errors, not an aborted run.
func TestBusyIsCountedNotFatal(t *testing.T) {
	// Eight writers on a rollback journal with no busy timeout collide;
	// on a loaded machine a short run may happen not to, so a run that
	// met no contention is tried again, longer, before the test fails.
	write := func(extra ...string) func(d string) map[string]any {
		return func(d string) map[string]any {
			args := append([]string{"write", "--workers", "8", "--rows", "100", "--duration", d,
				"--journal", "delete", "--busy-timeout", "0", "--no-store", "--format", "json", "--progress", "0"}, extra...)
			o := run(t, context.Background(), args...)
			if o.code != 0 {
				t.Fatalf("exit %d: %s", o.code, o.err)
			}
			return jsonLines(t, o.out)[0]
		}
	}
	var j map[string]any
	for _, d := range []string{"700ms", "2s", "5s"} {
		j = write()(d)
		if j["status"] != "ok" {
			t.Errorf("status %v", j["status"])
		}
		errs, _ := j["errors"].(map[string]any)
		busy, _ := errs["busy"].(float64)
		locked, _ := errs["locked"].(float64)
		if busy+locked > 0 {
			break
		}
		if d == "5s" {
			t.Errorf("no busy/locked errors counted: %v", j["errors"])
		}
	}
	// And retrying until success removes them.
	for _, d := range []string{"700ms", "2s", "5s"} {
		j = write("--busy-retry", "until")(d)
		if e, _ := j["errors"].(map[string]any); len(e) != 0 {
			t.Errorf("errors with --busy-retry until: %v", e)
		}
		if r, _ := j["retries"].(float64); r > 0 {
			break
		}
		if d == "5s" {
			t.Errorf("no retries counted: %v", j["retries"])
		}
	}
}

func TestOpenLoopReportsResponseAndRate(t *testing.T) {
	o := run(t, context.Background(), "mixed", "--rate", "400", "--write-ratio", "25", "--duration", "1s", "--rows", "500",
		"--journal", "wal", "--arrivals", "poisson", "--no-store", "--progress", "0", "--format", "json")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	j := jsonLines(t, o.out)[0]
	if v, u, _ := metric(j, "wanted_rate"); v != 400 || u != "ops/s" {
		t.Errorf("wanted rate %v %s", v, u)
	}
	read := j["latency_us"].(map[string]any)["read"].(map[string]any)
	if _, ok := read["response"]; !ok {
		t.Errorf("open loop lacks response times: %v", read)
	}
	o = run(t, context.Background(), "mixed", "--rate", "400", "--duration", "300ms", "--rows", "500", "--no-store", "--progress", "0")
	if !strings.Contains(o.out, "wanted/s") || !strings.Contains(o.out, "achieved/s") {
		t.Errorf("table lacks wanted/achieved:\n%s", o.out)
	}
}

func TestLoadBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"read", "--keys", "hot"},
		{"read", "--zipf-theta", "1.5"},
		{"write", "--write-kind", "delete"},
		{"mixed", "--arrivals", "bursty"},
		{"mixed", "--readers", "0", "--writers", "0"},
		{"read", "--rows", "0"},
		{"read", "--duration", "soon"},
		{"read", "--cpus", "999"},
		{"read", "--memory", "1KB"},
		{"read", "--writer", "two"},
		{"read", "--wal-warn", "lots"},
	} {
		o := run(t, context.Background(), append(args, "--no-store")...)
		if o.code != 2 || strings.Count(strings.TrimSpace(o.err), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, o.code, o.err)
		}
	}
}

func TestWALGrowthWarning(t *testing.T) {
	o := run(t, context.Background(), "mixed", "--readers", "8", "--writers", "4", "--duration", "1500ms", "--rows", "1000",
		"--journal", "wal", "--sync", "off", "--pool", "0", "--wal-warn", "1MB", "--series", "200ms", "--no-store", "--progress", "0")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	if !strings.Contains(o.out+o.err, "checkpoint starvation") {
		t.Errorf("no WAL warning:\n%s\n%s", o.out, o.err)
	}
}

// --writer and --write-mutex, on every target, with busy_timeout 0 so
// that two writes in flight at once make one fail with SQLITE_BUSY. The
// pool opens a connection only when every open one is busy, so
// connections_opened shows how many operations overlapped on it.
func TestWriterSingleAndMutex(t *testing.T) {
	// seen is a run's errors and the connections the run's pool opened.
	type seen struct {
		errs  map[string]any
		conns float64
		// writeErrs are the write op's own errors.
		writeErrs map[string]any
	}
	// runs returns what each run saw, by value of the swept setting.
	runs := func(t *testing.T, setting string, args ...string) map[string]seen {
		t.Helper()
		o := run(t, context.Background(), append(args, "--rows", "300", "--batch", "1", "--journal", "wal",
			"--busy-timeout", "0", "--no-store", "--progress", "0", "--format", "json")...)
		if o.code != 0 {
			t.Fatalf("exit %d: %s", o.code, o.err)
		}
		got := map[string]seen{}
		for _, j := range jsonLines(t, o.out) {
			e, _ := j["errors"].(map[string]any)
			var c float64
			for _, m := range j["metrics"].([]any) {
				if m := m.(map[string]any); m["name"] == "connections_opened" {
					c = m["value"].(float64)
				}
			}
			var we map[string]any
			if ops, ok := j["ops"].([]any); ok {
				for _, op := range ops {
					if op := op.(map[string]any); op["name"] == "write" {
						we, _ = op["errors"].(map[string]any)
					}
				}
			}
			got[j["settings"].(map[string]any)[setting].(string)] = seen{e, c, we}
		}
		return got
	}
	for _, name := range target.InProcessNames() {
		t.Run(name, func(t *testing.T) {
			// Two readers and three writers: with a single writer the
			// writes go to its own connection, one at a time, and the
			// pool serves the two readers only (connections_opened counts
			// the writer's connection too).
			w := runs(t, "writer", "mixed", "--target", name, "--readers", "2", "--writers", "3", "--count", "3000",
				"--writer", "single,pool")
			// With a single writer the writes go through one connection,
			// so at most one per reader and the writer's are opened. No
			// write fails but busy: with busy_timeout 0 a write can meet a
			// reader's connection as it opens (its pragmas, the WAL index),
			// a few times a run, which the writer policy has nothing to do
			// with. That no two writes are ever in flight is held by the
			// write-mutex case below, which has no readers: no error and
			// one connection.
			total := 0.0
			for _, n := range w["single"].writeErrs {
				total += numAny(n)
			}
			if s := w["single"]; total != numAny(s.writeErrs["busy"]) || s.conns < 2 || s.conns > 3 {
				t.Errorf("--writer single: write errors %v (all: %v), %v connections opened; want busy only, and at most one connection per reader and the writer's", s.writeErrs, s.errs, s.conns)
			}
			// Writers sharing the pool may overlap (how often depends on
			// scheduling); the session's own tests check the policy with
			// a counting client.
			// Overlaps depend on scheduling: on a busy machine a run
			// may see none, so such a run is tried up to three times.
			for try := 1; ; try++ {
				if p := w["pool"]; p.conns >= 2 {
					break
				} else if try == 3 {
					t.Errorf("--writer pool: %v connections for five workers, in each of 3 runs", p.conns)
					break
				}
				w = runs(t, "writer", "mixed", "--target", name, "--readers", "2", "--writers", "3", "--count", "3000",
					"--writer", "pool")
			}
			// Four writers: without the mutex their writes overlap (busy
			// errors); with it no two are ever in flight, so one
			// connection serves them all and none fails.
			m := runs(t, "write-mutex", "write", "--target", name, "--workers", "4", "--count", "2000",
				"--write-mutex=false,true")
			if tr := m["true"]; len(tr.errs) != 0 || tr.conns != 1 {
				t.Errorf("--write-mutex=true: errors %v, %v connections; want none and one (no two writes in flight)", tr.errs, tr.conns)
			}
			for try := 1; ; try++ {
				if f := m["false"]; f.errs["busy"] != nil && f.conns >= 2 {
					break
				} else if try == 3 {
					t.Errorf("--write-mutex=false: errors %v, %v connections, in each of 3 runs; want busy errors and several connections (writes overlapping)", f.errs, f.conns)
					break
				}
				m = runs(t, "write-mutex", "write", "--target", name, "--workers", "4", "--count", "2000", "--write-mutex=false")
			}
		})
	}
}

// A suite given bad flags says so in one line and creates nothing.
func TestSuiteBadFlagsTouchNothing(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store.db")
	for _, args := range [][]string{
		{"suite", "limits", "--rate", "0"},
		{"suite", "go-sqlite-bench", "-t", "soon"},
		{"suite", "wal-growth", "--duration", "-1s"},
		{"suite", "quick", "--report", filepath.Join(dir, "missing", "r.html")},
		{"suite", "nosuch"},
	} {
		o := run(t, context.Background(), append(args, "--store", store, "--dir", dir)...)
		if o.code != 2 || strings.Count(strings.TrimSpace(o.err), "\n") != 0 {
			t.Errorf("%v: exit %d, %q", args, o.code, o.err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files created: %v", entries)
	}
}

// numAny reads a JSON number (0 when absent).
func numAny(v any) float64 { f, _ := v.(float64); return f }
