package report

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/litebench/litebench/internal/metrics"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/runner"
	"github.com/litebench/litebench/internal/units"
)

// Representative reports, built from synthetic results shaped as the
// commands make them (labels, sections, settings, histograms, series),
// every figure derived from a seeded generator: no clock, no randomness.

// rng is splitmix64.
type rng uint64

func (r *rng) next() uint64 {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// normal is a standard normal draw (Box-Muller).
func (r *rng) normal() float64 {
	return math.Sqrt(-2*math.Log(1-r.float())) * math.Cos(2*math.Pi*r.float())
}

// latency draws a service time around median (log-normal, with a rare
// stall 30 times longer).
func (r *rng) latency(median time.Duration) time.Duration {
	d := float64(median) * math.Exp(0.35*r.normal())
	if r.float() < 0.004 {
		d *= 30
	}
	return time.Duration(math.Max(d, 100))
}

// testDefaults are the settings' defaults, as the command line passes
// them to the report.
var testDefaults = map[string]string{
	"journal": "default", "sync": "default", "pool": "0", "prepared": "true", "batch": "1000", "rows-per-stmt": "1",
	"tx": "deferred", "write-mutex": "false", "writer": "pool", "busy-retry": "none", "busy-timeout": "5000",
	"placement": "in-process", "cache-size": "default", "mmap-size": "default",
}

// testSettings are the defaults with set applied.
func testSettings(set map[string]string) map[string]string {
	m := map[string]string{}
	for k, v := range testDefaults {
		m[k] = v
	}
	for k, v := range set {
		m[k] = v
	}
	return m
}

var settingOrder = []string{"journal", "sync", "cache-size", "mmap-size", "pool", "conn-per-op", "prepared", "batch", "rows-per-stmt", "tx",
	"write-mutex", "writer", "busy-retry", "busy-timeout", "placement"}

// fake is one synthetic run.
type fake struct {
	id, sweep, section, label, workload, target string
	repeat                                      int
	params, set                                 map[string]string
	order                                       []string
	unit                                        string
	rate                                        float64 // the headline
	ops                                         []string
	medians                                     []time.Duration // per op
	wanted                                      float64         // open loop
	seconds                                     float64
	series                                      int // samples
	wal                                         int64
	errs                                        map[string]int64
	status                                      string
	seed                                        uint64
}

func (f fake) result() *results.Result {
	g := rng(f.seed)
	rec := metrics.NewRecorder(metrics.Ops(f.ops))
	for k := range f.ops {
		n := 1500 / (k + 1)
		for j := 0; j < n; j++ {
			s := g.latency(f.medians[k])
			if f.wanted > 0 {
				q := time.Duration(float64(s) * 0.6 * g.float())
				if g.float() < 0.01 {
					q += 40 * s
				}
				rec.ObserveScheduled(k, s, s+q, q > time.Millisecond)
			} else {
				rec.Observe(k, s)
			}
		}
	}
	for k, n := range f.errs {
		for j := int64(0); j < n; j++ {
			rec.Error(len(f.ops)-1, k)
		}
	}
	ops := runner.ToOps(metrics.Merge(metrics.Ops(f.ops), []*metrics.Recorder{rec}))
	count := int64(f.rate * f.seconds)
	// The op counts follow the rate, not the histogram's sample.
	var total int64
	for k := range ops {
		total += ops[k].Count
	}
	for k := range ops {
		if f.unit != units.RowsPerSecond {
			ops[k].Count = int64(float64(count) * float64(ops[k].Count) / float64(total))
		}
	}
	status := f.status
	if status == "" {
		status = results.StatusOK
	}
	target := f.target
	r := &results.Result{
		Schema: results.SchemaVersion, RunID: f.id, SweepID: f.sweep, Section: f.section, Label: f.label, Repeat: f.repeat,
		Workload: f.workload, Target: target, Engine: "sqlite", Client: target, Placement: "in-process",
		Settings: testSettings(f.set), Params: f.params, Order: append(append([]string(nil), f.order...), settingOrder...),
		EngineVersion: map[string]string{"mattn": "3.50.4", "modernc": "3.49.1"}[target], ClientVersion: "v1",
		Status: status, StartedAt: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(f.seed) * time.Second),
		Rows: count, Elapsed: f.seconds, Ops: ops,
		Command: fmt.Sprintf("litebench %s --target %s", f.workload, target),
		Env: results.Env{Target: target, API: "database/sql", Module: "example/" + target, SQLiteVersion: "3.50.4", OS: "linux", Kernel: "6.1",
			Arch: "amd64", CPUModel: "Synthetic CPU @ 3.0GHz", Cores: 2, GOMAXPROCS: 2, Filesystem: "ext4", GoVersion: "go1.26", Litebench: "test"},
	}
	if status != results.StatusOK {
		r.Error = "synthetic failure"
	}
	if f.wanted > 0 {
		r.Metrics = append(r.Metrics, results.Metric{Name: results.WantedRate, Unit: units.OpsPerSecond, Value: f.wanted})
	}
	if f.wal > 0 {
		r.Metrics = append(r.Metrics, results.Metric{Name: results.WALSize, Unit: units.ByteSize, Value: float64(f.wal)})
	}
	r.SetHeadline(results.Metric{Name: results.Throughput, Unit: f.unit, Value: f.rate, Better: units.Higher})
	var seq int64
	for s := 1; s <= f.series; s++ {
		t := float64(s)
		p := results.Point{T: t, Rows: int64(f.rate * t * (1 + 0.02*g.normal())), P99us: map[string]float64{}, OpsPerS: map[string]float64{}}
		dip := 1.0
		if s%7 == 0 {
			dip = 0.55 // a checkpoint's stall
		}
		for k, op := range f.ops {
			share := 1 / float64(len(f.ops))
			if len(f.ops) == 2 {
				share = []float64{0.9, 0.1}[k]
			}
			p.OpsPerS[op] = units.Round3(f.rate * share * dip * (1 + 0.03*g.normal()))
			p.P99us[op] = units.Round3(float64(f.medians[k]/time.Microsecond) * 4 * (1 + 0.2*g.float()) / dip)
		}
		if f.wal > 0 {
			p.WALBytes = int64(float64(f.wal) * float64(s%7+1) / 7)
			if s%7 == 0 {
				seq++
			}
			p.WALSeq = seq
		}
		r.Series = append(r.Series, p)
	}
	return r
}

