// Package settings holds everything tunable about a run, parses it from
// flags and seed-style DSNs, and expands comma lists into a sweep matrix.
//
// Settings are of two kinds. Application-side settings (pool, prepared
// statements, batches, transactions, the single writer, the write mutex,
// busy retries) are defined here and apply to every engine. Engine-side
// settings (SQLite's pragmas) are contributed by their engine with
// Register, under their flag names, and say which engine they belong to.
//
// A Settings value is a flat, ordered set of key=value strings. Keeping the
// values as canonical strings (validated on the way in) makes every setting a
// pivot axis for reports and a stable key in the results store, while the
// typed accessors below give the runner what it needs.
package settings

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/litebench/litebench/internal/units"
)

// Spec describes one setting: its key (also its flag name), its default and
// how to canonicalise a user-supplied value.
type Spec struct {
	Key     string
	Default string
	Help    string
	// Canon returns the canonical form of v or an error naming the fix.
	Canon func(v string) (string, error)
	// Engine is the engine the setting belongs to ("" for an
	// application-side setting, which every engine honours).
	Engine string
	// Show, when set, says what a canonical value sets, for a value given
	// in another form ("64MiB" → "PRAGMA cache_size = -65536 (64.0MiB)").
	Show func(canon string) string
	// OmitDefault sends the setting to a worker only when it is not at
	// its default: a worker of another language that does not know it
	// runs the default without being told, and refuses any other value
	// as an unknown setting.
	OmitDefault bool
}

// Specs lists every setting in display order: the engines' settings, then
// the application-side ones.
var Specs = appSpecs

var appSpecs = []Spec{
	{Key: "pool", Default: "0", Help: "max open connections (0 = unlimited)", Canon: IntRange(0, 1<<20)},
	{Key: "conn-per-op", Default: "false", Help: "open a new connection for every operation", Canon: Boolean},
	{Key: "prepared", Default: "true", Help: "reuse prepared statements (false = prepare every statement ad hoc)", Canon: Boolean},
	{Key: "batch", Default: "1000", Help: "rows per transaction (1 = autocommit, one row per transaction)", Canon: IntRange(1, 1<<30)},
	{Key: "rows-per-stmt", Default: "1", Help: "rows per INSERT statement (multi-row VALUES); given without --batch, one statement per transaction", Canon: IntRange(1, 1<<20)},
	{Key: "tx", Default: "deferred", Help: "transaction begin mode: deferred, immediate, exclusive (immediate and exclusive begin every write, even a single statement)", Canon: OneOf("deferred", "immediate", "exclusive")},
	{Key: "write-mutex", Default: "false", Help: "serialise writes behind one application-level mutex (as go-sqlite-bench does)", Canon: Boolean},
	{Key: "writer", Default: "pool", Help: "where writes go: pool (any connection) or single (one dedicated writer connection; reads use the pool)", Canon: OneOf("pool", "single")},
	{Key: "busy-retry", Default: "none", Help: "on SQLITE_BUSY/LOCKED: none, N (retry N times at once), until (retry at once until it succeeds or the run ends: a tight spin, as the seeds did), backoff or backoff:MIN..MAX (retry until it succeeds, waiting MIN·2^n with jitter, at most MAX; backoff is backoff:1ms..100ms)", Canon: busyRetryCanon},
	{Key: "placement", Default: "in-process", Help: "where the client runs: in-process, or process (a 'litebench worker' child process speaking the worker protocol)", Canon: OneOf("in-process", "process")},
}

// checks are the engines' checks of combinations of their settings.
var checks []func(Settings) error

// Register adds an engine's settings before the application-side ones, in
// the order given, and check, which rejects combinations no single value
// can (nil for none). Engines call it in init.
func Register(engine string, specs []Spec, check func(Settings) error) {
	var eng []Spec
	for _, sp := range Specs {
		if sp.Engine != "" {
			eng = append(eng, sp)
		}
	}
	for _, sp := range specs {
		if specByKey[sp.Key] != nil {
			panic("settings: duplicate " + sp.Key)
		}
		sp.Engine = engine
		eng = append(eng, sp)
	}
	Specs = append(eng, appSpecs...)
	specByKey = index(Specs)
	if check != nil {
		checks = append(checks, check)
	}
}

