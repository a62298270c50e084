//go:build !cgo

// Package mattn registers github.com/mattn/go-sqlite3 (cgo, database/sql).
// This build has no cgo, so the target is listed as unavailable.
package mattn

import (
	"github.com/litebench/litebench/internal/engine/sqlite"
	"github.com/litebench/litebench/internal/target"
)

func init() {
	target.RegisterUnavailable(target.Unavailable{
		Name:   "mattn",
		Engine: sqlite.Name,
		API:    "database/sql",
		Module: "github.com/mattn/go-sqlite3",
		Reason: "it needs cgo and this litebench was built with CGO_ENABLED=0; rebuild with cgo and a C compiler (CGO_ENABLED=1 go install …)",
	})
}
