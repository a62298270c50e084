package zombie

import (
	"testing"

	"github.com/litebench/litebench/internal/worker/workertest"
)

// The checks every direct target passes.
func TestDirectTarget(t *testing.T) { workertest.DirectTarget(t, "zombie") }
