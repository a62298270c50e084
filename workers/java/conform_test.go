// Package javaworker holds the end-to-end conformance test of the Java
// worker (java-sqlite-jdbc): the same small jobs run through 'litebench
// worker' (built from this tree) and through the Java worker, which must
// agree on the data they wrote and report what they measured the way the Go
// worker does. workers/java/test.sh runs it; without the built jar it skips
// unless LITEBENCH_JAVA_REQUIRED is set.
package javaworker

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/histcodec"
	"github.com/litebench/litebench/internal/metrics"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/settings"
	_ "github.com/litebench/litebench/internal/target/mattn" // resolves workload files for their programs
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

const target = "java-sqlite-jdbc"

// javaWorker returns the command line of the built worker.
func javaWorker(t *testing.T) []string {
	t.Helper()
	jar, err := filepath.Abs(filepath.Join("target", "litebench-worker.jar"))
	if err != nil {
		t.Fatal(err)
	}
	_, jarErr := os.Stat(jar)
	_, javaErr := exec.LookPath("java")
	if jarErr != nil || javaErr != nil {
		if os.Getenv("LITEBENCH_JAVA_REQUIRED") != "" {
			t.Fatalf("the Java worker is not built (%v, %v): run workers/java/build.sh", jarErr, javaErr)
		}
		t.Skip("workers/java/target/litebench-worker.jar or java missing: run workers/java/build.sh")
	}
	return []string{"java", "-jar", jar}
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
		dir, err := os.MkdirTemp("", "litebench-java-conform")
		if err != nil {
			buildErr = err
			return
		}
		buildDir = dir
		lbBinary = filepath.Join(dir, "litebench")
		if out, err := exec.Command("go", "build", "-o", lbBinary, "github.com/litebench/litebench/cmd/litebench").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return lbBinary
}

// talk is what one worker said about one job.
type talk struct {
	setup, final    worker.Event
	intervals, acks []worker.Event
}

func converse(t *testing.T, job *worker.Job, cmd []string) (*talk, error) {
	t.Helper()
	p, err := worker.StartCommand(cmd[0], cmd[1:]...)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tk := &talk{}
	if _, err := p.Hello(ctx); err != nil {
		return nil, err
	}
	if tk.setup, err = p.Setup(ctx, job); err != nil {
		return nil, err
	}
	tk.final, err = p.Run(ctx, func(e worker.Event) {
		switch e.T {
		case worker.TInterval:
			tk.intervals = append(tk.intervals, e)
		case worker.TAck:
			tk.acks = append(tk.acks, e)
		}
	})
	return tk, err
}

// A job case: exact says the job is deterministic, so the final digest,
// the counts per op and the acks must be the Go worker's.
type job struct {
	name     string
	workload string
	params   map[string]string
	settings map[string]string
	exact    bool
	interval time.Duration
	acks     bool
}

