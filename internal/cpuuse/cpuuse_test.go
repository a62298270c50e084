package cpuuse

import (
	"context"
	"os"
	"runtime/pprof"
	"sync"
	"testing"
	"time"
)

// spin burns CPU for n rounds of arithmetic.
func spin(n int) uint64 {
	x := uint64(1)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

var sink uint64

// Goroutines labelled with a side are sampled on it, in proportion to the
// work they do; unlabelled ones count for no side.
func TestSidesShares(t *testing.T) {
	m := Start(true)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, w := range []struct {
		side string
		n    int
	}{{"a", 240e6}, {"b", 60e6}, {"", 60e6}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if w.side != "" {
				pprof.SetGoroutineLabels(Label(context.Background(), w.side))
			}
			x := spin(w.n)
			mu.Lock()
			sink += x
			mu.Unlock()
		}()
	}
	wg.Wait()
	u := m.Stop()
	if u.SampleErr != nil {
		t.Fatal(u.SampleErr)
	}
	if u.CPU <= 0 || u.Wall <= 0 || u.Cores() <= 0 {
		t.Fatalf("CPU %v over %v", u.CPU, u.Wall)
	}
	if _, ok := u.Shares[""]; ok || u.Samples == 0 {
		t.Fatalf("shares %v over %d samples: want sides a and b only", u.Shares, u.Samples)
	}
	if a, b := u.Shares["a"], u.Shares["b"]; a <= b || a+b < 0.999 {
		t.Errorf("shares a %.2f, b %.2f: want a (4x b's work) larger, summing to 1", a, b)
	}
	if c, ok := u.SideCores("a"); !ok || c <= 0 || c > u.Cores() {
		t.Errorf("SideCores(a) = %v, %v of %v", c, ok, u.Cores())
	}
}

// Without sides only the process's CPU is measured; a profiler already
// running is reported, not fought over.
func TestProcessOnlyAndBusyProfiler(t *testing.T) {
	u := Start(false).Stop()
	if u.Shares != nil || u.SampleErr != nil {
		t.Errorf("no sides asked: %v, %v", u.Shares, u.SampleErr)
	}
	if _, ok := u.SideCores("client"); ok {
		t.Error("SideCores without sampling")
	}
	m := Start(true)
	u = Start(true).Stop()
	m.Stop()
	if u.SampleErr == nil || u.Shares != nil {
		t.Errorf("second profiler: %v, %v; want an error", u.Shares, u.SampleErr)
	}
}

// Of reads a process's CPU from /proc: this process's own, after some
// work, within a tick or two of getrusage's; a process that is not there
// gives false.
func TestOf(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	sink += spin(100e6)
	before := Process()
	got, ok := Of(os.Getpid())
	after := Process()
	if !ok {
		t.Fatal("Of(own pid): not read")
	}
	if got < before-20*time.Millisecond || got > after+20*time.Millisecond {
		t.Errorf("Of(own pid) = %v, getrusage %v..%v", got, before, after)
	}
	if before < 10*time.Millisecond {
		t.Errorf("getrusage %v after 100M rounds of arithmetic: the check above proves nothing", before)
	}
	if _, ok := Of(1 << 30); ok {
		t.Error("Of(no such pid): read")
	}
}
