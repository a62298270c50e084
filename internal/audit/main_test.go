package audit

import (
	"context"
	"os"
	"testing"

	_ "github.com/litebench/litebench/internal/target/all"
	"github.com/litebench/litebench/internal/worker"
)

// TestMain lets the test binary serve the worker protocol, as the child
// process the audit starts and kills.
func TestMain(m *testing.M) {
	if os.Getenv(worker.EnvWorker) == "1" {
		if err := worker.Serve(context.Background(), os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
