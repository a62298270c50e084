package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/litebench/litebench/internal/limits"
	"github.com/litebench/litebench/internal/worker"
)

// envTestMain makes this test binary behave as the litebench command, for
// tests that run it as a process (two processes on one database, signals,
// --memory's confined child).
const envTestMain = "LITEBENCH_TEST_MAIN"

// TestMain lets the test binary stand in for litebench in a second, real
// process: as the child of --placement process (the worker package starts
// os.Executable() with LITEBENCH_WORKER=1), and as the whole command.
func TestMain(m *testing.M) {
	switch {
	case os.Getenv(worker.EnvWorker) == "1":
		os.Exit(Main(context.Background(), []string{"worker"}, os.Stdout, os.Stderr))
	case os.Getenv(envTestMain) != "" || limits.Child():
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}
