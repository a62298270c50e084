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

// Values the harness holds as generated (Args.Boxed, the insert path) are
// bound in one call, each with its own type, and a parameter given no
// value is NULL.
func TestBoxedValuesBindInOneCall(t *testing.T) {
	ctx := context.Background()
	_, db := workertest.OpenDB(t, Name, filepath.Join(t.TempDir(), "boxed.db"), nil, target.PoolOptions{})
	if err := db.Exec(ctx, "CREATE TABLE t(a, b, c, d, e)", nil); err != nil {
		t.Fatal(err)
	}
	st, err := db.Prepare(ctx, "INSERT INTO t VALUES (?, ?, ?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	var a target.Args
	a.Boxed([]any{int64(1 << 40), "text", 2.5, 7})
	if err := st.Exec(ctx, &a); err != nil {
		t.Fatal(err)
	}
	a.Boxed([]any{nil, "x"})
	if err := st.Exec(ctx, &a); err != nil {
		t.Fatal(err)
	}
	a.Boxed([]any{struct{}{}})
	if err := st.Exec(ctx, &a); err == nil {
		t.Error("a struct was bound")
	}
	a.Boxed(make([]any, 6))
	if err := st.Exec(ctx, &a); err == nil {
		t.Error("six values were bound to five parameters")
	}
	var got []string
	err = db.Query(ctx, "SELECT typeof(a)||typeof(b)||typeof(c)||typeof(d)||typeof(e), coalesce(a, '') || b FROM t ORDER BY rowid", nil, func(r target.Row) error {
		var types, v string
		if err := r.Scan(&types, &v); err != nil {
			return err
		}
		got = append(got, types+" "+v)
		return nil
	})
	want := []string{"integertextrealintegernull 1099511627776text", "nulltextnullnullnull x"}
	if err != nil || len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("rows %q (%v), want %q", got, err, want)
	}
}
