package limits

import (
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
)

// Demand is what a run holds at once. It decides the file descriptors and
// the memory the run needs, which are checked before anything starts.
type Demand struct {
	// Flags names the flags that set the demand, for messages
	// ("--handles 20000").
	Flags string
	// Conns is SQLite connections open at once.
	Conns int
	// InMemory connections open no files.
	InMemory bool
	// Sockets is TCP sockets open at once (both ends of a loopback
	// connection count).
	Sockets int
	// Files is other files open at once (the HTTP control's page).
	Files int
	// Histograms is full-resolution latency histograms (1 ns to 10 min, 3
	// significant figures); Intervals the coarse ones of time series and
	// scheduling lag.
	Histograms, Intervals int
	// Goroutines is goroutines beside the runtime's own.
	Goroutines int
	// Bytes is any other memory the workload holds (buffers).
	Bytes int64
}

// Unit costs. A SQLite connection opens the database, its -wal and its
// -shm (some drivers share one -shm per process; three is the bound);
// measured at 90-330 KB of memory each depending on the driver, before
// its page cache fills. A histogram is 254 KB, an interval histogram
// 35 KB (metrics.NewHistogram, NewIntervalHistogram).
const (
	fdsPerConn     = 3
	baseFDs        = 32 // stdio, the store and its -wal/-shm, epoll, pipes
	connBytes      = 256 << 10
	socketBytes    = 16 << 10 // bufio readers and writers of both ends
	histBytes      = 254 << 10
	intervalBytes  = 35 << 10
	goroutineBytes = 8 << 10
	baseBytes      = 24 << 20 // the runtime, the drivers, the store (20MB measured)
)

// Estimate returns how many file descriptors and bytes of memory d needs.
func Estimate(d Demand) (fds int, bytes int64) {
	fds = baseFDs + d.Sockets + d.Files
	if !d.InMemory {
		fds += fdsPerConn * d.Conns
	}
	bytes = baseBytes + d.Bytes +
		int64(d.Conns)*connBytes + int64(d.Sockets)*socketBytes +
		int64(d.Histograms)*histBytes + int64(d.Intervals)*intervalBytes +
		int64(d.Goroutines)*goroutineBytes
	return fds, bytes
}

// Check compares d's estimate with the process's open-file limit
// (RLIMIT_NOFILE) and with the memory available: MemAvailable from
// /proc/meminfo, or memLimit (--memory) when it is set and smaller. It
// returns a one-line error naming the limit and the fix.
func Check(d Demand, memLimit int64) error {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
		return nil // nothing to compare with
	}
	avail, source := MemAvailable(), "available (MemAvailable)"
	if memLimit > 0 && (avail <= 0 || memLimit < avail) {
		avail, source = memLimit, "allowed by --memory "+sizeText(memLimit)
	}
	return check(d, rl.Cur, rl.Max, avail, source)
}

func check(d Demand, nofile, hardNofile uint64, avail int64, source string) error {
	fds, bytes := Estimate(d)
	if uint64(fds) > nofile {
		fix := fmt.Sprintf("raise the limit with 'ulimit -n %d'", fds)
		if uint64(fds) > hardNofile {
			fix = fmt.Sprintf("raise the limit with 'ulimit -n %d' (past the hard limit of %d, which takes root)", fds, hardNofile)
		}
		return fmt.Errorf("%s needs about %d open files (%s) but this process may open %d (ulimit -n); %s or use a smaller value",
			d.Flags, fds, fdParts(d), nofile, fix)
	}
	if avail > 0 && bytes > avail {
		return fmt.Errorf("%s needs about %s of memory (%s) but %s is %s; use a smaller value",
			d.Flags, sizeText(bytes), memParts(d), sizeText(avail), source)
	}
	return nil
}

func fdParts(d Demand) string {
	var p []string
	if d.Conns > 0 && !d.InMemory {
		p = append(p, fmt.Sprintf("%d SQLite connections × %d files", d.Conns, fdsPerConn))
	}
	if d.Sockets > 0 {
		p = append(p, fmt.Sprintf("%d sockets", d.Sockets))
	}
	if d.Files > 0 {
		p = append(p, fmt.Sprintf("%d page files", d.Files))
	}
	return strings.Join(append(p, fmt.Sprintf("%d for litebench", baseFDs)), " + ")
}

func memParts(d Demand) string {
	var p []string
	if d.Histograms > 0 {
		p = append(p, fmt.Sprintf("%d latency histograms of %s", d.Histograms, sizeText(histBytes)))
	}
	if d.Conns > 0 {
		p = append(p, fmt.Sprintf("%d connections of about %s", d.Conns, sizeText(connBytes)))
	}
	if d.Sockets > 0 {
		p = append(p, fmt.Sprintf("%d sockets", d.Sockets))
	}
	return strings.Join(append(p, sizeText(baseBytes)+" for litebench"), ", ")
}

// MemAvailable returns MemAvailable from /proc/meminfo in bytes, or 0 when
// it cannot be read.
func MemAvailable() int64 { return meminfo("MemAvailable:") }

// sizeText prints n in binary units: 512KiB, 64MiB, 1.5GiB.
func sizeText(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	f, u := float64(n), 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	if f == float64(int64(f)) || f >= 100 {
		return fmt.Sprintf("%.0f%s", f, units[u])
	}
	return fmt.Sprintf("%.1f%s", f, units[u])
}
