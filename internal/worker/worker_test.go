package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/settings"
	_ "github.com/litebench/litebench/internal/target/mattn"
)

var update = flag.Bool("update", false, "rewrite the golden transcript")

// TestMain makes this test binary a worker when started as one, so that
// Process is tested against the real protocol loop.
func TestMain(m *testing.M) {
	if os.Getenv(EnvWorker) == "1" {
		if err := Serve(context.Background(), os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func insertJob(t *testing.T, rows string) *Job {
	s := settings.Default()
	s.Set("batch", "100")
	s.Set("journal", "wal")
	return &Job{
		RunID: "t", Workload: "insert", Target: "mattn",
		Params:   map[string]string{"rows": rows, "schema": "bench", "workers": "1", "seed": "1", "vacuum": "false"},
		Settings: s.Map(), Path: filepath.Join(t.TempDir(), "w.db"), Digest: true,
	}
}

// volatile are fields whose values depend on time, machine or build; the
// golden transcript shows that they are present, not what they were.
var volatile = map[string]bool{
	"setup_ms": true, "elapsed_s": true, "at_s": true, "span_s": true, "hist": true, "resp_hist": true,
	"service": true, "response": true, "engine_version": true, "compile_options": true, "version": true,
	"lang": true, "path": true, "metrics": true,
}

func normalise(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if volatile[k] {
				x[k] = "(" + k + ")"
				continue
			}
			x[k] = normalise(e)
		}
	case []any:
		for i := range x {
			x[i] = normalise(x[i])
		}
	}
	return v
}

// TestTranscript runs a whole conversation through Serve and compares it
// with the golden transcript that docs/worker-protocol.md quotes.
func TestTranscript(t *testing.T) {
	job := insertJob(t, "1000")
	var in bytes.Buffer
	enc := NewEncoder(&in)
	for _, ev := range []Event{{T: THello, Protocol: Protocol}, {T: TSetup, Job: job}, {T: TRun}, {T: TClose}} {
		enc.Send(ev)
	}
	sent := in.String()
	var out bytes.Buffer
	if err := Serve(context.Background(), io.NopCloser(&in), &out); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, side := range []struct {
		arrow string
		text  string
	}{{"> ", sent}, {"< ", out.String()}} {
		for _, line := range strings.Split(strings.TrimSpace(side.text), "\n") {
			var m any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("not JSON: %s", line)
			}
			n, _ := json.Marshal(normalise(m))
			b.WriteString(side.arrow + string(n) + "\n")
		}
	}
	got := b.String()
	golden := filepath.Join("testdata", "transcript.golden")
	if *update {
		os.WriteFile(golden, []byte(got), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("transcript differs from %s (go test -update to accept):\n%s", golden, got)
	}
}

func TestProcessMatchesLocal(t *testing.T) {
	ctx := context.Background()
	run := func(w Worker, j *Job) (Event, Event) {
		t.Helper()
		defer w.Close()
		if _, err := w.Hello(ctx); err != nil {
			t.Fatal(err)
		}
		s, err := w.Setup(ctx, j)
		if err != nil {
			t.Fatal(err)
		}
		f, err := w.Run(ctx, func(Event) {})
		if err != nil {
			t.Fatal(err)
		}
		return s, f
	}
	ls, lf := run(NewLocal(), insertJob(t, "3000"))
	p, err := StartProcess()
	if err != nil {
		t.Fatal(err)
	}
	ps, pf := run(p, insertJob(t, "3000"))
	if ls.Digest == "" || ls.Digest != ps.Digest {
		t.Errorf("setup digests: local %q, process %q", ls.Digest, ps.Digest)
	}
	if lf.Digest == "" || lf.Digest != pf.Digest || lf.Digest == ls.Digest {
		t.Errorf("final digests: local %q, process %q (setup %q)", lf.Digest, pf.Digest, ls.Digest)
	}
	if lf.Done != 3000 || pf.Done != 3000 || pf.Status != "ok" {
		t.Errorf("done: local %d, process %d (%s %s)", lf.Done, pf.Done, pf.Status, pf.Error)
	}
	counts := func(e Event) map[string]int64 {
		m := map[string]int64{}
		for _, o := range e.FinalOps {
			m[o.Name] = o.Count
		}
		return m
	}
	if a, b := counts(lf), counts(pf); a["insert"] != 3000 || a["commit"] != 30 || b["insert"] != a["insert"] || b["commit"] != a["commit"] {
		t.Errorf("op counts: local %v, process %v", a, b)
	}
	// The insert workload reports its process_cpu over the measured part,
	// in-process as in a worker process, which adds none from outside
	// beside it.
	cpus := func(e Event) (n int, v float64) {
		for _, m := range e.Metrics {
			if m.Name == results.ProcessCPU {
				n, v = n+1, m.Value
			}
		}
		return n, v
	}
	for _, w := range []struct {
		name string
		fin  Event
	}{{"local", lf}, {"process", pf}} {
		if n, v := cpus(w.fin); n != 1 || v <= 0 || v > float64(runtime.NumCPU())*1.5 {
			t.Errorf("%s: %d process_cpu figures, the last %v cores; want one, within (0, %d]", w.name, n, v, runtime.NumCPU())
		}
	}
}

// TestProcessCancel: a cancelled run in a child ends as interrupted with
// what it measured, and acks and intervals arrive while it runs.
func TestProcessCancel(t *testing.T) {
	j := insertJob(t, "100000000")
	j.IntervalNS = int64(50 * time.Millisecond)
	j.Acks = true
	j.Digest = false
	p, err := StartProcess()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := p.Hello(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Setup(ctx, j); err != nil {
		t.Fatal(err)
	}
	var acks, intervals int
	var lastSeq int64 = -1
	ordered := true
	fin, err := p.Run(ctx, func(e Event) {
		switch e.T {
		case TAck:
			acks++
			if e.Seqs[0] <= lastSeq {
				ordered = false
			}
			lastSeq = e.Seqs[0]
		case TInterval:
			intervals++
			if intervals == 3 {
				cancel()
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if fin.Status != "interrupted" {
		t.Errorf("status %q, want interrupted", fin.Status)
	}
	if acks == 0 || !ordered {
		t.Errorf("acks %d, ordered %v", acks, ordered)
	}
	// Every acknowledged row was committed before the final count.
	if want := (lastSeq + 100); fin.Done < want {
		t.Errorf("final done %d < last acknowledged row %d", fin.Done, want)
	}
}

func TestDecoderRejectsBadLines(t *testing.T) {
	for _, in := range []string{"{", `{"x":1}`, "[1]"} {
		d := NewDecoder(strings.NewReader(in + "\n"))
		if _, err := d.Next(); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func TestServeRejectsWrongProtocol(t *testing.T) {
	var out bytes.Buffer
	err := Serve(context.Background(), strings.NewReader(`{"t":"hello","protocol":99}`+"\n"), &out)
	if err == nil || !strings.Contains(out.String(), `"t":"error"`) {
		t.Errorf("err %v, out %s", err, out.String())
	}
}

func TestEventKindsSorted(t *testing.T) {
	// The caps a Go worker announces are what the protocol doc lists.
	c := append([]string(nil), Caps...)
	sort.Strings(c)
	doc, err := os.ReadFile("../../docs/worker-protocol.md")
	if err != nil {
		t.Skip("docs/worker-protocol.md not found")
	}
	for _, k := range c {
		if !strings.Contains(string(doc), "`"+k+"`") {
			t.Errorf("capability %q is not documented", k)
		}
	}
}
