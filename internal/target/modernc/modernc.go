// Package modernc registers modernc.org/sqlite (pure Go, database/sql).
package modernc

import (
	"errors"

	"modernc.org/sqlite"

	"litebench/internal/target"
)

func init() {
	target.Register(&target.SQLTarget{
		TName:   "modernc",
		TModule: "modernc.org/sqlite",
		Driver:  &sqlite.Driver{},
		DSN:     target.TxLockDSN,
		ErrCode: func(err error) int {
			var e *sqlite.Error
			if errors.As(err, &e) {
				return e.Code()
			}
			return 0
		},
	})
}
