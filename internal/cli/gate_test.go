package cli

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/units"
)

// gateStore stores two sweeps of n runs each of one insert cell: "base"
// around 10,000 rows/s with ±noise (seeded), and "cand" the same scaled by
// factor (throughput) and 1/factor (latency).
func gateStore(t *testing.T, n int, factor, noise float64, seed uint64) string {
	t.Helper()
	return gateStoreOn(t, n, factor, noise, seed, "")
}

// gateStoreOn is gateStore with the candidate's runs on a machine whose
// CPU model is cpu ("": the same machine as the base's).
func gateStoreOn(t *testing.T, n int, factor, noise float64, seed uint64, cpu string) string {
	t.Helper()
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(seed, 7))
	var lines []string
	for i := 0; i < 2*n; i++ {
		sweep, f := "base", 1.0
		if i%2 == 1 {
			sweep, f = "cand", factor
		}
		v := 10000 * f * (1 + noise*(2*r.Float64()-1))
		res := &results.Result{Schema: results.SchemaVersion, RunID: fmt.Sprintf("%s.%d", sweep, i/2+1), SweepID: sweep, Repeat: i/2 + 1,
			Workload: "insert", Target: "mattn", Engine: "sqlite", Client: "mattn", Placement: "in-process",
			Settings: map[string]string{"batch": "1000"}, Params: map[string]string{"rows": "1000"}, Status: results.StatusOK,
			StartedAt: time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC), Rows: 1000, Elapsed: 0.1,
			Ops: []results.Op{{Name: "insert", Count: 1000, Service: results.Latency{"p50": 100 / f, "p99": 1e6 / v}}},
			Env: results.Env{Target: "mattn", OS: "linux", Arch: "amd64", Litebench: "v0-" + sweep}}
		if sweep == "cand" && cpu != "" {
			res.Env.CPUModel = cpu
		}
		res.SetHeadline(results.Metric{Name: results.Throughput, Unit: units.RowsPerSecond, Value: v, Better: units.Higher})
		b, err := results.MarshalJSONLine(res)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	file := filepath.Join(dir, "runs.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "store.db")
	if o := run(t, context.Background(), "import", "--store", store, file); o.code != 0 {
		t.Fatalf("import: %s", o.err)
	}
	return store
}

func TestCompareGate(t *testing.T) {
	gate := []string{"--fail-if", "throughput < -5%", "--fail-if", "p99 > +5%"}
	cmp := func(store string, extra ...string) outcome {
		return run(t, context.Background(), append(append([]string{"compare", "base", "cand", "--store", store}, gate...), extra...)...)
	}
	// A planted 10% regression with ±2% noise over 8+8 runs fails both
	// thresholds, naming the cell, the change and its interval.
	o := cmp(gateStore(t, 8, 0.9, 0.02, 1))
	if o.code != ExitGate {
		t.Fatalf("a 10%% regression passed the gate (exit %d):\n%s%s", o.code, o.out, o.err)
	}
	for _, want := range []string{"gate: FAIL throughput < -5%", "gate: FAIL p99 > +5%", "95% interval", "gate: failed (2 of 2"} {
		if !strings.Contains(o.out, want) {
			t.Errorf("gate output lacks %q:\n%s", want, o.out)
		}
	}
	// The README's recipe picks the sides by the version that ran.
	if o := run(t, context.Background(), append([]string{"compare", "--all", "--store", gateStore(t, 8, 0.9, 0.02, 2),
		"--where", "litebench=v0-base", "--vs", "litebench=v0-cand"}, gate...)...); o.code != ExitGate {
		t.Errorf("--where litebench=: exit %d:\n%s%s", o.code, o.out, o.err)
	}
	// Noise only (±8%, no change), under several seeds: never fails.
	for seed := uint64(1); seed <= 10; seed++ {
		if o := cmp(gateStore(t, 8, 1, 0.08, seed)); o.code != 0 || !strings.Contains(o.out, "gate: passed") {
			t.Errorf("seed %d: noise failed the gate (exit %d):\n%s", seed, o.code, o.out)
		}
	}
	// A real 6% drop whose interval reaches -5% is not beyond the
	// threshold: it passes.
	if o := cmp(gateStore(t, 8, 0.94, 0.04, 3)); o.code != 0 {
		t.Errorf("a 6%% drop with ±4%% noise failed a 5%% gate (exit %d):\n%s", o.code, o.out)
	}
	// Three runs a side cannot decide: exit 0 with guidance, or 99 when
	// asked to be strict.
	few := gateStore(t, 3, 0.9, 0.02, 1)
	if o := cmp(few); o.code != 0 || !strings.Contains(o.out, "not enough runs to decide") || !strings.Contains(o.out, "--repeat 6") {
		t.Errorf("3+3 runs: exit %d:\n%s", o.code, o.out)
	}
	if o := cmp(few, "--undecided", "fail"); o.code != ExitGate {
		t.Errorf("3+3 runs with --undecided fail: exit %d", o.code)
	}
	// Bad thresholds are bad input.
	for _, bad := range []string{"throughput -5%", "throughput < -5", "throughput <= -5%", "nosuch < -5%", "a b c < 1%"} {
		o := run(t, context.Background(), "compare", "base", "cand", "--store", few, "--fail-if", bad)
		if o.code != ExitUsage || strings.Count(strings.TrimSpace(o.err), "\n") != 0 {
			t.Errorf("--fail-if %q: exit %d, %q", bad, o.code, o.err)
		}
	}
}

// Runs from two machines are not compared unless asked, and a table of
// them says so.
func TestCompareAcrossMachines(t *testing.T) {
	store := gateStoreOn(t, 6, 1, 0.02, 1, "Other CPU")
	o := run(t, context.Background(), "compare", "base", "cand", "--store", store)
	if o.code != ExitUsage || !strings.Contains(o.err, "2 machines") || !strings.Contains(o.err, "--across-machines") {
		t.Errorf("across machines: exit %d %q", o.code, o.err)
	}
	if o := run(t, context.Background(), "compare", "base", "cand", "--store", store, "--across-machines"); o.code != 0 {
		t.Errorf("--across-machines: exit %d %q", o.code, o.err)
	}
	o = run(t, context.Background(), "show", "--store", store, "base", "cand")
	if !strings.Contains(o.out, "come from 2 machines") || !strings.Contains(o.out, "Other CPU") {
		t.Errorf("a table of two machines' runs does not say so:\n%s", o.out)
	}
}
