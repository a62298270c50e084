package tick

import (
	"runtime"
	"testing"
	"time"
)

// Where the kernel keeps time by the counter, Since reads it once
// calibrated; its durations agree with the monotonic clock's to a part in
// ten thousand, and its readings never go back.
func TestSinceAgreesWithMonotonicClock(t *testing.T) {
	Calibrate()
	if runtime.GOARCH == "amd64" && kernelUsesTSC() && !Counter() {
		t.Fatal("the kernel's clocksource is the counter, but Since does not read it")
	}
	t.Logf("counter: %v", Counter())
	// The two clocks read back to back at both ends of 50 ms; a try
	// whose reads a preemption separated is tried again.
	var worst float64
	for try := range 5 {
		a0, b0 := Since(), int64(time.Since(epoch))
		time.Sleep(50 * time.Millisecond)
		a1, b1 := Since(), int64(time.Since(epoch))
		d := float64((a1-a0)-(b1-b0)) / float64(b1-b0)
		if d < 0 {
			d = -d
		}
		if d < 1e-4 {
			break
		}
		worst = d
		if try == 4 {
			t.Fatalf("durations differ by %.2g of 50 ms", worst)
		}
	}
	last := Since()
	for range 100000 {
		now := Since()
		if now < last {
			t.Fatalf("Since went back: %d after %d", now, last)
		}
		last = now
	}
}

func BenchmarkSince(b *testing.B) {
	Calibrate()
	var s int64
	for b.Loop() {
		s += Since()
	}
	_ = s
}

// The clock Since replaces, for comparison.
func BenchmarkTimeSince(b *testing.B) {
	var s time.Duration
	for b.Loop() {
		s += time.Since(epoch)
	}
	_ = s
}
