package worker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/target"
)

// Digest is a content digest of every user table of the database: SHA-256
// over, for each table in name order, a line "table NAME" and then one
// line per row with SQLite's quote() of every column joined by commas,
// rows sorted by that line (bytewise). It depends on the rows only, not on
// the order they were written in nor on the file's layout, so two workers
// in any language that wrote the same rows agree; on a server, the
// dialect renders quote() from the column's declared type (docs/engines.md),
// so the same rows give the same digest on every engine. It is "sha256:"
// and the hex digest.
func Digest(ctx context.Context, db target.Execer, d dialect.Dialect) (string, error) {
	var tables []string
	err := db.Query(ctx, d.Tables(), nil, func(r target.Row) error {
		var n string
		if err := r.Scan(&n); err != nil {
			return err
		}
		tables = append(tables, n)
		return nil
	})
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, t := range tables {
		var cols []string
		err := db.Query(ctx, d.Columns(t), nil, func(r target.Row) error {
			var n, typ string
			if err := r.Scan(&n, &typ); err != nil {
				return err
			}
			cols = append(cols, d.QuoteValue(n, typ))
			return nil
		})
		if err != nil {
			return "", err
		}
		h.Write([]byte("table " + t + "\n"))
		if len(cols) == 0 {
			continue
		}
		line := d.JoinText(cols)
		q := "SELECT " + line + " FROM " + d.Ident(t) + " ORDER BY " + d.OrderBytes(line)
		var s string
		err = db.Query(ctx, q, nil, func(r target.Row) error {
			if err := r.Scan(&s); err != nil {
				return err
			}
			h.Write([]byte(s))
			h.Write([]byte{'\n'})
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
