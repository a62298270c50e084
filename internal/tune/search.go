package tune

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/litebench/litebench/internal/stats"
	"github.com/litebench/litebench/internal/units"
)

// Sample is what one run of a cell measured.
type Sample struct {
	// Value is the objective (throughput, or a latency percentile).
	Value float64
	// SLO is the value of the metric --slo bounds (0 without one).
	SLO float64
	// Failed marks a run that failed or errored: its cell is never
	// recommended.
	Failed bool
	// Class is the durability class of what the run had in force, as the
	// database reported it ("" when unknown). A class below the
	// requirement rules the cell out, whatever was asked for.
	Class string
}

// Evaluate runs cell c once and returns what it measured. An error stops
// the search (the context's error when it was interrupted).
type Evaluate func(ctx context.Context, c Cell) (Sample, error)

// Config shapes a search.
type Config struct {
	// Higher says the objective is better higher (throughput); false for
	// a latency.
	Higher bool
	// Budget is the most runs the search makes, reused ones included (0:
	// no limit).
	Budget int
	// SLOMax, when positive, bounds the median of Sample.SLO: a cell above
	// it is never recommended.
	SLOMax float64
	// MinRuns is how many runs the incumbent has before it is challenged;
	// MaxRuns the most a challenger gets in a race.
	MinRuns, MaxRuns int
	// Start is the cell the search starts from (the target's defaults).
	Start Cell
	// Reuse holds runs already made, by cell key in run order: a cell's
	// first runs come from it before any new run (resuming a tune).
	Reuse map[string][]Sample
	// Log, when set, receives a line per decision.
	Log func(string)
}

// ErrBudget ends a search whose budget is spent.
var ErrBudget = errors.New("budget spent")

// Searcher is one search's state: every run of every cell so far.
type Searcher struct {
	sp      *Space
	cfg     Config
	eval    Evaluate
	samples map[string][]Sample
	cells   map[string]Cell
	reuse   map[string][]Sample
	runs    int
	reused  int
	// hints are, per axis, the value whose challenger last ended a race
	// better than the incumbent but not significantly so.
	hints map[int]hint
	trace []string
}

type hint struct {
	value int
	ratio float64
}

// New returns a searcher of sp that runs cells with eval.
func New(sp *Space, cfg Config, eval Evaluate) *Searcher {
	if cfg.MinRuns < 2 {
		cfg.MinRuns = 5
	}
	if cfg.MaxRuns < 2 {
		cfg.MaxRuns = 6
	}
	reuse := map[string][]Sample{}
	for k, v := range cfg.Reuse {
		reuse[k] = append([]Sample(nil), v...)
	}
	return &Searcher{sp: sp, cfg: cfg, eval: eval, samples: map[string][]Sample{}, cells: map[string]Cell{}, reuse: reuse, hints: map[int]hint{}}
}

func (s *Searcher) logf(format string, a ...any) {
	line := fmt.Sprintf(format, a...)
	s.trace = append(s.trace, line)
	if s.cfg.Log != nil {
		s.cfg.Log(line)
	}
}

// Runs is how many runs the search has made, and how many of them came
// from Config.Reuse.
func (s *Searcher) Runs() (total, reused int) { return s.runs, s.reused }

// Ensure runs c until it has n runs.
func (s *Searcher) Ensure(ctx context.Context, c Cell, n int) error {
	k := s.sp.Key(c)
	s.cells[k] = c
	for len(s.samples[k]) < n {
		if q := s.reuse[k]; len(q) > 0 {
			s.samples[k] = append(s.samples[k], q[0])
			s.reuse[k] = q[1:]
			s.runs++
			s.reused++
			continue
		}
		if s.cfg.Budget > 0 && s.runs >= s.cfg.Budget {
			return ErrBudget
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		v, err := s.eval(ctx, c)
		if err != nil {
			return err
		}
		s.samples[k] = append(s.samples[k], v)
		s.runs++
	}
	return nil
}

// Samples are c's runs so far.
func (s *Searcher) Samples(c Cell) []Sample { return s.samples[s.sp.Key(c)] }

// Values are the objective values of c's runs.
func (s *Searcher) Values(c Cell) []float64 {
	var v []float64
	for _, x := range s.Samples(c) {
		if !x.Failed {
			v = append(v, x.Value)
		}
	}
	return v
}

// Median is the median objective of c's runs (0 with none).
func (s *Searcher) Median(c Cell) float64 { return median(s.Values(c)) }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	x := append([]float64(nil), v...)
	sort.Float64s(x)
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}

