// Package proctest builds this tree's litebench for tests that run it as a
// program: killed, interrupted, started in a directory of their choosing.
package proctest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	once sync.Once
	bin  string
	err  error
)

// Litebench is this tree's litebench, built once per test binary into a
// temp directory (LITEBENCH_BIN names one already built).
func Litebench(t *testing.T) string {
	t.Helper()
	once.Do(func() {
		if b := os.Getenv("LITEBENCH_BIN"); b != "" {
			bin = b
			return
		}
		dir, e := os.MkdirTemp("", "proctest-litebench-")
		if e != nil {
			err = e
			return
		}
		bin = filepath.Join(dir, "litebench")
		if out, e := exec.Command("go", "build", "-o", bin, "github.com/litebench/litebench/cmd/litebench").CombinedOutput(); e != nil {
			err = fmt.Errorf("go build: %v\n%s", e, out)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// Cleanup removes what Litebench built: call it from TestMain after the
// tests have run.
func Cleanup() {
	if bin != "" && os.Getenv("LITEBENCH_BIN") == "" {
		os.RemoveAll(filepath.Dir(bin))
	}
}