// quickSuite is the quick suite on mattn: the tuning ladder, rows per
// statement, prepared or not, and a scan; one run each.
func quickSuite() []*results.Result {
	var out []*results.Result
	n := 0
	add := func(section, label, workload string, params, set map[string]string, rate float64, ops []string, med ...time.Duration) {
		n++
		out = append(out, fake{id: "quick.run" + strconv.Itoa(n), sweep: "quick", section: section, label: label + " (mattn)", workload: workload,
			target: "mattn", params: params, set: set, order: []string{"rows", "schema"}, unit: units.RowsPerSecond, rate: rate,
			ops: ops, medians: med, seconds: 0.9, seed: uint64(100 + n)}.result())
	}
	users := func(rows string) map[string]string {
		return map[string]string{"schema": "users", "rows": rows, "seed": "1"}
	}
	ins := []string{"insert", "begin", "commit"}
	add("ladder", "driver defaults", "insert", users("1000"), map[string]string{"prepared": "false", "batch": "1"}, 1050, ins, 30*time.Microsecond, 8*time.Microsecond, 900*time.Microsecond)
	add("ladder", "+ journal_mode=WAL", "insert", users("30000"), map[string]string{"prepared": "false", "batch": "1", "journal": "wal"}, 8900, ins, 25*time.Microsecond, 6*time.Microsecond, 95*time.Microsecond)
	add("ladder", "+ synchronous=NORMAL", "insert", users("30000"), map[string]string{"prepared": "false", "batch": "1", "journal": "wal", "sync": "normal"}, 31000, ins, 20*time.Microsecond, 5*time.Microsecond, 9*time.Microsecond)
	add("ladder", "+ prepared statements", "insert", users("30000"), map[string]string{"batch": "1", "journal": "wal", "sync": "normal"}, 44000, ins, 9*time.Microsecond, 5*time.Microsecond, 8*time.Microsecond)
	add("ladder", "+ 1000-row transactions", "insert", users("30000"), map[string]string{"journal": "wal", "sync": "normal"}, 109000, ins, 7*time.Microsecond, 6*time.Microsecond, 400*time.Microsecond)
	bench := func(rows string) map[string]string {
		return map[string]string{"schema": "bench", "rows": rows, "seed": "1"}
	}
	for k, rps := range []string{"10", "100", "500", "1000"} {
		add("batch size", "rows-per-stmt "+rps, "insert", bench("10000"), map[string]string{"rows-per-stmt": rps, "batch": "1"},
			[]float64{160000, 310000, 350000, 362000}[k], ins, time.Duration(60*(k+1))*time.Microsecond, 5*time.Microsecond, 900*time.Microsecond)
	}
	add("prepared", "prepared", "insert", bench("30000"), nil, 120000, ins, 8*time.Microsecond, 5*time.Microsecond, 500*time.Microsecond)
	add("prepared", "non", "insert", bench("30000"), map[string]string{"prepared": "false"}, 62000, ins, 15*time.Microsecond, 5*time.Microsecond, 500*time.Microsecond)
	add("scan", "verified scan", "scan", map[string]string{"rows": "300000", "seed": "1"}, nil, 900000, []string{"scan"}, 330*time.Millisecond)
	return out
}

