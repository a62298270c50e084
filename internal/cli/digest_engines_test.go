package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/worker"
)

// The same seeded rows give the same digest on every engine, whatever
// the engine's column types (docs/engines.md): integers and text alike.
// A column declared blob is the exception SQLite makes: it keeps the text
// bound to it as text, where a server stores its bytes, so users' digest
// is the same on the servers only.
func TestDigestSameOnEveryEngine(t *testing.T) {
	servers := engine.NewServers()
	defer servers.Close()
	for _, schema := range []string{"bench", "users", "account", "foo"} {
		var first, firstTarget string
		names := []string{"mattn", "postgres", "mariadb"}
		if schema == "users" {
			names = names[1:]
		}
		for _, name := range names {
			s := settings.Default()
			s.Set("batch", "50")
			j := &worker.Job{RunID: "digest-" + schema + "-" + name, Workload: "insert", Target: name,
				Params:   map[string]string{"rows": "120", "schema": schema},
				Settings: s.Map(), Digest: true}
			wl, tgt, err := worker.Resolve(j)
			if err != nil {
				t.Fatal(err)
			}
			req := engine.Request{Settings: s, Name: j.RunID, Servers: servers}
			if sv, ok := tgt.Engine().(engine.Served); ok {
				if err := sv.Available(); err != nil {
					if os.Getenv("LITEBENCH_REQUIRE_ENGINES") == "1" {
						t.Fatal(err)
					}
					t.Logf("%s: %v", name, err)
					continue
				}
			} else {
				req.Path, req.Reuse, req.Keep = filepath.Join(t.TempDir(), "d.db"), true, true
			}
			inst, err := tgt.Engine().Provision(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			l := worker.NewLocal()
			if _, err := l.SetupWith(context.Background(), j, wl, tgt, inst); err != nil {
				t.Fatal(err)
			}
			fin, err := l.Run(context.Background(), func(worker.Event) {})
			l.Close()
			inst.Destroy()
			if err != nil || fin.Error != "" {
				t.Fatalf("%s %s: %v %s", schema, name, err, fin.Error)
			}
			if first == "" {
				first, firstTarget = fin.Digest, name
			} else if fin.Digest != first {
				t.Errorf("%s: %s digest %s, %s %s", schema, name, fin.Digest, firstTarget, first)
			}
		}
	}
}
