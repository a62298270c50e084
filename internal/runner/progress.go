package runner

import (
	"fmt"
	"strings"
	"time"

	"github.com/litebench/litebench/internal/units"
)

// progress is what a progress line says, in the spirit of pgbench -P:
// where the run is, and what happened over the last interval (rate, p99 of
// each op kind, errors), with the time left.
type progress struct {
	Label string
	Unit  string // what Done counts: row or op
	// Done of Total (0: no set count) after Elapsed.
	Done, Total int64
	Elapsed     time.Duration
	// Span is the last interval's length, SpanDone what it did.
	Span     time.Duration
	SpanDone int64
	Errors   int64
	P99      []opP99
	// Duration is the measured part's set length (0: none).
	Duration time.Duration
	WAL      int64
}

type opP99 struct {
	Op  string
	P99 time.Duration
}

// line renders p: "[1/2] insert  845999/10000000 (8.46%) 2.0s: 422983
// rows/s, p99 insert 4µs commit 1.2ms, 0 errors (last 2.0s); ETA 21s".
func (p progress) line() string {
	var b strings.Builder
	if p.Label != "" {
		b.WriteString(p.Label)
		b.WriteString("  ")
	}
	if p.Total > 0 {
		fmt.Fprintf(&b, "%d/%d %ss (%.2f%%)", p.Done, p.Total, p.Unit, 100*float64(p.Done)/float64(p.Total))
	} else {
		fmt.Fprintf(&b, "%d %ss", p.Done, p.Unit)
	}
	fmt.Fprintf(&b, " %.1fs", p.Elapsed.Seconds())
	if p.Span > 0 {
		rate := float64(p.SpanDone) / p.Span.Seconds()
		fmt.Fprintf(&b, ": %.0f %ss/s", rate, p.Unit)
		if len(p.P99) > 0 {
			b.WriteString(", p99")
			for _, o := range p.P99 {
				fmt.Fprintf(&b, " %s %s", o.Op, roundLatency(o.P99))
			}
		}
		fmt.Fprintf(&b, ", %d errors (last %.1fs)", p.Errors, p.Span.Seconds())
	}
	if eta, ok := p.eta(); ok {
		fmt.Fprintf(&b, "; ETA %s", eta)
	}
	if p.WAL > 0 {
		b.WriteString("; WAL " + units.Bytes(p.WAL))
	}
	return b.String()
}

// eta is the time left: the rest of a set count at the last interval's
// rate, or the rest of a set duration.
func (p progress) eta() (time.Duration, bool) {
	switch {
	case p.Total > 0 && p.SpanDone > 0 && p.Span > 0:
		left := float64(p.Total-p.Done) / (float64(p.SpanDone) / p.Span.Seconds())
		return (time.Duration(left * float64(time.Second))).Round(time.Second), true
	case p.Total == 0 && p.Duration > 0:
		return max(p.Duration-p.Elapsed, 0).Round(time.Second), true
	}
	return 0, false
}

// roundLatency keeps three significant digits: 4µs, 312µs, 1.24ms.
func roundLatency(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= 100*time.Millisecond:
		return d.Round(time.Millisecond)
	case d >= 10*time.Millisecond:
		return d.Round(100 * time.Microsecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	case d >= 100*time.Microsecond:
		return d.Round(time.Microsecond)
	}
	return d.Round(100 * time.Nanosecond)
}
