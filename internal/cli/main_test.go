package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"litebench/internal/limits"
)

// envTestMain makes this test binary behave as the litebench command, for
// tests that run it as a process (signals, --memory's confined child).
const envTestMain = "LITEBENCH_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(envTestMain) != "" || limits.Child() {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}
