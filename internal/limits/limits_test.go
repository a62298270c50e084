package limits

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestCPUs(t *testing.T) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Skip(err)
	}
	old := runtime.GOMAXPROCS(0)
	defer func() {
		unix.SchedSetaffinity(0, &set)
		runtime.GOMAXPROCS(old)
	}()
	if err := CPUs(set.Count() + 1); err == nil || !strings.Contains(err.Error(), "or fewer") {
		t.Errorf("more CPUs than allowed: %v", err)
	}
	if err := CPUs(1); err != nil {
		t.Fatal(err)
	}
	var now unix.CPUSet
	unix.SchedGetaffinity(0, &now)
	if now.Count() != 1 || runtime.GOMAXPROCS(0) != 1 || Current().CPUs != 1 {
		t.Errorf("affinity %d CPUs, GOMAXPROCS %d", now.Count(), runtime.GOMAXPROCS(0))
	}
}

func TestMemory(t *testing.T) {
	if err := Memory(1 << 20); err == nil {
		t.Error("1MB accepted")
	}
	err := Memory(512 << 20)
	if err != nil {
		// Refused: the error must say so in one line and name the fix.
		if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "run without --memory") {
			t.Errorf("refusal %q", err)
		}
		t.Skipf("memory limits unavailable here: %v", err)
	}
	defer Release()
	data, _ := os.ReadFile("/proc/self/cgroup")
	if !strings.Contains(string(data), "litebench-") {
		t.Errorf("not moved into the new cgroup: %s", data)
	}
}
