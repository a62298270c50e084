package workload

import (
	"context"

	"github.com/litebench/litebench/internal/target"
)

// SetupPages creates the pages schema with rows bodies of bodySize bytes
// (the schema's rows, with their bodies at that size). For immutable
// readers everything is checkpointed into the main file first: an
// immutable open does not look at the WAL.
func SetupPages(ctx context.Context, sess *target.Session, rows int64, bodySize int, seed uint64, immutable bool) error {
	if err := setupPages(ctx, sess.Setup(), rows, bodySize, seed); err != nil {
		return err
	}
	if q := sess.Dialect().Checkpoint(); immutable && q != "" {
		return sess.DB().Exec(ctx, q, nil)
	}
	return nil
}

func setupPages(ctx context.Context, sess *target.Session, rows int64, bodySize int, seed uint64) error {
	sc := Schemas["pages"]
	if err := CreateSchema(ctx, sess, sc); err != nil {
		return err
	}
	st, err := sess.Prepare(ctx, sess.Dialect().Insert(sc.Table, sc.Columns, 1), target.Write)
	if err != nil {
		return err
	}
	defer st.Close()
	w := sess.Writer()
	if err := w.Begin(ctx); err != nil {
		return err
	}
	var a target.Args
	for i := int64(0); i < rows; i++ {
		a.Reset()
		a.Int(i + 1)
		a.Text(Text(seed, i, bodySize))
		err := ctx.Err() // direct-API transactions do not watch ctx
		if err == nil {
			err = w.Exec(ctx, st, &a)
		}
		if err != nil {
			w.Rollback()
			return err
		}
	}
	return w.Commit()
}
