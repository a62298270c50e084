package cli

import (
	"github.com/litebench/litebench/internal/audit"
	"github.com/litebench/litebench/internal/engine"
	sweep "github.com/litebench/litebench/internal/plan"
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
