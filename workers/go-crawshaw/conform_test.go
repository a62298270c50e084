package main

import (
	"testing"

	"github.com/litebench/litebench/internal/worker/workertest"
)

// TestConformance checks this worker against the reference, end to end
// (LITEBENCH_BIN and WORKER_BIN name the two programs; test.sh sets them).
func TestConformance(t *testing.T) { workertest.Conformance(t, Name) }
