package report

// A small kit for the report's charts, drawn here as SVG: scales (linear
// and log), round ticks labelled for their unit, text widths estimated
// without a browser, and a colour-blind-safe palette. Every chart keeps
// its marks inside its plot area: the scales' domains cover every value
// drawn, and the plot is clipped besides.

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/litebench/litebench/internal/units"
)

// palette is Okabe and Ito's eight colours, which stay distinct under the
// common forms of colour blindness; yellow, the faintest on white, last.
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442"}

// maxSeries is the most lines or colours one panel draws; more are split
// into panels of their own (facets).
const maxSeries = 8

func colour(i int) string { return palette[i%len(palette)] }

// fontPx is the size of every chart text; charWidth estimates its glyphs.
const fontPx = 12

// advance holds DejaVu Sans' advance widths (1/2048 em) of printable
// ASCII, the widest of the usual sans-serif faces (Verdana's are close), so
// that estimated widths are upper bounds where another face is used.
var advance = [95]uint16{
	651, 823, 942, 1716, 1303, 1946, 1597, 563, 799, 799, 1024, 1716, 651, 739, 651, 690, // ' '…'/'
	1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, // digits
	690, 690, 1716, 1716, 1716, 1087, 2048, // ':'…'@'
	1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604, 604, 1343, 1141, 1767, 1532, 1612, 1235, 1612, 1423, 1300, 1251, 1499, 1401, 2025, 1403, 1251, 1403,
	799, 690, 799, 1716, 1024, 1024, // '['…'`'
	1255, 1300, 1126, 1300, 1260, 721, 1300, 1298, 569, 569, 1186, 569, 1995, 1298, 1253, 1300, 1300, 842, 1067, 803, 1298, 1212, 1675, 1212, 1212, 1075,
	1303, 690, 1303, 1716, // '{'…'~'
}

// textWidth estimates the width in pixels of s at size px.
func textWidth(s string, px float64) float64 {
	var w float64
	for _, r := range s {
		a := 1400.0 // anything outside ASCII: µ, ×, ±, …, letters of other scripts
		if r >= ' ' && r <= '~' {
			a = float64(advance[r-' '])
		}
		w += a
	}
	return w / 2048 * px * 1.04
}

// scale maps values onto pixels, linearly or by their logarithm.
type scale struct {
	lo, hi float64 // domain
	a, b   float64 // pixels of lo and hi
	log    bool
}

func (s scale) px(v float64) float64 {
	lo, hi := s.lo, s.hi
	if s.log {
		v = math.Log10(math.Max(v, s.lo))
		lo, hi = math.Log10(lo), math.Log10(hi)
	}
	v = math.Min(math.Max(v, lo), hi)
	return s.a + (s.b-s.a)*(v-lo)/(hi-lo)
}

// spansDecade reports whether the positive values of vs span more than
// 10×, with none at zero or below: the axes that are drawn on a log scale.
func spansDecade(vs []float64) bool {
	lo, hi := math.Inf(1), 0.0
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		if v <= 0 {
			return false
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return hi > 0 && hi/lo > 10
}

// axis is the domain and ticks of one value axis.
type axis struct {
	lo, hi float64
	log    bool
	ticks  []float64
}

// valueAxis covers vs: from zero (or, on a log scale, from a round value
// at or below the least) to a round value at or above the greatest. Sizes
// in bytes get steps round in their binary unit (16 MiB, not 16.8 MB).
func valueAxis(vs []float64, log bool, unit string) axis {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) || (log && v <= 0) {
			continue
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if math.IsInf(hi, -1) {
		lo, hi = 0, 1
	}
	if log {
		a := axis{lo: round125(lo, false), hi: round125(hi, true), log: true}
		if a.hi <= a.lo {
			a.hi = a.lo * 10
		}
		a.ticks = logTicks(a.lo, a.hi)
		return a
	}
	lo = math.Min(lo, 0)
	if hi <= lo {
		hi = lo + 1
	}
	base := 1.0
	if unit == units.ByteSize {
		for base*1024 <= hi {
			base *= 1024
		}
	}
	step := niceStep((hi-lo)/base/5) * base
	if unit == units.ByteSize {
		step = math.Max(step, 1) // no fraction of a byte
	}
	a := axis{lo: lo, hi: math.Ceil(hi/step-1e-9) * step}
	for v := lo; v <= a.hi+step*1e-6; v += step {
		a.ticks = append(a.ticks, math.Round(v/step)*step)
	}
	return a
}

// round125 rounds v down (or up) to 1, 2 or 5 times a power of ten.
func round125(v float64, up bool) float64 {
	d := math.Pow(10, math.Floor(math.Log10(v)))
	if up {
		for _, m := range []float64{1, 2, 5, 10} {
			if m*d >= v*(1-1e-9) {
				return m * d
			}
		}
	}
	for _, m := range []float64{5, 2, 1} {
		if m*d <= v*(1+1e-9) {
			return m * d
		}
	}
	return d
}

// niceStep rounds raw up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*mag*(1+1e-9) {
			return m * mag
		}
	}
	return 10 * mag
}

// logTicks are the powers of ten from lo to hi, with 2× and 5× between
// them when the axis spans fewer than three decades.
func logTicks(lo, hi float64) []float64 {
	var out []float64
	few := hi/lo < 1000*1.0001
	for d := math.Pow(10, math.Floor(math.Log10(lo))); d <= hi*1.0001; d *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if (m == 1 || few) && m*d >= lo*0.9999 && m*d <= hi*1.0001 {
				out = append(out, m*d)
			}
		}
	}
	return out
}

func (a axis) scale(px0, px1 float64) scale {
	return scale{lo: a.lo, hi: a.hi, a: px0, b: px1, log: a.log}
}

