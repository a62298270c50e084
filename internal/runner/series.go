package runner

import (
	"fmt"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

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
	// duration is the measured part's length when it has one and no
	// total count.
	duration time.Duration
	// win is what happened since the last progress line.
	win window
}

// window sums interval events between two progress lines.
type window struct {
	done   int64 // Done at the last progress line
	errors int64
	hists  map[string]*hdr.Histogram
	order  []string
}

func (w *window) add(ev worker.Event) {
	for _, o := range ev.Ops {
		w.errors += o.Errors
		h, err := histcodec.Decode(o.Hist)
		if err != nil || h.TotalCount() == 0 {
			continue
		}
		if w.hists == nil {
			w.hists = map[string]*hdr.Histogram{}
		}
		if m, ok := w.hists[o.Name]; ok {
			m.Merge(h)
		} else {
			w.hists[o.Name] = h
			w.order = append(w.order, o.Name)
		}
	}
}

// p99s are the window's p99 per op kind, in the order they first ran.
func (w *window) p99s() []opP99 {
	var out []opP99
	for _, n := range w.order {
		out = append(out, opP99{n, time.Duration(w.hists[n].ValueAtQuantile(99))})
	}
	return out
}

func newSampler(sp Spec, inst engine.Instance, unit string) *sampler {
	s := &sampler{sp: sp, inst: inst, unit: unit, total: sp.Workload.Total()}
	if s.total == 0 {
		// A run of a set length (--duration) ends when it is up.
		s.duration, _ = time.ParseDuration(sp.Workload.Params()["duration"])
	}
	return s
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
		if s.sp.SeriesHists && o.Hist != "" {
			if p.Hists == nil {
				p.Hists = map[string]string{}
			}
			p.Hists[o.Name] = o.Hist
		}
		if o.Errors > 0 {
			if p.Errors == nil {
				p.Errors = map[string]int64{}
			}
			p.Errors[o.Name] = o.Errors
		}
	}
	fs, sized := s.inst.Probe()
	if s.sp.Live != nil {
		s.sp.Live(ev, fs, sized)
	}
	if sized {
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
	if s.sp.Progress == nil || s.sp.Interval <= 0 {
		return
	}
	s.win.add(ev)
	if ev.AtS-s.lastProg < s.sp.Interval.Seconds()*0.999 {
		return
	}
	pr := progress{Label: s.sp.Label, Unit: s.unit, Done: ev.Done, Total: s.total,
		Elapsed: seconds(ev.AtS), Span: seconds(ev.AtS - s.lastProg), SpanDone: ev.Done - s.win.done,
		Errors: s.win.errors, P99: s.win.p99s(), Duration: s.duration, WAL: p.WALBytes}
	s.lastProg = ev.AtS
	s.win = window{done: ev.Done}
	line := pr.line()
	if s.sp.TTY {
		fmt.Fprint(s.sp.Progress, "\r\033[K"+line)
		s.printed = true
	} else {
		fmt.Fprintln(s.sp.Progress, line)
	}
}

func seconds(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

// stop ends sampling and returns the points and notes.
func (s *sampler) stop() ([]results.Point, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.printed {
		fmt.Fprint(s.sp.Progress, "\r\033[K")
	}
	return s.points, s.notes
}
