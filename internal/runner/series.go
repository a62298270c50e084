package runner

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"litebench/internal/engine"
	"litebench/internal/metrics"
	"litebench/internal/report"
	"litebench/internal/results"
	"litebench/internal/workload"
)

// sampler records a run's time series and watches the WAL.
type sampler struct {
	sp     Spec
	env    *workload.Env
	inst   engine.Instance
	mu     sync.Mutex
	points []results.Point
	wal    atomic.Int64
	warned bool
	notes  []string
	done   chan struct{}
	wg     sync.WaitGroup
	lastT  time.Time
}

func startSampler(sp Spec, env *workload.Env, inst engine.Instance) *sampler {
	s := &sampler{sp: sp, env: env, inst: inst, done: make(chan struct{})}
	if sp.SeriesInterval <= 0 {
		return s
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(sp.SeriesInterval)
		defer t.Stop()
		for {
			select {
			case <-s.done:
				return
			case now := <-t.C:
				s.sample(now)
			}
		}
	}()
	return s
}

func (s *sampler) sample(now time.Time) {
	start := s.env.Started()
	ops := s.sp.Workload.Ops()
	iv := metrics.TakeInterval(ops, s.env.LiveRecorders())
	if start.IsZero() || now.Before(start) {
		return // warm-up (or the runner's own start not yet known)
	}
	p := results.Point{T: metrics.Round3(now.Sub(start).Seconds()), Rows: s.env.Done.Load()}
	el := now.Sub(start)
	if !s.lastT.IsZero() && s.lastT.After(start) {
		el = now.Sub(s.lastT)
	}
	s.lastT = now
	for i, smp := range iv {
		if smp.Count == 0 && smp.Errors == 0 {
			continue
		}
		if p.OpsPerS == nil {
			p.OpsPerS, p.P99us = map[string]float64{}, map[string]float64{}
		}
		p.OpsPerS[ops[i]] = metrics.Round3(float64(smp.Count) / el.Seconds())
		if smp.Hist.TotalCount() > 0 {
			p.P99us[ops[i]] = metrics.Round3(float64(smp.Hist.ValueAtQuantile(99)) / 1e3)
		}
		if smp.Errors > 0 {
			if p.Errors == nil {
				p.Errors = map[string]int64{}
			}
			p.Errors[ops[i]] = smp.Errors
		}
	}
	if fs, ok := s.inst.Probe(); ok {
		p.DBBytes, p.WALBytes, p.SHMBytes, p.WALSeq = fs.DB, fs.WAL, fs.SHM, fs.WALSeq
		s.wal.Store(fs.WAL)
		if w := s.sp.WALWarn; w > 0 && fs.WAL > w && !s.warned {
			s.warned = true
			note := fmt.Sprintf("WAL reached %s after %.0fs (warning threshold %s): checkpoints cannot complete while readers overlap (checkpoint starvation); try --pool 1, fewer readers, or reader gaps",
				report.Bytes(fs.WAL), p.T, report.Bytes(w))
			s.mu.Lock()
			s.notes = append(s.notes, note)
			s.mu.Unlock()
			if s.sp.Progress != nil {
				fmt.Fprintf(s.sp.Progress, "\nwarning: %s: %s\n", s.sp.Label, note)
			}
		}
	}
	s.mu.Lock()
	s.points = append(s.points, p)
	s.mu.Unlock()
}

// stop ends sampling and returns the points and notes.
func (s *sampler) stop() ([]results.Point, []string) {
	close(s.done)
	s.wg.Wait()
	// A last, partial interval, so short runs have a series too.
	if now := time.Now(); s.sp.SeriesInterval > 0 && now.Sub(s.lastT) > s.sp.SeriesInterval/10 {
		s.sample(now)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.points, s.notes
}
