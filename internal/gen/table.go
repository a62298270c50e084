package gen

import (
	"fmt"
	"strconv"
)

// Column is a named column and its generator.
type Column struct {
	Name string
	Gen  Generator
}

// Value is a generated value: Text for a text column, Int for an integer
// column.
type Value struct {
	Text []byte
	Int  int64
}

// Table is a checked list of columns, ready to generate rows.
type Table struct {
	cols   []Column
	text   []bool
	src    []int   // SHA256Of: the source column's position
	zipf   []*Zipf // ZipfInt, LatestInt: its prepared distribution
	maxLen int
}

// Compile checks cols and prepares them: names are distinct, parameters in
// range, a SHA256Of names an earlier column.
func Compile(cols []Column) (*Table, error) {
	t := &Table{cols: cols, text: make([]bool, len(cols)), src: make([]int, len(cols)), zipf: make([]*Zipf, len(cols))}
	pos := map[string]int{}
	for k, c := range cols {
		if c.Name == "" {
			return nil, fmt.Errorf("column %d has no name", k+1)
		}
		if _, dup := pos[c.Name]; dup {
			return nil, fmt.Errorf("column %q appears twice", c.Name)
		}
		n, err := t.check(k, pos)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", c.Name, err)
		}
		t.maxLen += n
		pos[c.Name] = k
	}
	return t, nil
}

// MustCompile is Compile for columns known to be right.
func MustCompile(cols ...Column) *Table {
	t, err := Compile(cols)
	if err != nil {
		panic(err)
	}
	return t
}

// MaxValueLen is the most bytes a text generator makes for one value: every
// worker holds a row, a batch of them, in memory, and SQLite refuses values
// past SQLITE_MAX_LENGTH (10^9) anyway. 16 MiB keeps a batch of 100 rows
// of the largest value under 2 GB.
const MaxValueLen = 16 << 20

// check validates column k and returns the most bytes its text takes (0
// for an integer column).
func (t *Table) check(k int, pos map[string]int) (int, error) {
	text := func(n int) (int, error) {
		t.text[k] = true
		return n, nil
	}
	switch g := t.cols[k].Gen.(type) {
	case Seq, ConstInt:
	case UniformInt:
		if g.Lo > g.Hi {
			return 0, fmt.Errorf("uniform_int lo %d is above hi %d", g.Lo, g.Hi)
		}
	case ZipfInt:
		if g.N < 1 || !(g.Theta > 0 && g.Theta < 1) {
			return 0, fmt.Errorf("zipf_int wants n ≥ 1 and 0 < theta < 1, not n %d theta %v", g.N, g.Theta)
		}
		t.zipf[k] = NewZipf(g.N, g.Theta)
	case LatestInt:
		if g.N < 1 || !(g.Theta > 0 && g.Theta < 1) {
			return 0, fmt.Errorf("latest_int wants n ≥ 1 and 0 < theta < 1, not n %d theta %v", g.N, g.Theta)
		}
		t.zipf[k] = NewZipf(g.N, g.Theta)
	case Timestamp:
		switch g.Format {
		case UnixMilli:
		case RFC3339Nano:
			return text(len("2006-01-02T15:04:05.999999999Z"))
		default:
			return 0, fmt.Errorf("timestamp format %q: want %s or %s", g.Format, RFC3339Nano, UnixMilli)
		}
	case Hex:
		if g.Bytes < 1 || g.Bytes > MaxValueLen/2 {
			return 0, fmt.Errorf("hex wants bytes from 1 to %d (values up to %d bytes, the limit), not %d", MaxValueLen/2, MaxValueLen, g.Bytes)
		}
		return text(2 * g.Bytes)
	case Letters:
		if g.Len < 0 || g.Len > MaxValueLen {
			return 0, fmt.Errorf("letters wants len from 0 to %d (the limit of a value's bytes), not %d", MaxValueLen, g.Len)
		}
		return text(g.Len)
	case Text:
		if g.Min < 0 || g.Max < g.Min || g.Max-g.Min >= 1<<24 {
			return 0, fmt.Errorf("text wants 0 ≤ min ≤ max < min + 2^24, not min %d max %d", g.Min, g.Max)
		}
		if g.Max > MaxValueLen {
			return 0, fmt.Errorf("text wants max ≤ %d (the limit of a value's bytes), not %d", MaxValueLen, g.Max)
		}
		return text(g.Max)
	case UUID4:
		return text(36)
	case SHA256Of:
		s, ok := pos[g.Column]
		if !ok {
			return 0, fmt.Errorf("sha256_of %q: name an earlier column", g.Column)
		}
		if _, hex := t.cols[s].Gen.(Hex); g.DecodeHex && !hex {
			return 0, fmt.Errorf("sha256_of %q with decode_hex: that column is not hex", g.Column)
		}
		t.src[k] = s
		return text(64)
	case Choice:
		if len(g.List) == 0 || g.Count < 0 || g.Count > 4 {
			return 0, fmt.Errorf("choice wants a list and a count from 1 to 4, not %d items and count %d", len(g.List), g.Count)
		}
		n := 0
		for _, s := range g.List {
			n = max(n, len(s))
		}
		c := max(g.Count, 1)
		return text(c*n + (c-1)*len(g.Sep))
	case Const:
		return text(len(g.Value))
	case SeqText:
		return text(len(g.Prefix) + len("-9223372036854775808") + len(g.Suffix))
	case nil:
		return 0, fmt.Errorf("no generator")
	default:
		return 0, fmt.Errorf("unknown generator %q", g.Kind())
	}
	return 0, nil
}

