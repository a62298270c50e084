package report

import (
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"
)

// TermWidth is the width of the terminal w writes to, or 0 when w is not
// a terminal (a file, a pipe, a buffer), which tables then do not narrow.
// COLUMNS overrides what the terminal says.
func TermWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if n, _, err := term.GetSize(int(f.Fd())); err == nil && n > 0 {
		return n
	}
	return 0
}

// lineWidth is the width of t's text lines.
func (t *Table) lineWidth() int {
	n := 0
	for i, w := range t.widths() {
		if i > 0 {
			n += 2
		}
		n += w
	}
	return n
}

// Fit returns t narrowed to width characters, if it is wider: first its
// headers are split over two lines where they are wider than their
// column; then columns that hold one value in every row are dropped,
// widest first, and named once above the table ("every row:
// workload=insert, target=mattn"); then the widest text columns are cut short
// ("…"), never below their header or 8 characters. Numbers are never
// cut. A table that still does not fit is printed in blocks of columns,
// one under the other, each led by the rows' numbers (#).
func (t *Table) Fit(width int) *Table {
	if width <= 0 || t.lineWidth() <= width {
		return t
	}
	c := t.clone()
	c.Width = width
	c.splitHeaders()
	for c.lineWidth() > width {
		i := c.widestConstant()
		if i < 0 {
			break
		}
		c.Common = append(c.Common, strings.ReplaceAll(c.Headers[i], "\n", " ")+"="+c.Rows[0][i])
		c.drop(i)
	}
	for c.lineWidth() > width {
		wd := c.widths()
		i := -1
		for j := range c.Headers {
			if !c.right(j) && wd[j] > c.minWidth(j) && (i < 0 || wd[j] > wd[i]) {
				i = j
			}
		}
		if i < 0 {
			break
		}
		keep := max(wd[i]-(c.lineWidth()-width), c.minWidth(i))
		for _, r := range c.Rows {
			if i < len(r) && runeLen(r[i]) > keep {
				r[i] = string([]rune(r[i])[:keep-1]) + "…"
			}
		}
	}
	if c.lineWidth() > width {
		c.blocks = c.split(width)
	}
	return c
}

// split parts t's columns into blocks that fit width, each led by a
// column of row numbers.
func (t *Table) split(width int) []*Table {
	wd := t.widths()
	num := len(strconv.Itoa(len(t.Rows)))
	var out []*Table
	var cur *Table
	used := 0
	for i, h := range t.Headers {
		if cur == nil || used+2+wd[i] > width {
			cur = &Table{Headers: []string{"#"}, Right: []bool{true}}
			for k := range t.Rows {
				cur.Rows = append(cur.Rows, []string{strconv.Itoa(k + 1)})
			}
			out = append(out, cur)
			used = max(num, 1)
		}
		cur.Headers = append(cur.Headers, h)
		cur.Right = append(cur.Right, t.right(i))
		for k, r := range t.Rows {
			v := ""
			if i < len(r) {
				v = r[i]
			}
			cur.Rows[k] = append(cur.Rows[k], v)
		}
		used += 2 + wd[i]
	}
	return out
}

func (t *Table) clone() *Table {
	c := *t
	c.Headers = append([]string(nil), t.Headers...)
	c.Right = append([]bool(nil), t.Right...)
	c.Common = append([]string(nil), t.Common...)
	c.Rows = make([][]string, len(t.Rows))
	for i, r := range t.Rows {
		c.Rows[i] = append([]string(nil), r...)
	}
	return &c
}

// splitHeaders puts a header wider than its column's cells on two lines,
// split at the space that leaves the longer line shortest.
func (t *Table) splitHeaders() {
	for i, h := range t.Headers {
		cells := 0
		for _, r := range t.Rows {
			if i < len(r) {
				cells = max(cells, runeLen(r[i]))
			}
		}
		if runeLen(h) <= cells || !strings.Contains(h, " ") {
			continue
		}
		best, at := runeLen(h), -1
		for j, ch := range h {
			if ch == ' ' {
				if w := max(runeLen(h[:j]), runeLen(h[j+1:])); w < best {
					best, at = w, j
				}
			}
		}
		if at >= 0 {
			t.Headers[i] = h[:at] + "\n" + h[at+1:]
		}
	}
}

// widestConstant is the widest column that has one value in every row of
// two or more, or -1.
func (t *Table) widestConstant() int {
	if len(t.Rows) < 2 {
		return -1
	}
	wd := t.widths()
	best := -1
	for i := range t.Headers {
		same := true
		for _, r := range t.Rows {
			same = same && i < len(r) && i < len(t.Rows[0]) && r[i] == t.Rows[0][i]
		}
		if same && (best < 0 || wd[i] > wd[best]) {
			best = i
		}
	}
	return best
}

func (t *Table) drop(i int) {
	t.Headers = append(t.Headers[:i], t.Headers[i+1:]...)
	if i < len(t.Right) {
		t.Right = append(t.Right[:i], t.Right[i+1:]...)
	}
	for k, r := range t.Rows {
		if i < len(r) {
			t.Rows[k] = append(r[:i], r[i+1:]...)
		}
	}
}

// minWidth is the narrowest a text column is cut to: its header's widest
// line, and at least 8.
func (t *Table) minWidth(i int) int {
	w := 8
	for _, l := range strings.Split(t.Headers[i], "\n") {
		w = max(w, runeLen(l))
	}
	return w
}
