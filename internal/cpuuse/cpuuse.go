// Package cpuuse measures how much CPU the process uses over an interval
// and, when asked, how it divides between sides of the process (a load
// generator and the server it loads).
//
// The process's CPU is exact: user plus system time from getrusage. The
// division is sampled: goroutines carry a profiler label naming their
// side (goroutines they start inherit it), and Go's CPU profiler samples
// every thread 100 times per CPU-second; a side's share is its samples
// over the samples of all sides. Runtime work that belongs to no
// goroutine (the scheduler, the garbage collector's background workers)
// and goroutines without a side are left out of the shares, which
// therefore divide that overhead in proportion to the sides' own work.
package cpuuse

import (
	"bytes"
	"context"
	"errors"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/google/pprof/profile"
)

// Key is the profiler label that names a goroutine's side.
const Key = "litebench-side"

// Label returns ctx with the side label; pprof.SetGoroutineLabels with it
// puts the calling goroutine (and those it starts later) on that side.
func Label(ctx context.Context, side string) context.Context {
	return pprof.WithLabels(ctx, pprof.Labels(Key, side))
}

// Process is the CPU time (user + system) the process has used so far.
func Process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Of is the CPU time (user + system) process pid has used so far, as
// /proc/PID/stat gives it (in clock ticks of 10 ms); false where it
// cannot be read (another system, a process gone).
func Of(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name, in parentheses, may hold spaces: the fields
	// counted are those after it, from the state (field 3) on.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * (time.Second / userHZ), true
}

// userHZ is the unit of /proc's CPU times: USER_HZ, 100 on Linux
// whatever the kernel's own tick.
const userHZ = 100

// Use is what a Meter measured.
type Use struct {
	Wall, CPU time.Duration
	// Shares is each side's fraction of the sampled CPU of all sides
	// (nil when not sampled); Samples is how many samples they had.
	Shares  map[string]float64
	Samples int64
	// SampleErr says why the sides were not sampled, if they were asked
	// for and were not.
	SampleErr error
}

// Cores is how many cores' worth the process used: CPU over wall time.
func (u Use) Cores() float64 {
	if u.Wall <= 0 {
		return 0
	}
	return u.CPU.Seconds() / u.Wall.Seconds()
}

// SideCores is side's share of Cores, and whether it was sampled.
func (u Use) SideCores(side string) (float64, bool) {
	if u.Shares == nil {
		return 0, false
	}
	return u.Shares[side] * u.Cores(), true
}

// Meter measures from Start to Stop.
type Meter struct {
	wall time.Time
	cpu  time.Duration
	prof *bytes.Buffer
	err  error
}

// Start starts measuring; with sides, it also samples the sides' shares
// (the CPU profiler must be free: only one profile runs at a time).
func Start(sides bool) *Meter {
	m := &Meter{wall: time.Now(), cpu: Process()}
	if sides {
		m.prof = new(bytes.Buffer)
		if err := pprof.StartCPUProfile(m.prof); err != nil {
			m.prof, m.err = nil, errors.New("the CPU profiler is in use elsewhere in the process")
		}
	}
	return m
}

// Stop ends the measurement.
func (m *Meter) Stop() Use {
	u := Use{Wall: time.Since(m.wall), CPU: Process() - m.cpu, SampleErr: m.err}
	if m.prof == nil {
		return u
	}
	pprof.StopCPUProfile()
	p, err := profile.Parse(m.prof)
	if err != nil {
		u.SampleErr = err
		return u
	}
	u.Shares, u.Samples = shares(p)
	return u
}

// shares divides the labelled samples of p by side.
func shares(p *profile.Profile) (map[string]float64, int64) {
	vi := -1
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			vi = i
		}
	}
	by := map[string]int64{}
	var total, n int64
	for _, s := range p.Sample {
		side := s.Label[Key]
		if len(side) == 0 || vi < 0 {
			continue
		}
		by[side[0]] += s.Value[vi]
		total += s.Value[vi]
		n += s.Value[0] // sample count
	}
	out := map[string]float64{}
	for k, v := range by {
		out[k] = float64(v) / float64(total)
	}
	return out, n
}
