package target

import (
	"math"
	"testing"
	"time"
)

// The schedule: before retry n, between half and all of Min·2^n, capped
// at Max; the draw picks the point in that range.
func TestBackoffDelay(t *testing.T) {
	b := Backoff{Min: time.Millisecond, Max: 100 * time.Millisecond}
	for _, c := range []struct {
		n      int
		x      uint64
		lo, hi time.Duration
	}{
		{0, 0, 500 * time.Microsecond, 500 * time.Microsecond},
		{0, math.MaxUint64, 999 * time.Microsecond, time.Millisecond},
		{1, 1 << 63, 1500 * time.Microsecond, 1500 * time.Microsecond},
		{3, 0, 4 * time.Millisecond, 4 * time.Millisecond},
		{3, 1 << 62, 5 * time.Millisecond, 5 * time.Millisecond},
		{6, 0, 32 * time.Millisecond, 32 * time.Millisecond},
		{7, 0, 50 * time.Millisecond, 50 * time.Millisecond}, // 128ms capped at 100ms
		{7, math.MaxUint64, 99 * time.Millisecond, 100 * time.Millisecond},
		{70, 0, 50 * time.Millisecond, 50 * time.Millisecond}, // no overflow
		{1 << 20, 1 << 63, 75 * time.Millisecond, 75 * time.Millisecond},
	} {
		if d := b.Delay(c.n, c.x); d < c.lo || d > c.hi {
			t.Errorf("Delay(%d, %#x) = %s, want %s..%s", c.n, c.x, d, c.lo, c.hi)
		}
	}
	if d := (Backoff{}).Delay(5, 1<<63); d != 0 {
		t.Errorf("the zero Backoff waits %s, want 0 (the spin)", d)
	}
}
