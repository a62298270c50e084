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

// Bytes formats a size in bytes: 512B, 4.0MB, 1.3GB (powers of 1024).
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%dB", n)
	}
	f := float64(n)
	for _, u := range []string{"KB", "MB", "GB", "TB"} {
		f /= unit
		if f < unit {
			return fmt.Sprintf("%.1f%s", f, u)
		}
	}
	return fmt.Sprintf("%.1fPB", f/unit)
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
