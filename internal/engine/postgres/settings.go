package postgres

import (
	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/engine/server"
	"github.com/litebench/litebench/internal/settings"
)

// specs are PostgreSQL's own settings, under their flag names.
var specs = []settings.Spec{
	{Key: "pg-shared-buffers", Default: "default", Help: "PostgreSQL shared_buffers of the managed server, e.g. 128MB or 1GB (default: the server's, 128MB)", Canon: sizeCanon},
	{Key: "pg-max-connections", Default: "200", Help: "PostgreSQL max_connections of the managed server", Canon: settings.IntRange(10, 10000)},
}

func init() {
	settings.Register(Name, specs, nil)
	settings.Share("sync", Name)
	settings.Ignore(Name, "tx", "BEGIN IMMEDIATE and EXCLUSIVE are SQLite's; PostgreSQL begins every transaction with "+dialect.Postgres.Begin("immediate")+", which takes row locks as it writes (a workload file's BEGIN IMMEDIATE or EXCLUSIVE runs so)")
}

// sizeCanon renders a size in kB, as PostgreSQL reads it.
var sizeCanon = server.SizeCanon(128<<10, 1<<10, "kB")

// durability is what --sync sets on PostgreSQL: synchronous_commit per
// session, fsync on the server ("" leaves the server's default).
type durability struct{ syncCommit, fsync string }

// durabilityOf maps --sync onto PostgreSQL's commit durability, by what a
// commit survives: off (SQLite writes with no sync at all) turns fsync off;
// normal (a commit may be lost at a power cut, the database survives)
// turns synchronous_commit off; full and extra (a commit acknowledged is
// on disk) keep both on.
func durabilityOf(s settings.Settings) durability {
	switch s.Get("sync") {
	case "off":
		return durability{"off", "off"}
	case "normal":
		return durability{"off", "on"}
	case "full", "extra":
		return durability{"on", "on"}
	}
	return durability{}
}

// serverConf is the command line of a managed server for s: the settings
// that need a restart.
func serverConf(s settings.Settings) []string {
	conf := []string{"max_connections=" + s.Get("pg-max-connections")}
	if v := s.Get("pg-shared-buffers"); v != "default" {
		conf = append(conf, "shared_buffers="+v)
	}
	if f := durabilityOf(s).fsync; f != "" {
		conf = append(conf, "fsync="+f)
	}
	return conf
}
