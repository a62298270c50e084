// Package livemetrics serves a sweep's figures while it runs, in the
// OpenMetrics (Prometheus) text format: operations and errors per op, a
// latency histogram per op built from the workers' interval histograms,
// and the database's file sizes and completed checkpoints, labelled by
// run and cell. It reads the same interval events the progress lines and
// time series do; nothing is added to a worker's measured loop.
package livemetrics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/histcodec"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/worker"
)

// runLabels are every series' labels: which run, and the cell it is of.
var runLabels = []string{"run_id", "sweep_id", "cell", "workload", "target", "engine", "client", "placement"}

// Buckets are the latency histogram's upper bounds in seconds: 1, 2 and
// 5 times each power of ten from 1 µs to 10 s.
var Buckets = func() []float64 {
	var b []float64
	for d := 1e-6; d < 20; d *= 10 {
		b = append(b, d, 2*d, 5*d)
	}
	return b[:len(b)-2]
}()

// Server serves the metrics of every run it was told of.
type Server struct {
	ln  net.Listener
	srv *http.Server
	reg *prometheus.Registry

	mu   sync.Mutex
	runs map[string]*run
	ids  []string
}

type run struct {
	labels  []string
	running bool
	ops     map[string]*opFigures
	files   engine.Probe
	sized   bool
	ckpts   int64
	lastSeq int64
}

type opFigures struct {
	count, errors int64
	hist          *hdr.Histogram // every interval's, merged (nanoseconds)
}

// Listen starts serving /metrics on addr.
func Listen(addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{ln: ln, reg: prometheus.NewRegistry(), runs: map[string]*run{}}
	s.reg.MustRegister(s)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Close stops serving, within a second.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// Start registers a run about to start (r as the store records it before
// the run) and returns what receives its interval events.
func (s *Server) Start(r *results.Result) func(worker.Event, engine.Probe, bool) {
	labels := []string{r.RunID, r.SweepID, r.Label, r.Workload, r.Target, r.Engine, r.Client, r.Placement}
	s.mu.Lock()
	s.runs[r.RunID] = &run{labels: labels, running: true, ops: map[string]*opFigures{}}
	s.ids = append(s.ids, r.RunID)
	s.mu.Unlock()
	return func(ev worker.Event, fs engine.Probe, sized bool) { s.interval(r.RunID, ev, fs, sized) }
}

// End marks a run finished; its figures stay served.
func (s *Server) End(runID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.runs[runID]; r != nil {
		r.running = false
	}
}

func (s *Server) interval(id string, ev worker.Event, fs engine.Probe, sized bool) {
	// Decode outside the lock: a scrape waits for nothing but the merge.
	hs := make([]*hdr.Histogram, len(ev.Ops))
	for i, o := range ev.Ops {
		if o.Hist != "" {
			hs[i], _ = histcodec.Decode(o.Hist)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.runs[id]
	if r == nil {
		return
	}
	for i, o := range ev.Ops {
		f := r.ops[o.Name]
		if f == nil {
			f = &opFigures{}
			r.ops[o.Name] = f
		}
		f.count += o.Count
		f.errors += o.Errors
		if h := hs[i]; h != nil {
			if f.hist == nil {
				f.hist = hdr.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
			}
			f.hist.Merge(h)
		}
	}
	if sized {
		if r.sized && fs.WALSeq != r.lastSeq {
			r.ckpts++
		}
		r.files, r.sized, r.lastSeq = fs, true, fs.WALSeq
	}
}

var (
	descOps     = prometheus.NewDesc("litebench_operations_total", "Operations completed in the measured part, per op.", append(runLabels, "op"), nil)
	descErrors  = prometheus.NewDesc("litebench_errors_total", "Operations that failed, per op.", append(runLabels, "op"), nil)
	descLatency = prometheus.NewDesc("litebench_latency_seconds", "Service time of each operation, per op (from the workers' interval histograms).", append(runLabels, "op"), nil)
	descRunning = prometheus.NewDesc("litebench_run_running", "1 while the run is measuring, 0 once it ended.", runLabels, nil)
	descDB      = prometheus.NewDesc("litebench_db_bytes", "Size of the database file.", runLabels, nil)
	descWAL     = prometheus.NewDesc("litebench_wal_bytes", "Size of the write-ahead log.", runLabels, nil)
	descCkpt    = prometheus.NewDesc("litebench_wal_checkpoints_total", "Checkpoints seen to complete (the WAL's checkpoint sequence moved between samples).", runLabels, nil)
)

// Describe is prometheus.Collector's.
func (s *Server) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descOps, descErrors, descLatency, descRunning, descDB, descWAL, descCkpt} {
		ch <- d
	}
}

// Collect is prometheus.Collector's: every run's figures as they stand.
func (s *Server) Collect(ch chan<- prometheus.Metric) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range s.ids {
		r := s.runs[id]
		running := 0.0
		if r.running {
			running = 1
		}
		ch <- prometheus.MustNewConstMetric(descRunning, prometheus.GaugeValue, running, r.labels...)
		if r.sized {
			ch <- prometheus.MustNewConstMetric(descDB, prometheus.GaugeValue, float64(r.files.DB), r.labels...)
			ch <- prometheus.MustNewConstMetric(descWAL, prometheus.GaugeValue, float64(r.files.WAL), r.labels...)
			ch <- prometheus.MustNewConstMetric(descCkpt, prometheus.CounterValue, float64(r.ckpts), r.labels...)
		}
		names := make([]string, 0, len(r.ops))
		for n := range r.ops {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			f := r.ops[n]
			l := append(append([]string(nil), r.labels...), n)
			ch <- prometheus.MustNewConstMetric(descOps, prometheus.CounterValue, float64(f.count), l...)
			ch <- prometheus.MustNewConstMetric(descErrors, prometheus.CounterValue, float64(f.errors), l...)
			if f.hist != nil {
				count, sum, buckets := histogram(f.hist)
				ch <- prometheus.MustNewConstHistogram(descLatency, count, sum, buckets, l...)
			}
		}
	}
}

// histogram turns an HdrHistogram of nanoseconds into Prometheus'
// cumulative buckets in seconds. A value counts in every bucket whose
// bound is at or above the highest value equivalent to it, so a bucket
// never holds a value above its bound.
func histogram(h *hdr.Histogram) (uint64, float64, map[float64]uint64) {
	counts := make([]uint64, len(Buckets))
	var total uint64
	var sum float64
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		n := uint64(b.Count)
		total += n
		top := float64(b.To) / 1e9
		sum += float64(b.Count) * (float64(b.From+b.To) / 2) / 1e9
		i := sort.SearchFloat64s(Buckets, top)
		for ; i < len(Buckets); i++ {
			counts[i] += n
		}
	}
	m := make(map[float64]uint64, len(Buckets))
	for i, b := range Buckets {
		m[b] = counts[i]
	}
	return total, sum, m
}
