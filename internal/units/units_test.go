package units

import (
	"math"
	"strings"
	"testing"
)

func TestNum(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{0, "0"}, {0.12345, "0.123"}, {1.5, "1.50"}, {123.45, "123.5"}, {98765.4, "98765"}, {-2.5, "-2.50"},
		{math.NaN(), "-"}, {math.Inf(1), "-"},
	} {
		if got := Num(c.in); got != c.want {
			t.Errorf("Num(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestBytes(t *testing.T) {
	for _, c := range []struct {
		in   int64
		want string
	}{
		{0, "0B"}, {1023, "1023B"}, {1024, "1.0KiB"}, {4 << 20, "4.0MiB"}, {3 << 29, "1.5GiB"}, {5 << 50, "5.0PiB"},
	} {
		if got := Bytes(c.in); got != c.want {
			t.Errorf("Bytes(%d) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestRound3(t *testing.T) {
	if got := Round3(1.23456); got != 1.235 {
		t.Errorf("Round3 = %v", got)
	}
}

func TestDurationAndFormat(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit string
		want string
	}{
		{0.25, Microseconds, "250.0ns"}, {12.5, Microseconds, "12.50µs"}, {3200, Microseconds, "3.20ms"},
		{1.5, Seconds, "1.50s"}, {0, Seconds, "0s"}, {4 << 20, ByteSize, "4.0MiB"},
		{1234.4, OpsPerSecond, "1234 ops/s"}, {7, "", "7.00"}, {12, Rows, "12.00 rows"},
	} {
		if got := Format(c.v, c.unit); got != c.want {
			t.Errorf("Format(%v, %q) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
}

func TestRatesAndDirections(t *testing.T) {
	if Rate("row") != RowsPerSecond || Rate("op") != OpsPerSecond || Rate("request") != RequestsPerSecond {
		t.Errorf("rates: %s %s %s", Rate("row"), Rate("op"), Rate("request"))
	}
	if Count(RowsPerSecond) != Rows || Count(Microseconds) != Microseconds {
		t.Errorf("counts: %s %s", Count(RowsPerSecond), Count(Microseconds))
	}
	for unit, want := range map[string]Direction{
		OpsPerSecond: Higher, RowsPerSecond: Higher, Microseconds: Lower, Seconds: Lower, ByteSize: Lower, Rows: None, "": None,
	} {
		if got := Natural(unit); got != want {
			t.Errorf("Natural(%q) = %q, want %q", unit, got, want)
		}
	}
}

func TestParseCount(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1000", 1000, true}, {"1_000", 1000, true}, {"10k", 10000, true}, {"10K", 10000, true},
		{"1.5m", 1500000, true}, {"2g", 2000000000, true}, {"1e6", 1000000, true}, {" 7 ", 7, true},
		{"-3", -3, true}, {"0", 0, true},
		{"1.5", 0, false}, {"1.0001k", 0, false}, {"", 0, false}, {"k", 0, false}, {"10kb", 0, false},
		{"0x10", 0, false}, {"inf", 0, false}, {"nan", 0, false}, {"1e30", 0, false}, {"ten", 0, false},
	} {
		got, err := ParseCount(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseCount(%q) = %d, %v; want %d, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"4096", 4096, true}, {"512B", 512, true}, {"64KB", 64000, true}, {"64kb", 64000, true},
		{"64KiB", 65536, true}, {"64MB", 64000000, true}, {"64MiB", 64 << 20, true}, {"1GB", 1000000000, true},
		{"1GiB", 1 << 30, true}, {"1.5KiB", 1536, true}, {"2TiB", 2 << 40, true}, {"-64MB", -64000000, true},
		{"64m", 0, false}, {"64k", 0, false}, {"1g", 0, false}, {"0.5B", 0, false}, {"MB", 0, false},
		{"64 lots", 0, false}, {"", 0, false},
	} {
		got, err := ParseBytes(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
	if _, err := ParseBytes("64m"); err == nil || !strings.Contains(err.Error(), "64MiB") {
		t.Errorf("ParseBytes(64m) should suggest 64MB or 64MiB: %v", err)
	}
}

func TestParseNumber(t *testing.T) {
	for in, want := range map[string]float64{"0.5": 0.5, "2500": 2500, "2.5k": 2500, "1e-3": 0.001} {
		if got, err := ParseNumber(in); err != nil || got != want {
			t.Errorf("ParseNumber(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "fast", "inf", "1kb"} {
		if _, err := ParseNumber(in); err == nil {
			t.Errorf("ParseNumber(%q) accepted", in)
		}
	}
}
