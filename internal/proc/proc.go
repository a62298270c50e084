// Package proc is what every litebench program (litebench itself and the
// Go worker processes) does as it starts and before it exits.
package proc

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/pprof"
)

// Start tunes the garbage collector and starts the CPU profile that
// LITEBENCH_CPUPROFILE=file asks for; call the function it returns before
// the process exits: it also kills the process groups of any child still
// running (KillAll).
//
// The harness keeps little live heap while drivers allocate per statement,
// so the default GOGC=100 collects every few hundred kilobytes: hundreds
// of collections a second compete with the workload for the second core.
// 400 cuts that fourfold and still keeps a 10-million-row run far under
// 100 MB. GOGC in the environment wins.
func Start() (stop func()) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if p := os.Getenv("LITEBENCH_CPUPROFILE"); p != "" {
		if f, err := os.Create(p); err == nil {
			pprof.StartCPUProfile(f) //nolint:errcheck // best effort
		}
	}
	return func() {
		KillAll()
		pprof.StopCPUProfile()
	}
}

var interrupted = context.Background()

// SetContext names the context that a Ctrl-C (or SIGTERM) cancels, for
// waits on children that have no context of their own (a worker's probe).
func SetContext(ctx context.Context) { interrupted = ctx }

// Context is the context SetContext named (never cancelled if none).
func Context() context.Context { return interrupted }