// better reports whether objective a beats b.
func (s *Searcher) better(a, b float64) bool {
	if s.cfg.Higher {
		return a > b
	}
	return a < b
}

// OK reports whether c may be recommended: its documented class meets the
// requirement, no run failed or ran a weaker class, its SLO holds; why
// says what rules it out.
func (s *Searcher) OK(c Cell) (ok bool, why string) {
	if !s.sp.Eligible(c) {
		return false, "documented " + s.sp.ClassOf(c)
	}
	var slo []float64
	for _, x := range s.Samples(c) {
		if x.Failed {
			return false, "a run failed"
		}
		if x.Class != "" && !Meets(x.Class, s.sp.Require) {
			return false, "ran " + x.Class
		}
		slo = append(slo, x.SLO)
	}
	if s.cfg.SLOMax > 0 && len(slo) > 0 && median(slo) >= s.cfg.SLOMax {
		return false, "misses the SLO"
	}
	return true, ""
}

// Result is what a search found.
type Result struct {
	// Start is the cell the search started from: Config.Start, or the
	// nearest cell that meets the requirement when it does not.
	Start, Best Cell
	// Stopped says why the search ended early: "budget", "interrupted",
	// or "" when more runs could not change its answer.
	Stopped string
	Trace   []string
}

// Search runs coordinate descent from the start cell with a race on
// every axis, then an interaction check of the near misses in pairs.
//
// A race challenges the incumbent (run MinRuns times) with every other
// eligible value of one axis: each challenger runs twice, then once more
// per round; it is out as soon as both first runs fall below the
// incumbent's median, its median is no better after three, or a
// Mann-Whitney test finds it significantly worse. The first round in
// which challengers are significantly better crowns the best of them;
// challengers still undecided after MaxRuns leave the incumbent in place
// (noise is not crowned), and the best of them becomes the axis' hint.
// The descent stops once every axis has been raced without a move since
// the last one. The interaction check then races the incumbent against
// the cells that take two axes' hints at once, which catches a pair of
// settings that pays only together. With more than half the budget left,
// descent and check run once more with twice the runs per challenger.
// Each stage stops at the budget or an interruption with the best cell
// so far.
func (s *Searcher) Search(ctx context.Context) (*Result, error) {
	res := &Result{Start: s.cfg.Start}
	inc := append(Cell(nil), s.cfg.Start...)
	if !s.sp.Eligible(inc) {
		inc = s.nearestEligible(inc)
		if inc == nil {
			return nil, fmt.Errorf("no cell of the space meets durability %s", s.sp.Require)
		}
		s.logf("start %s is below %s; starting from %s", s.sp.Key(res.Start), s.sp.Require, s.sp.Key(inc))
		res.Start = append(Cell(nil), inc...)
	}
	err := s.descend(ctx, &inc)
	if err == nil {
		err = s.interactions(ctx, &inc)
	}
	if err == nil && s.cfg.Budget > 0 && s.runs < s.cfg.Budget/2 {
		// Converged with more than half the budget left: once more with
		// twice the runs per challenger, so that a gain smaller than the
		// noise of a few runs can still show.
		s.logf("converged after %d of %d runs: again with up to %d runs per challenger", s.runs, s.cfg.Budget, 2*s.cfg.MaxRuns)
		s.cfg.MaxRuns *= 2
		err = s.descend(ctx, &inc)
		if err == nil {
			err = s.interactions(ctx, &inc)
		}
	}
	if err == nil {
		err = s.Ensure(ctx, inc, s.cfg.MinRuns)
	}
	res.Best = inc
	switch {
	case errors.Is(err, ErrBudget):
		res.Stopped = "budget"
	case err != nil && ctx.Err() != nil:
		res.Stopped = "interrupted"
	case err != nil:
		return nil, err
	}
	if ok, _ := s.OK(res.Best); !ok {
		// An interrupted first race can leave an infeasible incumbent.
		if r := s.Ranked(); len(r) > 0 {
			res.Best = r[0]
		}
	} else if res.Stopped != "" {
		// Stopped in the middle of a race: the best cell measured wins if
		// it is already significantly better than the incumbent.
		if r := s.Ranked(); len(r) > 0 && s.sp.Key(r[0]) != s.sp.Key(res.Best) {
			a, b := s.Values(res.Best), s.Values(r[0])
			if cmp := stats.Compare(a, b); cmp.Significant && s.better(median(b), median(a)) && s.clear(a, b) {
				s.logf("stopped during a race: %s is significantly better than %s, not confirmed", s.sp.Key(r[0]), s.sp.Key(res.Best))
				res.Best = r[0]
			}
		}
	}
	res.Trace = s.trace
	return res, nil
}

