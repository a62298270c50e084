package cli

import (
	"os"
	"path/filepath"

	"github.com/litebench/litebench/internal/limits"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/workload"
)

// checkMemoryFlag refuses --memory above the machine's physical memory: a
// confinement it can never reach confines nothing.
func checkMemoryFlag(flag string, n int64) error {
	if total := limits.MemTotal(); total > 0 && n > total {
		return usagef("--memory %s: more than this machine's %s of physical memory (MemTotal); give %s or less", flag, limits.SizeText(total), limits.SizeText(total))
	}
	return nil
}

// checkDisk refuses a run whose tables cannot fit on the file system of
// the directory its SQLite database goes to: the rows loaded take at least
// LoadBytes (a lower bound), which must not exceed the space free there.
// Databases in memory or on a server, and a database file that exists
// already (reused), are not checked.
func (c *common) checkDisk(w workload.Workload, s settings.Settings, engine, dbPath string) error {
	if engine != "sqlite" || s.Bool("in-memory") {
		return nil
	}
	lb, ok := w.(interface{ LoadBytes() int64 })
	if !ok {
		return nil
	}
	dir := c.dir
	switch {
	case dbPath != "":
		if _, err := os.Stat(dbPath); err == nil {
			return nil
		}
		dir = filepath.Dir(dbPath)
	case dir == "":
		dir = os.TempDir()
	}
	need, free := lb.LoadBytes(), limits.FreeDisk(dir)
	if free < 0 || need <= free {
		return nil
	}
	return usagef("the rows to load take at least %s on disk, more than the %s free in %s; load fewer rows, or give --dir on a larger disk", limits.SizeText(need), limits.SizeText(free), dir)
}
