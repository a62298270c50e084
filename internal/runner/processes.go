package runner

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/histcodec"
	"github.com/litebench/litebench/internal/metrics"
	"github.com/litebench/litebench/internal/own"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/spec"
	"github.com/litebench/litebench/internal/units"
	"github.com/litebench/litebench/internal/worker"
)

// RangeRows is the size of each process's range of rows in a run of
// several processes on one database: process k inserts rows from
// base + k×RangeRows up to base + (k+1)×RangeRows, base being --from (or
// 0, process 0 then starting right after the rows loaded before the run).
const RangeRows int64 = 1_000_000_000

// labelProcesses labels a run of n processes: its parameters say how
// many (so that runs of one and of several never compare as one cell) and
// its placement is the worker processes'.
func labelProcesses(r *results.Result, n int) {
	params := make(map[string]string, len(r.Params)+1)
	for k, v := range r.Params {
		params[k] = v
	}
	params["processes"] = strconv.Itoa(n)
	r.Params = params
	r.Placement = worker.ChildProc
}

// rangeOf is process k's range of rows.
func rangeOf(base int64, k int) (from, to int64) {
	from = base + int64(k)*RangeRows
	return from, from + RangeRows
}

// part is one worker process of a run of several.
type part struct {
	k      int
	w      *worker.Process
	job    worker.Job
	smp    *sampler
	fin    worker.Event
	err    error
	mu     sync.Mutex
	wal0   int64
	walMax int64
}

