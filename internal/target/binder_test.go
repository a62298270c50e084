package target

import (
	"context"
	"errors"
	"testing"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/engine/sqlite"
)

// boundEngine is an engine a client bound: the registry's, wrapped.
type boundEngine struct {
	engine.Engine
	by string
}

// binderClient binds the engine it speaks.
type binderClient struct{}

func (binderClient) Name() string             { return "binder-test" }
func (binderClient) Engine() string           { return sqlite.Name }
func (binderClient) API() string              { return "direct" }
func (binderClient) Module() string           { return "none" }
func (binderClient) Version() (string, error) { return "", nil }
func (binderClient) Open(context.Context, engine.Endpoint, PoolOptions) (DB, error) {
	return nil, errors.New("no")
}
func (binderClient) Classify(error) engine.ErrClass { return engine.None }
func (binderClient) BindEngine(e engine.Engine) engine.Engine {
	return &boundEngine{Engine: e, by: "binder-test"}
}

// A client that binds its engine gets, from Get, the engine it bound
// over the registry's (dqlite's nodes are its worker binary).
func TestGetBindsTheClientsEngine(t *testing.T) {
	Register(binderClient{})
	t.Cleanup(func() { // out of the registry again, for the other tests
		mu.Lock()
		delete(registry, "binder-test")
		mu.Unlock()
	})
	tg, err := Get("binder-test")
	if err != nil {
		t.Fatal(err)
	}
	b, ok := tg.Engine().(*boundEngine)
	if !ok || b.by != "binder-test" || b.Engine != sqlite.Engine {
		t.Fatalf("Get(binder-test).Engine() = %#v; want the engine the client bound over the registry's", tg.Engine())
	}
}