// sig3 renders v with at most three significant digits, trailing zeros
// dropped: 1250 → "1250", 2.50 → "2.5", 0.125 → "0.125".
func sig3(v float64) string {
	if v == 0 {
		return "0"
	}
	d := 2 - int(math.Floor(math.Log10(math.Abs(v))))
	if d < 0 {
		p := math.Pow(10, float64(-d))
		return strconv.FormatFloat(math.Round(v/p)*p, 'f', 0, 64)
	}
	s := strconv.FormatFloat(v, 'f', d, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// tick labels a value of unit for an axis or a label: 1.2k, 64 MiB,
// 250 µs, 1.5 s. Counts and rates get SI prefixes; the unit itself is left
// to the axis title, except for sizes and times whose prefix is the unit.
func tick(v float64, unit string) string {
	switch unit {
	case units.ByteSize:
		return iec(v)
	case units.Microseconds:
		return duration(v)
	case units.Seconds:
		return duration(v * 1e6)
	}
	return si(v)
}

// si renders v with a k, M or G prefix: 950, 1.2k, 3.4M.
func si(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return sig3(v/1e9) + "G"
	case a >= 1e6:
		return sig3(v/1e6) + "M"
	case a >= 1e3:
		return sig3(v/1e3) + "k"
	}
	return sig3(v)
}

// iec renders a size in bytes with binary prefixes: 512 B, 64 MiB.
func iec(v float64) string {
	for i, u := range []string{"B", "KiB", "MiB", "GiB", "TiB"} {
		if math.Abs(v) < 1024 || i == 4 {
			return sig3(v) + " " + u
		}
		v /= 1024
	}
	return ""
}

// duration renders microseconds as ns, µs, ms or s.
func duration(us float64) string {
	a := math.Abs(us)
	switch {
	case a == 0:
		return "0"
	case a < 1:
		return sig3(us*1e3) + " ns"
	case a < 1e3:
		return sig3(us) + " µs"
	case a < 1e6:
		return sig3(us/1e3) + " ms"
	}
	return sig3(us/1e6) + " s"
}

// value renders a figure with its unit for people: "109k rows/s",
// "64 MiB", "1.2 ms".
func value(v float64, unit string) string {
	switch unit {
	case units.ByteSize, units.Microseconds, units.Seconds:
		return tick(v, unit)
	case "":
		return si(v)
	}
	return si(v) + " " + unit
}

// svg accumulates one chart.
type svg struct {
	b    strings.Builder
	w, h float64
}

func (s *svg) printf(format string, args ...any) { fmt.Fprintf(&s.b, format, args...) }

// text writes a text element; anchor is start, middle or end.
func (s *svg) text(x, y float64, anchor, class, txt string) {
	s.printf(`<text x="%.1f" y="%.1f" text-anchor="%s" class="%s">%s</text>`, x, y, anchor, class, html.EscapeString(txt))
}

// open starts the chart element: its size, its accessible name and a
// clip path for its plot area.
func (s *svg) open(class, label string, clip int, px, py, pw, ph float64) {
	s.printf(`<svg class="chart %s" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img" aria-label="%s">`,
		class, s.w, s.h, s.w, s.h, html.EscapeString(label))
	s.printf(`<defs><clipPath id="clip%d"><rect x="%.1f" y="%.1f" width="%.1f" height="%.1f"/></clipPath></defs>`, clip, px, py, pw, ph)
	s.printf(`<rect class="plot-area" x="%.1f" y="%.1f" width="%.1f" height="%.1f"/>`, px, py, pw, ph)
}

func (s *svg) close() string {
	s.b.WriteString("</svg>")
	return s.b.String()
}

// xTicks draws vertical grid lines and their labels below the plot from
// y0 to y1, skipping a label that would run into the one before it.
func (s *svg) xTicks(sc scale, ts []float64, label func(float64) string, y0, y1 float64) {
	last := math.Inf(-1)
	for _, t := range ts {
		x := sc.px(t)
		s.printf(`<line class="grid" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>`, x, x, y0, y1)
		l := label(t)
		w := textWidth(l, fontPx)
		left := x - w/2
		if left < last+6 || left < 1 || x+w/2 > s.w-1 {
			continue
		}
		last = x + w/2
		s.text(x, y1+14, "middle", "tick", l)
	}
}

// yTicks draws horizontal grid lines and their labels left of the plot,
// skipping a label that would overlap the one below it.
func (s *svg) yTicks(sc scale, ts []float64, label func(float64) string, x0, x1 float64) {
	last := math.Inf(1)
	for _, t := range ts {
		y := sc.px(t)
		s.printf(`<line class="grid" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"/>`, x0, x1, y, y)
		if y > last-fontPx-1 {
			continue
		}
		last = y
		s.text(x0-6, y+4, "end", "tick", label(t))
	}
}

// yTickWidth is the width the labels of ts need left of a plot.
func yTickWidth(ts []float64, label func(float64) string) float64 {
	w := 0.0
	for _, t := range ts {
		w = math.Max(w, textWidth(label(t), fontPx))
	}
	return w
}

// path is an SVG path through pts.
func path(pts [][2]float64) string {
	var b strings.Builder
	for i, p := range pts {
		if i == 0 {
			b.WriteByte('M')
		} else {
			b.WriteByte('L')
		}
		b.WriteString(strconv.FormatFloat(p[0], 'f', 1, 64))
		b.WriteByte(' ')
		b.WriteString(strconv.FormatFloat(p[1], 'f', 1, 64))
	}
	return b.String()
}

// runeLen is the number of characters of s.
func runeLen(s string) int { return utf8.RuneCountInString(s) }
