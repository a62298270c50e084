// Command litebench measures, compares and tunes SQLite for a workload.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/litebench/litebench/internal/cli"
	"github.com/litebench/litebench/internal/proc"
)

func main() {
	stop := proc.Start()
	proc.Sweep() // what killed runs left: their children, their temp directories
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	proc.SetContext(ctx)
	code := cli.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	cancel()
	stop()
	os.Exit(code)
}
