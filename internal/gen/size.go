package gen

// Per-row overhead SQLite adds to a row's values in a table b-tree, at the
// least: the record header's size byte, the cell's payload-size and rowid
// varints (one byte each at the least) and its 2-byte cell pointer.
const minRowOverhead = 5

// MinRowBytes is the fewest bytes a row of t takes in a SQLite table, a
// lower bound: a serial-type byte per column, the shortest value each
// generator makes (text; integers may take no byte) and the cell's
// overhead. Indexes, pages' free space and the journal come on top, so a
// load of n rows needs at least n × MinRowBytes bytes of disk.
func (t *Table) MinRowBytes() int64 {
	n := int64(minRowOverhead)
	for _, c := range t.cols {
		n += 1 + int64(minValueLen(c.Gen))
	}
	return n
}

// minValueLen is the fewest bytes of a value g makes (0 for integers and
// for text that may be empty).
func minValueLen(g Generator) int {
	switch g := g.(type) {
	case Hex:
		return 2 * g.Bytes
	case Letters:
		return g.Len
	case Text:
		return g.Min
	case UUID4:
		return 36
	case SHA256Of:
		return 64
	case Const:
		return len(g.Value)
	case SeqText:
		return len(g.Prefix) + 1 + len(g.Suffix)
	case Timestamp:
		if g.Format == RFC3339Nano {
			return len("2006-01-02T15:04:05Z")
		}
	}
	return 0
}
