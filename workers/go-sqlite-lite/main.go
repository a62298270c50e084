// Command litebench-worker-sqlite-lite serves litebench's worker protocol
// (docs/worker-protocol.md) with github.com/bvinc/go-sqlite-lite as the
// client: target go-sqlite-lite. It is litebench's own Go worker with this
// one driver linked, in a module of its own because go-sqlite-lite
// compiles its own copy of SQLite's C source, which cannot be linked into
// one binary with mattn's.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"syscall"

	"github.com/litebench/litebench/internal/worker"
)

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "litebench-worker-sqlite-lite takes no arguments: it reads JSON lines on standard input (see docs/worker-protocol.md)")
		os.Exit(2)
	}
	// As litebench itself: the harness keeps little live heap, so the
	// default GOGC would collect hundreds of times a second.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	// LITEBENCH_CPUPROFILE=file profiles the worker, as it does litebench.
	if p := os.Getenv("LITEBENCH_CPUPROFILE"); p != "" {
		if f, err := os.Create(p); err == nil {
			pprof.StartCPUProfile(f)
		}
	}
	worker.Version = version()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := worker.Serve(ctx, os.Stdin, os.Stdout)
	stop()
	pprof.StopCPUProfile()
	if err != nil {
		os.Exit(1)
	}
}

// version is this worker's own version: its module's, and the driver's.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	v := "litebench-worker-sqlite-lite"
	for _, d := range bi.Deps {
		if d.Path == module {
			v += " " + d.Path + "@" + d.Version
			worker.Driver, worker.DriverVersion = d.Path, d.Version
		}
	}
	return v
}
