// Package rustworker holds the end-to-end conformance of the rust-rusqlite
// worker (workers/rust): each job runs through 'litebench worker' (built
// from this tree) and through the Rust worker, and the two must agree on
// what they wrote and report what they measured the way the Go worker
// does. The Rust unit tests (cargo test) check the generators against the
// Go reference vectors.
package rustworker

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	_ "github.com/mattn/go-sqlite3"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/engine/sqlite"
	"github.com/litebench/litebench/internal/histcodec"
	"github.com/litebench/litebench/internal/metrics"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/settings"
	_ "github.com/litebench/litebench/internal/target/mattn"
	"github.com/litebench/litebench/internal/worker"
	"github.com/litebench/litebench/internal/workload"
)

// buildDir holds the litebench the tests built; TestMain removes it.
var buildDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

const target = "rust-rusqlite"

// rustWorker is the binary build.sh makes. Without it the tests skip,
// unless LITEBENCH_RUST_REQUIRED is set (as test.sh sets it) and they fail.
func rustWorker(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join("target", "release", "litebench-worker-rust"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("LITEBENCH_RUST_REQUIRED") != "" {
			t.Fatalf("%s is missing: run workers/rust/build.sh", bin)
		}
		t.Skip("the Rust worker is not built: run workers/rust/build.sh")
	}
	return bin
}

var (
	buildOnce sync.Once
	lbBinary  string
	buildErr  error
)

// litebench builds this tree's litebench once (LITEBENCH_BIN names one
// already built).
func litebench(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if b := os.Getenv("LITEBENCH_BIN"); b != "" {
			lbBinary = b
			return
		}
		dir, err := os.MkdirTemp("", "litebench-conform")
		if err != nil {
			buildErr = err
			return
		}
		buildDir = dir
		lbBinary = filepath.Join(dir, "litebench")
		out, err := exec.Command("go", "build", "-o", lbBinary, "github.com/litebench/litebench/cmd/litebench").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return lbBinary
}

// conversation is what one worker said about one job.
type conversation struct {
	hello, setup, final worker.Event
	intervals, acks     []worker.Event
}

