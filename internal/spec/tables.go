package spec

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/gen"
	"github.com/litebench/litebench/internal/workload"
)

// tableRun is a table of one run: its schema, rows, and which rows exist.
type tableRun struct {
	t      *Table
	schema *workload.Schema
	rows   int64 // loaded before the run
	rowsT  *tmpl // what says so
	seed   uint64
	claims *claims
	// from is the first row index this process's inserts write, and to
	// the end of its range (0: none): rows past the loaded ones are
	// numbered from rows in claims and written from from (see at).
	from, to int64
	zipfs    map[float64]*gen.Zipf
	// create is the table's own DDL (the file's create), else the
	// dialect's rendering of schema.DDL.
	create []string
}

// zipf is the zipfian of the table's keys for theta, prepared once over
// the rows loaded before the run.
func (t *tableRun) zipf(theta float64) *gen.Zipf {
	if z, ok := t.zipfs[theta]; ok {
		return z
	}
	z := gen.NewZipf(max(t.rows, 1), theta)
	t.zipfs[theta] = z
	return z
}

// at is the row index of row i as claims number rows: the loaded rows
// are themselves, the rows inserted after them start at from (none set:
// right after the loaded rows). It is i
// itself unless the run was given a range of its own (several processes
// on one database, or an attached one).
func (t *tableRun) at(i int64) int64 {
	if i < t.rows || t.from == 0 {
		return i
	}
	return t.from + (i - t.rows)
}

// setRange gives the table's inserts the rows from from (0: after the
// loaded rows) up to to (0: no end).
func (t *tableRun) setRange(from, to int64) error {
	if from == 0 {
		from = t.rows
	}
	if from < t.rows {
		return fmt.Errorf("inserts from row %d: below the %d rows of %s loaded before the run; start the range at %d or above", from, t.rows, t.schema.Table, t.rows)
	}
	if to != 0 && to <= from {
		return fmt.Errorf("inserts from row %d to %d: an empty range", from, to)
	}
	t.from, t.to = from, to
	return nil
}

// errRange is an insert past the end of the run's range of rows.
var errRange = errors.New("range of rows used up")

// keyValue is row i's key, into the executor's buffer buf for a text key.
func (t *tableRun) keyValue(x *ectx, buf int, i int64) value {
	sc := t.schema
	if sc.IntKey() {
		return ival(sc.KeyInt(t.seed, i))
	}
	b := sc.AppendKey(x.bufs[buf][:0], t.seed, i)
	x.bufs[buf] = b
	return value{k: vText, s: b}
}

// compileTable builds a table's schema from its columns under the
// parameters: generators, types and the key.
func compileTable(t *Table, params map[string]string, refs keyRange) (*workload.Schema, error) {
	var cols []gen.Column
	ddl := dialect.Table{Name: t.Name}
	for k, c := range t.Columns {
		if c.gen == nil {
			return nil, errorf(c.Pos, "column %s of %s has no generator: add gen = \"…\" (such as seq(1), hex(8), text(10, 20))", c.Name, t.Name)
		}
		text, err := c.gen.eval(params)
		if err != nil {
			return nil, err
		}
		tt := &tmpl{s: text, pos: c.gen.pos, n: c.gen.n}
		if c.gen.isTemplate() {
			tt.n = nil
		}
		a, err := parseGenCall(tt)
		if err != nil {
			return nil, err
		}
		g, err := compileGen(a, refs)
		if err != nil {
			return nil, err
		}
		if s, ok := g.(gen.SHA256Of); ok && t.column(s.Column) != nil && indexOf(t, s.Column) > k {
			return nil, errorf(a.pos, "sha256(%s): name an earlier column", s.Column)
		}
		cols = append(cols, gen.Column{Name: c.Name, Gen: g})
	}
	gt, err := gen.Compile(cols)
	if err != nil {
		// gen says "column "x": …": place it at the column.
		for _, c := range t.Columns {
			if strings.HasPrefix(err.Error(), fmt.Sprintf("column %q", c.Name)) {
				return nil, errorf(c.gen.pos, "%s", strings.TrimPrefix(err.Error(), fmt.Sprintf("column %q: ", c.Name)))
			}
		}
		return nil, errorf(t.Pos, "table %s: %v", t.Name, err)
	}
	for k, c := range t.Columns {
		typ := dialect.Int
		switch c.Type {
		case "integer":
			typ = dialect.Integer
		case "text":
			typ = dialect.Text
		case "blob":
			typ = dialect.Blob
		case "":
			if gt.IsText(k) {
				typ = dialect.Text
			}
		}
		if c.Type != "" && (typ == dialect.Int || typ == dialect.Integer) == gt.IsText(k) {
			return nil, errorf(c.Pos, "column %s is %s but its generator makes %s", c.Name, c.Type, map[bool]string{true: "text", false: "integers"}[gt.IsText(k)])
		}
		ddl.Columns = append(ddl.Columns, dialect.Column{Name: c.Name, Type: typ, PrimaryKey: c.PK, NotNull: c.NotNull, Unique: c.Unique})
	}
	for _, ix := range t.Indexes {
		ddl.Indexes = append(ddl.Indexes, dialect.Index{Name: ix.Name, Columns: ix.Columns, Unique: ix.Unique})
	}
	update := t.update
	if update == nil {
		for _, c := range t.Columns[1:] {
			update = append(update, c.Name)
		}
	}
	return workload.NewSchema(ddl, update, gt), nil
}

func indexOf(t *Table, name string) int {
	for k, c := range t.Columns {
		if c.Name == name {
			return k
		}
	}
	return -1
}

// claims hands out the row indexes of inserts and tracks which rows are
// committed, without a lock: each writer claims its rows with one atomic
// add and publishes its insert in flight in a slot of its own. Reads pick
// rows below the oldest insert still in flight, so they only ask for
// committed rows (rows of an insert that failed stay missing, and reads
// count them).
type claims struct {
	next    padded // the first row no insert has claimed
	visible padded // every row below it is committed (or failed)
	slots   []padded
}

// padded keeps a hot counter on a cache line of its own.
type padded struct {
	atomic.Int64
	_ [56]byte
}

const idle = math.MaxInt64

func newClaims(rows int64, executors int) *claims {
	c := &claims{slots: make([]padded, executors)}
	c.next.Store(rows)
	c.visible.Store(rows)
	for i := range c.slots {
		c.slots[i].Store(idle)
	}
	return c
}

// claim reserves n new rows for executor slot's insert and returns the
// first.
func (c *claims) claim(slot, n int) int64 {
	s := &c.slots[slot]
	// Publish a lower bound of the claim before making it, so that no
	// release can see the rows as committed in between.
	s.Store(c.next.Load())
	first := c.next.Add(int64(n)) - int64(n)
	s.Store(first)
	return first
}

// release ends executor slot's insert and moves the visible bound up to
// the oldest insert still in flight.
func (c *claims) release(slot int) {
	c.slots[slot].Store(idle)
	lo := c.next.Load()
	for i := range c.slots {
		lo = min(lo, c.slots[i].Load())
	}
	for v := c.visible.Load(); lo > v && !c.visible.CompareAndSwap(v, lo); v = c.visible.Load() {
	}
}

// errMissing is a read that found no row where one was expected.
var errMissing = errors.New("row not found")
