// Command litebench-worker-sqlite-lite serves litebench's worker protocol
// (docs/worker-protocol.md) with github.com/bvinc/go-sqlite-lite as the
// client: target go-sqlite-lite. It is litebench's own Go worker with this
// one driver linked, in a module of its own because go-sqlite-lite
// compiles its own copy of SQLite's C source, which cannot be linked into
// one binary with mattn's.
package main

import (
	// The workloads that are packages of their own register as they are
	// linked in, as litebench's command links them.
	_ "github.com/litebench/litebench/internal/httpbench"
	"github.com/litebench/litebench/internal/worker"
)

func main() { worker.Main("litebench-worker-sqlite-lite", module) }
