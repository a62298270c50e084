package server

import (
	"runtime"
	"sync"
)

// A blocking connection's read waits in the kernel on the thread that
// makes it, holding that thread's P (Go's right to run Go code). With
// GOMAXPROCS at the machine's CPU count and more connections than that
// waiting at once, every other worker's goroutine waits for a P until the
// runtime's monitor notices a blocked one (after 20 µs or more) and hands
// its P to another thread: a futex hand-off and a wake-up per statement,
// and the monitor itself waking tens of thousands of times a second. A C
// client's threads (pgbench's, say) have no such step. So while blocking
// connections are open, GOMAXPROCS is raised by one per connection (the
// most open at once): each can wait in its thread with a P of its own,
// and the CPUs still run as many goroutines as before. It returns to what
// it was when the last one closes.
//
// Raising it does not let litebench use more CPUs: a P held by a thread
// asleep in read runs nothing, and --cpus still confines the threads by
// affinity.
var threads struct {
	mu     sync.Mutex
	open   int // blocking connections open now
	raised int // the most open at once since open was last 0
	base   int // GOMAXPROCS before the first was opened
}

// maxRaise bounds the raise: past a few hundred connections most of
// them wait at any moment, and every P costs memory and, during a
// garbage collection, a share of dedicated mark workers (a quarter of
// GOMAXPROCS).
const maxRaise = 256

// holdThread notes one more blocking connection, raising GOMAXPROCS when
// more are open at once than ever since none were.
func holdThread() {
	t := &threads
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.open == 0 {
		t.base = runtime.GOMAXPROCS(0)
	}
	t.open++
	if t.open > t.raised && t.raised < maxRaise {
		t.raised = t.open
		runtime.GOMAXPROCS(t.base + t.raised)
	}
}

// releaseThread notes a blocking connection closed; GOMAXPROCS returns to
// its base once none is open.
func releaseThread() {
	t := &threads
	t.mu.Lock()
	defer t.mu.Unlock()
	t.open--
	if t.open == 0 {
		t.raised = 0
		runtime.GOMAXPROCS(t.base)
	}
}
