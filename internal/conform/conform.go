// Package conform checks a target's worker against the Go reference: the
// same jobs, on the same seeded data, must leave the same rows behind, and
// what the worker reports must add up. The reference is the Go worker in
// this process on mattn; the checked worker is whatever the target runs
// (a worker process of another language, or the Go worker in a child).
package conform

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/litebench/litebench/internal/histcodec"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/spec"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/worker"
	"github.com/litebench/litebench/internal/workload"
)

// Check is one conformance check of one target. A skipped check did not
// apply (the worker does not run workload files) and fails nothing.
type Check struct {
	Name   string
	OK     bool
	Skip   bool
	Detail string
}

// job is one conformance job: a workload with parameters and settings.
type job struct {
	name     string
	workload string
	file     string // a workload file's text, instead of a built-in
	params   map[string]string
	digest   string // "setup" or "final": which digest must match
}

// kvFile is the workload file of the conformance job for workload files:
// a loaded table, point reads by uniform keys and updates by zipfian ones
// of a generated value, in a seeded mix.
const kvFile = `name = "conform-kv"
summary = "point reads and updates of a key-value table"

[params]
keys = { default = "1000", help = "rows loaded before the run", type = "count" }

[[table]]
name = "kv"
rows = "${keys}"
columns = [
  { name = "id", type = "integer", primary_key = true, gen = "seq(1)" },
  { name = "v", type = "text", gen = "hex(16)" },
  { name = "n", type = "integer", gen = "uniform(0, 1000)" },
]

[statement.get]
sql = "SELECT v, n FROM kv WHERE id = :id"
into = ["v", "n"]

[statement.put]
sql = "UPDATE kv SET v = :v, n = :n + 1 WHERE id = :id"

[transaction.get]
steps = ['\set id random(1, :keys)', "get"]

[transaction.bump]
steps = ['\set id key(kv, zipfian)', "get", '\set v hex(16)', "put"]

[mix]
get = 3
bump = 1
`

// errNoProgram is runJob's error for a worker that does not run workload
// files.
var errNoProgram = errors.New("the worker does not run workload files")

// Jobs are small, single-worker and seeded, so that their results are
// deterministic: the data of every schema (setup digests), a sequence of
// inserts and one of updates by seeded keys (final digests).
func jobs(rows int) []job {
	n := strconv.Itoa(rows)
	var js []job
	for _, sc := range []string{"bench", "users", "account", "foo", "pages"} {
		js = append(js, job{name: "data " + sc, workload: "read", params: map[string]string{"rows": n, "schema": sc, "count": "10"}, digest: "setup"})
	}
	js = append(js,
		job{name: "workload file", file: kvFile, params: map[string]string{"keys": n, "count": strconv.Itoa(rows / 2)}, digest: "final"},
		job{name: "insert sequence", workload: "insert", params: map[string]string{"rows": n, "schema": "bench", "workers": "1"}, digest: "final"},
		job{name: "update sequence", workload: "write", params: map[string]string{"rows": n, "schema": "account", "workers": "1", "write-kind": "update", "count": strconv.Itoa(rows / 2)}, digest: "final"},
	)
	return js
}

// Run checks target t in dir (a directory of its own; the caller removes
// it). rows sizes the jobs.
func Run(ctx context.Context, t target.Target, ref target.Target, dir string, rows int) []Check {
	var out []Check
	for i, j := range jobs(rows) {
		out = append(out, compare(ctx, t, ref, j, filepath.Join(dir, fmt.Sprintf("%d", i))))
	}
	out = append(out, sanity(ctx, t, filepath.Join(dir, "sanity"), rows))
	return out
}

func compare(ctx context.Context, t, ref target.Target, j job, dir string) Check {
	c := Check{Name: j.name}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		c.Detail = err.Error()
		return c
	}
	want, err := runJob(ctx, ref, j, filepath.Join(dir, "ref.db"), false)
	if err != nil {
		c.Detail = "reference: " + err.Error()
		return c
	}
	got, err := runJob(ctx, t, j, filepath.Join(dir, "got.db"), false)
	if errors.Is(err, errNoProgram) {
		c.Skip, c.Detail = true, err.Error()
		return c
	}
	if err != nil {
		c.Detail = err.Error()
		return c
	}
	w, g := want.setup.Digest, got.setup.Digest
	if j.digest == "final" {
		w, g = want.final.Digest, got.final.Digest
	}
	switch {
	case w == "":
		c.Detail = "the reference gave no digest"
	case g != w:
		c.Detail = fmt.Sprintf("%s digest %s, the Go reference's %s", j.digest, short(g), short(w))
	case got.final.Done != want.final.Done:
		c.Detail = fmt.Sprintf("counted %d, the Go reference %d", got.final.Done, want.final.Done)
	default:
		c.OK = true
		c.Detail = fmt.Sprintf("%s digest %s, %d counted", j.digest, short(g), got.final.Done)
	}
	return c
}

func short(d string) string {
	if len(d) > 19 {
		return d[:19] + "…"
	}
	return d
}

