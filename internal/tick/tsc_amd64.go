package tick

import (
	"math/bits"
	"time"
)

// rdtsc reads the time-stamp counter.
func rdtsc() uint64

// counter scales time-stamp counter readings to nanoseconds since the
// fallback clock's epoch: ns = base + (c - c0) × mult / 2^32.
type counter struct {
	c0   uint64
	mult uint64
	base int64
}

func (k *counter) since() int64 {
	hi, lo := bits.Mul64(rdtsc()-k.c0, k.mult)
	return k.base + int64(hi<<32|lo>>32)
}

// pair reads the counter between two readings of the monotonic clock,
// several times, and returns the narrowest bracket's middle with its
// counter reading.
func pair() (int64, uint64) {
	bestW := int64(-1)
	var t int64
	var c uint64
	for range 7 {
		a := int64(time.Since(epoch))
		x := rdtsc()
		b := int64(time.Since(epoch))
		if w := b - a; bestW < 0 || w < bestW {
			bestW, t, c = w, a+w/2, x
		}
	}
	return t, c
}

func calibrate() {
	if !kernelUsesTSC() {
		return
	}
	t0, c0 := pair()
	time.Sleep(10 * time.Millisecond)
	t1, c1 := pair()
	if c1 <= c0 || t1 <= t0 {
		return
	}
	// Nanoseconds per tick, times 2^32.
	hi, lo := bits.Mul64(uint64(t1-t0), 1<<32)
	mult, _ := bits.Div64(hi, lo, c1-c0)
	tsc.Store(&counter{c0: c0, mult: mult, base: t0})
}
