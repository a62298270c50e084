package units

import (
	"math"
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
		{0, "0B"}, {1023, "1023B"}, {1024, "1.0KB"}, {4 << 20, "4.0MB"}, {3 << 29, "1.5GB"}, {5 << 50, "5.0PB"},
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
		{1.5, Seconds, "1.50s"}, {0, Seconds, "0s"}, {4 << 20, ByteSize, "4.0MB"},
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
