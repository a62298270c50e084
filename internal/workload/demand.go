package workload

import (
	"fmt"

	"litebench/internal/limits"
	"litebench/internal/serve"
	"litebench/internal/settings"
)

// Demand is what a run of w holds at once (connections, sockets,
// histograms, goroutines), for the check against the open-file limit and
// the memory before the run starts. ok is false for workloads that hold
// one connection and a few histograms whatever their flags.
func Demand(w Workload, s settings.Settings) (d limits.Demand, ok bool) {
	switch w := w.(type) {
	case *insertW:
		n := w.workers
		d = limits.Demand{Flags: fmt.Sprintf("--workers %d", n), Conns: poolBound(s, n),
			Histograms: n * len(insertOps), Goroutines: 2 * n}
		if n > 1 {
			// Each worker's generator keeps six chunks of rows ahead.
			d.Bytes = int64(n) * 6 * chunkRows * int64(len(w.schema.Columns)) * 64
		}
	case *opsW:
		c := w.cfg
		n := len(c.Roles)
		if c.Rate > 0 {
			n = c.MaxInflight
			d = executorDemand(fmt.Sprintf("--max-inflight %d", n), n, len(rwOps), true, c.Warmup > 0)
		} else {
			flags := fmt.Sprintf("--readers %d --writers %d", w.readers, w.writers)
			if w.name != "mixed" {
				flags = fmt.Sprintf("--workers %d", n)
			}
			d = executorDemand(flags, n, 1, false, c.Warmup > 0)
		}
		d.Conns = poolBound(s, n)
		if s.Get("writer") == "single" {
			d.Conns++
		}
	case *httpW:
		c := w.cfg
		clients := w.concurrency
		flags := fmt.Sprintf("--concurrency %d", clients)
		if c.Rate > 0 {
			clients = c.MaxInflight
			flags = fmt.Sprintf("--max-inflight %d", clients)
			d = executorDemand(flags, clients, 1, true, c.Warmup > 0)
		} else {
			d = executorDemand(flags, clients, 1, false, c.Warmup > 0)
		}
		d.Sockets = clients
		d.Bytes = int64(clients) * 32 << 10 // each client's read buffer
		if w.url == "" {
			// The server runs in this process: its end of every
			// connection, its handles, and the control's open files.
			d.Sockets *= 2
			d.Goroutines += clients
			d.Conns = 1 + serve.Conns(w.strategy, w.handles, s.Int("pool"), clients)
			if w.strategy == "file" {
				d.Files = clients
			}
			if serve.Pooled(w.strategy) {
				d.Flags = fmt.Sprintf("--handles %d %s", w.handles, flags)
			}
		}
	default:
		return d, false
	}
	d.InMemory = s.Bool("in-memory")
	return d, true
}

// executorDemand is the histograms and goroutines of n load executors
// that run ops op kinds each: service time per kind, response time too in
// open loop, a time-series interval per kind (and the scheduling lag in
// open loop), and as much again for a warm-up's recorder.
func executorDemand(flags string, n, ops int, open, warmup bool) limits.Demand {
	h, iv := ops, ops
	if open {
		h, iv = 2*ops, ops+1
	}
	if warmup {
		h *= 2
	}
	return limits.Demand{Flags: flags, Histograms: n * h, Intervals: n * iv, Goroutines: n}
}

// poolBound is how many connections n concurrent users of one pool open
// under --pool (0 = unlimited).
func poolBound(s settings.Settings, n int) int {
	if p := s.Int("pool"); p > 0 && p < n {
		return p
	}
	return max(n, 1)
}
