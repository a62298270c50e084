package target

import (
	"context"
	"time"

	"github.com/litebench/litebench/internal/gen"
)

// StreamBackoff is the generator stream of --busy-retry backoff's jitter.
const StreamBackoff = 0x626b6f66 // "bkof"

// Backoff is --busy-retry backoff's schedule: before retry n (0 for the
// first) it waits between half and all of Min·2^n, capped at Max, the
// fraction drawn from splitmix64 (never the clock). The zero Backoff
// retries at once: the tight spin of --busy-retry until.
type Backoff struct {
	Min, Max time.Duration
}

// Delay is the wait before retry n with draw x (a 64-bit random value):
// c = min(Max, Min·2^n), then c/2 + (x's fraction of c/2).
func (b Backoff) Delay(n int, x uint64) time.Duration {
	if b.Min <= 0 {
		return 0
	}
	c := b.Max
	if n < 62 && b.Min <= b.Max>>uint(n) {
		c = b.Min << uint(n)
	}
	half := c / 2
	return c - half + time.Duration(gen.Unit(x)*float64(half))
}

// wait sleeps before retry n of the session's backoff; false when ctx
// ends first.
func (s *Session) wait(ctx context.Context, n int) bool {
	if s.p.Backoff.Min <= 0 {
		return true
	}
	d := s.p.Backoff.Delay(n, gen.Draw(0, StreamBackoff, s.draws.Add(1)))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Retry reports whether work that failed with err after retries retries
// is tried again under the busy-retry policy, after --busy-retry
// backoff's wait (false when ctx ends during it).
func (s *Session) Retry(ctx context.Context, err error, retries int) bool {
	return s.Again(err, retries) && s.wait(ctx, retries)
}
