// Package units names the units litebench reports figures in, says which
// way a figure of merit in each unit is better, and formats figures for
// people. It depends on nothing, so that measuring, modelling and
// presenting packages can all share it.
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Units of the figures litebench reports. A rate is a count per second
// ("rows/s"); a count is a plural noun ("rows").
const (
	Rows              = "rows"
	RowsPerSecond     = "rows/s"
	OpsPerSecond      = "ops/s"
	RequestsPerSecond = "requests/s"
	Microseconds      = "µs"
	Seconds           = "s"
	ByteSize          = "bytes"
	Cores             = "cores"
)

const perSecond = "/s"

// Rate is the unit of a count of noun per second: "row" → "rows/s", "op"
// → "ops/s".
func Rate(noun string) string { return noun + "s" + perSecond }

// Count is the unit a rate counts: "rows/s" → "rows". A unit that is not
// a rate is returned as it is.
func Count(rate string) string { return strings.TrimSuffix(rate, perSecond) }

// IsRate reports whether unit is a count per second.
func IsRate(unit string) bool { return strings.HasSuffix(unit, perSecond) }

// Direction says which way a figure is better.
type Direction string

// Directions. A figure that describes a run rather than rates it (a table
// size, the rate asked for) has None.
const (
	Higher Direction = "higher"
	Lower  Direction = "lower"
	None   Direction = ""
)

// Natural is the direction of a figure of merit in unit: rates are better
// higher, times and sizes lower; a count has none.
func Natural(unit string) Direction {
	switch {
	case IsRate(unit):
		return Higher
	case unit == Microseconds || unit == Seconds || unit == ByteSize:
		return Lower
	}
	return None
}

// Num formats a figure with at most 3 significant decimals for small
// values and none for large ones.
func Num(f float64) string {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return "-"
	case f == 0:
		return "0"
	case math.Abs(f) >= 1000:
		return strconv.FormatFloat(math.Round(f), 'f', 0, 64)
	case math.Abs(f) >= 100:
		return strconv.FormatFloat(f, 'f', 1, 64)
	case math.Abs(f) >= 1:
		return strconv.FormatFloat(f, 'f', 2, 64)
	default:
		return strconv.FormatFloat(f, 'f', 3, 64)
	}
}

// Bytes formats a size in bytes: 512B, 4.0MiB, 1.3GiB (powers of 1024,
// named as such).
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%dB", n)
	}
	f := float64(n)
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB"} {
		f /= unit
		if f < unit {
			return fmt.Sprintf("%.1f%s", f, u)
		}
	}
	return fmt.Sprintf("%.1fPiB", f/unit)
}

// Round3 rounds to three decimals, as every reported figure is.
func Round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// Duration formats a time given in microseconds in the unit that reads
// best: 250ns, 12.5µs, 3.20ms, 1.50s.
func Duration(us float64) string {
	switch a := math.Abs(us); {
	case math.IsNaN(us) || math.IsInf(us, 0):
		return "-"
	case a == 0:
		return "0s"
	case a < 1:
		return Num(us*1e3) + "ns"
	case a < 1e3:
		return Num(us) + "µs"
	case a < 1e6:
		return Num(us/1e3) + "ms"
	default:
		return Num(us/1e6) + "s"
	}
}

// Format renders v in unit for people: sizes as Bytes, times as Duration,
// anything else as Num followed by the unit.
func Format(v float64, unit string) string {
	switch unit {
	case ByteSize:
		return Bytes(int64(v))
	case Microseconds:
		return Duration(v)
	case Seconds:
		return Duration(v * 1e6)
	case "":
		return Num(v)
	}
	return Num(v) + " " + unit
}

// ParseCount parses a count as people write it: 1000, 1_000, 10k, 1.5m,
// 2g or 1e6, where k, m and g are 10³, 10⁶ and 10⁹. The result must be a
// whole number.
func ParseCount(s string) (int64, error) {
	f, err := parseScaled(s, countSuffixes)
	if err != nil {
		return 0, fmt.Errorf("%q: want a count such as 1000, 10k or 1.5m", s)
	}
	return whole(s, f, "a count")
}

// ParseNumber parses a number that may carry a count's suffix: 0.5, 2500,
// 2.5k.
func ParseNumber(s string) (float64, error) {
	f, err := parseScaled(s, countSuffixes)
	if err != nil {
		return 0, fmt.Errorf("%q: want a number such as 0.5, 2500 or 2.5k", s)
	}
	return f, nil
}

// ParseBytes parses a byte size: a plain number of bytes (4096), or one
// with a unit in either system, each with its true meaning: KB, MB, GB, TB
// are 10³, 10⁶, 10⁹, 10¹²; KiB, MiB, GiB, TiB are 2¹⁰, 2²⁰, 2³⁰, 2⁴⁰. Case
// does not matter. A bare k, m or g is refused as ambiguous.
func ParseBytes(s string) (int64, error) {
	l := strings.ToLower(strings.TrimSpace(s))
	for _, suf := range countSuffixes {
		if suf.s != "" && strings.HasSuffix(l, suf.s) {
			n := strings.TrimSuffix(strings.TrimSpace(s), s[len(s)-1:])
			return 0, fmt.Errorf("%q: say %sMB (10⁶ bytes) or %sMiB (2²⁰ bytes); a bare %s is ambiguous for a size", s, n, n, s[len(s)-1:])
		}
	}
	f, err := parseScaled(s, byteSuffixes)
	if err != nil {
		return 0, fmt.Errorf("%q: want a size such as 4096, 64MB or 64MiB", s)
	}
	return whole(s, f, "a number of bytes")
}

type suffix struct {
	s string
	m float64
}

var countSuffixes = []suffix{{"k", 1e3}, {"m", 1e6}, {"g", 1e9}}

var byteSuffixes = []suffix{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12}, {"b", 1},
}

// parseScaled parses a decimal number followed by one of sufs (or none).
func parseScaled(s string, sufs []suffix) (float64, error) {
	l := strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	for _, suf := range sufs {
		if strings.HasSuffix(l, suf.s) {
			l, mult = strings.TrimSpace(strings.TrimSuffix(l, suf.s)), suf.m
			break
		}
	}
	if l == "" || strings.ContainsAny(l, "xp") || strings.HasPrefix(strings.TrimLeft(l, "+-"), "_") {
		return 0, fmt.Errorf("not a number")
	}
	f, err := strconv.ParseFloat(l, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("not a number")
	}
	return f * mult, nil
}

// whole returns f as an integer, refusing fractions and what int64 cannot
// hold.
func whole(s string, f float64, what string) (int64, error) {
	if f != math.Trunc(f) {
		return 0, fmt.Errorf("%q: want %s, not a fraction", s, what)
	}
	if math.Abs(f) >= 1<<63 {
		return 0, fmt.Errorf("%q: too large", s)
	}
	return int64(f), nil
}