var specByKey = index(Specs)

func index(specs []Spec) map[string]*Spec {
	m := make(map[string]*Spec, len(specs))
	for i := range specs {
		m[specs[i].Key] = &specs[i]
	}
	return m
}

// Lookup returns the spec for key, or nil.
func Lookup(key string) *Spec { return specByKey[key] }

// Settings is one fully specified point of the matrix.
type Settings struct {
	v map[string]string
}

// Default returns settings with every default applied.
func Default() Settings {
	s := Settings{v: make(map[string]string, len(Specs))}
	for _, sp := range Specs {
		s.v[sp.Key] = sp.Default
	}
	return s
}

// Get returns the canonical value of key.
func (s Settings) Get(key string) string { return s.v[key] }

// Set validates and stores value under key.
func (s Settings) Set(key, value string) error {
	sp := specByKey[key]
	if sp == nil {
		return fmt.Errorf("unknown setting %q (see 'litebench help settings')", key)
	}
	c, err := sp.Canon(strings.TrimSpace(value))
	if err != nil {
		return fmt.Errorf("--%s %q: %v", key, value, err)
	}
	s.v[key] = c
	return nil
}

// Clone returns an independent copy.
func (s Settings) Clone() Settings {
	c := Settings{v: make(map[string]string, len(s.v))}
	for k, v := range s.v {
		c.v[k] = v
	}
	return c
}

// Map returns a copy of every setting as key → canonical value.
func (s Settings) Map() map[string]string {
	m := make(map[string]string, len(s.v))
	for k, v := range s.v {
		m[k] = v
	}
	return m
}

// FromMap rebuilds settings from a stored map; unknown keys are kept so that
// results written by newer versions still load.
func FromMap(m map[string]string) Settings {
	s := Default()
	for k, v := range m {
		s.v[k] = v
	}
	return s
}

