// Package metrics records latencies and counts per operation kind.
//
// Each worker owns a Recorder: recording touches only that worker's memory,
// takes no lock and allocates nothing after the first value of each kind.
// A live recorder (one that feeds the time series) also records into an
// interval buffer that the sampler swaps for a spare one: the worker
// announces each observation on two atomic counters it shares only with
// the sampler, and never waits; the sampler waits for an observation in
// progress to end before it reads the buffer it swapped out. Recorders are
// merged into one Op per kind when the run ends.
package metrics

import (
	"math"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/litebench/litebench/internal/units"
)

// Histogram bounds: nanoseconds from 1 ns to 10 minutes, 3 significant
// figures (0.1% resolution at any scale).
const (
	lowest    = 1
	highest   = int64(10 * time.Minute)
	sigfigs   = 3
	ivSigfigs = 2 // the time series' intervals
)

// NewHistogram returns an empty latency histogram in nanoseconds.
func NewHistogram() *hdr.Histogram { return hdr.New(lowest, highest, sigfigs) }

// Error kinds counted per op kind.
// "missing" is a read that found no row where one was expected;
// "mismatch" is a response that was not what was asked for (HTTP status or
// body length).
var ErrorKinds = [...]string{"busy", "locked", "constraint", "interrupted", "missing", "mismatch", "other"}

// ErrKind indexes ErrorKinds.
func ErrKind(name string) int {
	for i, k := range ErrorKinds {
		if k == name {
			return i
		}
	}
	return len(ErrorKinds) - 1
}

// Ops names the op kinds of a workload; a kind is referred to by its index.
type Ops []string

type opRec struct {
	service  counts
	response counts // open loop only
	count    int64
	errs     [len(ErrorKinds)]int64
	retries  int64
	late     int64 // operations that started behind schedule
	overrun  int64 // operations that ended after the measured window
}

// Recorder collects one worker's observations. Recording is not safe for
// concurrent use: give every worker its own. TakeInterval may read a live
// recorder while its worker records.
type Recorder struct {
	ops  Ops
	recs []opRec
	// lv is set on live recorders, which also keep per-interval figures
	// for the time series.
	lv *live
	// The service-time counts of the last observations, added to their
	// histograms pendingLen at a time (flush): one at a time, each count
	// was a cache miss (the database's work between two operations pushes
	// the histograms out of the caches); added together, the misses
	// overlap. A Go insert ran 2.4 % faster per CPU second so.
	pend [pendingLen]pending
	np   int
}

// pendingLen is how many service-time counts wait at most.
const pendingLen = 64

// pending is a service-time count waiting: op kind, counts index.
type pending struct{ op, idx int32 }

// flush adds the pending counts to their histograms.
func (r *Recorder) flush() {
	for _, p := range r.pend[:r.np] {
		r.recs[p.op].service.add(int(p.idx))
	}
	r.np = 0
}

// interval is what a live recorder saw of one op kind since the last
// sample.
type interval struct {
	count   int64
	errs    int64
	samples int64  // latencies in hist
	hist    counts // of an interval histogram (ivMag)
}

// live holds a live recorder's two interval buffers: the worker records
// into active, the sampler owns spare. TakeInterval swaps them, waits on
// the phaser until the worker has left any observation that may still
// use the buffer swapped out, and reads it (HdrHistogram's Recorder).
type live struct {
	_      [64]byte // keep the worker's counters off its neighbours' lines
	ph     phaser
	active atomic.Pointer[[]interval]
	readMu sync.Mutex // the sampler's side: one swap at a time
	spare  *[]interval
	_      [64]byte
}

// phaser is HdrHistogram's WriterReaderPhaser: writers bracket each
// record with enter and exit, which never wait; flip, called by the
// reader after it swapped the buffer writers load, returns once every
// writer that entered before it has exited, so the buffer swapped out is
// no longer written. The sign of start says the phase; exits are counted
// per phase.
type phaser struct {
	start, evenEnd, oddEnd atomic.Int64
}

func (p *phaser) init() { p.oddEnd.Store(math.MinInt64) }

// enter starts a writer's critical section; pass its result to exit.
func (p *phaser) enter() int64 { return p.start.Add(1) - 1 }

func (p *phaser) exit(at int64) {
	if at < 0 {
		p.oddEnd.Add(1)
	} else {
		p.evenEnd.Add(1)
	}
}