// sweep36 is insert over 2 targets × 2 journal modes × 3 synchronous
// levels × 3 batch sizes, each cell repeated.
func sweep36(repeat int) []*results.Result {
	var out []*results.Result
	n := 0
	for rep := 1; rep <= repeat; rep++ {
		for _, t := range []string{"mattn", "modernc"} {
			for _, j := range []string{"delete", "wal"} {
				for _, s := range []string{"off", "normal", "full"} {
					for _, b := range []string{"1", "100", "1000"} {
						n++
						g := rng(uint64(n) * 7919)
						rate := map[string]float64{"1": 900, "100": 38000, "1000": 91000}[b] * map[string]float64{"delete": 1, "wal": 1.6}[j] *
							map[string]float64{"off": 1.35, "normal": 1, "full": 0.55}[s] * map[string]float64{"mattn": 1, "modernc": 0.7}[t]
						rate *= 1 + 0.03*g.normal()
						if t == "modernc" && j == "delete" && s == "full" {
							rate *= 1 + 0.2*g.normal() // a noisy cell
						}
						out = append(out, fake{id: fmt.Sprintf("s36.%d", n), sweep: "s36", repeat: rep, workload: "insert", target: t,
							label:  fmt.Sprintf("insert %s journal=%s sync=%s batch=%s #%d", t, j, s, b, rep),
							params: map[string]string{"rows": "20000", "schema": "bench", "seed": "1"}, order: []string{"rows", "schema"},
							set: map[string]string{"journal": j, "sync": s, "batch": b}, unit: units.RowsPerSecond, rate: rate,
							ops:     []string{"insert", "begin", "commit"},
							medians: []time.Duration{time.Duration(1e9 / rate * 0.7), 6 * time.Microsecond, time.Duration(1e9 / rate * 40)},
							seconds: 20000 / rate, seed: uint64(n)}.result())
					}
				}
			}
		}
	}
	return out
}