// Keys returns the setting keys in display order, followed by any extra keys.
func (s Settings) Keys() []string {
	keys := make([]string, 0, len(s.v))
	seen := map[string]bool{}
	for _, sp := range Specs {
		keys = append(keys, sp.Key)
		seen[sp.Key] = true
	}
	var extra []string
	for k := range s.v {
		if !seen[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	return append(keys, extra...)
}

// Typed accessors.

func (s Settings) Int(key string) int {
	n, _ := strconv.Atoi(s.v[key])
	return n
}

func (s Settings) Bool(key string) bool { return s.v[key] == "true" }

// BusyRetries returns how many times a busy operation is retried; -1 means
// until it succeeds or the run ends.
func (s Settings) BusyRetries() int {
	switch v := s.v["busy-retry"]; v {
	case "none":
		return 0
	case "until":
		return -1
	default:
		if strings.HasPrefix(v, "backoff") {
			return -1
		}
		n, _ := strconv.Atoi(v)
		return n
	}
}

// BusyBackoff is --busy-retry backoff's shortest and longest wait (ok
// false for the other forms, which retry at once).
func (s Settings) BusyBackoff() (min, max time.Duration, ok bool) {
	v, found := strings.CutPrefix(s.v["busy-retry"], "backoff:")
	if !found {
		return 0, 0, false
	}
	lo, hi, _ := strings.Cut(v, "..")
	min, _ = time.ParseDuration(lo)
	max, _ = time.ParseDuration(hi)
	return min, max, true
}

// String renders the settings that differ from the defaults, for labels.
func (s Settings) String() string {
	var parts []string
	for _, sp := range Specs {
		if v := s.v[sp.Key]; v != sp.Default {
			parts = append(parts, sp.Key+"="+v)
		}
	}
	if len(parts) == 0 {
		return "defaults"
	}
	return strings.Join(parts, " ")
}

// Validate checks combinations that no single value can reject.
func (s Settings) Validate() error {
	for _, c := range checks {
		if err := c(s); err != nil {
			return err
		}
	}
	return nil
}

// Canonicalisers, for the settings here and the engines'.

// OneOf accepts one of vals, in any case.
func OneOf(vals ...string) func(string) (string, error) {
	return func(v string) (string, error) {
		l := strings.ToLower(v)
		for _, x := range vals {
			if l == x {
				return x, nil
			}
		}
		return "", fmt.Errorf("want one of %s", strings.Join(vals, ", "))
	}
}

// Boolean accepts true or false and their usual spellings.
func Boolean(v string) (string, error) {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on", "y":
		return "true", nil
	case "0", "false", "no", "off", "n":
		return "false", nil
	}
	return "", fmt.Errorf("want true or false")
}

// IntRange accepts a count (1000, 10k, 1.5m) from lo to hi.
func IntRange(lo, hi int64) func(string) (string, error) {
	return func(v string) (string, error) {
		n, err := units.ParseCount(v)
		if err != nil {
			return "", fmt.Errorf("want a whole number such as 1000, 10k or 1.5m")
		}
		return inRange(n, lo, hi, strconv.FormatInt)
	}
}

// ByteRange accepts a byte size (4096, 64KiB, 64MB) from lo to hi bytes.
func ByteRange(lo, hi int64) func(string) (string, error) {
	return func(v string) (string, error) {
		n, err := units.ParseBytes(v)
		if err != nil {
			return "", fmt.Errorf("want a size such as 4096, 64MiB or 64MB")
		}
		return inRange(n, lo, hi, func(n int64, _ int) string { return units.Bytes(n) })
	}
}

// inRange returns n in canonical form, or says the range in the form the
// values are written in.
func inRange(n, lo, hi int64, show func(int64, int) string) (string, error) {
	switch {
	case n >= lo && n <= hi:
		return strconv.FormatInt(n, 10), nil
	case lo == 1 && n < lo:
		return "", fmt.Errorf("must be at least 1")
	}
	return "", fmt.Errorf("must be between %s and %s", show(lo, 10), show(hi, 10))
}

// Optional makes a canonicaliser that also accepts "default".
func Optional(r func(string) (string, error)) func(string) (string, error) {
	return func(v string) (string, error) {
		if strings.ToLower(v) == "default" {
			return "default", nil
		}
		return r(v)
	}
}

func busyRetryCanon(v string) (string, error) {
	switch l := strings.ToLower(v); l {
	case "none", "0":
		return "none", nil
	case "until", "forever", "timeout":
		return "until", nil
	case "backoff":
		return "backoff:1ms..100ms", nil
	default:
		if r, ok := strings.CutPrefix(l, "backoff:"); ok {
			lo, hi, ok := strings.Cut(r, "..")
			min, err1 := time.ParseDuration(lo)
			max, err2 := time.ParseDuration(hi)
			if !ok || err1 != nil || err2 != nil || min <= 0 || max < min || max > 10*time.Second {
				return "", fmt.Errorf("want backoff:MIN..MAX, two durations with 0 < MIN <= MAX <= 10s, such as backoff:1ms..100ms")
			}
			return "backoff:" + min.String() + ".." + max.String(), nil
		}
		n, err := strconv.Atoi(l)
		if err != nil || n < 0 {
			return "", fmt.Errorf("want none, a retry count, until, or backoff[:MIN..MAX]")
		}
		return strconv.Itoa(n), nil
	}
}

// ParseCount parses a count such as 1000, 10k or 1.5m (units.ParseCount).
func ParseCount(v string) (int64, error) { return units.ParseCount(v) }

// ParseSize parses a byte size such as 4096, 64MiB or 64MB
// (units.ParseBytes).
func ParseSize(v string) (int64, error) { return units.ParseBytes(v) }
