package sqlite

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/units"
)

// specs are SQLite's settings, under their flag names, in display order.
var specs = []settings.Spec{
	spec("journal", "default", "journal_mode: default (the driver's), delete, truncate, persist, memory, wal, off", settings.OneOf("default", "delete", "truncate", "persist", "memory", "wal", "off")),
	spec("sync", "default", "commit durability: default, off, normal, full, extra (or 0-3); SQLite's synchronous, mapped onto each server's (docs/engines.md)", syncCanon),
	spec("busy-timeout", "5000", "busy_timeout in milliseconds (0 = fail at once on SQLITE_BUSY)", settings.IntRange(0, 1<<31-1)),
	{Key: "cache-size", Default: "default", Help: "cache_size: a size such as 64MiB or 64MB (set as SQLite's negative KiB), or pages as a plain positive number", Canon: settings.Optional(cacheSizeCanon), Show: showCacheSize},
	spec("mmap-size", "default", "mmap_size: a size such as 256MiB, or bytes", settings.Optional(settings.ByteRange(0, 1<<50))),
	spec("temp-store", "default", "temp_store: default, file, memory", settings.OneOf("default", "file", "memory")),
	spec("locking-mode", "default", "locking_mode: default, normal, exclusive", settings.OneOf("default", "normal", "exclusive")),
	spec("page-size", "default", "page_size in bytes, a power of two from 512 to 65536", pageSizeCanon),
	{Key: "foreign-keys", Default: "default", Help: "foreign_keys: default (the build's: off in SQLite's own, on in ncruces'), off (REFERENCES constraints are not enforced) or on", Canon: onOff, OmitDefault: true},
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
	add("foreign_keys", s.Get("foreign-keys"), true)
	return p
}

// onOff reads a boolean pragma's value as on or off, or default.
func onOff(v string) (string, error) {
	if strings.ToLower(v) == "default" {
		return "default", nil
	}
	b, err := settings.Boolean(v)
	if err != nil {
		return "", fmt.Errorf("want default, on or off")
	}
	if b == "true" {
		return "on", nil
	}
	return "off", nil
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
	n, err := units.ParseBytes(v)
	if err != nil {
		return "", fmt.Errorf("want a power of two from 512 to 65536 bytes")
	}
	if n < 512 || n > 65536 || n&(n-1) != 0 {
		return "", fmt.Errorf("want a power of two from 512 to 65536")
	}
	return strconv.FormatInt(n, 10), nil
}

// maxCacheBytes bounds --cache-size, so that a slip of unit (10GB for
// 10MB) is caught: every connection has a cache of its own, so a pool
// multiplies it. --mmap-size maps a file of any size instead.
const maxCacheBytes = 4 << 30

// cacheSizeCanon reads --cache-size. A plain number is SQLite's own
// cache_size: pages if positive, KiB if negative. A size (64MiB, 64MB, or
// -64MB as SQLite's sign for "not pages") is converted to negative KiB,
// rounded up. The canonical form is the value PRAGMA cache_size is set to.
func cacheSizeCanon(v string) (string, error) {
	var bytes int64
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		switch {
		case n == 0:
			return "", fmt.Errorf("0 pages leaves SQLite no cache; want a size such as 64MiB, or pages")
		case n > 0:
			bytes = n * 4096
		default:
			bytes = -n * 1024
		}
		if bytes > maxCacheBytes || bytes < 0 {
			return "", fmt.Errorf("more than %s of page cache; want at most %s", units.Bytes(maxCacheBytes), units.Bytes(maxCacheBytes))
		}
		return strconv.FormatInt(n, 10), nil
	}
	bytes, err := units.ParseBytes(strings.TrimPrefix(v, "-"))
	if err != nil {
		return "", fmt.Errorf("want a size such as 64MiB or 64MB, or SQLite's cache_size (pages if positive, KiB if negative)")
	}
	switch {
	case bytes < 1024:
		return "", fmt.Errorf("less than 1KiB; want a size such as 64MiB or 64MB")
	case bytes > maxCacheBytes:
		return "", fmt.Errorf("more than %s of page cache; want at most %s", units.Bytes(maxCacheBytes), units.Bytes(maxCacheBytes))
	}
	return strconv.FormatInt(-(bytes+1023)/1024, 10), nil
}

// showCacheSize says what a canonical cache_size sets.
func showCacheSize(canon string) string {
	n, err := strconv.ParseInt(canon, 10, 64)
	if err != nil {
		return ""
	}
	if n > 0 {
		return fmt.Sprintf("PRAGMA cache_size = %d (%d pages, %s at 4KiB pages)", n, n, units.Bytes(n*4096))
	}
	return fmt.Sprintf("PRAGMA cache_size = %d (%d KiB, %s)", n, -n, units.Bytes(-n*1024))
}
