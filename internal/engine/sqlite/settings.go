package sqlite

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/litebench/litebench/internal/settings"
)

// specs are SQLite's settings, under their flag names, in display order.
var specs = []settings.Spec{
	spec("journal", "default", "journal_mode: default (the driver's), delete, truncate, persist, memory, wal, off", settings.OneOf("default", "delete", "truncate", "persist", "memory", "wal", "off")),
	spec("sync", "default", "commit durability: default, off, normal, full, extra (or 0-3); SQLite's synchronous, mapped onto each server's (docs/engines.md)", syncCanon),
	spec("busy-timeout", "5000", "busy_timeout in milliseconds (0 = fail at once on SQLITE_BUSY)", settings.IntRange(0, 1<<31-1)),
	spec("cache-size", "default", "cache_size: pages if positive, KiB if negative", settings.OptInt(-1<<40, 1<<40)),
	spec("mmap-size", "default", "mmap_size in bytes", settings.OptInt(0, 1<<50)),
	spec("temp-store", "default", "temp_store: default, file, memory", settings.OneOf("default", "file", "memory")),
	spec("locking-mode", "default", "locking_mode: default, normal, exclusive", settings.OneOf("default", "normal", "exclusive")),
	spec("page-size", "default", "page_size in bytes, a power of two from 512 to 65536", pageSizeCanon),
	spec("shared-cache", "false", "open with cache=shared", settings.Boolean),
	spec("in-memory", "false", "in-memory database (mode=memory) instead of a file", settings.Boolean),
}

func spec(key, def, help string, canon func(string) (string, error)) settings.Spec {
	return settings.Spec{Key: key, Default: def, Help: help, Canon: canon}
}

// check rejects combinations of SQLite settings that cannot work.
func check(s settings.Settings) error {
	if s.Bool("in-memory") && journal(s) == "wal" {
		return fmt.Errorf("--journal wal needs a file: an in-memory database (--in-memory / mode=memory) cannot use WAL; drop one of them")
	}
	return nil
}

// journal returns the journal mode asked for, "" for the driver's default.
func journal(s settings.Settings) string { return orEmpty(s.Get("journal")) }

func orEmpty(v string) string {
	if v == "default" {
		return ""
	}
	return v
}

// Pragmas returns the statements to run on every new connection, in an order
// that works on a fresh file (page_size before the journal mode is set).
// Readers of a database another connection writes get only the pragmas
// that do not change the file or take its locks (no page_size, journal_mode
// or locking_mode).
func Pragmas(s settings.Settings, readers bool) []string {
	var p []string
	add := func(name, v string, forReaders bool) {
		if v = orEmpty(v); v != "" && (forReaders || !readers) {
			p = append(p, "PRAGMA "+name+" = "+v)
		}
	}
	add("page_size", s.Get("page-size"), false)
	add("busy_timeout", s.Get("busy-timeout"), true)
	add("locking_mode", s.Get("locking-mode"), false)
	add("journal_mode", s.Get("journal"), false)
	add("synchronous", s.Get("sync"), true)
	add("cache_size", s.Get("cache-size"), true)
	add("mmap_size", s.Get("mmap-size"), true)
	add("temp_store", s.Get("temp-store"), true)
	return p
}

func syncCanon(v string) (string, error) {
	switch strings.ToLower(v) {
	case "0", "off":
		return "off", nil
	case "1", "normal":
		return "normal", nil
	case "2", "full":
		return "full", nil
	case "3", "extra":
		return "extra", nil
	case "default":
		return "default", nil
	}
	return "", fmt.Errorf("want default, off, normal, full or extra (or 0-3)")
}

func pageSizeCanon(v string) (string, error) {
	if strings.ToLower(v) == "default" {
		return "default", nil
	}
	n, err := settings.ParseCount(v)
	if err != nil {
		return "", err
	}
	if n < 512 || n > 65536 || n&(n-1) != 0 {
		return "", fmt.Errorf("want a power of two from 512 to 65536")
	}
	return strconv.FormatInt(n, 10), nil
}
