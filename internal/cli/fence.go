package cli

import (
	"strings"

	flag "github.com/spf13/pflag"

	"github.com/litebench/litebench/internal/engine/sqlite"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/workload"
)

// allowAttachUsage is --allow-attach's help.
const allowAttachUsage = "let the workload's SQL ATTACH the existing database file `PATH`, read-only (repeatable); every other ATTACH, DETACH, VACUUM INTO and load_extension() is refused"

func registerAllowAttach(fs *flag.FlagSet, paths *[]string) {
	fs.StringArrayVar(paths, "allow-attach", nil, allowAttachUsage)
}

// fenceWorkload hands --allow-attach to a workload of SQL. The paths are
// opened through a URI filename (file:PATH?mode=ro), which litebench's Go
// clients read as such; a worker of another language, or a server
// engine, is refused rather than trusted to.
func fenceWorkload(sp *workload.Spec, paths []string, ts []target.Target) error {
	if sp.AllowAttach == nil {
		if len(paths) > 0 {
			return usagef("--allow-attach: %s is written in Go and attaches nothing; remove --allow-attach", sp.Name)
		}
		return nil
	}
	if len(paths) > 0 {
		for _, t := range ts {
			_, external := t.Client().(target.External)
			if t.Engine().Name() != sqlite.Name || external {
				return usagef("--allow-attach: target %s cannot take it (only litebench's in-process SQLite clients open the read-only URI it needs: %s); run it on one of those", t.Name(), strings.Join(fencedClients, ", "))
			}
		}
	}
	if err := sp.AllowAttach(paths); err != nil {
		return usageError{err.Error()}
	}
	return nil
}

// fencedClients are the clients --allow-attach runs on.
var fencedClients = []string{"mattn", "modernc", "ncruces", "ncruces-direct", "zombie"}
