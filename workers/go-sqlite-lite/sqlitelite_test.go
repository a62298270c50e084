package main

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/worker/workertest"
)

// The checks every direct target of a Go worker of its own passes.
func TestDirectTarget(t *testing.T) { workertest.DirectTarget(t, Name) }

// A BLOB argument is stored as a BLOB and read back as it was bound, an
// empty one included.
func TestBlobRoundTrip(t *testing.T) {
	ctx := context.Background()
	_, db := workertest.OpenDB(t, Name, filepath.Join(t.TempDir(), "blob.db"), nil, target.PoolOptions{})
	if err := db.Exec(ctx, "CREATE TABLE t(id INTEGER, b BLOB)", nil); err != nil {
		t.Fatal(err)
	}
	for i, v := range [][]byte{{0, 1, 2, 0xff}, {}} {
		if err := db.Exec(ctx, "INSERT INTO t VALUES (?, ?)", target.A(int64(i), v)); err != nil {
			t.Fatal(err)
		}
	}
	var (
		types string
		got   []byte
		rows  int
	)
	err := db.Query(ctx, "SELECT typeof(b), b FROM t ORDER BY id", nil, func(r target.Row) error {
		if err := r.Scan(&types, &got); err != nil {
			return err
		}
		if want := [][]byte{{0, 1, 2, 0xff}, {}}[rows]; types != "blob" || string(got) != string(want) {
			t.Errorf("row %d: %s %x, want blob %x", rows, types, got, want)
		}
		rows++
		return nil
	})
	if err != nil || rows != 2 {
		t.Fatalf("%d rows, %v", rows, err)
	}
}

// SQL holding no statement is refused, not run as nothing.
func TestEmptyStatementIsRefused(t *testing.T) {
	_, db := workertest.OpenDB(t, Name, filepath.Join(t.TempDir(), "empty.db"), nil, target.PoolOptions{})
	if err := db.Exec(context.Background(), "-- nothing", target.A(int64(1))); !errors.Is(err, errEmpty) {
		t.Errorf("err = %v, want the refusal", err)
	}
}

// The driver's SQLite is built with the UPDATE/DELETE ... LIMIT grammar
// (SQLITE_ENABLE_UPDATE_DELETE_LIMIT in its parser), as upstream's is.
func TestDeleteLimitParses(t *testing.T) {
	ctx := context.Background()
	_, db := workertest.OpenDB(t, Name, filepath.Join(t.TempDir(), "l.db"), nil, target.PoolOptions{MaxOpen: 1})
	for _, q := range []string{"CREATE TABLE t(x)", "INSERT INTO t VALUES (1), (2), (3)", "DELETE FROM t ORDER BY x LIMIT 2", "UPDATE t SET x = 0 LIMIT 1"} {
		if err := db.Exec(ctx, q, nil); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var n, sum int64
	if err := db.Query(ctx, "SELECT count(*), sum(x) FROM t", nil, func(r target.Row) error { return r.Scan(&n, &sum) }); err != nil || n != 1 || sum != 0 {
		t.Errorf("left %d rows summing to %d (%v), want one, updated to 0", n, sum, err)
	}
}