func converse(t *testing.T, job *worker.Job, name string, args ...string) (*conversation, error) {
	t.Helper()
	p, err := worker.StartCommand(name, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := &conversation{}
	if c.hello, err = p.Hello(ctx); err != nil {
		return nil, err
	}
	if c.setup, err = p.Setup(ctx, job); err != nil {
		return nil, err
	}
	c.final, err = p.Run(ctx, func(e worker.Event) {
		switch e.T {
		case worker.TInterval:
			c.intervals = append(c.intervals, e)
		case worker.TAck:
			c.acks = append(c.acks, e)
		}
	})
	return c, err
}

type jobCase struct {
	name     string
	workload string
	params   map[string]string
	settings map[string]string
	// digest: the final content must be the Go worker's; same: moreover
	// the job is deterministic, so counts per op and acks are too.
	digest, same bool
	// racyConns: how many connections open depends on how the workers'
	// operations overlap.
	racyConns bool
	interval  time.Duration
	acks      bool
	// file: a workload file (docs/workload-files.md); the Rust worker gets
	// it compiled (job.program), the Go worker interprets it.
	file string
}

var jobCases = []jobCase{
	{name: "insert-bench-wal", workload: "insert", same: true, acks: true, interval: 20 * time.Millisecond,
		params:   map[string]string{"rows": "2000"},
		settings: map[string]string{"batch": "100", "journal": "wal"}},
	{name: "insert-users-multirow-immediate", workload: "insert", same: true,
		params:   map[string]string{"rows": "500", "schema": "users"},
		settings: map[string]string{"batch": "50", "rows-per-stmt": "7", "tx": "immediate"}},
	{name: "insert-account-autocommit-unprepared", workload: "insert", same: true,
		params:   map[string]string{"rows": "300", "schema": "account"},
		settings: map[string]string{"batch": "1", "prepared": "false", "sync": "off"}},
	{name: "insert-foo-one-tx", workload: "insert", same: true,
		params:   map[string]string{"rows": "5000", "schema": "foo"},
		settings: map[string]string{"batch": "5000", "rows-per-stmt": "3"}},
	{name: "insert-pages-memory", workload: "insert", same: true,
		params:   map[string]string{"rows": "100", "schema": "pages"},
		settings: map[string]string{"batch": "10", "in-memory": "true"}},
	{name: "insert-two-workers-vacuum", workload: "insert", digest: true, racyConns: true,
		params:   map[string]string{"rows": "3000", "workers": "2", "vacuum": "true"},
		settings: map[string]string{"batch": "50", "journal": "wal", "page-size": "8192", "cache-size": "-4000"}},
	{name: "scan", workload: "scan", same: true,
		params: map[string]string{"rows": "3000"}},
	{name: "read-zipfian", workload: "read", same: true,
		params: map[string]string{"rows": "1000", "count": "500", "keys": "zipfian"}},
	{name: "read-duration-intervals", workload: "read", interval: 50 * time.Millisecond, racyConns: true,
		params: map[string]string{"rows": "500", "duration": "300ms", "schema": "users"}},
	{name: "read-pool1-two-workers", workload: "read",
		params:   map[string]string{"rows": "500", "count": "300", "workers": "2"},
		settings: map[string]string{"pool": "1"}},
	{name: "write-insert-users", workload: "write", same: true, acks: true,
		params:   map[string]string{"rows": "100", "count": "300", "schema": "users"},
		settings: map[string]string{"sync": "off"}},
	{name: "write-update-batch", workload: "write", same: true,
		params:   map[string]string{"rows": "200", "count": "100", "schema": "account", "write-kind": "update"},
		settings: map[string]string{"batch": "5", "sync": "off"}},
	{name: "write-upsert-latest", workload: "write", same: true,
		params:   map[string]string{"rows": "200", "count": "200", "schema": "foo", "write-kind": "upsert", "keys": "latest"},
		settings: map[string]string{"journal": "truncate", "sync": "off"}},
	{name: "write-single-writer-mutex", workload: "write", digest: true,
		params:   map[string]string{"rows": "100", "count": "100", "workers": "2"},
		settings: map[string]string{"writer": "single", "write-mutex": "true", "journal": "wal", "sync": "normal"}},
	{name: "mixed-open-loop", workload: "mixed", same: true, interval: 40 * time.Millisecond,
		params:   map[string]string{"rows": "300", "count": "200", "rate": "2000", "max-inflight": "1", "write-ratio": "30"},
		settings: map[string]string{"sync": "off"}},
	{name: "mixed-open-poisson-warmup", workload: "mixed", racyConns: true,
		params: map[string]string{"rows": "300", "duration": "200ms", "warmup": "50ms", "rate": "1000",
			"arrivals": "poisson", "write-kind": "update"},
		settings: map[string]string{"sync": "off"}},
	{name: "mixed-closed", workload: "mixed", interval: 30 * time.Millisecond, racyConns: true,
		params:   map[string]string{"rows": "300", "count": "200"},
		settings: map[string]string{"journal": "wal", "busy-retry": "until", "sync": "normal"}},
	{name: "read-conn-per-op", workload: "read", same: true,
		params:   map[string]string{"rows": "100", "count": "50"},
		settings: map[string]string{"conn-per-op": "true"}},
	{name: "program-kv", file: "../../internal/spec/testdata/program/kv.toml", same: true,
		params:   map[string]string{"keys": "1000", "count": "300"},
		settings: map[string]string{"journal": "wal", "sync": "off", "batch": "3"}},
	{name: "program-ledger-parts", file: "../../internal/spec/testdata/program/weighted.toml", same: true,
		interval: 30 * time.Millisecond, params: map[string]string{"seed": "7", "count": "300"},
		settings: map[string]string{"journal": "wal", "sync": "off", "batch": "3"}},
	{name: "program-pagination", file: "../../examples/pagination.toml", same: true,
		params: map[string]string{"rows": "2000", "depth": "500", "count": "20"}},
	// datetime('now') in its rows: the content differs, the checks pass.
	{name: "program-bank-checks", file: "../../examples/bank.toml",
		params:   map[string]string{"accounts": "500", "count": "300"},
		settings: map[string]string{"sync": "off", "tx": "immediate"}},
	{name: "program-kv-open-loop", file: "../../internal/spec/testdata/program/kv.toml", same: true,
		interval: 40 * time.Millisecond,
		params:   map[string]string{"keys": "1000", "count": "200", "rate": "2000", "max-inflight": "1"},
		settings: map[string]string{"sync": "off"}},
}

// newJob is the job a controller sends: every setting, the workload's own
// defaults applied.
func newJob(t *testing.T, c jobCase, tgt string) *worker.Job {
	s := settings.Default()
	if spec, err := workload.Get(c.workload); err == nil {
		for k, v := range spec.SettingDefaults {
			if err := s.Set(k, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	for k, v := range c.settings {
		if err := s.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	p := map[string]string{}
	for k, v := range c.params {
		p[k] = v
	}
	path := filepath.Join(t.TempDir(), "bench.db")

	if s.Bool("in-memory") {
		path = "conform-" + c.name
	}
	j := &worker.Job{RunID: c.name, Workload: c.workload, Params: p, Settings: s.Map(), Target: tgt,
		Path: path, Digest: true, Acks: c.acks, IntervalNS: int64(c.interval)}
	if c.file != "" {
		b, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		j.Workload = strings.TrimSuffix(filepath.Base(c.file), ".toml")
		j.Spec = &workload.Definition{Kind: "file", Sources: []workload.DefSource{{Name: filepath.Base(c.file), Text: string(b)}}}
		if tgt == target {
			j.Program = programOf(t, j)
		}
	}
	return j
}

// resolve builds a job's workload as litebench does.
func resolve(t *testing.T, j *worker.Job) workload.Workload {
	t.Helper()
	ref := *j
	ref.Target = "mattn"
	wl, _, err := worker.Resolve(&ref)
	if err != nil {
		t.Fatal(err)
	}
	return wl
}

// partsOf names, for a workload file's statements with results of their
// own, the transaction each is a part of.
func partsOf(t *testing.T, c jobCase) map[string]string {
	t.Helper()
	m := map[string]string{}
	if c.file == "" {
		return m
	}
	wl := resolve(t, newJob(t, jobCase{name: c.name, file: c.file, params: c.params, settings: c.settings}, "mattn"))
	p, ok := wl.(workload.Parted)
	if !ok {
		t.Fatalf("%s has no parts (%T)", c.file, wl)
	}
	for k, name := range wl.Ops() {
		if of := p.PartOf(k); of != "" {
			m[name] = of
		}
	}
	return m
}

// programOf compiles a job's workload file for SQLite, as litebench does
// for a worker that announces "program".
func programOf(t *testing.T, j *worker.Job) json.RawMessage {
	t.Helper()
	wl := resolve(t, j)
	pg, ok := wl.(worker.Programmed)
	if !ok {
		t.Fatalf("%s compiles to no program (%T)", j.Workload, wl)
	}
	p, err := pg.ProgramJSON(dialect.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConformance(t *testing.T) {
	rw := rustWorker(t)
	lb := litebench(t)
	for _, c := range jobCases {
		t.Run(c.name, func(t *testing.T) {
			refJob := newJob(t, c, "mattn")
			ref, err := converse(t, refJob, lb, "worker")
			if err != nil {
				t.Fatalf("litebench worker: %v", err)
			}
			checkEvents(t, "litebench worker", c, ref)
			job := newJob(t, c, target)
			got, err := converse(t, job, rw)
			if err != nil {
				t.Fatalf("%s: %v", target, err)
			}
			checkEvents(t, target, c, got)
			compare(t, c, ref, got)
			if !strings.HasPrefix(job.Path, "conform-") {
				if a, b := schemaOf(t, job.Path), schemaOf(t, refJob.Path); a != b {
					t.Errorf("schema:\n%s\nlitebench worker's:\n%s", a, b)
				}
			}
		})
	}
}

// TestRunWorkloadFile: 'litebench run FILE --target rust-rusqlite' runs a
// workload file on this worker (it announces "program") with the counts,
// checks and rows of the Go worker's run.
func TestRunWorkloadFile(t *testing.T) {
	rustWorker(t)
	lb := litebench(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	type run struct {
		Status string       `json:"status"`
		Error  string       `json:"error"`
		Ops    []results.Op `json:"ops"`
		Notes  []string     `json:"notes"`
	}
	runs := map[string][]run{}
	dir := t.TempDir()
	// The Rust worker's second run reuses the bench database its first
	// made, the workload file's own tables included.
	for _, tgt := range []string{"mattn", target, target} {
		cmd := exec.Command(lb, "run", filepath.Join(root, "examples", "bank.toml"), "--target", tgt, "--accounts", "200",
			"--count", "200", "--format", "json", "--no-store", "--db", filepath.Join(dir, tgt+".db"))
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "LITEBENCH_ROOT="+root)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v\n%s", tgt, err, out)
		}
		dec := json.NewDecoder(strings.NewReader(string(out)))
		for dec.More() {
			var r run
			if err := dec.Decode(&r); err != nil {
				t.Fatalf("%s: %v\n%s", tgt, err, out)
			}
			runs[tgt] = append(runs[tgt], r)
		}
	}
	got, ref := runs[target], runs["mattn"]
	if len(got) != 2 || len(ref) != 1 || got[0].Status != "ok" || got[1].Status != "ok" {
		t.Fatalf("runs %+v, litebench worker's %+v", got, ref)
	}
	if a, b := opCounts(got[0].Ops), opCounts(ref[0].Ops); !reflect.DeepEqual(a, b) {
		t.Errorf("op counts %v, mattn %v", a, b)
	}
	checks := func(notes []string) (out []string) {
		for _, n := range notes {
			if strings.HasPrefix(n, "check ") {
				out = append(out, n)
			}
		}
		return out
	}
	if a, b := checks(got[0].Notes), checks(ref[0].Notes); len(a) == 0 || !reflect.DeepEqual(a, b) {
		t.Errorf("checks %q, mattn %q", a, b)
	}
}

// schemaOf is a database's schema and application id, as text.
func schemaOf(t *testing.T, path string) string {
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	var id int64
	if err := db.QueryRow("PRAGMA application_id").Scan(&id); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "application_id %#x\n", id)
	rows, err := db.Query("SELECT type, name, coalesce(sql, '') FROM sqlite_master ORDER BY name")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var typ, name, q string
		if err := rows.Scan(&typ, &name, &q); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s: %s\n", typ, name, q)
	}
	return b.String()
}

func metricsOf(ev worker.Event) map[string]float64 {
	m := map[string]float64{}
	for _, x := range ev.Metrics {
		m[x.Name] = x.Value
	}
	return m
}

// compare checks the Rust worker's conversation against the Go worker's.
func compare(t *testing.T, c jobCase, ref, got *conversation) {
	t.Helper()
	if got.setup.Digest != ref.setup.Digest {
		t.Errorf("digest after set-up %s, litebench worker %s", got.setup.Digest, ref.setup.Digest)
	}
	if got.setup.JournalMode != ref.setup.JournalMode {
		t.Errorf("journal mode %q, litebench worker %q", got.setup.JournalMode, ref.setup.JournalMode)
	}
	if got.setup.Client != target {
		t.Errorf("client %q", got.setup.Client)
	}
	// Connections: one per worker that overlaps another, plus the
	// set-up's; conn-per-op opens one per call.
	if !c.racyConns && c.settings["conn-per-op"] != "true" && got.final.Conns != ref.final.Conns {
		t.Errorf("%d connections opened, litebench worker %d", got.final.Conns, ref.final.Conns)
	}
	gm, rm := metricsOf(got.final), metricsOf(ref.final)
	keys := []string{"table_rows_before", "wanted_rate"}
	if c.same || c.digest {
		keys = append(keys, "table_rows_after", "rows_inserted")
	}
	for _, k := range keys {
		if gm[k] != rm[k] {
			t.Errorf("metric %s = %v, litebench worker %v", k, gm[k], rm[k])
		}
	}
	// The same figures; only the scheduling lag and, when the workers race,
	// whether any row was inserted depend on the run's timing. process_cpu
	// is the Go harness's own CPU, not a figure of the workload.
	racy := map[string]bool{"sched_lag_p99": true, "rows_inserted": !c.same && !c.digest, "process_cpu": true}
	for _, pair := range [][2]map[string]float64{{gm, rm}, {rm, gm}} {
		for name := range pair[0] {
			if _, ok := pair[1][name]; !ok && !racy[name] {
				t.Errorf("metric %s reported by one worker only: %s %v, litebench worker %v", name, target, gm, rm)
			}
		}
	}
	if c.workload == "insert" || c.workload == "scan" || c.params["count"] != "" {
		if got.final.Done != ref.final.Done {
			t.Errorf("done %d, litebench worker %d", got.final.Done, ref.final.Done)
		}
	}
	parts := partsOf(t, c)
	for _, o := range got.final.FinalOps {
		if o.Of != parts[o.Name] {
			t.Errorf("%s is a part of %q, want %q", o.Name, o.Of, parts[o.Name])
		}
	}
	if c.file != "" && !reflect.DeepEqual(got.final.Notes, ref.final.Notes) {
		t.Errorf("notes %q, litebench worker %q", got.final.Notes, ref.final.Notes)
	}
	if !c.same && !c.digest {
		return
	}
	if got.final.Digest != ref.final.Digest {
		t.Errorf("digest after the run %s, litebench worker %s", got.final.Digest, ref.final.Digest)
	}
	if !c.same {
		return
	}
	if a, b := opCounts(got.final.FinalOps), opCounts(ref.final.FinalOps); !reflect.DeepEqual(a, b) {
		t.Errorf("op counts %v, litebench worker %v", a, b)
	}
	if !reflect.DeepEqual(got.acks, ref.acks) {
		t.Errorf("acks differ from the litebench worker's:\n%v\n%v", got.acks, ref.acks)
	}
}

func opCounts(ops []results.Op) map[string]string {
	m := map[string]string{}
	for _, o := range ops {
		m[o.Name] = fmt.Sprintf("count %d errors %v retries %d", o.Count, o.Errors, o.Retries)
	}
	return m
}

// summary is the service summary hdrhistogram-go gives for h.
func summary(h *hdr.Histogram) results.Latency {
	return worker.ToOps([]metrics.Op{{Name: "x", Service: h}})[0].Service
}

// checkEvents checks one conversation on its own: histograms decode, their
// summaries are the ones hdrhistogram-go computes, counts add up.
func checkEvents(t *testing.T, who string, c jobCase, cv *conversation) {
	t.Helper()
	if cv.final.Status != "ok" {
		t.Fatalf("%s: status %s (%s)", who, cv.final.Status, cv.final.Error)
	}
	if cv.setup.Engine != "sqlite" || cv.setup.EngineVersion == "" || len(cv.setup.CompileOptions) == 0 {
		t.Errorf("%s: setup_done without engine, version or compile options: %+v", who, cv.setup)
	}
	if cv.final.ElapsedS <= 0 {
		t.Errorf("%s: elapsed %v", who, cv.final.ElapsedS)
	}
	felt := map[string]int64{}
	parts := partsOf(t, c)
	for _, o := range cv.final.FinalOps {
		svc := decode(t, who, o.Hist)
		if want := summary(svc); !reflect.DeepEqual(o.Service, want) {
			t.Errorf("%s: %s: service summary %v, hdrhistogram-go says %v", who, o.Name, o.Service, want)
		}
		samples := svc.TotalCount()
		if o.Name == "insert" || o.Name == "scan" {
			samples = 0 // one sample for several rows
		}
		if samples > 0 && samples != o.Count+o.Overrun {
			t.Errorf("%s: %s: %d samples for %d operations and %d overruns", who, o.Name, samples, o.Count, o.Overrun)
		}
		if parts[o.Name] == "" { // a statement's own result is in no interval, nor in done
			felt[o.Name] = o.Count
		}
		if o.RespHist != "" {
			resp := decode(t, who, o.RespHist)
			if want := summary(resp); !reflect.DeepEqual(o.Response, want) {
				t.Errorf("%s: %s: response summary %v, hdrhistogram-go says %v", who, o.Name, o.Response, want)
			}
			for _, q := range []float64{50, 99, 100} {
				if resp.ValueAtQuantile(q) < svc.ValueAtQuantile(q) {
					t.Errorf("%s: %s: response p%v below service", who, o.Name, q)
				}
			}
		} else if c.params["rate"] != "" && parts[o.Name] == "" {
			t.Errorf("%s: %s: open loop without a response histogram", who, o.Name)
		}
	}
	if c.file != "" && c.params["count"] != "" {
		n := int64(0)
		for _, k := range felt {
			n += k
		}
		if want, _ := strconv.ParseInt(c.params["count"], 10, 64); n != want || cv.final.Done != want {
			t.Errorf("%s: transactions count %d, done %d, want %d", who, n, cv.final.Done, want)
		}
	}
	if c.interval > 0 {
		if len(cv.intervals) == 0 {
			t.Fatalf("%s: no interval events", who)
		}
		seen := map[string]int64{}
		for _, iv := range cv.intervals {
			for _, o := range iv.Ops {
				h := decode(t, who, o.Hist)
				if h.TotalCount() != o.Count {
					t.Errorf("%s: interval %s: %d samples for %d operations", who, o.Name, h.TotalCount(), o.Count)
				}
				seen[o.Name] += o.Count
			}
		}
		// The intervals of a load workload cover the measured part, but for
		// a last stretch shorter than a tenth of an interval.
		if c.workload != "insert" {
			for name, n := range felt {
				if seen[name] > n || seen[name] < n*9/10 {
					t.Errorf("%s: %s: intervals count %d operations, final %d", who, name, seen[name], n)
				}
			}
		} else if last := cv.intervals[len(cv.intervals)-1]; last.Done > cv.final.Done || last.Done == 0 {
			t.Errorf("%s: last interval done %d, final %d", who, last.Done, cv.final.Done)
		}
	}
	m := metricsOf(cv.final)
	if c.workload != "insert" && c.workload != "scan" && c.params["write-kind"] != "upsert" &&
		m["table_rows_after"] != m["table_rows_before"]+m["rows_inserted"] {
		t.Errorf("%s: %v rows after the run, %v before and %v inserted", who, m["table_rows_after"],
			m["table_rows_before"], m["rows_inserted"])
	}
	if c.workload == "scan" && !(m["query_returned"] > 0 && m["first_row"] >= m["query_returned"] && m["per_row"] > 0) {
		t.Errorf("%s: scan metrics %v", who, m)
	}
	if c.params["vacuum"] == "true" && !(m["vacuum"] > 0) {
		t.Errorf("%s: no vacuum time: %v", who, m)
	}
}

func decode(t *testing.T, who, s string) *hdr.Histogram {
	t.Helper()
	h, err := histcodec.Decode(s)
	if err != nil {
		t.Fatalf("%s: histogram %q does not decode: %v", who, s, err)
	}
	return h
}

// TestRefusals: a job the Rust worker cannot run gets a one-line error
// naming the problem, and a file litebench did not create is not touched.
func TestRefusals(t *testing.T) {
	rw := rustWorker(t)
	for _, c := range []struct {
		job  jobCase
		want string
	}{
		{jobCase{workload: "paginate"}, `workload "paginate" is not supported by the rust-rusqlite worker`},
		{jobCase{workload: "insert", params: map[string]string{"rows": "0"}}, `--rows "0": want a whole number of at least 1`},
		{jobCase{workload: "insert", params: map[string]string{"colour": "red"}}, `workload insert has no parameter "colour"`},
		{jobCase{workload: "read", params: map[string]string{"keys": "hot"}}, `--keys "hot": want uniform, zipfian or latest`},
		{jobCase{workload: "read", params: map[string]string{"rows": "0"}}, `--rows 0: reads and updates need rows to pick from`},
		{jobCase{workload: "mixed", params: map[string]string{"write-ratio": "120"}}, `--write-ratio "120": want a number from 0 to 100`},
		{jobCase{workload: "insert", settings: map[string]string{"rows-per-stmt": "20000"}},
			"--rows-per-stmt 20000 × 3 columns of bench = 60000 bound variables"},
		{jobCase{workload: "insert", settings: map[string]string{"in-memory": "true", "journal": "wal"}}, "--journal wal needs a file"},
	} {
		job := newJob(t, c.job, target)
		_, err := converse(t, job, rw)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %v %v: error %v, want one line with %q", c.job.workload, c.job.params, c.job.settings, err, c.want)
		}
	}
	job := newJob(t, jobCase{workload: "insert"}, "mattn")
	if _, err := converse(t, job, rw); err == nil || !strings.Contains(err.Error(), `target "mattn": this worker runs rust-rusqlite`) {
		t.Errorf("another target: %v", err)
	}
	job = newJob(t, jobCase{workload: "insert"}, target)
	job.Settings["colour"] = "red"
	if _, err := converse(t, job, rw); err == nil || !strings.Contains(err.Error(), `unknown setting "colour"`) {
		t.Errorf("unknown setting: %v", err)
	}
	// Files litebench did not create are not touched.
	dir := t.TempDir()
	mine := filepath.Join(dir, "mine.db")
	if err := os.WriteFile(mine, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	theirs := filepath.Join(dir, "theirs.db")
	db, err := sql.Open("sqlite3", theirs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE notes(x)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for path, want := range map[string]string{mine: "is not a SQLite database", theirs: "litebench did not create (application_id 0x0)"} {
		before, _ := os.ReadFile(path)
		job := newJob(t, jobCase{workload: "insert"}, target)
		job.Path = path
		if _, err := converse(t, job, rw); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
		if after, _ := os.ReadFile(path); string(after) != string(before) {
			t.Errorf("%s changed", path)
		}
	}
	// A bench database someone added a table to is left alone too.
	added := filepath.Join(dir, "added.db")
	job = newJob(t, jobCase{workload: "insert", params: map[string]string{"rows": "10"}}, target)
	job.Path = added
	if c, err := converse(t, job, rw); err != nil || c.final.Status != "ok" {
		t.Fatalf("insert: %v", err)
	}
	db, err = sql.Open("sqlite3", added)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE mine(x)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	job = newJob(t, jobCase{workload: "scan", params: map[string]string{"rows": "10"}}, target)
	job.Path = added
	if _, err := converse(t, job, rw); err == nil || !strings.Contains(err.Error(), `holds table "mine" that litebench did not create`) {
		t.Errorf("bench database with a table of the user's: %v", err)
	}
}

// TestDescribe: the Rust worker's workloads take the Go workloads'
// parameters with the same defaults.
func TestDescribe(t *testing.T) {
	rw := rustWorker(t)
	out, err := exec.Command(rw, "--describe").Output()
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]struct {
		Params   map[string]string `json:"params"`
		Settings map[string]string `json:"settings"`
	}
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	var names []string
	for name, w := range d {
		names = append(names, name)
		spec, err := workload.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, p := range spec.Params {
			want[p.Name] = p.Default
		}
		if !reflect.DeepEqual(w.Params, want) {
			t.Errorf("%s: parameters %v, Go %v", name, w.Params, want)
		}
		if len(w.Settings)+len(spec.SettingDefaults) > 0 && !reflect.DeepEqual(w.Settings, spec.SettingDefaults) {
			t.Errorf("%s: setting defaults %v, Go %v", name, w.Settings, spec.SettingDefaults)
		}
	}
	sort.Strings(names)
	if strings.Join(names, " ") != "insert mixed read scan write" {
		t.Errorf("workloads %v", names)
	}
}

// TestPragmas: the Rust worker runs the pragmas the Go worker renders, in
// its order and form, on every connection.
func TestPragmas(t *testing.T) {
	rw := rustWorker(t)
	s := settings.Default()
	for k, v := range map[string]string{"journal": "wal", "sync": "1", "cache-size": "-8000", "mmap-size": "1MiB",
		"temp-store": "memory", "locking-mode": "normal", "page-size": "8192", "busy-timeout": "250"} {
		if err := s.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	settingsJSON, err := json.Marshal(s.WorkerMap(sqlite.Name))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(rw, "--pragmas", string(settingsJSON)).Output()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if want := sqlite.Pragmas(s, false); !reflect.DeepEqual(got, want) {
		t.Errorf("pragmas %q, Go %q", got, want)
	}
}

// TestCancel: a cancel during a run ends it promptly with an interrupted
// final event carrying what was measured.
func TestCancel(t *testing.T) {
	rw := rustWorker(t)
	for _, c := range []jobCase{
		{name: "closed", workload: "read", interval: 50 * time.Millisecond,
			params: map[string]string{"rows": "100", "duration": "1m"}},
		{name: "open", workload: "mixed", interval: 50 * time.Millisecond,
			params: map[string]string{"rows": "100", "duration": "1m", "rate": "500"}},
		{name: "insert", workload: "insert", interval: 50 * time.Millisecond,
			params: map[string]string{"rows": "100m"}, settings: map[string]string{"batch": "100"}},
		{name: "insert-workers", workload: "insert", interval: 50 * time.Millisecond,
			params: map[string]string{"rows": "100m", "workers": "2"}, settings: map[string]string{"batch": "100"}},
	} {
		p, err := worker.StartCommand(rw)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if _, err := p.Hello(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Setup(ctx, newJob(t, c, target)); err != nil {
			t.Fatal(err)
		}
		runCtx, cancel := context.WithCancel(ctx)
		t0 := time.Now()
		fin, err := p.Run(runCtx, func(e worker.Event) {
			if e.T == worker.TInterval && e.Done > 0 {
				cancel()
			}
		})
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if fin.Status != "interrupted" || fin.Done == 0 || len(fin.FinalOps) == 0 {
			t.Errorf("%s: final %s with %d done, %d ops", c.name, fin.Status, fin.Done, len(fin.FinalOps))
		}
		if d := time.Since(t0); d > 20*time.Second {
			t.Errorf("%s: the run took %v to stop", c.name, d)
		}
		p.Close()
	}
}
