package limits

import (
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
