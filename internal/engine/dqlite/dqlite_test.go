package dqlite

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/settings"
)

// The registry's engine knows no node program: it refuses to start a
// cluster, naming what to install, and makes nothing.
func TestRegistryEngineStartsNoCluster(t *testing.T) {
	dir := t.TempDir()
	_, err := Engine.Provision(context.Background(), engine.Request{Settings: settings.Default(), Dir: dir, Name: "r1"})
	if err == nil || err.Error() != "the dqlite target is not available: "+Missing {
		t.Fatalf("Provision: %v; want the dqlite target is not available: %s", err, Missing)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("Provision left %d entries in the run's directory", len(ents))
	}
}

// WithNodes's program is what the cluster starts as a node, with "node"
// and the node's flags appended: a program that fails says so on stderr,
// and the error carries its last line; the cluster's directory is gone.
func TestWithNodesRunsTheProgram(t *testing.T) {
	dir := t.TempDir()
	asked := 0
	program := func() ([]string, error) {
		asked++
		return []string{"/bin/sh", "-c", `echo "first line" >&2; echo "node program ran as $0 $1" >&2; exit 3`}, nil
	}
	_, err := WithNodes(program).Provision(context.Background(), engine.Request{Settings: settings.Default(), Dir: dir, Name: "r2"})
	if err == nil || !strings.Contains(err.Error(), "did not start: node program ran as node --dir") {
		t.Fatalf("Provision: %v; want the node's last stderr line (node program ran as node --dir)", err)
	}
	if asked != 1 {
		t.Errorf("the node program was asked for %d times, want 1 (one node)", asked)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a failed Provision left %d entries in the run's directory", len(ents))
	}
	// A cluster named by its DSN (the worker's side) has no node program
	// either: reading through it is refused the same way.
	inst, err := Engine.Provision(context.Background(), engine.Request{Settings: settings.Default(), Path: DSN([]string{"127.0.0.1:1"}, "db")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := inst.(*Cluster).Strings(context.Background(), "SELECT 1"); err == nil || !strings.Contains(err.Error(), "not available") {
		t.Errorf("Strings on a DSN's cluster: %v; want the dqlite target is not available", err)
	}
}
