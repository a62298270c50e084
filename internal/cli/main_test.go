package cli

import (
	"context"
	"os"
	"testing"

	"litebench/internal/worker"
)

// TestMain lets this test binary serve as the child of --placement process
// (the worker package starts os.Executable() with LITEBENCH_WORKER=1).
func TestMain(m *testing.M) {
	if os.Getenv(worker.EnvWorker) == "1" {
		os.Exit(Main(context.Background(), []string{"worker"}, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
