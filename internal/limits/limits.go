// Package limits confines a run the way the SQLite Performance Limits benchmark's Docker box did: a CPU
// count (GOMAXPROCS plus CPU affinity) and a memory limit (a cgroup that a
// child process runs in, so that running out of memory ends the child and
// not the process that records the result). It also checks, before a run
// starts, that its connections and histograms fit the open-file limit and
// the memory. Nothing is silently ignored: a limit that cannot be applied
// is an error naming why.
package limits

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Applied describes the limits in force, for the environment fingerprint.
type Applied struct {
	CPUs        int    `json:"cpus,omitempty"`
	CPUList     string `json:"cpu_list,omitempty"`
	MemoryBytes int64  `json:"memory_bytes,omitempty"`
	Cgroup      string `json:"cgroup,omitempty"`
}

var current Applied

// Current returns the limits applied so far.
func Current() Applied { return current }

// CPUs restricts the process to its first n allowed CPUs: every thread's
// affinity and GOMAXPROCS.
func CPUs(n int) error {
	if n < 1 {
		return fmt.Errorf("--cpus %d: want at least 1", n)
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return fmt.Errorf("--cpus: reading CPU affinity: %v", err)
	}
	if have := set.Count(); n > have {
		return fmt.Errorf("--cpus %d: this machine lets litebench use %d CPUs; ask for %d or fewer", n, have, have)
	}
	var want unix.CPUSet
	var ids []string
	for c := 0; len(ids) < n && c < 1024; c++ {
		if set.IsSet(c) {
			want.Set(c)
			ids = append(ids, strconv.Itoa(c))
		}
	}
	// Threads inherit affinity from the thread that creates them, but the
	// runtime's existing threads must be moved one by one.
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return fmt.Errorf("--cpus: listing threads: %v", err)
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, &want); err != nil && !errors.Is(err, unix.ESRCH) {
			return fmt.Errorf("--cpus: setting CPU affinity: %v", err)
		}
	}
	runtime.GOMAXPROCS(n)
	current.CPUs, current.CPUList = n, strings.Join(ids, ",")
	return nil
}

// newGroup creates a child of the process's own memory cgroup, named
// after the process and a counter.
func newGroup() (dir, limitFile string, err error) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", "", err
	}
	name := fmt.Sprintf("litebench-%d-%d", os.Getpid(), groupSeq.Add(1))
	var v2path, v1path string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		if f[0] == "0" && f[1] == "" {
			v2path = f[2]
		}
		for _, c := range strings.Split(f[1], ",") {
			if c == "memory" {
				v1path = f[2]
			}
		}
	}
	// cgroup v2: a unified hierarchy whose controllers include memory.
	for _, root := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
		ctrl, err := os.ReadFile(filepath.Join(root, "cgroup.controllers"))
		if err != nil || !strings.Contains(" "+string(ctrl)+" ", " memory") || v2path == "" {
			continue
		}
		d := filepath.Join(root, v2path, name)
		if err := os.Mkdir(d, 0o755); err == nil {
			return d, "memory.max", nil
		}
	}
	// cgroup v1: the memory hierarchy.
	if v1path != "" {
		d := filepath.Join("/sys/fs/cgroup/memory", v1path, name)
		if err := os.Mkdir(d, 0o755); err == nil {
			return d, "memory.limit_in_bytes", nil
		} else {
			return "", "", err
		}
	}
	return "", "", errors.New("no writable cgroup with the memory controller")
}
