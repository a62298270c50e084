// Command litebench-worker-dqlite serves litebench's worker protocol
// (docs/worker-protocol.md) with go-dqlite's database/sql driver as the
// client: target dqlite, against a cluster the controller started. The
// same binary is the cluster's node program ('node': go-dqlite's app
// package on a loopback address) and runs one statement on a cluster for
// the controller ('query', 'exec'), which links no dqlite client. It
// lives in a module of its own because go-dqlite needs cgo and libdqlite
// (Debian's packages), which building litebench must never need.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	// The workloads that are packages of their own register as they are
	// linked in, as litebench's command links them.
	_ "github.com/litebench/litebench/internal/httpbench"
	"github.com/litebench/litebench/internal/worker"
)

const usage = `usage:
  litebench-worker-dqlite                      serve the worker protocol on stdin/stdout
  litebench-worker-dqlite node --dir DIR --address HOST:PORT [--join HOST:PORT] [--voters N]
                          [--snapshot-threshold N] [--snapshot-trailing N]
  litebench-worker-dqlite query|exec DSN SQL   run SQL on a cluster (dqlite://HOST:PORT,.../DB);
                                               query prints the first column of every row as a JSON array`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(os.Args) > 1 {
		var err error
		switch os.Args[1] {
		case "node":
			err = runNode(ctx, os.Args[2:], os.Stdin, os.Stdout)
		case "query", "exec":
			err = runQuery(ctx, os.Args[1], os.Args[2:], os.Stdout)
		default:
			fmt.Fprintln(os.Stderr, usage)
			os.Exit(2)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "litebench-worker-dqlite:", err)
			os.Exit(1)
		}
		return
	}
	worker.Version = worker.ModuleVersion("litebench-worker-dqlite", module) + " libdqlite " + libVersion()
	worker.EngineVersion = libVersion()
	if code := worker.ServeProcess(ctx); code != 0 {
		stop()
		os.Exit(code)
	}
}
