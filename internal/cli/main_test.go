package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"litebench/internal/worker"
)

// TestMain lets the test binary stand in for litebench in a second, real
// process: as the child of --placement process (the worker package starts
// os.Executable() with LITEBENCH_WORKER=1), and, with LITEBENCH_TEST_CLI=1,
// as the whole command for tests that need two processes.
func TestMain(m *testing.M) {
	switch {
	case os.Getenv(worker.EnvWorker) == "1":
		os.Exit(Main(context.Background(), []string{"worker"}, os.Stdout, os.Stderr))
	case os.Getenv("LITEBENCH_TEST_CLI") == "1":
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}