// runProcesses is Run for sp.Processes worker processes on one database
// file: the first sets it up (unless the run is attached), the others
// attach to it; they run at once, each in its own range of rows, and the
// result holds each one's figures and their sum.
func runProcesses(ctx context.Context, sp Spec, r *results.Result, head results.Metric, inst engine.Instance, lock *own.DBLock,
	job *worker.Job, fail func(error) *results.Result) *results.Result {
	n := sp.Processes
	parts := make([]*part, n)
	defer func() {
		for _, p := range parts {
			if p != nil && p.w != nil {
				p.w.Close()
			}
		}
	}()
	// Set up one after the other: process 0 creates the tables, which the
	// others then find.
	for k := range parts {
		p := &part{k: k, job: *job}
		parts[k] = p
		p.job.InsertFrom, p.job.InsertTo = rangeOf(sp.InsertFrom, k)
		p.job.Attach = sp.Attach || k > 0
		p.job.RunID = fmt.Sprintf("%s.p%d", job.RunID, k)
		var err error
		if p.w, err = worker.StartProcess(); err != nil {
			return fail(fmt.Errorf("process %d: %w", k, err))
		}
		h, err := p.w.Hello(ctx)
		if err == nil {
			err = worker.CheckInsertRange(sp.Target.Name(), &p.job, h.Caps)
		}
		var setup worker.Event
		if err == nil {
			setup, err = p.w.Setup(ctx, &p.job)
		}
		if err != nil {
			return fail(fmt.Errorf("process %d: %w", k, err))
		}
		if k == 0 {
			if lock != nil {
				lock.Share() // set up: processes may attach now
			}
			if setup.EngineVersion != "" {
				r.EngineVersion, r.Env.SQLiteVersion = setup.EngineVersion, setup.EngineVersion
			}
			r.Env.CompileOptions = setup.CompileOptions
			r.InForce = setup.InForce
			r.Notes = append(r.Notes, setup.Notes...)
		}
		psp := sp
		psp.Label = fmt.Sprintf("%s [process %d]", sp.Label, k)
		psp.SeriesInterval = 0
		psp.TTY = false // a line each: the processes' lines would overwrite each other
		if k > 0 {
			psp.WALWarn = 0 // one warning for the one WAL
		}
		p.smp = newSampler(psp, inst, Unit(sp.Workload))
	}
	if sp.Attach {
		r.Notes = append(r.Notes, "attached to "+job.Path+": used as it was, beside the litebench process that owns it (not created, reset or set up)")
	}
	from0 := "the rows loaded"
	if sp.InsertFrom > 0 {
		from0 = fmt.Sprintf("row %d", sp.InsertFrom)
	}
	r.Notes = append(r.Notes, fmt.Sprintf("%d worker processes on one database: process k inserts rows in its own range of %d (process 0 from %s), reads the rows loaded before the run and those it inserted; each runs the workload as given (--count, --workers, --rate are each process's); the run's count is the sum of its processes', its rate that count over the longest process's measured time", n, RangeRows, from0))
	if sp.SeriesInterval > 0 {
		r.Notes = append(r.Notes, "no time series is kept for a run of several processes: each process's figures are in its part")
	}
	probe := func() int64 {
		if fs, ok := inst.Probe(); ok {
			return fs.WAL
		}
		return 0
	}
	var wg sync.WaitGroup
	for _, p := range parts {
		p.wal0 = probe()
		p.walMax = p.wal0
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.fin, p.err = p.w.Run(ctx, func(ev worker.Event) {
				if ev.T != worker.TInterval {
					return
				}
				p.smp.interval(ev)
				if wal := probe(); wal > 0 {
					p.mu.Lock()
					p.walMax = max(p.walMax, wal)
					p.mu.Unlock()
				}
			})
			wal := probe()
			p.mu.Lock()
			p.walMax = max(p.walMax, wal)
			p.mu.Unlock()
		}()
	}
	wg.Wait()
	for _, p := range parts {
		_, notes := p.smp.stop()
		r.Notes = append(r.Notes, notes...)
	}
	report(ctx, sp, inst, r)

	var failed []string
	interrupted := false
	var elapsed float64
	var fins []worker.Event
	for _, p := range parts {
		if p.job.InsertFrom == 0 {
			// Process 0 inserts right after the rows loaded.
			p.job.InsertFrom, _ = settings.ParseCount(sp.Workload.Params()["rows"])
		}
		pp := results.Process{Index: p.k, Attached: p.job.Attach, InsertFrom: p.job.InsertFrom, InsertTo: p.job.InsertTo,
			Status: results.StatusOK, WALStart: p.wal0, WALMax: p.walMax}
		fin := p.fin
		switch {
		case p.err != nil:
			pp.Status, pp.Error = results.StatusFailed, p.err.Error()
		case fin.Status == results.StatusInterrupted:
			pp.Status = results.StatusInterrupted
		case fin.Status == results.StatusFailed:
			pp.Status, pp.Error = results.StatusFailed, fin.Error
		}
		if pp.Status == results.StatusFailed {
			failed = append(failed, fmt.Sprintf("process %d: %s", p.k, pp.Error))
		}
		if pp.Status == results.StatusInterrupted {
			interrupted = true
		}
		pp.Count, pp.Elapsed = fin.Done, fin.ElapsedS
		if pp.Elapsed > 0 {
			pp.Rate = float64(pp.Count) / pp.Elapsed
		}
		pp.Metrics = fin.Metrics
		for _, m := range fin.Metrics {
			if strings.HasPrefix(m.Name, spec.RowsInRangeFigure) {
				pp.RowsInRange += int64(m.Value)
			}
		}
		for _, o := range fin.FinalOps {
			if o.Of == "" {
				for kind, c := range o.Errors {
					if pp.Errors == nil {
						pp.Errors = map[string]int64{}
					}
					pp.Errors[kind] += c
				}
				pp.Retries += o.Retries
			}
			o.Hist, o.RespHist = "", ""
			pp.Ops = append(pp.Ops, o)
		}
		r.Processes = append(r.Processes, pp)
		r.Rows += pp.Count
		elapsed = max(elapsed, pp.Elapsed)
		r.Notes = append(r.Notes, prefixed(fmt.Sprintf("process %d: ", p.k), fin.Notes)...)
		fins = append(fins, fin)
	}
	// The run's rate is its processes' count over the longest one's
	// measured time: never more than the sum of their rates, and no more
	// than what they did together if one started or ended late.
	r.Elapsed = elapsed
	if elapsed > 0 {
		head.Value = float64(r.Rows) / elapsed
	}
	ops, err := mergeOps(fins)
	if err != nil {
		return fail(err)
	}
	r.Ops = ops
	r.Metrics = append(r.Metrics, sumMetrics(fins)...)
	var conns int64
	for _, f := range fins {
		conns += f.Conns
	}
	if fs, ok := inst.Probe(); ok {
		r.Metrics = append(r.Metrics, results.Metric{Name: "db_size", Unit: units.ByteSize, Value: float64(fs.DB)})
		if fs.WAL > 0 {
			r.Metrics = append(r.Metrics, results.Metric{Name: results.WALSize, Unit: units.ByteSize, Value: float64(fs.WAL)})
		}
	}
	if conns > 0 {
		r.Metrics = append(r.Metrics, results.Metric{Name: "connections_opened", Unit: "connections", Value: float64(conns)})
	}
	r.SetHeadline(head)
	switch {
	case len(failed) > 0:
		return fail(errors.New(strings.Join(failed, "; ")))
	case interrupted || ctx.Err() != nil:
		return fail(context.Canceled)
	}
	return r
}

