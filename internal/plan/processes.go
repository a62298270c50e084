package plan

import (
	"fmt"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/runner"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
)

// Several processes on one database (--processes), and an attached run
// that writes (--attach with --from): the workload must give each process
// a range of rows of its own (spec.Workload's SharedError), and the runs
// go to a SQLite file through Go worker processes.

// shared is a workload that can run beside other processes writing the
// same database.
type shared interface {
	SharedError() error
	Inserts() bool
}

// checkProcesses refuses what --processes, --from and --attach cannot do
// with the cells.
func checkProcesses(req Request, cells []Cell) error {
	if req.Processes < 0 || req.Processes > 64 {
		return inputf("--processes %d: want 1 to 64", req.Processes)
	}
	if req.InsertFrom < 0 {
		return inputf("--from %d: want a row index of 0 or more", req.InsertFrom)
	}
	multi := req.Processes > 1
	for _, c := range cells {
		w := c.Workload
		sh, isShared := w.(shared)
		_, reuse := w.(runner.Reuser)
		name := req.Workload.Name
		switch {
		case req.Attach && !reuse && !isShared:
			return inputf("--attach: %s sets up its own tables, which would reset %s; attach scan or paginate, which read what is there, or read, write or mixed", name, req.DBPath)
		case (multi || req.InsertFrom > 0) && !isShared:
			flag := "--processes"
			if !multi {
				flag = "--from"
			}
			return inputf("%s: %s runs in one process only; %s takes read, write, mixed and workload files whose writes are table operations", flag, name, flag)
		}
		if !isShared {
			continue
		}
		if err := sh.SharedError(); err != nil && (multi || req.Attach || req.InsertFrom > 0) {
			return inputf("--processes, --attach and --from: %v", err)
		}
		if req.Attach && sh.Inserts() && req.InsertFrom == 0 {
			return inputf("--attach: %s inserts rows into %s, which its owner inserts too: give --from N, the first row of a range the owner does not reach (it inserts from row --rows on), e.g. --from 100000000", name, req.DBPath)
		}
		if rows, err := settings.ParseCount(c.Params["rows"]); err == nil && req.InsertFrom > 0 && req.InsertFrom < rows {
			return inputf("--from %d: below the %d rows loaded before the run (--rows); start at %d or above", req.InsertFrom, rows, rows)
		}
		if !multi && req.InsertFrom == 0 {
			continue
		}
		if _, ok := c.Target.Client().(target.External); ok {
			return inputf("--target %s: --processes and --from run Go worker processes; %s runs a worker of its own that keeps to no range of rows: use a Go target such as mattn", c.Target.Name(), c.Target.Name())
		}
		if e := c.Target.Engine(); multi && (engine.IsServed(e) || engine.IsServer(e)) {
			return inputf("--processes: target %s runs on a %s server; --processes runs several processes on one SQLite file", c.Target.Name(), e.Name())
		}
		if multi && c.Settings.Bool("in-memory") {
			return inputf("--processes with --in-memory: each process would have a database of its own; drop --in-memory")
		}
	}
	if multi {
		for i := range cells {
			cells[i].Notes = append(cells[i].Notes, fmt.Sprintf("each of the %d processes is a Go worker process ('litebench worker'), whatever --placement says", req.Processes))
		}
	}
	return nil
}
