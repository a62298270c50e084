package workload

import "context"

// chunkRows is how many rows a generator prepares at a time.
const chunkRows = 1024

type chunk struct {
	start int64
	n     int
	args  []any
}

// Source hands out the bound arguments for ranges of rows. Sequential
// ranges come from a goroutine that generates ahead (so data generation
// overlaps the inserts on another core); any other range, such as a retried
// transaction, is generated inline. Buffers are recycled: memory stays flat
// however many rows a run inserts.
type Source struct {
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
		for r := 0; r < n; r++ {
			s.schema.Row(s.seed, i+int64(r), c.args[r*s.ncols:(r+1)*s.ncols])
		}
		select {
		case s.ch <- c:
		case <-ctx.Done():
			return
		}
		i += int64(n)
	}
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

// Args returns the arguments of rows [i, i+n). The slice is valid until the
// next call.
func (s *Source) Args(i int64, n int) []any {
	w := s.ncols
	// Sequential access: move the pipeline forward to the chunk holding i.
	for s.cur == nil || i >= s.cur.start+int64(s.cur.n) {
		if s.next() == nil {
			break
		}
	}
	c := s.cur
	if c != nil && i >= c.start && i+int64(n) <= c.start+int64(c.n) {
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
		copy(buf[k*w:], c.args[off:off+take*w])
		k += take
	}
	// Out of order (a retry) or past the stream: generate inline.
	for ; k < n; k++ {
		s.schema.Row(s.seed, i+int64(k), buf[k*w:(k+1)*w])
	}
	return buf
}