var jobs = []job{
	{name: "insert-bench-wal-acks", workload: "insert", exact: true, acks: true,
		params: map[string]string{"rows": "3000"}, settings: map[string]string{"batch": "250", "journal": "wal"}},
	{name: "insert-users-rows-per-stmt", workload: "insert", exact: true,
		params:   map[string]string{"rows": "700", "schema": "users"},
		settings: map[string]string{"batch": "64", "rows-per-stmt": "5", "tx": "immediate"}},
	{name: "insert-foo-immediate-single-rows", workload: "insert", exact: true,
		params: map[string]string{"rows": "60", "schema": "foo"}, settings: map[string]string{"batch": "1", "tx": "immediate"}},
	{name: "insert-account-autocommit-adhoc", workload: "insert", exact: true,
		params:   map[string]string{"rows": "200", "schema": "account"},
		settings: map[string]string{"batch": "1", "prepared": "false", "sync": "off"}},
	{name: "insert-foo-vacuum", workload: "insert", exact: true,
		params:   map[string]string{"rows": "4000", "schema": "foo", "vacuum": "true"},
		settings: map[string]string{"batch": "4000", "rows-per-stmt": "9"}},
	{name: "insert-pages-in-memory", workload: "insert", exact: true,
		params: map[string]string{"rows": "120", "schema": "pages"}, settings: map[string]string{"batch": "7", "in-memory": "true"}},
	{name: "insert-three-workers", workload: "insert",
		params: map[string]string{"rows": "3000", "workers": "3"}, settings: map[string]string{"batch": "100", "rows-per-stmt": "3", "journal": "wal"}},
	{name: "scan", workload: "scan", exact: true, params: map[string]string{"rows": "5000"}},
	{name: "read-zipfian-count", workload: "read", exact: true,
		params: map[string]string{"rows": "800", "count": "600", "keys": "zipfian"}},
	{name: "read-latest-users-intervals", workload: "read", interval: 40 * time.Millisecond,
		params: map[string]string{"rows": "400", "duration": "250ms", "schema": "users", "keys": "latest"}},
	{name: "read-pool-one-two-workers", workload: "read",
		params: map[string]string{"rows": "300", "count": "400", "workers": "2"}, settings: map[string]string{"pool": "1"}},
	{name: "write-insert-users-acks", workload: "write", exact: true, acks: true,
		params: map[string]string{"rows": "50", "count": "250", "schema": "users"}},
	{name: "write-update-batch", workload: "write", exact: true,
		params:   map[string]string{"rows": "150", "count": "80", "schema": "account", "write-kind": "update"},
		settings: map[string]string{"batch": "4"}},
	{name: "write-upsert-foo", workload: "write", exact: true,
		params: map[string]string{"rows": "150", "count": "150", "schema": "foo", "write-kind": "upsert", "keys": "zipfian"}},
	{name: "write-single-writer-mutex", workload: "write", exact: true,
		params:   map[string]string{"rows": "100", "count": "120", "workers": "2"},
		settings: map[string]string{"writer": "single", "write-mutex": "true", "journal": "wal"}},
	{name: "mixed-open-loop", workload: "mixed", exact: true, interval: 30 * time.Millisecond,
		params: map[string]string{"rows": "200", "count": "150", "rate": "1500", "max-inflight": "1", "write-ratio": "40"}},
	{name: "mixed-open-poisson-warmup", workload: "mixed", interval: 50 * time.Millisecond,
		params: map[string]string{"rows": "200", "duration": "300ms", "warmup": "100ms", "rate": "800",
			"arrivals": "poisson", "write-kind": "update"}},
	{name: "mixed-closed-wal-retry", workload: "mixed", interval: 30 * time.Millisecond,
		params:   map[string]string{"rows": "200", "count": "300", "readers": "2", "writers": "2"},
		settings: map[string]string{"journal": "wal", "busy-retry": "until"}},
	{name: "read-warmup-closed", workload: "read", interval: 30 * time.Millisecond,
		params: map[string]string{"rows": "300", "duration": "250ms", "warmup": "150ms", "workers": "2"}},
	{name: "write-busy-counted", workload: "write",
		params:   map[string]string{"rows": "100", "count": "400", "workers": "3"},
		settings: map[string]string{"busy-timeout": "0", "batch": "5", "sync": "off"}},
	{name: "read-conn-per-op", workload: "read", exact: true,
		params: map[string]string{"rows": "100", "count": "40"}, settings: map[string]string{"conn-per-op": "true"}},
}