// goSQLiteBench is the go-sqlite-bench suite on mattn and modernc: four
// sections of readers × writers cells, one run each, with series.
func goSQLiteBench() []*results.Result {
	type cell struct {
		readers, writers int
		wal              bool
		sync             string
		conns            int
		mutex            bool
	}
	sections := []struct {
		name  string
		cells []cell
	}{
		{"Read only", []cell{{1, 0, true, "normal", 1, false}, {1, 0, true, "normal", 0, false}, {10, 0, true, "normal", 1, false}, {10, 0, true, "normal", 0, false},
			{100, 0, true, "normal", 0, false}, {100, 0, true, "normal", 1, false}, {100, 0, true, "normal", 2, false}}},
		{"Write only", []cell{{0, 100, false, "normal", 0, false}, {0, 100, true, "full", 0, false}, {0, 1, true, "normal", 1, false}, {0, 1, true, "normal", 0, false},
			{0, 10, true, "normal", 1, false}, {0, 10, true, "normal", 0, false}, {0, 100, true, "normal", 1, false}, {0, 100, true, "normal", 0, false},
			{0, 100, true, "normal", 1, true}, {0, 100, true, "normal", 0, true}}},
		{"Read Heavy", []cell{{100, 10, true, "normal", 1, false}, {100, 10, true, "normal", 0, false}, {100, 10, true, "normal", 1, true}, {100, 10, true, "normal", 0, true}}},
		{"Write Heavy", []cell{{10, 100, true, "normal", 1, false}, {10, 100, true, "normal", 0, false}, {10, 100, true, "normal", 1, true}, {10, 100, true, "normal", 0, true}}},
	}
	yn := map[bool]string{true: "Y", false: "N"}
	var out []*results.Result
	n := 0
	for _, t := range []string{"mattn", "modernc"} {
		for _, sec := range sections {
			for _, c := range sec.cells {
				n++
				g := rng(uint64(n) * 104729)
				journal := map[bool]string{true: "wal", false: "delete"}[c.wal]
				var ops []string
				var med []time.Duration
				rate := 0.0
				if c.readers > 0 {
					ops, med = append(ops, "read"), append(med, time.Duration(4+c.readers/5)*time.Microsecond)
					rate += float64(min(c.readers, 2)) * 180000 / float64(1+c.conns%2)
				}
				if c.writers > 0 {
					ops, med = append(ops, "write"), append(med, time.Duration(30+c.writers)*time.Microsecond)
					rate += 9000 / (1 + float64(c.writers)/50)
					if !c.wal {
						rate /= 8
					}
				}
				if t == "modernc" {
					rate *= 0.6
				}
				rate *= 1 + 0.02*g.normal()
				label := fmt.Sprintf("readers=%d writers=%d WAL=%s sync=%s conns=%d mutex=%s", c.readers, c.writers, yn[c.wal], c.sync, c.conns, yn[c.mutex])
				f := fake{id: fmt.Sprintf("gsb.%d", n), sweep: "gsb", section: sec.name, label: label + " (" + t + ")", workload: "mixed", target: t,
					params: map[string]string{"schema": "foo", "rows": "100000", "readers": strconv.Itoa(c.readers), "writers": strconv.Itoa(c.writers), "duration": "1s", "seed": "1"},
					order:  []string{"readers", "writers", "duration", "rows", "schema"},
					set:    map[string]string{"journal": journal, "sync": c.sync, "pool": strconv.Itoa(c.conns), "write-mutex": strconv.FormatBool(c.mutex), "busy-timeout": "10000"},
					unit:   units.OpsPerSecond, rate: rate, ops: ops, medians: med, seconds: 1, series: 10, seed: uint64(n)}
				if c.writers > 0 && c.wal {
					f.wal = int64(c.writers) * 400 << 10
				}
				if c.writers == 100 && !c.wal {
					f.errs = map[string]int64{"busy": 37}
				}
				out = append(out, f.result())
			}
		}
	}
	return out
}

// openLoop is one open-loop mixed run at 2,000 operations a second that
// falls a little behind, with its WAL warning.
func openLoop() []*results.Result {
	f := fake{id: "open.1", sweep: "open", workload: "mixed", target: "mattn", label: "mixed mattn",
		params: map[string]string{"rate": "2000", "write-ratio": "10", "arrivals": "poisson", "duration": "30s", "rows": "100000", "seed": "1"},
		order:  []string{"rate", "write-ratio", "arrivals", "duration", "rows"},
		set:    map[string]string{"journal": "wal", "sync": "normal"}, unit: units.OpsPerSecond, rate: 1874, wanted: 2000,
		ops: []string{"read", "write"}, medians: []time.Duration{45 * time.Microsecond, 380 * time.Microsecond}, seconds: 30, series: 30, wal: 90 << 20, seed: 77}
	r := f.result()
	r.Series[20].Warning = "WAL reached 70.0MB after 21s (warning threshold 64.0MB): checkpoints cannot complete while readers overlap (checkpoint starvation); try --pool 1, fewer readers, or reader gaps"
	r.Notes = append(r.Notes, r.Series[20].Warning)
	r.Series[12].Errors = map[string]int64{"write": 3}
	return []*results.Result{r}
}
