package limits

import (
	"os"
	"strings"
	"testing"
)

func TestEstimate(t *testing.T) {
	fds, bytes := Estimate(Demand{})
	if fds != baseFDs || bytes != baseBytes {
		t.Errorf("empty demand: %d fds, %d bytes", fds, bytes)
	}
	// 20,000 stmt-pool handles and 50 loopback clients: three files per
	// connection, both ends of every socket.
	d := Demand{Conns: 20001, Sockets: 100, Files: 0, Histograms: 50, Intervals: 50, Goroutines: 100}
	fds, bytes = Estimate(d)
	if want := baseFDs + 3*20001 + 100; fds != want {
		t.Errorf("fds %d, want %d", fds, want)
	}
	want := int64(baseBytes) + 20001*connBytes + 100*socketBytes + 50*histBytes + 50*intervalBytes + 100*goroutineBytes
	if bytes != want || bytes < 4<<30 {
		t.Errorf("bytes %d, want %d (over 4GB)", bytes, want)
	}
	// An in-memory database opens no files; its connections still cost
	// memory.
	d.InMemory = true
	if f, b := Estimate(d); f != baseFDs+100 || b != bytes {
		t.Errorf("in memory: %d fds, %d bytes", f, b)
	}
	// 1,000 open-loop executors of two op kinds: about half a gigabyte of
	// histograms alone.
	if _, b := Estimate(Demand{Histograms: 4000}); b < 900<<20 {
		t.Errorf("4000 histograms: %d bytes", b)
	}
}

func TestCheckNamesLimitAndFix(t *testing.T) {
	handles := Demand{Flags: "--handles 20000", Conns: 20001}
	err := check(handles, 20000, 20000, 8<<30, "available (MemAvailable)")
	if err == nil {
		t.Fatal("20,000 handles under 20,000 open files accepted")
	}
	for _, w := range []string{"--handles 20000", "60035 open files", "ulimit -n 60035", "hard limit of 20000", "smaller value"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q lacks %q", err, w)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("not one line: %q", err)
	}
	// Under the hard limit the fix is the ulimit alone.
	if err := check(handles, 1024, 1<<20, 8<<30, "x"); err == nil || strings.Contains(err.Error(), "hard limit") {
		t.Errorf("soft limit only: %v", err)
	}
	// Memory: named with its source.
	inflight := Demand{Flags: "--max-inflight 100000", Histograms: 400000}
	err = check(inflight, 1<<20, 1<<20, 1<<30, "allowed by --memory 1GB")
	if err == nil || !strings.Contains(err.Error(), "--max-inflight 100000") || !strings.Contains(err.Error(), "allowed by --memory 1GB") ||
		!strings.Contains(err.Error(), "400000 latency histograms") {
		t.Errorf("memory: %v", err)
	}
	// What fits passes; an unknown amount of memory is not a reason to
	// refuse.
	if err := check(Demand{Flags: "--workers 4", Conns: 4, Histograms: 12}, 1024, 1024, 1<<30, "x"); err != nil {
		t.Errorf("4 workers: %v", err)
	}
	if err := check(inflight, 1<<20, 1<<20, 0, "x"); err != nil {
		t.Errorf("unknown memory: %v", err)
	}
}

func TestMemAvailable(t *testing.T) {
	if n := MemAvailable(); n < 0 || (n == 0 && fileExists("/proc/meminfo")) {
		t.Errorf("MemAvailable %d", n)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
