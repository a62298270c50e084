// Command litebench measures, compares and tunes SQLite for a workload.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"syscall"

	"github.com/litebench/litebench/internal/cli"
)

func main() {
	// The harness keeps little live heap while drivers allocate per
	// statement, so the default GOGC=100 collects every few hundred
	// kilobytes: hundreds of collections a second compete with the workload
	// for the second core. 400 cuts that fourfold and still keeps a
	// 10-million-row run far under 100 MB. GOGC in the environment wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	// LITEBENCH_CPUPROFILE=file profiles litebench itself (harness work).
	if p := os.Getenv("LITEBENCH_CPUPROFILE"); p != "" {
		if f, err := os.Create(p); err == nil {
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	pprof.StopCPUProfile()
	os.Exit(code)
}
