//go:build ncrucessql

package ncruces

import (
	"github.com/ncruces/go-sqlite3/driver"

	"litebench/internal/target"
)

// ncruces' database/sql driver registers itself as "sqlite3" in init, as
// mattn's does; a binary that holds both must be linked with
//
//	-ldflags '-X github.com/ncruces/go-sqlite3/driver.driverName=litebench-ncruces'
//
// which 'make build' and the test script do. The client below does not use
// the registered name: it hands the driver to database/sql directly.
func init() {
	c := target.SQLiteSQL("ncruces", module, &driver.SQLite{}, errCode)
	c.VFS = hasVFS
	target.Register(c)
}