// descend is the coordinate descent.
func (s *Searcher) descend(ctx context.Context, inc *Cell) error {
	n := len(s.sp.Axes)
	since := 0
	for pass := 0; pass < 4 && since < n; pass++ {
		for i := 0; i < n && since < n; i++ {
			var cands []Cell
			for v := range s.sp.Axes[i].Values {
				if v == (*inc)[i] {
					continue
				}
				c := append(Cell(nil), *inc...)
				c[i] = v
				if s.sp.Eligible(c) {
					cands = append(cands, c)
				}
			}
			next, moved, err := s.race(ctx, *inc, cands, i)
			if err != nil {
				return err
			}
			if moved {
				s.logf("%s: %s → %s (median %s → %s)", s.sp.Axes[i].Name(), s.sp.Axes[i].Label((*inc)[i]), s.sp.Axes[i].Label(next[i]), units.Num(s.Median(*inc)), units.Num(s.Median(next)))
				*inc = next
				// The axis races again from its new value: a better
				// challenger may have been undecided when this one won.
				since = 0
				delete(s.hints, i)
				i--
			} else {
				since++
			}
		}
	}
	return nil
}

// interactions races the incumbent against the cells that take the hints
// of two axes at once (the three strongest hints).
func (s *Searcher) interactions(ctx context.Context, inc *Cell) error {
	type ax struct {
		i int
		h hint
	}
	var hs []ax
	for i, h := range s.hints {
		if h.value != (*inc)[i] {
			hs = append(hs, ax{i, h})
		}
	}
	sort.Slice(hs, func(a, b int) bool {
		if hs[a].h.ratio != hs[b].h.ratio {
			return hs[a].h.ratio > hs[b].h.ratio
		}
		return hs[a].i < hs[b].i
	})
	if len(hs) > 3 {
		hs = hs[:3]
	}
	var cands []Cell
	for a := 0; a < len(hs); a++ {
		for b := a + 1; b < len(hs); b++ {
			c := append(Cell(nil), *inc...)
			c[hs[a].i], c[hs[b].i] = hs[a].h.value, hs[b].h.value
			if s.sp.Eligible(c) {
				cands = append(cands, c)
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	next, moved, err := s.race(ctx, *inc, cands, -1)
	if err != nil {
		return err
	}
	if moved {
		s.logf("interaction: %s → %s (median %s → %s)", s.sp.Key(*inc), s.sp.Key(next), units.Num(s.Median(*inc)), units.Num(s.Median(next)))
		*inc = next
		// One more descent from there, in case the pair opened a way.
		return s.descend(ctx, inc)
	}
	return nil
}

// race challenges inc with cands (which differ from it on axis, or -1
// for several axes) and returns the new incumbent.
func (s *Searcher) race(ctx context.Context, inc Cell, cands []Cell, axis int) (Cell, bool, error) {
	if err := s.Ensure(ctx, inc, s.cfg.MinRuns); err != nil {
		return inc, false, err
	}
	incOK, _ := s.OK(inc)
	alive := cands
	for n := 2; n <= s.cfg.MaxRuns && len(alive) > 0; n++ {
		for _, c := range alive {
			if err := s.Ensure(ctx, c, n); err != nil {
				return inc, false, err
			}
		}
		a := s.Values(inc)
		ma := median(a)
		var next, winners []Cell
		for _, c := range alive {
			if ok, _ := s.OK(c); !ok {
				continue
			}
			b := s.Values(c)
			mb := median(b)
			if !incOK {
				winners = append(winners, c)
				continue
			}
			cmp := stats.Compare(a, b)
			better := s.better(mb, ma)
			switch {
			case cmp.Significant && better && s.clear(a, b):
				winners = append(winners, c)
			case cmp.Significant && !better:
			case !better && n >= 3:
			case n == 2 && s.allWorse(b, ma):
			default:
				next = append(next, c)
			}
		}
		if len(winners) > 0 && !incOK {
			return s.bestOf(winners), true, nil
		}
		if len(winners) > 0 {
			// Each winner must hold its lead over two more runs, each of
			// them better than the incumbent's median (a noisy challenger
			// seldom clears the bar twice); the best of those that do is
			// crowned.
			var held []Cell
			for _, w := range winners {
				had := len(s.Samples(w))
				if err := s.Ensure(ctx, w, had+2); err != nil {
					return inc, false, err
				}
				b := s.Values(w)
				if ok, _ := s.OK(w); !ok {
					continue
				}
				fresh := true // both new runs beat the incumbent's median
				for _, x := range s.Samples(w)[had:] {
					fresh = fresh && s.better(x.Value, ma)
				}
				if cmp := stats.Compare(a, b); fresh && cmp.Significant && s.better(median(b), ma) && s.clear(a, b) {
					held = append(held, w)
				} else if s.better(median(b), ma) && len(b) < s.cfg.MaxRuns+2 {
					next = append(next, w)
				}
			}
			if len(held) > 0 {
				return s.bestOf(held), true, nil
			}
		}
		alive = next
		if n == s.cfg.MaxRuns && axis >= 0 {
			for _, c := range alive {
				r := s.Median(c) / ma
				if !s.cfg.Higher {
					r = 1 / r
				}
				if h, ok := s.hints[axis]; !ok || r > h.ratio {
					s.hints[axis] = hint{c[axis], r}
				}
			}
		}
	}
	return inc, false, nil
}

// clear reports whether the medians of a and b differ by more than twice
// the standard error of their difference, each median's error estimated
// from its sample's range (σ ≈ range/d2(n), SE ≈ 1.2533·σ/√n). A rank
// test alone crowns a noisy challenger whose runs land above a steady
// incumbent's only because they scatter widely.
func (s *Searcher) clear(a, b []float64) bool {
	se := func(v []float64) float64 {
		n := len(v)
		if n < 2 {
			return math.Inf(1)
		}
		lo, hi := v[0], v[0]
		for _, x := range v {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		return 1.2533 * (hi - lo) / d2(n) / math.Sqrt(float64(n))
	}
	ea, eb := se(a), se(b)
	return math.Abs(median(b)-median(a)) > 2*math.Sqrt(ea*ea+eb*eb)
}

// d2 is the expected range of n standard normal values (the control
// chart constant), which turns a small sample's range into σ.
func d2(n int) float64 {
	t := []float64{0, 0, 1.128, 1.693, 2.059, 2.326, 2.534, 2.704, 2.847, 2.970, 3.078}
	if n < len(t) {
		return t[n]
	}
	return 3.078 + 0.2*math.Log(float64(n)/10) // slow growth past 10
}

// bestOf is the cell of cs with the best median (the first among equals).
func (s *Searcher) bestOf(cs []Cell) Cell {
	best := cs[0]
	for _, c := range cs[1:] {
		if s.better(s.Median(c), s.Median(best)) {
			best = c
		}
	}
	return best
}

// allWorse reports whether every value of v is worse than m.
func (s *Searcher) allWorse(v []float64, m float64) bool {
	for _, x := range v {
		if !s.better(m, x) {
			return false
		}
	}
	return true
}

// nearestEligible is the eligible cell that differs from c on the fewest
// axes (the first in the space's order among equals), or nil.
func (s *Searcher) nearestEligible(c Cell) Cell {
	var best Cell
	bd := -1
	for _, x := range s.sp.EligibleCells() {
		d := 0
		for i := range x {
			if x[i] != c[i] {
				d++
			}
		}
		if bd < 0 || d < bd {
			best, bd = x, d
		}
	}
	return best
}

// Ranked lists the cells that may be recommended and have at least two
// runs, best median first.
func (s *Searcher) Ranked() []Cell {
	var out []Cell
	keys := make([]string, 0, len(s.cells))
	for k := range s.cells {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		c := s.cells[k]
		if ok, _ := s.OK(c); ok && len(s.Values(c)) >= 2 {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return s.better(s.Median(out[i]), s.Median(out[j])) })
	return out
}

// Close lists the ranked cells other than best that are neither
// significantly worse nor significantly better than it (Mann-Whitney),
// at most n.
func (s *Searcher) Close(best Cell, n int) []Cell {
	var out []Cell
	a := s.Values(best)
	for _, c := range s.Ranked() {
		if s.sp.Key(c) == s.sp.Key(best) {
			continue
		}
		b := s.Values(c)
		if cmp := stats.Compare(a, b); cmp.Significant {
			continue
		}
		out = append(out, c)
		if len(out) == n {
			break
		}
	}
	return out
}

// Measured lists every cell run so far, in key order.
func (s *Searcher) Measured() []Cell {
	keys := make([]string, 0, len(s.cells))
	for k := range s.cells {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]Cell, len(keys))
	for i, k := range keys {
		out[i] = s.cells[k]
	}
	return out
}
