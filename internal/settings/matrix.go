package settings

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// Axis is one dimension of a sweep: a key and the values it takes.
type Axis struct {
	Key    string
	Values []string
}

// Matrix is a base Settings plus the axes that vary; its points are the
// cartesian product of the axes, first axis outermost.
type Matrix struct {
	Base Settings
	Axes []Axis
	// Notes are what reading the settings noted for every point (a
	// parameter of a seed-style DSN left out as the seeds' driver does).
	Notes []string
}

// NewMatrix returns a matrix over the defaults with no axes.
func NewMatrix() *Matrix { return &Matrix{Base: Default()} }

// SetList parses a comma list for key. A single value changes the base; two
// or more make (or replace) an axis. Every value is validated.
func (m *Matrix) SetList(key, list string) error {
	var vals []string
	seen := map[string]bool{}
	for _, raw := range strings.Split(list, ",") {
		if strings.TrimSpace(raw) == "" {
			return fmt.Errorf("--%s %q: empty value in the list", key, list)
		}
		probe := Default()
		if err := probe.Set(key, raw); err != nil {
			return err
		}
		c := probe.Get(key)
		if !seen[c] {
			seen[c] = true
			vals = append(vals, c)
		}
	}
	m.removeAxis(key)
	if len(vals) == 1 {
		m.Base.v[key] = vals[0]
		return nil
	}
	m.Axes = append(m.Axes, Axis{Key: key, Values: vals})
	return nil
}

func (m *Matrix) removeAxis(key string) {
	for i, a := range m.Axes {
		if a.Key == key {
			m.Axes = append(m.Axes[:i], m.Axes[i+1:]...)
			return
		}
	}
}

// Varying returns the keys that take more than one value.
func (m *Matrix) Varying() []string {
	var keys []string
	for _, a := range m.Axes {
		keys = append(keys, a.Key)
	}
	return keys
}

// Size is the number of points.
func (m *Matrix) Size() int {
	n := 1
	for _, a := range m.Axes {
		n *= len(a.Values)
	}
	return n
}

// Points expands the matrix, first axis outermost.
func (m *Matrix) Points() []Settings {
	out := []Settings{m.Base.Clone()}
	for _, a := range m.Axes {
		next := make([]Settings, 0, len(out)*len(a.Values))
		for _, s := range out {
			for _, v := range a.Values {
				c := s.Clone()
				c.v[a.Key] = v
				next = append(next, c)
			}
		}
		out = next
	}
	return out
}

// DSN is the part of a seed-style --db value that is not a setting.
type DSN struct {
	Path string
	// Ignored notes the parameters left out as the seeds' driver leaves
	// them out (SQLite's URI parameters of a name without "file:").
	Ignored []string
	// Set are the settings the parameters set: key → canonical value.
	Set map[string]string
}

// ApplyDSN parses a seed-style database string such as
// "a.db?_journal=wal&_sync=0&mode=memory&cache=shared" (mattn's parameter
// names, which the seeds use) and maps every parameter onto the same settings
// for every target. It returns the file path.
//
// It reads the string as the seeds' driver does: mattn passes mode and
// cache (SQLite's own URI parameters) to SQLite only in a "file:" URI and
// drops them from a plain name, so "a.db?mode=memory" is the file a.db;
// DSN.Ignored says so.
func (m *Matrix) ApplyDSN(db string) (DSN, error) {
	path, query, _ := strings.Cut(db, "?")
	uri := strings.HasPrefix(path, "file:")
	path = strings.TrimPrefix(path, "file:")
	var ignored []string
	set := map[string]string{}
	if path == "" {
		return DSN{}, fmt.Errorf("--db %q: no file name before '?'", db)
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return DSN{}, fmt.Errorf("--db %q: malformed parameters: %v", db, err)
	}
	for name, vals := range q {
		if len(vals) == 0 {
			continue
		}
		v := vals[len(vals)-1]
		if n := strings.ToLower(name); !uri && (n == "mode" || n == "cache") {
			ignored = append(ignored, n+"="+v)
			continue
		}
		key := ""
		switch strings.ToLower(name) {
		case "_journal", "_journal_mode", "journal_mode":
			key = "journal"
		case "_sync", "_synchronous", "synchronous", "sync":
			key = "sync"
		case "_busy_timeout", "_timeout", "busy_timeout":
			key = "busy-timeout"
		case "_cache_size", "cache_size":
			key = "cache-size"
		case "_locking", "_locking_mode", "locking_mode":
			key = "locking-mode"
		case "_txlock":
			key = "tx"
		case "_mmap_size", "mmap_size":
			key = "mmap-size"
		case "_temp_store", "temp_store":
			key = "temp-store"
		case "_page_size", "page_size":
			key = "page-size"
		case "cache":
			switch strings.ToLower(v) {
			case "shared":
				v = "true"
			case "private":
				v = "false"
			default:
				return DSN{}, fmt.Errorf("--db %q: cache=%s: want shared or private", db, v)
			}
			key = "shared-cache"
		case "mode":
			switch strings.ToLower(v) {
			case "memory":
				v = "true"
			case "rwc", "rw":
				v = "false"
			default:
				return DSN{}, fmt.Errorf("--db %q: mode=%s: litebench writes its bench database, so only mode=rwc or mode=memory fit", db, v)
			}
			key = "in-memory"
		default:
			return DSN{}, fmt.Errorf("--db %q: unknown parameter %q (known: _journal, _sync, _busy_timeout, _cache_size, _locking_mode, _txlock, mode, cache)", db, name)
		}
		if err := m.SetList(key, v); err != nil {
			return DSN{}, fmt.Errorf("--db %q: %v", db, err)
		}
		set[key] = m.Base.Get(key)
	}
	d := DSN{Path: path, Set: set}
	if len(ignored) > 0 {
		sort.Strings(ignored)
		d.Ignored = append(d.Ignored, fmt.Sprintf("--db %q: %s ignored, as the seeds' driver (mattn) ignores SQLite's URI parameters without \"file:\": the run uses the file %s. For an in-memory database give --in-memory (or --db 'file:%s?mode=memory'); for a shared cache, --shared-cache",
			db, strings.Join(ignored, " and "), path, path))
		m.Notes = append(m.Notes, d.Ignored...)
	}
	return d, nil
}
