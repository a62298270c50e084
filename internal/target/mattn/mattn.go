// Package mattn registers github.com/mattn/go-sqlite3 (cgo, database/sql).
package mattn

import (
	"errors"

	sqlite3 "github.com/mattn/go-sqlite3"

	"litebench/internal/target"
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
