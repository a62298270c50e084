package workload

import (
	"unsafe"

	"github.com/litebench/litebench/internal/target"
)

// Arena hands out row values carved from large blocks, so a chunk of
// generated rows costs a few allocations instead of several per row (string
// bytes, and the boxes an interface needs for a string or an int64). The
// values stay valid until Reset; the Source resets a chunk's arena only
// after the chunk's rows have been inserted (drivers copy what they bind). A
// nil *Arena allocates every value normally.
type Arena struct {
	bytes    blocks[byte]
	reserved int
	strs     blocks[string]
	ints     blocks[int64]
}

// blocks is a bump allocator over fixed blocks: a block is never
// reallocated, so pointers into it stay valid until reset.
type blocks[T any] struct {
	all [][]T
	cur []T
}

func (b *blocks[T]) take(n, size int) []T {
	s := b.reserve(n, size)[:n]
	b.cur = b.cur[:len(b.cur)+n]
	return s
}

// reserve returns room for n values in the current block without taking
// it: an empty slice of capacity n.
func (b *blocks[T]) reserve(n, size int) []T {
	if cap(b.cur)-len(b.cur) < n {
		b.cur = make([]T, 0, max(size, n))
		b.all = append(b.all, b.cur)
	}
	return b.cur[len(b.cur) : len(b.cur) : len(b.cur)+n]
}

func (b *blocks[T]) reset() {
	switch len(b.all) {
	case 0:
		return
	case 1:
		b.cur = b.all[0][:0]
		return
	}
	// Several blocks were needed: next time start with one that holds them
	// all, so a steady workload stops allocating after its first chunk.
	total := 0
	for _, x := range b.all {
		total += cap(x)
	}
	clear(b.all)
	b.cur = make([]T, 0, total)
	b.all = append(b.all[:0], b.cur)
}

// Reserve returns an empty slice with room for n bytes, to append to and
// then pass to Commit; slices of it go to Str.
func (a *Arena) Reserve(n int) []byte {
	if a == nil {
		return make([]byte, 0, n)
	}
	a.reserved = n
	return a.bytes.reserve(n, 64<<10)
}

// Commit takes the bytes b (from Reserve, appended to) holds. If b outgrew
// the reservation (append moved it), the whole reservation stays taken, as
// values before the move still point into it.
func (a *Arena) Commit(b []byte) {
	if a == nil {
		return
	}
	n := a.reserved
	if cap(b) == n {
		n = len(b)
	}
	a.bytes.take(n, 64<<10)
}

// Buf returns an empty slice with room for n bytes, taken from the arena:
// append to it, then pass it to Str. Appending past n moves it to the heap
// (correct, not free).
func (a *Arena) Buf(n int) []byte {
	b := a.Reserve(n)
	a.Commit(b[:n])
	return b[:0:n]
}

// Str returns b (from Reserve or Buf) as a string in an interface, without copying
// the bytes or allocating the string's box.
func (a *Arena) Str(b []byte) any {
	if a == nil {
		return string(b)
	}
	p := &a.strs.take(1, 4096)[0]
	*p = unsafe.String(unsafe.SliceData(b), len(b))
	return target.BoxString(p)
}

// Int returns v in an interface without allocating its box.
func (a *Arena) Int(v int64) any {
	if a == nil {
		return v
	}
	p := &a.ints.take(1, 2048)[0]
	*p = v
	return target.BoxInt64(p)
}

// Reset makes the arena's space reusable; values handed out before must no
// longer be in use.
func (a *Arena) Reset() {
	a.bytes.reset()
	a.strs.reset()
	a.ints.reset()
}
