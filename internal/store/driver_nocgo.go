//go:build !cgo

package store

import (
	"strings"

	"modernc.org/sqlite"
)

// Without cgo the store is written through modernc's driver, which spells
// the busy timeout as a pragma.
var storeDriver = &sqlite.Driver{}

func storeDSN(dsn string) string {
	return strings.ReplaceAll(dsn, "_busy_timeout=", "_pragma=busy_timeout%3D")
}
