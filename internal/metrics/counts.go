package metrics

import (
	"math/bits"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// counts is the counts array of an HdrHistogram of values from lowest (1)
// to highest, laid out as the library lays it out, so that recording a
// value is an index computation and an increment: no call, no error, no
// total to keep (the library's RecordValue costs some sixty instructions,
// twice per operation of a live recorder). histogram turns it into the
// library's histogram, identical to one the same values were recorded
// into (TestCountsLayout).
type counts []int64

// Sub-bucket half-count magnitudes (log2 of half the sub-buckets per
// bucket) of the two precisions: unit resolution up to 2×10^figures.
const (
	runMag = 10 // 3 significant figures (sigfigs)
	ivMag  = 7  // 2 (ivSigfigs)
)

// Lengths of the counts arrays, the library's.
var (
	runLen = len(NewHistogram().Export().Counts)
	ivLen  = len(NewIntervalHistogram().Export().Counts)
)

func newCounts(n int) counts { return make(counts, n) }

// index is the library's countsIndexFor for a histogram whose lowest
// value is 1 (unit magnitude 0) and whose sub-bucket half count is
// 1<<mag: the bucket is how many powers of two v is past the first
// bucket's range, and within it v keeps its top mag+1 bits.
func index(v int64, mag uint) int {
	b := bits.Len64(uint64(v)|(1<<(mag+1)-1)) - int(mag+1)
	return b<<mag + int(v>>uint(b))
}

// runIndex and ivIndex are index at the precisions of the run's
// histograms and of the intervals'. v is in [lowest, highest].
func runIndex(v int64) int { return index(v, runMag) }
func ivIndex(v int64) int  { return index(v, ivMag) }

func (c counts) add(i int) { c[i]++ }

// sum adds o's counts to c's.
func (c counts) sum(o counts) {
	for i, n := range o {
		c[i] += n
	}
}

// move adds o's counts to c's and empties o.
func (c counts) move(o counts) {
	for i, n := range o {
		if n != 0 {
			c[i] += n
			o[i] = 0
		}
	}
}

// histogram is c as the library's histogram of figures significant
// figures (n counts); an empty one when c is nil.
func (c counts) histogram(figures int64, n int) *hdr.Histogram {
	if c == nil {
		return hdr.New(lowest, highest, int(figures))
	}
	return hdr.Import(&hdr.Snapshot{LowestTrackableValue: lowest, HighestTrackableValue: highest,
		SignificantFigures: figures, Counts: c[:n]})
}
