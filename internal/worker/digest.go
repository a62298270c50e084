package worker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/litebench/litebench/internal/target"
)

// Digest is a content digest of every user table of the database: SHA-256
// over, for each table in name order, a line "table NAME" and then one
// line per row with SQLite's quote() of every column joined by commas,
// rows sorted by that line (bytewise). It depends on the rows only, not on the
// order they were written in nor on the file's layout, so two workers in
// any language that wrote the same rows agree. It is "sha256:" and the
// hex digest.
func Digest(ctx context.Context, db target.Execer) (string, error) {
	var tables []string
	err := db.Query(ctx, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name", nil,
		func(r target.Row) error {
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
		var a target.Args
		a.Text(t)
		err := db.Query(ctx, "SELECT name FROM pragma_table_info(?) ORDER BY cid", &a, func(r target.Row) error {
			var n string
			if err := r.Scan(&n); err != nil {
				return err
			}
			cols = append(cols, "quote("+quoteIdent(n)+")")
			return nil
		})
		if err != nil {
			return "", err
		}
		h.Write([]byte("table " + t + "\n"))
		if len(cols) == 0 {
			continue
		}
		q := "SELECT " + strings.Join(cols, "||','||") + " FROM " + quoteIdent(t) + " ORDER BY 1"
		var line string
		err = db.Query(ctx, q, nil, func(r target.Row) error {
			if err := r.Scan(&line); err != nil {
				return err
			}
			h.Write([]byte(line))
			h.Write([]byte{'\n'})
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