// sanity runs an open-loop mixed job and checks what the worker reports:
// every histogram decodes, its count matches the op's, response time is
// never below service time, the ops add up to what was counted, and the
// intervals add up to the final counts.
func sanity(ctx context.Context, t target.Target, dir string, rows int) Check {
	c := Check{Name: "reports add up"}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		c.Detail = err.Error()
		return c
	}
	p := map[string]string{"rows": strconv.Itoa(rows), "schema": "bench", "rate": "2000", "count": "600", "write-ratio": "20"}
	r, err := runJob(ctx, t, job{workload: "mixed", params: p}, filepath.Join(dir, "s.db"), true)
	if err != nil {
		c.Detail = err.Error()
		return c
	}
	var sum, ivSum, ivMax int64
	for _, ev := range r.intervals {
		var n int64
		for _, o := range ev.Ops {
			n += o.Count
		}
		ivSum, ivMax = ivSum+n, max(ivMax, n)
	}
	for _, o := range r.final.FinalOps {
		sum += o.Count
		svc, err := histcodec.Decode(o.Hist)
		if err != nil {
			c.Detail = fmt.Sprintf("%s: service histogram: %v", o.Name, err)
			return c
		}
		resp, err := histcodec.Decode(o.RespHist)
		if err != nil {
			c.Detail = fmt.Sprintf("%s: response histogram: %v", o.Name, err)
			return c
		}
		if svc.TotalCount() != o.Count+o.Overrun || resp.TotalCount() != o.Count {
			c.Detail = fmt.Sprintf("%s: histograms hold %d and %d values for %d operations", o.Name, svc.TotalCount(), resp.TotalCount(), o.Count)
			return c
		}
		for _, q := range []float64{50, 99} {
			if resp.ValueAtQuantile(q) < svc.ValueAtQuantile(q) {
				c.Detail = fmt.Sprintf("%s: response p%v below service p%v", o.Name, q, q)
				return c
			}
		}
	}
	switch {
	case sum != r.final.Done || sum != 600:
		c.Detail = fmt.Sprintf("ops add up to %d, done %d, want 600", sum, r.final.Done)
	case ivSum > sum || sum-ivSum > ivMax:
		// The last, partial interval may go unreported; no more.
		c.Detail = fmt.Sprintf("intervals add up to %d, the final counts to %d (more than one interval apart)", ivSum, sum)
	default:
		c.OK = true
		c.Detail = fmt.Sprintf("%d operations, histograms decode, response ≥ service", sum)
	}
	return c
}

// compile gives a workload file's job the program a worker of another
// language runs, rendered for t's engine.
func compile(j *worker.Job, t target.Target) error {
	c := *j // Resolve fills the job in for this process's worker
	wl, _, err := worker.Resolve(&c)
	if err != nil {
		return err
	}
	pg, ok := wl.(worker.Programmed)
	if !ok {
		return fmt.Errorf("%s: not a workload file", j.Workload)
	}
	j.Program, err = pg.ProgramJSON(t.Engine().Dialect())
	return err
}

type outcome struct {
	setup, final worker.Event
	intervals    []worker.Event
}

// runJob runs one job on t: in this process for a Go target, or in its
// worker process.
func runJob(ctx context.Context, t target.Target, jb job, path string, intervals bool) (outcome, error) {
	var o outcome
	var def *workload.Definition
	var kind *workload.Spec
	var err error
	wl := jb.workload
	if jb.file != "" {
		wl = "conform-kv"
		def = &workload.Definition{Kind: "file", Sources: []workload.DefSource{{Name: "conform-kv.toml", Text: jb.file}}}
		kind, err = spec.FromDefinition(def)
	} else {
		kind, err = workload.Get(wl)
	}
	if err != nil {
		return o, err
	}
	s := settings.Default()
	for k, v := range kind.SettingDefaults {
		s.Set(k, v)
	}
	s.Set("journal", "wal")
	p := map[string]string{}
	for _, pr := range kind.Params {
		p[pr.Name] = pr.Default
	}
	for k, v := range jb.params {
		p[k] = v
	}
	j := &worker.Job{RunID: "conform", Workload: wl, Spec: def, Params: p, Settings: s.WorkerMap(t.Engine().Name()), Target: t.Name(), Path: path, Digest: true}
	if intervals {
		j.IntervalNS = 50e6
	}
	var w worker.Worker
	if x, ok := t.Client().(target.External); ok {
		args, err := x.Command()
		if err != nil {
			return o, err
		}
		pr, err := worker.StartCommand(args[0], args[1:]...)
		if err != nil {
			return o, err
		}
		w = pr
		h, err := w.Hello(ctx)
		if err == nil && def != nil {
			if err = worker.CheckProgram(t.Name(), j, h.Caps); err != nil {
				err = errNoProgram
			} else {
				err = compile(j, t)
			}
		}
		if err != nil {
			w.Close()
			return o, err
		}
	} else {
		w = worker.NewLocal()
	}
	defer w.Close()
	if o.setup, err = w.Setup(ctx, j); err != nil {
		return o, err
	}
	o.final, err = w.Run(ctx, func(ev worker.Event) {
		if ev.T == worker.TInterval {
			o.intervals = append(o.intervals, ev)
		}
	})
	if err != nil {
		return o, err
	}
	if o.final.Status != results.StatusOK {
		return o, fmt.Errorf("%s %s: %s", wl, o.final.Status, o.final.Error)
	}
	return o, nil
}
