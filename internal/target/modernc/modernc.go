// Package modernc registers modernc.org/sqlite (pure Go, database/sql).
package modernc

import (
	"errors"

	"modernc.org/sqlite"

	"github.com/litebench/litebench/internal/target"
)

func init() {
	target.Register(target.SQLiteSQL("modernc", "modernc.org/sqlite", &sqlite.Driver{}, func(err error) int {
		var e *sqlite.Error
		if errors.As(err, &e) {
			return e.Code()
		}
		return 0
	}))
}
