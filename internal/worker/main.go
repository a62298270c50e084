package worker

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/litebench/litebench/internal/proc"
)

// ModuleVersion is the version of a Go worker process named name: its
// name and the driver module it was built with (module@version). It sets
// Driver and DriverVersion, which hello reports.
func ModuleVersion(name, module string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return name + " (no build information)"
	}
	for _, d := range bi.Deps {
		if d.Path == module {
			name += " " + d.Path + "@" + d.Version
			Driver, DriverVersion = d.Path, d.Version
		}
	}
	return name
}

// ServeProcess serves the protocol on standard input and output, as a Go
// worker process whose Version is already set, and returns its exit code.
func ServeProcess(ctx context.Context) int {
	stop := proc.Start()
	defer stop()
	if err := Serve(ctx, os.Stdin, os.Stdout); err != nil {
		return 1
	}
	return 0
}

// Main is the main function of a Go worker of its own (a driver that
// cannot be linked into litebench): worker process name, whose driver is
// the Go module module, registered by the calling package.
func Main(name, module string) {
	if len(os.Args) > 1 {
		fmt.Fprintf(os.Stderr, "%s takes no arguments: it reads JSON lines on standard input (see docs/worker-protocol.md)\n", name)
		os.Exit(2)
	}
	Version = ModuleVersion(name, module)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := ServeProcess(ctx)
	stop()
	os.Exit(code)
}
