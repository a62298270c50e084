// Package loadgen drives operations against a target: closed loop (a fixed
// set of workers, each starting its next operation when the last one ends)
// or open loop (operations scheduled at a rate whatever the target does, as
// wrk2, vegeta and pgbench -R do). It knows nothing about SQLite: a
// workload hands it an Executor per worker.
package loadgen

import (
	"fmt"
	"time"

	"github.com/litebench/litebench/internal/gen"
)

// Arrivals is how open-loop operations are spaced.
type Arrivals string

const (
	// Uniform spaces operations exactly 1/rate apart.
	Uniform Arrivals = "uniform"
	// Poisson draws exponential gaps with mean 1/rate (a Poisson process),
	// which is how independent users arrive.
	Poisson Arrivals = "poisson"
)

// ParseArrivals validates an --arrivals value.
func ParseArrivals(s string) (Arrivals, error) {
	switch Arrivals(s) {
	case Uniform, Poisson:
		return Arrivals(s), nil
	}
	return "", fmt.Errorf("--arrivals %q: want uniform or poisson", s)
}

// Gap is the time between two scheduled operations at rate per second.
// u is a uniform random number in [0, 1), used only by Poisson arrivals;
// passing it in keeps the pacer a pure function.
func Gap(a Arrivals, rate float64, u float64) time.Duration {
	if a == Poisson {
		return time.Duration(gen.PoissonGap(rate, u))
	}
	return time.Duration(float64(time.Second) / rate)
}

// Schedule returns the scheduled offset (from the start of the run) of
// operation seq, given the offset of operation seq-1. Uniform arrivals do
// not accumulate rounding: operation n is due at exactly n/rate.
func Schedule(a Arrivals, rate float64, seq int64, prev time.Duration, u float64) time.Duration {
	if seq == 0 {
		return 0
	}
	if a == Uniform {
		return time.Duration(float64(seq) * float64(time.Second) / rate)
	}
	return prev + Gap(a, rate, u)
}

// Action is what the dispatcher does next while waiting for an operation.
type Action int

const (
	// Issue the operation now.
	Issue Action = iota
	// Park on a runtime timer: cheap, but may wake a millisecond late, so
	// it is only used far from the due time and stops TimerGuard short.
	Park
	// Sleep the dispatcher's thread: accurate to tens of microseconds.
	Sleep
	// Spin: yield and look again; only in the last SpinWindow.
	Spin
)

// Thresholds of Wait.
const (
	TimerGuard = 2 * time.Millisecond
	SpinWindow = 150 * time.Microsecond
)

// Wait says what the dispatcher should do at offset now for an operation
// due at due, and for how long (Park, Sleep); lag is how late issuing now
// is. Spinning costs a core only while operations are due less than
// SpinWindow apart, that is above ~7,000 operations per second.
func Wait(now, due time.Duration) (a Action, d, lag time.Duration) {
	rem := due - now
	switch {
	case rem <= 0:
		return Issue, 0, -rem
	case rem > TimerGuard+SpinWindow+time.Millisecond:
		return Park, rem - TimerGuard, 0
	case rem > SpinWindow:
		return Sleep, rem - SpinWindow, 0
	}
	return Spin, 0, 0
}
