package ncruces

import (
	"database/sql/driver"
	"fmt"

	"github.com/ncruces/go-sqlite3"

	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/target/ncruces/sqldriver"
)

// The database/sql driver is sqldriver, ncruces' own copied without its
// "sqlite3" registration (which would clash with mattn's); the client hands
// it to database/sql directly.
func init() {
	c := target.SQLiteSQL("ncruces", module, &sqldriver.SQLite{}, errCode)
	c.VFS = hasVFS
	c.Fence = func(conn driver.Conn, authorize bool) error {
		r, ok := conn.(interface{ Raw() *sqlite3.Conn })
		if !ok {
			return fmt.Errorf("ncruces: unexpected connection type %T", conn)
		}
		return fence(r.Raw(), authorize)
	}
	target.Register(c)
}