func prefixed(p string, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = p + l
	}
	return out
}

// sumMetrics adds up the processes' figures of one name: counts, CPU and
// rates add; a table's rows before or after the run (table_rows_…) are
// the largest any process counted, the table being one.
func sumMetrics(fins []worker.Event) []results.Metric {
	var out []results.Metric
	at := map[string]int{}
	for _, f := range fins {
		for _, m := range f.Metrics {
			i, ok := at[m.Name]
			if !ok {
				at[m.Name] = len(out)
				out = append(out, m)
				continue
			}
			if strings.HasPrefix(m.Name, "table_rows_") {
				out[i].Value = max(out[i].Value, m.Value)
			} else {
				out[i].Value += m.Value
			}
		}
	}
	return out
}

// mergeOps merges the processes' ops of one name: counts, errors and
// retries add, latency histograms merge.
func mergeOps(fins []worker.Event) ([]results.Op, error) {
	var out []results.Op
	type hists struct{ svc, resp *hdr.Histogram }
	hs := map[string]*hists{}
	at := map[string]int{}
	merge := func(into **hdr.Histogram, enc string) error {
		if enc == "" {
			return nil
		}
		h, err := histcodec.Decode(enc)
		if err != nil {
			return err
		}
		if *into == nil {
			*into = h
		} else {
			(*into).Merge(h)
		}
		return nil
	}
	for _, f := range fins {
		for _, o := range f.FinalOps {
			key := o.Of + "\x00" + o.Name
			i, ok := at[key]
			if !ok {
				i = len(out)
				at[key] = i
				out = append(out, results.Op{Name: o.Name, Of: o.Of})
				hs[key] = &hists{}
			}
			m := &out[i]
			m.Count += o.Count
			m.Retries += o.Retries
			m.Late += o.Late
			m.Overrun += o.Overrun
			for kind, c := range o.Errors {
				if m.Errors == nil {
					m.Errors = map[string]int64{}
				}
				m.Errors[kind] += c
			}
			if err := merge(&hs[key].svc, o.Hist); err != nil {
				return nil, fmt.Errorf("op %s: %w", o.Name, err)
			}
			if err := merge(&hs[key].resp, o.RespHist); err != nil {
				return nil, fmt.Errorf("op %s: %w", o.Name, err)
			}
		}
	}
	for i := range out {
		h := hs[out[i].Of+"\x00"+out[i].Name]
		if h.svc != nil {
			out[i].Service = worker.Latency(metrics.Summarise(h.svc))
			out[i].Hist = histcodec.Encode(h.svc)
		} else {
			out[i].Service = results.Latency{"count": 0}
		}
		if h.resp != nil {
			out[i].Response = worker.Latency(metrics.Summarise(h.resp))
			out[i].RespHist = histcodec.Encode(h.resp)
		}
	}
	return out, nil
}