// flip starts the next phase and waits for the writers of the last one.
// Only one reader may flip at a time.
func (p *phaser) flip() {
	nextEven := p.start.Load() < 0
	var first int64
	end := &p.evenEnd
	if !nextEven {
		first = math.MinInt64
		end = &p.oddEnd
	}
	end.Store(first)
	last := p.start.Swap(first)
	ended := &p.oddEnd
	if !nextEven {
		ended = &p.evenEnd
	}
	for ended.Load() != last {
		runtime.Gosched() // a writer is inside one observation: nanoseconds
	}
}

// NewIntervalHistogram is the coarser histogram of one time-series sample:
// 2 significant figures keep it small enough to swap every second.
func NewIntervalHistogram() *hdr.Histogram { return hdr.New(lowest, highest, ivSigfigs) }

// Live makes r keep per-interval figures for TakeInterval. Call it before
// the recorder is used.
func (r *Recorder) Live() {
	a, b := make([]interval, len(r.ops)), make([]interval, len(r.ops))
	lv := &live{spare: &b}
	lv.ph.init()
	lv.active.Store(&a)
	r.lv = lv
}

// NewRecorder returns a recorder for ops.
func NewRecorder(ops Ops) *Recorder {
	return &Recorder{ops: ops, recs: make([]opRec, len(ops))}
}

func (r *Recorder) rec(op int) *opRec {
	o := &r.recs[op]
	if o.service == nil {
		o.service = newCounts(runLen)
	}
	return o
}

func clamp(d time.Duration) int64 {
	v := int64(d)
	if v < lowest {
		return lowest
	} else if v > highest {
		return highest
	}
	return v
}

// Observe records one successful operation of kind op that took d.
func (r *Recorder) Observe(op int, d time.Duration) { r.ObserveN(op, 1, d) }

// ObserveN records n operations (e.g. rows of a multi-row statement) that
// together took d, as one latency sample and n in the count.
func (r *Recorder) ObserveN(op int, n int64, d time.Duration) {
	v := clamp(d)
	if r.lv != nil {
		r.lv.observe(op, n, v)
	}
	r.rec(op).count += n
	r.pend[r.np] = pending{int32(op), int32(runIndex(v))}
	if r.np++; r.np == pendingLen {
		r.flush()
	}
}

// observe adds to the current interval; the interval's latency is the one
// users feel: response time in open loop, service time otherwise. v is
// clamped.
func (l *live) observe(op int, n int64, v int64) {
	at := l.ph.enter()
	iv := &(*l.active.Load())[op]
	if iv.hist == nil {
		iv.hist = newCounts(ivLen) // once per kind and buffer
	}
	iv.count += n
	iv.samples++
	iv.hist.add(ivIndex(v))
	l.ph.exit(at)
}

// ObserveScheduled records an open-loop operation: service time from the
// actual start, response time from the scheduled start.
func (r *Recorder) ObserveScheduled(op int, service, response time.Duration, late bool) {
	rv := clamp(response)
	if r.lv != nil {
		r.lv.observe(op, 1, rv)
	}
	o := r.rec(op)
	o.count++
	o.service.add(runIndex(clamp(service)))
	if o.response == nil {
		o.response = newCounts(runLen)
	}
	o.response.add(runIndex(rv))
	if late {
		o.late++
	}
}

// ObserveOverrun records an operation that was running when the measured
// window closed and finished after it: its latency counts (leaving it out
// would hide the slowest operations), but not in Count, so rates are
// operations completed within the window.
func (r *Recorder) ObserveOverrun(op int, d time.Duration) {
	o := r.rec(op)
	o.overrun++
	o.service.add(runIndex(clamp(d)))
}

// Error counts a failed operation of kind op.
func (r *Recorder) Error(op int, kind string) {
	if l := r.lv; l != nil {
		at := l.ph.enter()
		(*l.active.Load())[op].errs++
		l.ph.exit(at)
	}
	r.recs[op].errs[ErrKind(kind)]++
}

// Retry counts a retried operation of kind op.
func (r *Recorder) Retry(op int) { r.recs[op].retries++ }

// RetryN counts n retries of one operation of kind op.
func (r *Recorder) RetryN(op, n int) { r.recs[op].retries += int64(n) }

// Sample is one time-series interval of one op kind, merged over workers.
type Sample struct {
	Count, Errors int64
	Hist          *hdr.Histogram
}

