//go:build cgo

// Package mattn registers github.com/mattn/go-sqlite3 (cgo, database/sql).
// Built without cgo (CGO_ENABLED=0) it registers the target as unavailable.
package mattn

import (
	"errors"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/litebench/litebench/internal/target"
)

func init() {
	target.Register(target.SQLiteSQL("mattn", "github.com/mattn/go-sqlite3", &sqlite3.SQLiteDriver{}, func(err error) int {
		var e sqlite3.Error
		if errors.As(err, &e) {
			return int(e.ExtendedCode)
		}
		return 0
	}))
}
