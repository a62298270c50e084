// Package sqldriver is ncruces' database/sql driver for SQLite
// (github.com/ncruces/go-sqlite3/driver, v0.35.6, MIT licence: LICENSE),
// copied with one change: it registers no driver name in init.
//
// The original registers "sqlite3", as mattn's driver does, and two
// registrations of one name panic; a binary holding both needed an -X
// linker rename, which 'go install MODULE@VERSION' cannot pass. With this
// copy 'go install' gives every in-process target. Other differences: the
// internal error values are local constants, and the JSON and pointer
// argument wrappers (internal to the original module) are not accepted.
// Update it together with the go-sqlite3 requirement in go.mod.
package sqldriver
