package cli

import (
	flag "github.com/spf13/pflag"
)

// registerProcesses adds the flags of runs on one database by several
// processes: --processes (worker processes of this run) and --from (the
// first row this run's inserts write, for an attached run that writes).
func registerProcesses(fs *flag.FlagSet, c *common) {
	fs.IntVar(&c.processes, "processes", 1, "run N litebench worker processes at once on one database (read, write, mixed, workload files): each with its own connections, inserting in its own range of rows; the result shows each process and their sum")
	fs.Int64Var(&c.from, "from", 0, "insert rows from row N on (as sqlite3perf concurrent --from): with --attach, write beside the owner in a range it does not reach (0 = right after the rows loaded)")
	inGroup(fs, groupTarget, "processes", "from")
	c.processFlags = true
}

// checkProcesses refuses counts the flags cannot take (on commands
// without them, nothing).
func (c *common) checkProcesses() error {
	if !c.processFlags {
		return nil
	}
	if c.processes < 1 || c.processes > 64 {
		return usagef("--processes %d: want 1 to 64", c.processes)
	}
	if c.from < 0 {
		return usagef("--from %d: want a row index of 0 or more", c.from)
	}
	return nil
}
