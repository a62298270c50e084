package workload

import (
	"fmt"

	"github.com/litebench/litebench/internal/limits"
	"github.com/litebench/litebench/internal/settings"
)

// Demand is what a run of w holds at once (connections, sockets,
// histograms, goroutines), for the check against the open-file limit and
// the memory before the run starts. ok is false for workloads that hold
// one connection and a few histograms whatever their flags.
func Demand(w Workload, s settings.Settings) (d limits.Demand, ok bool) {
	if dm, ok := w.(Demander); ok {
		d = dm.Demand(s)
		d.InMemory = s.Bool("in-memory")
		return d, true
	}
	return d, false
}

// Demander is a workload that says what a run of it holds at once.
type Demander interface {
	Demand(s settings.Settings) limits.Demand
}

// LoadDemand is what Load holds with workers goroutines inserting rows of
// sc: a connection each (within --pool), three histograms each, and the
// rows each worker's generator keeps ahead.
func LoadDemand(s settings.Settings, sc *Schema, workers int) limits.Demand {
	d := limits.Demand{Flags: fmt.Sprintf("--workers %d", workers), Conns: PoolBound(s, workers),
		Histograms: workers * len(InsertOps), Goroutines: 2 * workers}
	if workers > 1 {
		// Each worker's generator keeps six chunks of rows ahead.
		d.Bytes = int64(workers) * 6 * chunkRows * int64(len(sc.Columns)) * 64
	}
	return d
}

// ExecutorDemand is the histograms and goroutines of n load executors
// that run ops op kinds each: service time per kind, response time too in
// open loop, a time-series interval per kind (and the scheduling lag in
// open loop), and as much again for a warm-up's recorder.
func ExecutorDemand(flags string, n, ops int, open, warmup bool) limits.Demand {
	h, iv := ops, ops
	if open {
		h, iv = 2*ops, ops+1
	}
	if warmup {
		h *= 2
	}
	return limits.Demand{Flags: flags, Histograms: n * h, Intervals: n * iv, Goroutines: n}
}

// PoolBound is how many connections n concurrent users of one pool open
// under --pool (0 = unlimited).
func PoolBound(s settings.Settings, n int) int {
	if p := s.Int("pool"); p > 0 && p < n {
		return p
	}
	return max(n, 1)
}
