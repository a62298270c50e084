// Package mattn registers github.com/mattn/go-sqlite3 (cgo, database/sql).
package mattn

import (
	"errors"

	sqlite3 "github.com/mattn/go-sqlite3"

	"litebench/internal/target"
)

func init() {
	target.Register(&target.SQLTarget{
		TName:   "mattn",
		TModule: "github.com/mattn/go-sqlite3",
		Driver:  &sqlite3.SQLiteDriver{},
		// Pragmas are not put in the DSN: the target layer runs them on
		// every connection, the same way for every driver.
		DSN: target.TxLockDSN,
		ErrCode: func(err error) int {
			var e sqlite3.Error
			if errors.As(err, &e) {
				return int(e.ExtendedCode)
			}
			return 0
		},
	})
}
