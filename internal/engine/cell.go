package engine

import (
	"context"
	"fmt"
	"sort"

	"github.com/litebench/litebench/internal/settings"
)

// Server is an engine whose instances are not files the runner claims:
// Provision starts them (a cluster of processes on loopback) in the run's
// directory and Destroy stops and removes them, and clients reach them
// through the endpoint's DSN.
type Server interface {
	Engine
	// Server marks the engine; it does nothing.
	Server()
}

// IsServer reports whether e's instances are servers (see Server).
func IsServer(e Engine) bool {
	_, ok := e.(Server)
	return ok
}

// Borrower is an engine that reads some settings another engine
// registered, in its own way (dqlite reads SQLite's --sync), and checks
// the values one of its runs is given.
type Borrower interface {
	// Borrows reports whether the engine reads key, another engine's
	// setting.
	Borrows(key string) bool
	// CheckCell refuses, in one line naming the fix, settings a run of
	// the engine cannot honour.
	CheckCell(s settings.Settings) error
}

// Figure is one number an instance reports about itself after a run.
type Figure struct {
	Name, Unit string
	Value      float64
}

// Reporter is an instance with figures and notes of its own to add to a
// run's result once the run is over (a cluster's leader and per-node log
// positions). Report is called before Destroy.
type Reporter interface {
	Report(ctx context.Context) ([]Figure, []string)
}

// ForCell returns the settings a run of engine e uses. s are the settings
// asked for, def the defaults they are compared with (the workload's own
// defaults included), and sweep the engines of the sweep's targets. A
// setting of another engine that e does not borrow is put back to its
// default when it was asked for the other engine's runs (sweep holds that
// engine), and refused when no run of the sweep would use it. Settings e
// borrows are checked by e.
func ForCell(e Engine, s, def settings.Settings, sweep map[string]bool) (settings.Settings, error) {
	b, _ := e.(Borrower)
	out := s.Clone()
	var unused []string
	for _, sp := range settings.Specs {
		if sp.Engine == "" || sp.Engine == e.Name() || (b != nil && b.Borrows(sp.Key)) {
			continue
		}
		if v := s.Get(sp.Key); v != def.Get(sp.Key) {
			if !sweep[sp.Engine] {
				unused = append(unused, fmt.Sprintf("--%s %s is a %s setting", sp.Key, v, sp.Engine))
			}
			out.Set(sp.Key, def.Get(sp.Key))
		}
	}
	if len(unused) > 0 {
		sort.Strings(unused)
		return out, fmt.Errorf("%s: %s runs do not use it; drop it or add a target of that engine to --target", unused[0], e.Name())
	}
	if b != nil {
		if err := b.CheckCell(out); err != nil {
			return out, err
		}
	}
	return out, nil
}
