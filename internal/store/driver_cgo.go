//go:build cgo

package store

import sqlite3 "github.com/mattn/go-sqlite3"

// The store is written through mattn's driver when cgo is there.
var storeDriver = &sqlite3.SQLiteDriver{}

func storeDSN(dsn string) string { return dsn }
