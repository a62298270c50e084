package cli

import (
	"fmt"

	"github.com/litebench/litebench/internal/audit"
	"github.com/litebench/litebench/internal/engine"
	sweep "github.com/litebench/litebench/internal/plan"
	"github.com/litebench/litebench/internal/target"
)

// clusterFaults are the audit's default faults when every cell runs a
// cluster (dqlite): a file's faults do not apply there.
func clusterFaults(cells []sweep.Cell, faults []string) []string {
	for _, c := range cells {
		if !engine.IsServer(c.Target.Engine()) {
			return faults
		}
	}
	return audit.ClusterFaults
}

// conformable refuses targets conform cannot check: it runs SQLite
// clients on database files beside the Go reference, and a server
// engine's target runs a cluster.
func conformable(t target.Target) error {
	if engine.IsServer(t.Engine()) {
		return fmt.Errorf("conform: %s runs a %s cluster, not a SQLite file; conform checks SQLite clients (the %s target is tested end to end on its own)", t.Name(), t.Engine().Name(), t.Name())
	}
	return nil
}
