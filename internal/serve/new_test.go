package serve_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/serve"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
	_ "github.com/litebench/litebench/internal/target/all"
)

// Opening a pool of handles stops at an interrupt instead of opening them
// all.
func TestNewStopsOpeningHandles(t *testing.T) {
	tg, err := target.Get("zombie") // its Open does not look at the context
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "p.db")
	inst, err := tg.Engine().Provision(context.Background(), engine.Request{Settings: settings.Default(), Path: path, Reuse: true, Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	db, err := tg.Open(context.Background(), inst.Endpoint(), target.PoolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Exec(context.Background(), "CREATE TABLE pages(id INTEGER PRIMARY KEY, body TEXT)", nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	srv, err := serve.New(ctx, serve.Config{Strategy: "direct", Target: tg, Endpoint: inst.ReadEndpoint(false), Handles: 100000})
	if !errors.Is(err, context.Canceled) {
		if srv != nil {
			srv.Close()
		}
		t.Fatalf("New with a cancelled context: %v", err)
	}
}
