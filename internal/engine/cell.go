package engine

import (
	"context"

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
// registered, in its own way (dqlite reads SQLite's --sync; it declares
// so with settings.Share), and checks the values one of its runs is given.
type Borrower interface {
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
