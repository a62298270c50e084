package runner

import (
	"fmt"
	"sync"
	"time"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/histcodec"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/units"
	"github.com/litebench/litebench/internal/worker"
)

// sampler turns a worker's interval events into the run's time series and
// progress lines, and watches the WAL.
type sampler struct {
	sp       Spec
	inst     engine.Instance
	unit     string
	total    int64
	mu       sync.Mutex
	points   []results.Point
	warned   bool
	notes    []string
	lastProg float64
	printed  bool
}

func newSampler(sp Spec, inst engine.Instance, unit string) *sampler {
	return &sampler{sp: sp, inst: inst, unit: unit, total: sp.Workload.Total()}
}

// interval records one interval event: a series point (when series are
// on), the file sizes, the WAL warning, and a progress line when one is
// due.
func (s *sampler) interval(ev worker.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := results.Point{T: units.Round3(ev.AtS), Rows: ev.Done}
	for _, o := range ev.Ops {
		if p.OpsPerS == nil {
			p.OpsPerS, p.P99us = map[string]float64{}, map[string]float64{}
		}
		if ev.SpanS > 0 {
			p.OpsPerS[o.Name] = units.Round3(float64(o.Count) / ev.SpanS)
		}
		if h, err := histcodec.Decode(o.Hist); err == nil && h.TotalCount() > 0 {
			p.P99us[o.Name] = units.Round3(float64(h.ValueAtQuantile(99)) / 1e3)
		}
		if o.Errors > 0 {
			if p.Errors == nil {
				p.Errors = map[string]int64{}
			}
			p.Errors[o.Name] = o.Errors
		}
	}
	if fs, ok := s.inst.Probe(); ok {
		p.DBBytes, p.WALBytes, p.SHMBytes, p.WALSeq = fs.DB, fs.WAL, fs.SHM, fs.WALSeq
		if w := s.sp.WALWarn; w > 0 && fs.WAL > w && !s.warned {
			s.warned = true
			note := fmt.Sprintf("WAL reached %s after %.0fs (warning threshold %s): checkpoints cannot complete while readers overlap (checkpoint starvation); try --pool 1, fewer readers, or reader gaps",
				units.Bytes(fs.WAL), p.T, units.Bytes(w))
			s.notes = append(s.notes, note)
			p.Warning = note
			if s.sp.Progress != nil {
				fmt.Fprintf(s.sp.Progress, "\nwarning: %s: %s\n", s.sp.Label, note)
			}
		}
	}
	if s.sp.SeriesInterval > 0 {
		s.points = append(s.points, p)
	}
	if s.sp.Progress != nil && s.sp.Interval > 0 && ev.AtS-s.lastProg >= s.sp.Interval.Seconds()*0.999 {
		s.lastProg = ev.AtS
		line := progressLine(s.sp.Label, ev.Done, s.total, time.Duration(ev.AtS*float64(time.Second)), s.unit)
		if p.WALBytes > 0 {
			line += ", WAL " + units.Bytes(p.WALBytes)
		}
		if s.sp.TTY {
			fmt.Fprint(s.sp.Progress, "\r\033[K"+line)
			s.printed = true
		} else {
			fmt.Fprintln(s.sp.Progress, line)
		}
	}
}

// stop ends sampling and returns the points and notes.
func (s *sampler) stop() ([]results.Point, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.printed {
		fmt.Fprint(s.sp.Progress, "\r\033[K")
	}
	return s.points, s.notes
}