func newJob(t *testing.T, c job, tgt string) *worker.Job {
	s := settings.Default()
	for k, v := range c.settings {
		if err := s.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	p := map[string]string{}
	for k, v := range c.params {
		p[k] = v
	}
	return &worker.Job{RunID: "conform-" + c.name, Workload: c.workload, Params: p, Settings: s.Map(), Target: tgt,
		Path: filepath.Join(t.TempDir(), "bench.db"), Digest: true, Acks: c.acks, IntervalNS: int64(c.interval)}
}

func TestConformance(t *testing.T) {
	java := javaWorker(t)
	lb := litebench(t)
	for _, c := range jobs {
		t.Run(c.name, func(t *testing.T) {
			ref, err := converse(t, newJob(t, c, "mattn"), []string{lb, "worker"})
			if err != nil {
				t.Fatalf("litebench worker: %v", err)
			}
			check(t, "litebench worker", c, ref)
			got, err := converse(t, newJob(t, c, target), java)
			if err != nil {
				t.Fatalf("%s: %v", target, err)
			}
			check(t, target, c, got)
			compare(t, c, ref, got)
		})
	}
}

// programJobs are workload files: the Go worker interprets the file, the
// Java worker runs the program litebench compiles from it (job.program).
var programJobs = []job{
	{name: "program-kv", workload: "../../internal/spec/testdata/program/kv.toml", exact: true, interval: 30 * time.Millisecond,
		params: map[string]string{"keys": "1000", "count": "300"}, settings: map[string]string{"journal": "wal"}},
	{name: "program-pagination", workload: "../../examples/pagination.toml", exact: true,
		params: map[string]string{"rows": "2000", "depth": "500", "count": "20"}},
	{name: "program-ledger-batch", workload: "../../internal/spec/testdata/program/weighted.toml", exact: true, interval: 30 * time.Millisecond,
		params: map[string]string{"seed": "7", "count": "300"}, settings: map[string]string{"batch": "3", "tx": "immediate"}},
	{name: "program-kv-open-loop", workload: "../../internal/spec/testdata/program/kv.toml", interval: 30 * time.Millisecond,
		params: map[string]string{"keys": "500", "count": "200", "rate": "1000", "max-inflight": "2"}},
}

// newProgramJob is c's workload file as a job: its spec and, compiled for
// SQLite, its program.
func newProgramJob(t *testing.T, c job, tgt string) *worker.Job {
	t.Helper()
	b, err := os.ReadFile(c.workload)
	if err != nil {
		t.Fatal(err)
	}
	// The file resolves (and compiles) for an in-process target of the
	// same engine; the job then names the worker's.
	j := newJob(t, c, "mattn")
	j.Workload = "file"
	j.Spec = &workload.Definition{Kind: "file", Sources: []workload.DefSource{{Name: filepath.Base(c.workload), Text: string(b)}}}
	wl, _, err := worker.Resolve(j)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	pg, ok := wl.(worker.Programmed)
	if !ok {
		t.Fatalf("%s: %T does not compile to a program", c.name, wl)
	}
	if j.Program, err = pg.ProgramJSON(dialect.SQLite); err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	j.Target = tgt
	return j
}

// TestPrograms: workload files run as programs write what the Go worker
// writes, and count what it counts.
func TestPrograms(t *testing.T) {
	java := javaWorker(t)
	lb := litebench(t)
	for _, c := range programJobs {
		t.Run(c.name, func(t *testing.T) {
			ref, err := converse(t, newProgramJob(t, c, "mattn"), []string{lb, "worker"})
			if err != nil {
				t.Fatalf("litebench worker: %v", err)
			}
			check(t, "litebench worker", c, ref)
			got, err := converse(t, newProgramJob(t, c, target), java)
			if err != nil {
				t.Fatalf("%s: %v", target, err)
			}
			check(t, target, c, got)
			compare(t, c, ref, got)
			// Transactions count in done; statements' own results are
			// parts of them.
			var txns int64
			for _, o := range got.final.FinalOps {
				if o.Of == "" {
					txns += o.Count
				}
			}
			if txns != got.final.Done {
				t.Errorf("%d transactions, %d done", txns, got.final.Done)
			}
		})
	}
}

func metric(ev worker.Event, name string) (float64, bool) {
	for _, m := range ev.Metrics {
		if m.Name == name {
			return m.Value, true
		}
	}
	return 0, false
}

// compare checks the Java worker's talk against the Go worker's.
func compare(t *testing.T, c job, ref, got *talk) {
	t.Helper()
	if got.setup.Digest != ref.setup.Digest {
		t.Errorf("digest after set-up %s, litebench worker %s", got.setup.Digest, ref.setup.Digest)
	}
	if got.setup.JournalMode != ref.setup.JournalMode && c.settings["journal"] != "" {
		t.Errorf("journal mode %q, litebench worker %q", got.setup.JournalMode, ref.setup.JournalMode)
	}
	// Connections: one per thread plus the set-up's when the pool opens them
	// as they are needed; conn-per-op and several threads depend on timing.
	single := c.params["workers"] == "" && c.params["readers"] == "" && c.params["rate"] == "" || c.params["max-inflight"] == "1"
	if single && c.settings["conn-per-op"] != "true" && got.final.Conns != ref.final.Conns {
		t.Errorf("%d connections opened, litebench worker %d", got.final.Conns, ref.final.Conns)
	}
	names := []string{"table_rows_before", "wanted_rate"}
	if c.exact {
		names = append(names, "table_rows_after", "rows_inserted")
	}
	for _, n := range names {
		a, aok := metric(got.final, n)
		b, bok := metric(ref.final, n)
		if a != b || aok != bok {
			t.Errorf("metric %s = %v (%v), litebench worker %v (%v)", n, a, aok, b, bok)
		}
	}
	// Operations that failed (busy under contention) are not done.
	if (c.workload == "insert" || c.workload == "scan" || c.params["count"] != "") && !erred(got) && !erred(ref) {
		if got.final.Done != ref.final.Done {
			t.Errorf("done %d, litebench worker %d", got.final.Done, ref.final.Done)
		}
	}
	if !c.exact {
		return
	}
	if got.final.Digest != ref.final.Digest {
		t.Errorf("digest after the run %s, litebench worker %s", got.final.Digest, ref.final.Digest)
	}
	if a, b := counts(got.final.FinalOps), counts(ref.final.FinalOps); !reflect.DeepEqual(a, b) {
		t.Errorf("op counts %v, litebench worker %v", a, b)
	}
	if !reflect.DeepEqual(got.acks, ref.acks) {
		t.Errorf("%d acks differ from the litebench worker's %d", len(got.acks), len(ref.acks))
	}
}

func erred(tk *talk) bool {
	for _, o := range tk.final.FinalOps {
		if len(o.Errors) > 0 {
			return true
		}
	}
	return false
}

func counts(ops []results.Op) map[string]string {
	m := map[string]string{}
	for _, o := range ops {
		m[o.Name] = fmt.Sprintf("count %d errors %v retries %d", o.Count, o.Errors, o.Retries)
	}
	return m
}

func decode(t *testing.T, who, s string) *hdr.Histogram {
	t.Helper()
	h, err := histcodec.Decode(s)
	if err != nil {
		t.Fatalf("%s: histogram does not decode: %v", who, err)
	}
	return h
}

// summary is the Go worker's summary of h.
func summary(h *hdr.Histogram) results.Latency {
	return worker.ToOps([]metrics.Op{{Name: "x", Service: h}})[0].Service
}

// check checks one talk on its own: histograms decode, their summaries are
// hdrhistogram-go's, counts add up.
func check(t *testing.T, who string, c job, tk *talk) {
	t.Helper()
	if tk.final.Status != results.StatusOK {
		t.Fatalf("%s: status %s (%s)", who, tk.final.Status, tk.final.Error)
	}
	if tk.setup.Engine != "sqlite" || tk.setup.EngineVersion == "" || len(tk.setup.CompileOptions) == 0 {
		t.Errorf("%s: setup_done without engine, version or compile options", who)
	}
	if tk.final.ElapsedS <= 0 {
		t.Errorf("%s: elapsed %v", who, tk.final.ElapsedS)
	}
	felt := map[string]int64{}
	for _, o := range tk.final.FinalOps {
		svc := decode(t, who, o.Hist)
		if want := summary(svc); !reflect.DeepEqual(o.Service, want) {
			t.Errorf("%s: %s: service summary %v, hdrhistogram-go says %v", who, o.Name, o.Service, want)
		}
		if o.Name != "insert" && o.Name != "scan" && svc.TotalCount() != o.Count+o.Overrun {
			t.Errorf("%s: %s: %d samples for %d operations and %d overruns", who, o.Name, svc.TotalCount(), o.Count, o.Overrun)
		}
		if o.Of == "" {
			felt[o.Name] = o.Count // parts of transactions are left out of intervals
		}
		if o.RespHist == "" {
			if c.params["rate"] != "" {
				t.Errorf("%s: %s: open loop without a response histogram", who, o.Name)
			}
			continue
		}
		resp := decode(t, who, o.RespHist)
		if want := summary(resp); !reflect.DeepEqual(o.Response, want) {
			t.Errorf("%s: %s: response summary %v, hdrhistogram-go says %v", who, o.Name, o.Response, want)
		}
		for _, q := range []float64{50, 99, 100} {
			if resp.ValueAtQuantile(q) < svc.ValueAtQuantile(q) {
				t.Errorf("%s: %s: response p%v below service", who, o.Name, q)
			}
		}
	}
	if c.interval > 0 {
		if len(tk.intervals) == 0 {
			t.Fatalf("%s: no interval events", who)
		}
		seen := map[string]int64{}
		for _, iv := range tk.intervals {
			for _, o := range iv.Ops {
				if h := decode(t, who, o.Hist); h.TotalCount() != o.Count {
					t.Errorf("%s: interval %s: %d samples for %d operations", who, o.Name, h.TotalCount(), o.Count)
				}
				if _, ok := felt[o.Name]; !ok && o.Count > 0 {
					t.Errorf("%s: interval reports %s, which is no op kind of its own", who, o.Name)
				}
				seen[o.Name] += o.Count
			}
		}
		// The intervals cover the whole measured part: they add up. (The Go
		// worker may drop an interval whose tick was read before the measured
		// start, and a last one shorter than a tenth of a period: only the
		// Java worker is held to it.)
		for name, n := range felt {
			if who != target {
				break
			}
			if seen[name] != n {
				t.Errorf("%s: %s: intervals count %d operations, final %d", who, name, seen[name], n)
			}
		}
	}
	before, _ := metric(tk.final, "table_rows_before")
	after, _ := metric(tk.final, "table_rows_after")
	inserted, _ := metric(tk.final, "rows_inserted")
	// Failed inserts claimed rows they did not write; upserts insert rows
	// beyond the table without claiming them.
	if c.workload != "insert" && c.workload != "scan" && c.params["write-kind"] != "upsert" && !erred(tk) && after != before+inserted {
		t.Errorf("%s: %v rows after the run, %v before and %v inserted", who, after, before, inserted)
	}
	if c.workload == "scan" {
		q, _ := metric(tk.final, "query_returned")
		f, _ := metric(tk.final, "first_row")
		r, _ := metric(tk.final, "per_row")
		if !(q > 0 && f >= q && r > 0) {
			t.Errorf("%s: scan figures query_returned %v first_row %v per_row %v", who, q, f, r)
		}
	}
}

// TestRefusals: a job the Java worker cannot run gets a one-line error
// naming the problem, and nothing is touched.
func TestRefusals(t *testing.T) {
	java := javaWorker(t)
	for _, c := range []struct {
		job  job
		want string
	}{
		{job{workload: "paginate"}, `workload "paginate" is not supported by java-sqlite-jdbc`},
		{job{workload: "insert", params: map[string]string{"rows": "0"}}, `--rows "0": want a whole number of at least 1`},
		{job{workload: "insert", params: map[string]string{"colour": "red"}}, `job: workload insert has no parameter "colour"`},
		{job{workload: "read", params: map[string]string{"keys": "hot"}}, `--keys "hot": want uniform, zipfian or latest`},
		{job{workload: "mixed", params: map[string]string{"rate": "-1"}}, `--rate "-1": want a number from 0 to 1e+09`},
		{job{workload: "write", params: map[string]string{"duration": "soon"}}, `--duration "soon": want a duration such as 500ms, 10s or 2m`},
		{job{workload: "insert", settings: map[string]string{"rows-per-stmt": "20000"}},
			"--rows-per-stmt 20000 × 3 columns of bench = 60000 bound variables, past SQLite's limit of 32766; use --rows-per-stmt 10922 or less"},
	} {
		j := newJob(t, c.job, target)
		_, err := converse(t, j, java)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %v %v: error %v, want one line with %q", c.job.workload, c.job.params, c.job.settings, err, c.want)
		}
	}
	// Unknown settings and values are refused as the Go worker refuses them.
	j := newJob(t, job{workload: "insert"}, target)
	j.Settings["colour"] = "red"
	if _, err := converse(t, j, java); err == nil || !strings.Contains(err.Error(), `job: unknown setting "colour"`) {
		t.Errorf("unknown setting: %v", err)
	}
	j = newJob(t, job{workload: "insert"}, target)
	j.Settings["tx"] = "exclusive"
	if _, err := converse(t, j, java); err == nil || !strings.Contains(err.Error(), `job: --tx "exclusive": want one of deferred, immediate`) {
		t.Errorf("bad setting: %v", err)
	}
	// A program this worker cannot run is refused before anything runs.
	j = newJob(t, job{workload: "x"}, target)
	j.Program = []byte(`{"version":2,"name":"x"}`)
	if _, err := converse(t, j, java); err == nil || !strings.Contains(err.Error(), "program version 2: this worker runs version 1") {
		t.Errorf("program version: %v", err)
	}
	// A file litebench did not create is not touched.
	dir := t.TempDir()
	mine := filepath.Join(dir, "mine.db")
	if err := os.WriteFile(mine, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	j = newJob(t, job{workload: "insert"}, target)
	j.Path = mine
	if _, err := converse(t, j, java); err == nil || !strings.Contains(err.Error(), mine+" is not a SQLite database; name a new file") {
		t.Errorf("foreign file: %v", err)
	}
	if b, _ := os.ReadFile(mine); string(b) != "precious" {
		t.Errorf("foreign file changed: %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files beside the foreign one: %v", entries)
	}
}

// TestCancel: a cancel during a run ends it promptly with an interrupted
// final event carrying what was measured.
func TestCancel(t *testing.T) {
	java := javaWorker(t)
	for _, c := range []job{
		{name: "closed", workload: "read", interval: 50 * time.Millisecond, params: map[string]string{"rows": "100", "duration": "1m"}},
		{name: "open", workload: "mixed", interval: 50 * time.Millisecond,
			params: map[string]string{"rows": "100", "duration": "1m", "rate": "500"}},
		{name: "insert", workload: "insert", interval: 50 * time.Millisecond,
			params: map[string]string{"rows": "100m"}, settings: map[string]string{"batch": "100"}},
		{name: "program", workload: "../../internal/spec/testdata/program/kv.toml", interval: 50 * time.Millisecond,
			params: map[string]string{"keys": "100", "duration": "1m"}},
	} {
		p, err := worker.StartCommand(java[0], java[1:]...)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if _, err := p.Hello(ctx); err != nil {
			t.Fatal(err)
		}
		j := newJob(t, c, target)
		if strings.HasSuffix(c.workload, ".toml") {
			j = newProgramJob(t, c, target)
		}
		if _, err := p.Setup(ctx, j); err != nil {
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
		if fin.Status != results.StatusInterrupted || fin.Done == 0 || len(fin.FinalOps) == 0 {
			t.Errorf("%s: final %s with %d done, %d ops", c.name, fin.Status, fin.Done, len(fin.FinalOps))
		}
		if d := time.Since(t0); d > 20*time.Second {
			t.Errorf("%s: the run took %v to stop", c.name, d)
		}
		p.Close()
	}
}
