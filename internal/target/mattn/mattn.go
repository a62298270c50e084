//go:build cgo

// Package mattn registers github.com/mattn/go-sqlite3 (cgo, database/sql).
// Built without cgo (CGO_ENABLED=0) it registers the target as unavailable.
package mattn

import (
	"database/sql/driver"
	"errors"
	"fmt"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/litebench/litebench/internal/sqlfence"
	"github.com/litebench/litebench/internal/target"
)

func init() {
	c := target.SQLiteSQL("mattn", "github.com/mattn/go-sqlite3", &sqlite3.SQLiteDriver{}, func(err error) int {
		var e sqlite3.Error
		if errors.As(err, &e) {
			return int(e.ExtendedCode)
		}
		return 0
	})
	c.Fence = fence
	target.Register(c)
}

// fence confines a connection to its database: mattn exposes both the
// authorizer and sqlite3_limit.
func fence(conn driver.Conn, authorize bool) error {
	c, ok := conn.(*sqlite3.SQLiteConn)
	if !ok {
		return fmt.Errorf("mattn: unexpected connection type %T", conn)
	}
	if authorize {
		c.RegisterAuthorizer(func(action int, arg1, arg2, _ string) int {
			return sqlfence.Authorize(action, arg1, arg2)
		})
	}
	c.SetLimit(sqlite3.SQLITE_LIMIT_ATTACHED, sqlfence.AttachLimit)
	return nil
}
