package workload_test

import (
	"testing"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/workload"
)

// A workload names the process_cpu figure without importing results: the
// two names must stay one.
func TestProcessCPUIsResultsName(t *testing.T) {
	if workload.ProcessCPU != results.ProcessCPU {
		t.Errorf("workload.ProcessCPU = %q, results.ProcessCPU = %q", workload.ProcessCPU, results.ProcessCPU)
	}
}
