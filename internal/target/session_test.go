package target_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/target/targettest"
)

func open(t *testing.T, c *targettest.Client, p target.Policy) *target.Session {
	t.Helper()
	s, err := target.Open(context.Background(), targettest.Target(c), engine.Endpoint{}, p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPolicyOfSettings(t *testing.T) {
	s := settings.Default()
	for k, v := range map[string]string{"pool": "3", "conn-per-op": "true", "tx": "immediate", "prepared": "false", "writer": "single", "write-mutex": "true", "busy-retry": "until"} {
		if err := s.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	want := target.Policy{PoolOptions: target.PoolOptions{MaxOpen: 3, ConnPerOp: true, TxImmediate: true}, SingleWriter: true, WriteMutex: true, Retries: -1}
	if got := target.PolicyOf(s); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// With a single writer, writes go to a second pool, opened once and only
// when something writes; reads stay on the first.
func TestSingleWriterOpensOneWriterPool(t *testing.T) {
	ctx := context.Background()
	c := &targettest.Client{}
	s := open(t, c, target.Policy{SingleWriter: true, Prepared: true})
	defer s.Close()
	r, _ := s.Prepare(ctx, "SELECT 1", target.Read)
	if c.Opened.Load() != 1 {
		t.Fatalf("reading opened %d pools", c.Opened.Load())
	}
	w1, err := s.Prepare(ctx, "INSERT 1", target.Write)
	if err != nil {
		t.Fatal(err)
	}
	s.Prepare(ctx, "INSERT 2", target.Write)
	if c.Opened.Load() != 2 {
		t.Fatalf("%d pools, want the shared one and one writer", c.Opened.Load())
	}
	w := s.Writer()
	if err := w.Exec(ctx, w1, nil); err != nil || c.LastPool.Load() != 2 {
		t.Errorf("write ran on pool %d (%v), want the writer's (2)", c.LastPool.Load(), err)
	}
	if err := r.Query(ctx, nil, nil); err != nil || c.LastPool.Load() != 1 {
		t.Errorf("read ran on pool %d (%v), want the shared one (1)", c.LastPool.Load(), err)
	}
	if s.OpenedConns() != 2 {
		t.Errorf("connections %d", s.OpenedConns())
	}
	// The set-up view writes on the shared pool.
	st, _ := s.Setup().Prepare(ctx, "INSERT 3", target.Write)
	s.Setup().Writer().Exec(ctx, st, nil)
	if c.LastPool.Load() != 1 {
		t.Errorf("set-up write ran on pool %d", c.LastPool.Load())
	}
}

// The write mutex lets one writer at a time into a transaction.
func TestWriteMutexSerialisesWriters(t *testing.T) {
	for _, mutex := range []bool{true, false} {
		ctx := context.Background()
		c := &targettest.Client{}
		s := open(t, c, target.Policy{WriteMutex: mutex, Prepared: true})
		st, _ := s.Prepare(ctx, "INSERT", target.Write)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w := s.Writer()
				<-start
				for i := 0; i < 200; i++ {
					w.Begin(ctx)
					w.Exec(ctx, st, nil)
					w.Exec(ctx, st, nil)
					w.Commit()
				}
			}()
		}
		close(start)
		wg.Wait()
		if mutex && c.MaxInTx.Load() != 1 {
			t.Errorf("with the write mutex, %d transactions were open at once", c.MaxInTx.Load())
		}
		if c.Begins.Load() != 800 || c.Execs.Load() != 1600 {
			t.Errorf("begins %d execs %d", c.Begins.Load(), c.Execs.Load())
		}
		// Each transaction bound the prepared statement once.
		if c.Binds.Load() != 800 {
			t.Errorf("bound %d times in 800 transactions", c.Binds.Load())
		}
	}
}

func TestAgainFollowsTheRetryPolicy(t *testing.T) {
	busy := fmt.Errorf("step: %w", targettest.ErrBusy)
	other := fmt.Errorf("disk full")
	c := &targettest.Client{}
	s := open(t, c, target.Policy{Retries: 2})
	if !s.Again(busy, 0) || !s.Again(busy, 1) || s.Again(busy, 2) || s.Again(other, 0) {
		t.Error("two retries of busy errors, none of others")
	}
	if s.Classify(busy) != engine.Busy || s.Classify(other) != engine.Other || s.Classify(context.Canceled) != engine.Interrupted {
		t.Error("classes")
	}
	if u := open(t, c, target.Policy{Retries: -1}); !u.Again(busy, 1e6) {
		t.Error("until: no end to retries")
	}
	if n := open(t, c, target.Policy{}); n.Again(busy, 0) {
		t.Error("none: retried")
	}
}

// Without prepared statements the same calls run ad hoc.
func TestAdHocStatements(t *testing.T) {
	ctx := context.Background()
	c := &targettest.Client{}
	s := open(t, c, target.Policy{})
	st, _ := s.Prepare(ctx, "INSERT", target.Write)
	w := s.Writer()
	w.Begin(ctx)
	w.Exec(ctx, st, nil)
	w.Commit()
	if c.Binds.Load() != 0 || c.Execs.Load() != 1 {
		t.Errorf("binds %d execs %d", c.Binds.Load(), c.Execs.Load())
	}
	if err := w.Commit(); err == nil {
		t.Error("commit without a transaction")
	}
}
