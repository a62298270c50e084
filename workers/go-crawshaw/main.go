// Command litebench-worker-crawshaw serves litebench's worker protocol
// (docs/worker-protocol.md) with crawshaw.io/sqlite as the client: target
// go-crawshaw. It is litebench's own Go worker with this one driver
// linked, in a module of its own because crawshaw.io/sqlite compiles its
// own copy of SQLite's C source, which cannot be linked into one binary
// with mattn's.
package main

import (
	// The workloads that are packages of their own register as they are
	// linked in, as litebench's command links them.
	_ "github.com/litebench/litebench/internal/httpbench"
	"github.com/litebench/litebench/internal/worker"
)

func main() { worker.Main("litebench-worker-crawshaw", module) }
