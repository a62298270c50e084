//go:build !ncrucessql

package ncruces

import (
	"litebench/internal/engine/sqlite"
	"litebench/internal/target"
)

func init() {
	target.RegisterUnavailable(target.Unavailable{
		Name:   "ncruces",
		Engine: sqlite.Name,
		API:    "database/sql",
		Module: module,
		Reason: "its database/sql driver and mattn's both register \"sqlite3\"; build with 'make build' (tag ncrucessql plus an -X rename) to include it",
	})
}