// Columns returns the columns.
func (t *Table) Columns() []Column { return t.cols }

// IsText says whether column k is text (else an integer).
func (t *Table) IsText(k int) bool { return t.text[k] }

// MaxLen is the most bytes a row's text values take together.
func (t *Table) MaxLen() int { return t.maxLen }

// Row generates row i: vals[k] (len(vals) is the number of columns) gets
// column k's value, text values appended to buf, which Row returns. A text
// value is a slice of buf's array, so with cap(buf)-len(buf) ≥ MaxLen()
// nothing is allocated.
func (t *Table) Row(seed uint64, i int64, buf []byte, vals []Value) []byte {
	for k := range t.cols {
		if !t.text[k] {
			vals[k] = Value{Int: t.Int(k, seed, i)}
			continue
		}
		start := len(buf)
		buf = t.appendText(k, buf, seed, i, vals)
		vals[k] = Value{Text: buf[start:len(buf):len(buf)]}
	}
	return buf
}

// Int and appendText switch on the generator's type, rather than call
// through an interface, so that the compiler sees each call: buffers the
// caller keeps on its stack stay there.

// Int returns row i's value of integer column k, without the rest of the
// row.
func (t *Table) Int(k int, seed uint64, i int64) int64 {
	switch g := t.cols[k].Gen.(type) {
	case Seq:
		return g.Int(seed, i)
	case UniformInt:
		return g.Int(seed, i)
	case ZipfInt:
		return g.Int(t.zipf[k], seed, i)
	case LatestInt:
		return g.Int(t.zipf[k], seed, i)
	case ConstInt:
		return g.Int(seed, i)
	case Timestamp:
		return g.Int(seed, i)
	}
	panic(fmt.Sprintf("gen: column %q is not an integer", t.cols[k].Name))
}

// AppendText appends row i's value of text column k, without the rest of
// the row.
func (t *Table) AppendText(k int, dst []byte, seed uint64, i int64) []byte {
	return t.appendText(k, dst, seed, i, nil)
}

// appendText appends row i's value of column k; vals, if not nil, holds the
// earlier columns' values.
func (t *Table) appendText(k int, dst []byte, seed uint64, i int64, vals []Value) []byte {
	switch g := t.cols[k].Gen.(type) {
	case Timestamp:
		return g.Append(dst, seed, i)
	case Hex:
		return g.Append(dst, seed, i)
	case Letters:
		return g.Append(dst, seed, i)
	case Text:
		return g.Append(dst, seed, i)
	case UUID4:
		return g.Append(dst, seed, i)
	case Choice:
		return g.Append(dst, seed, i)
	case Const:
		return g.Append(dst, seed, i)
	case SeqText:
		return g.Append(dst, seed, i)
	case SHA256Of:
		var tmp [64]byte
		s := t.src[k]
		var src []byte
		switch {
		case g.DecodeHex:
			src = t.cols[s].Gen.(Hex).AppendRaw(tmp[:0], seed, i)
		case !t.text[s]:
			src = strconv.AppendInt(tmp[:0], t.Int(s, seed, i), 10)
		case vals != nil:
			src = vals[s].Text
		default: // alone, from a text column: generate it
			src = t.appendText(s, nil, seed, i, nil)
		}
		return g.Append(dst, src)
	}
	panic(fmt.Sprintf("gen: column %q is not text", t.cols[k].Name))
}
