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

// crawshaw.io/sqlite binds []byte as TEXT: a BLOB argument is refused
// rather than stored with another type than on every other target.
func TestBlobIsRefused(t *testing.T) {
	ctx := context.Background()
	_, db := workertest.OpenDB(t, Name, filepath.Join(t.TempDir(), "blob.db"), nil, target.PoolOptions{})
	if err := db.Exec(ctx, "CREATE TABLE t(b BLOB)", nil); err != nil {
		t.Fatal(err)
	}
	err := db.Exec(ctx, "INSERT INTO t VALUES (?)", target.A([]byte{0, 1, 2}))
	if !errors.Is(err, errBlob) {
		t.Fatalf("err = %v, want the refusal", err)
	}
	var n int64
	if err := db.Query(ctx, "SELECT count(*) FROM t", nil, func(r target.Row) error { return r.Scan(&n) }); err != nil || n != 0 {
		t.Errorf("%d rows stored (%v)", n, err)
	}
}
