package workload

import (
	"context"
	"strings"
	"time"
)

// chunkRows is how many rows a generator prepares at a time.
const chunkRows = 1024

type chunk struct {
	start int64
	n     int
	args  []any
	arena Arena
}

// Source hands out the bound arguments for ranges of rows. Sequential
// ranges come from a goroutine that generates ahead (so data generation
// overlaps the inserts on another core); any other range, such as a retried
// transaction, is generated inline. Buffers are recycled: memory stays flat
// however many rows a run inserts.
type Source struct {
	inline  bool
	gen     time.Duration
	genRows int64 // rows an inline source has generated
	schema  *Schema
	seed    uint64
	ncols   int
	end     int64
	ch      chan *chunk
	free    chan *chunk
	cur     *chunk
	scratch []any
	cancel  context.CancelFunc
}

// NewSource streams rows [from, to) of schema.
func NewSource(ctx context.Context, s *Schema, seed uint64, from, to int64) *Source {
	ctx, cancel := context.WithCancel(ctx)
	src := &Source{
		schema: s, seed: seed, ncols: len(s.Columns), end: to,
		ch: make(chan *chunk, 4), free: make(chan *chunk, 6), cancel: cancel,
	}
	for k := 0; k < 6; k++ {
		src.free <- &chunk{args: make([]any, chunkRows*src.ncols)}
	}
	go src.generate(ctx, from, to)
	return src
}

func (s *Source) generate(ctx context.Context, from, to int64) {
	defer close(s.ch)
	for i := from; i < to; {
		var c *chunk
		select {
		case c = <-s.free:
		case <-ctx.Done():
			return
		}
		n := int(min(int64(chunkRows), to-i))
		c.start, c.n = i, n
		c.arena.Reset()
		for r := 0; r < n; r++ {
			s.schema.Row(s.seed, i+int64(r), c.args[r*s.ncols:(r+1)*s.ncols], &c.arena)
		}
		select {
		case s.ch <- c:
		case <-ctx.Done():
			return
		}
		i += int64(n)
	}
}

// NewInlineSource is a Source that generates on the caller's goroutine, a
// chunk at a time when Args first needs it, and adds the time that took to
// Generated. Nothing runs beside the workload: on a small machine a
// generator goroutine competes with the driver for a core (and for the
// cache it shares), which slows the database calls themselves.
func NewInlineSource(s *Schema, seed uint64, from, to int64) *Source {
	return &Source{inline: true, schema: s, seed: seed, ncols: len(s.Columns), end: to, cancel: func() {}}
}

// Generated is how long an inline source has spent generating rows.
func (s *Source) Generated() time.Duration { return s.gen }

// fill generates rows [i, i+rows) into the current chunk.
func (s *Source) fill(i int64, rows int) {
	t := time.Now()
	c := s.cur
	if c == nil {
		c = &chunk{}
		s.cur = c
	}
	if cap(c.args) < rows*s.ncols {
		c.args = make([]any, rows*s.ncols)
	}
	c.args = c.args[:rows*s.ncols]
	c.start, c.n = i, rows
	c.arena.Reset()
	for r := 0; r < rows; r++ {
		s.schema.Row(s.seed, i+int64(r), c.args[r*s.ncols:(r+1)*s.ncols], &c.arena)
	}
	s.gen += time.Since(t)
	s.genRows += int64(rows)
}

// holds says whether c (nil: no chunk) holds rows [i, i+n).
func (c *chunk) holds(i int64, n int) bool {
	return c != nil && i >= c.start && i+int64(n) <= c.start+int64(c.n)
}

// Close stops the generator.
func (s *Source) Close() { s.cancel() }

func (s *Source) next() *chunk {
	if s.cur != nil {
		s.free <- s.cur
		s.cur = nil
	}
	c, ok := <-s.ch
	if !ok {
		return nil
	}
	s.cur = c
	return c
}

// Ready makes rows [i, i+n) of an inline source ready, so that Args for
// any part of them generates nothing: a caller times its statements after
// Ready, and the generation stays out of their latencies as it stays out
// of the run's time. A pipelined source is left alone.
func (s *Source) Ready(i int64, n int) {
	if !s.inline {
		return
	}
	if !s.cur.holds(i, n) {
		// Whole transactions' worth, about a chunk: the next
		// transactions' rows start where this chunk ends, and none is
		// generated twice.
		s.fill(i, int(min(int64(n*max(1, chunkRows/n)), max(int64(n), s.end-i))))
	}
}

// Args returns the arguments of rows [i, i+n). The slice is valid until the
// next call.
func (s *Source) Args(i int64, n int) []any {
	// The common case first: rows of the current chunk.
	if c := s.cur; c.holds(i, n) {
		off := int(i-c.start) * s.ncols
		return c.args[off : off+n*s.ncols]
	}
	return s.args(i, n)
}

func (s *Source) args(i int64, n int) []any {
	w := s.ncols
	if s.inline {
		if !s.cur.holds(i, n) {
			s.fill(i, max(n, int(min(int64(chunkRows), s.end-i))))
		}
		off := int(i-s.cur.start) * w
		return s.cur.args[off : off+n*w]
	}
	// Sequential access: move the pipeline forward to the chunk holding i.
	for s.cur == nil || i >= s.cur.start+int64(s.cur.n) {
		if s.next() == nil {
			break
		}
	}
	c := s.cur
	if c.holds(i, n) {
		off := int(i-c.start) * w
		return c.args[off : off+n*w]
	}
	if cap(s.scratch) < n*w {
		s.scratch = make([]any, n*w)
	}
	buf := s.scratch[:n*w]
	k := 0
	// Straddling chunks: copy the tail of this one and the head of the next.
	for c != nil && k < n && i+int64(k) >= c.start {
		lo := i + int64(k)
		if lo >= c.start+int64(c.n) {
			c = s.next()
			continue
		}
		take := int(min(int64(n-k), c.start+int64(c.n)-lo))
		off := int(lo-c.start) * w
		// The chunk goes back to the generator (and its arena is reused)
		// before this call returns, so its strings are copied out.
		for j, v := range c.args[off : off+take*w] {
			if str, ok := v.(string); ok {
				v = strings.Clone(str)
			}
			buf[k*w+j] = v
		}
		k += take
	}
	// Out of order (a retry) or past the stream: generate inline.
	for ; k < n; k++ {
		s.schema.Row(s.seed, i+int64(k), buf[k*w:(k+1)*w], nil)
	}
	return buf
}
