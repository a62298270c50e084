package postgres

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/litebench/litebench/internal/engine"
	_ "github.com/litebench/litebench/internal/engine/sqlite" // --sync
	"github.com/litebench/litebench/internal/settings"
)

// Serialization failures and deadlocks are retryable, as SQLITE_BUSY is.
func TestClassify(t *testing.T) {
	for _, c := range []struct {
		err  error
		want engine.ErrClass
	}{
		{&pgconn.PgError{Code: "40001"}, engine.Serialization},
		{fmt.Errorf("commit: %w", &pgconn.PgError{Code: "40P01"}), engine.Deadlock},
		{&pgconn.PgError{Code: "23505"}, engine.Constraint},
		{&pgconn.PgError{Code: "08006"}, engine.Conn},
		{&pgconn.PgError{Code: "42P01"}, engine.Other},
		{io.EOF, engine.Conn},
		{errors.New("not postgres"), engine.None},
	} {
		if got := Classify(c.err); got != c.want {
			t.Errorf("%v: %s, want %s", c.err, got, c.want)
		}
	}
	if !Classify(&pgconn.PgError{Code: "40001"}).Retryable() || !Classify(&pgconn.PgError{Code: "40P01"}).Retryable() {
		t.Error("serialization failures and deadlocks must be retryable")
	}
}

// --sync maps onto synchronous_commit per session and fsync per server;
// the user's server gets no server-wide change.
func TestSync(t *testing.T) {
	for sync, want := range map[string]durability{"default": {}, "off": {"off", "off"}, "normal": {"off", "on"}, "full": {"on", "on"}, "extra": {"on", "on"}} {
		s := settings.Default()
		if err := s.Set("sync", sync); err != nil {
			t.Fatal(err)
		}
		if got := durabilityOf(s); got != want {
			t.Errorf("--sync %s: %+v, want %+v", sync, got, want)
		}
		err := pgEngine{}.Check(s, true)
		if (err != nil) != (sync == "off") {
			t.Errorf("--sync %s on the user's server: %v", sync, err)
		}
	}
}
