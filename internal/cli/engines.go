package cli

import (
	"strings"

	"github.com/litebench/litebench/internal/engine"
	sweep "github.com/litebench/litebench/internal/plan"
	"github.com/litebench/litebench/internal/settings"
)

// dsnList is --dsn, given once per server engine: each URL's scheme says
// which engine's targets it serves.
type dsnList struct{ v *[]string }

func (d dsnList) String() string {
	if d.v == nil {
		return ""
	}
	var r []string
	for _, u := range *d.v {
		r = append(r, engine.Redact(u))
	}
	return strings.Join(r, " ")
}

func (d dsnList) Set(s string) error { *d.v = append(*d.v, s); return nil }
func (d dsnList) Type() string       { return "URL" }

// dsnUsage is --dsn's help line.
const dsnUsage = "a server of yours for a server target, instead of one litebench starts: postgres://user:pass@host:port/db or mariadb://user:pass@host:port/ (once per engine); litebench creates a database litebench_RUNID there, runs the workload as a user made for the run with rights on it alone, and drops only those"

// servers reads --dsn into the sweep's servers, checking each URL names
// an engine that some target of the sweep uses.
func (c *common) servers(cells []sweep.Cell) (*engine.Servers, error) {
	sv := engine.NewServers()
	sv.Keep = c.keep
	used := map[string]bool{}
	for _, cell := range cells {
		used[cell.Target.Engine().Name()] = true
	}
	for _, u := range c.dsn {
		e, err := engine.EngineOfDSN(u)
		if err != nil {
			return nil, usageError{err.Error()}
		}
		if sv.DSN(e) != "" {
			return nil, usagef("--dsn: two servers for %s; give one --dsn per engine", e)
		}
		if !used[e] {
			return nil, usagef("--dsn %s is a %s server, and no target of --target %s runs on %s; add the %s target or drop --dsn", engine.Redact(u), e, c.targets, e, e)
		}
		sv.SetDSN(e, u)
	}
	return sv, nil
}

// checkServed refuses, before anything is touched, what a server target
// cannot run: a missing server program (naming its package), a SQLite
// file option, or a setting litebench would have to change on the user's
// server.
func (c *common) checkServed(cells []sweep.Cell) error {
	sv, err := c.servers(cells)
	if err != nil {
		return err
	}
	for _, cell := range cells {
		e, ok := cell.Target.Engine().(engine.Served)
		if !ok {
			continue
		}
		switch {
		case c.db != "":
			return usagef("--db names a SQLite file; target %s runs on a %s server (a managed one, or --dsn URL)", cell.Target.Name(), e.Name())
		case c.attach:
			return usagef("--attach opens a SQLite file another litebench process owns; target %s runs on a %s server", cell.Target.Name(), e.Name())
		}
		user := sv.DSN(e.Name()) != ""
		if !user {
			if err := e.Available(); err != nil {
				return usagef("target %s: %v", cell.Target.Name(), err)
			}
		}
		if ck, ok := e.(interface {
			Check(settings.Settings, bool) error
		}); ok {
			if err := ck.Check(cell.Settings, user); err != nil {
				return usageError{err.Error()}
			}
		}
	}
	if err := fenceServed(cells, sv); err != nil {
		return err
	}
	c.sweepServers = sv
	return nil
}

// useServers hands the sweep's servers to every cell.
func (p *plan) useServers() {
	for i := range p.specs {
		p.specs[i].Servers = p.c.sweepServers
	}
}

// closeServers stops the managed servers of the sweep and removes them.
func (p *plan) closeServers() { p.c.sweepServers.Close() }
