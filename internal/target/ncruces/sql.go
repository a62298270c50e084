package ncruces

import (
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/target/ncruces/sqldriver"
)

// The database/sql driver is sqldriver, ncruces' own copied without its
// "sqlite3" registration (which would clash with mattn's); the client hands
// it to database/sql directly.
func init() {
	c := target.SQLiteSQL("ncruces", module, &sqldriver.SQLite{}, errCode)
	c.VFS = hasVFS
	target.Register(c)
}