// TakeInterval merges what the live recorders saw since the previous call
// into one Sample per op kind and starts new intervals. Recorders that are
// not live are skipped. It may run while the recorders' workers record.
func TakeInterval(ops Ops, recs []*Recorder) []Sample {
	out := make([]Sample, len(ops))
	sums := make([]counts, len(ops))
	for _, r := range recs {
		if r.lv != nil {
			r.lv.take(out, sums)
		}
	}
	for i := range out {
		out[i].Hist = sums[i].histogram(ivSigfigs, ivLen)
	}
	return out
}

// take swaps l's buffers and adds the one swapped out to out (its
// latencies to sums, allocated as needed), emptying it.
func (l *live) take(out []Sample, sums []counts) {
	l.readMu.Lock()
	defer l.readMu.Unlock()
	old := l.active.Swap(l.spare)
	l.ph.flip()
	for i := range *old {
		iv := &(*old)[i]
		out[i].Count += iv.count
		out[i].Errors += iv.errs
		if iv.samples > 0 {
			if sums[i] == nil {
				sums[i] = newCounts(ivLen)
			}
			sums[i].move(iv.hist)
		}
		iv.count, iv.errs, iv.samples = 0, 0, 0
	}
	l.spare = old
}

// Count returns how many successful operations of kind op were recorded.
func (r *Recorder) Count(op int) int64 { return r.recs[op].count }

// Percentiles reported everywhere, in this order.
var Percentiles = []float64{50, 75, 90, 95, 99, 99.9, 99.99}

// PercentileKey names a percentile in JSON: "p50", "p99", "p999", "p9999".
func PercentileKey(p float64) string {
	return "p" + strings.ReplaceAll(strconv.FormatFloat(p, 'f', -1, 64), ".", "")
}

// Op is the merged result for one op kind.
type Op struct {
	Name     string
	Count    int64
	Errors   map[string]int64
	Retries  int64
	Late     int64
	Overrun  int64
	Service  *hdr.Histogram
	Response *hdr.Histogram // nil for closed-loop runs
}

// Merge combines recorders into one Op per kind, in the order of ops. Kinds
// that saw no operation and no error are left out. It adds the recorders'
// pending counts first: call it once their workers are done.
func Merge(ops Ops, recs []*Recorder) []Op {
	for _, r := range recs {
		r.flush()
	}
	out := make([]Op, 0, len(ops))
	for i, name := range ops {
		op := Op{Name: name, Errors: map[string]int64{}}
		var service, response counts
		seen := false
		for _, r := range recs {
			o := &r.recs[i]
			op.Count += o.count
			op.Retries += o.retries
			op.Late += o.late
			op.Overrun += o.overrun
			for k, n := range o.errs {
				if n > 0 {
					op.Errors[ErrorKinds[k]] += n
					seen = true
				}
			}
			if o.service != nil {
				seen = true
				if service == nil {
					service = newCounts(runLen)
				}
				service.sum(o.service)
			}
			if o.response != nil {
				if response == nil {
					response = newCounts(runLen)
				}
				response.sum(o.response)
			}
		}
		op.Service = service.histogram(sigfigs, runLen)
		if response != nil {
			op.Response = response.histogram(sigfigs, runLen)
		}
		if seen || op.Count > 0 {
			out = append(out, op)
		}
	}
	return out
}

// Dist summarises a histogram in microseconds.
type Dist struct {
	Count int64              `json:"count"`
	Min   float64            `json:"min"`
	Mean  float64            `json:"mean"`
	Max   float64            `json:"max"`
	P     map[string]float64 `json:"-"`
}

// Summarise returns the distribution of h in microseconds.
func Summarise(h *hdr.Histogram) Dist {
	d := Dist{P: map[string]float64{}}
	if h == nil || h.TotalCount() == 0 {
		return d
	}
	us := func(v int64) float64 { return units.Round3(float64(v) / 1e3) }
	d.Count = h.TotalCount()
	d.Min = us(h.Min())
	d.Max = us(h.Max())
	d.Mean = units.Round3(h.Mean() / 1e3)
	for _, p := range Percentiles {
		d.P[PercentileKey(p)] = us(h.ValueAtQuantile(p))
	}
	return d
}

// SortedErrorKinds returns the keys of m in a stable order.
func SortedErrorKinds(m map[string]int64) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
