package postgres

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"unsafe"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/litebench/litebench/internal/target"
)

// A prepared statement whose parameters and columns are all of the types
// below runs on pgx's protocol layer (pgconn) instead of pgx.Conn: its
// arguments are encoded straight from target.Args into the Bind message
// and its row is read as the bytes the server sent, with none of pgx's
// per-query type mapping (query building, encode plans, result
// descriptions, the Rows object). That mapping costs a point read about
// as much client CPU as the rest of litebench's harness, and on a server
// sharing the client's cores the client's CPU is the server's throughput.
// Any other type (dates, JSON, arrays, ...) takes pgx.Conn's path.
//
// The wire formats are libpq's defaults, text, except for bytea, which
// goes both ways in binary (its raw bytes), so that a blob needs no
// escaping.
const (
	oidBool    = 16
	oidBytea   = 17
	oidName    = 19
	oidInt8    = 20
	oidInt2    = 21
	oidInt4    = 23
	oidText    = 25
	oidFloat4  = 700
	oidFloat8  = 701
	oidUnknown = 705
	oidBpchar  = 1042
	oidVarchar = 1043
	oidNumeric = 1700
)

// binaryFormat is the wire protocol's format code for binary.
const binaryFormat = 1

func plainType(oid uint32) bool {
	switch oid {
	case oidBool, oidBytea, oidName, oidInt8, oidInt2, oidInt4, oidText,
		oidFloat4, oidFloat8, oidUnknown, oidBpchar, oidVarchar, oidNumeric:
		return true
	}
	return false
}

// prep is a statement as prepared on one connection.
type prep struct {
	name string
	sd   *pgconn.StatementDescription
	// fast: every parameter and column is a plain type.
	fast bool
	// pfmt and rfmt are the parameter and result format codes (nil: all
	// text).
	pfmt, rfmt []int16
	bools      []bool
}

func newPrep(name string, sd *pgconn.StatementDescription) *prep {
	p := &prep{name: name, sd: sd, fast: true}
	for i, oid := range sd.ParamOIDs {
		if !plainType(oid) {
			p.fast = false
		}
		if oid == oidBytea {
			if p.pfmt == nil {
				p.pfmt = make([]int16, len(sd.ParamOIDs))
			}
			p.pfmt[i] = binaryFormat
		}
	}
	p.bools = make([]bool, len(sd.Fields))
	for i, f := range sd.Fields {
		if !plainType(f.DataTypeOID) {
			p.fast = false
		}
		p.bools[i] = f.DataTypeOID == oidBool
		if f.DataTypeOID == oidBytea {
			if p.rfmt == nil {
				p.rfmt = make([]int16, len(sd.Fields))
			}
			p.rfmt[i] = binaryFormat
		}
	}
	return p
}

// encode fills c.params with a's values in p's parameter formats.
func (c *conn) encode(p *prep, a *target.Args) error {
	n := a.Len()
	if n != len(p.sd.ParamOIDs) {
		return fmt.Errorf("statement takes %d arguments, got %d", len(p.sd.ParamOIDs), n)
	}
	c.params = c.params[:0]
	// A number's text takes at most 32 bytes: with that room reserved,
	// buf never grows, and the slices taken from it stay valid.
	if cap(c.pbuf) < 32*n {
		c.pbuf = make([]byte, 0, 32*n)
	}
	buf := c.pbuf[:0]
	for i := range n {
		v := a.At(i)
		var b []byte
		switch v.Kind {
		case target.Int:
			off := len(buf)
			buf = strconv.AppendInt(buf, v.I, 10)
			b = buf[off:len(buf):len(buf)]
		case target.Float:
			off := len(buf)
			buf = appendFloat(buf, v.F)
			b = buf[off:len(buf):len(buf)]
		case target.Text:
			b = unsafe.Slice(unsafe.StringData(v.S), len(v.S))
			if b == nil {
				b = []byte{}
			}
		case target.Blob:
			b = v.B
			if b == nil {
				b = []byte{}
			}
		}
		c.params = append(c.params, b)
	}
	return a.Err()
}

func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// run executes p on c with a's arguments; fn, when set, gets each row.
func (c *conn) run(ctx context.Context, p *prep, a *target.Args, fn func(target.Row) error) error {
	if err := c.encode(p, a); err != nil {
		return err
	}
	// Background: pgconn then watches no context; the pool's hook
	// interrupts the connection when the run's context ends.
	rr := c.c.PgConn().ExecStatement(context.Background(), p.sd, c.params, p.pfmt, p.rfmt)
	clear(c.params)
	if fn == nil {
		_, err := rr.Close()
		return err
	}
	target.QueryReturned(ctx)
	c.row.p = p
	for rr.NextRow() {
		c.row.v = rr.Values()
		if err := fn(&c.row); err != nil {
			c.row.v = nil
			_, cerr := rr.Close()
			if err == target.Stop { // the pools' test: Stop is one value, never wrapped
				return cerr
			}
			return err
		}
	}
	c.row.v = nil
	_, err := rr.Close()
	return err
}

// row is the current row of a fast statement: the column values as the
// server sent them (text, or raw bytes for bytea).
type row struct {
	p *prep
	v [][]byte
}

// Scan converts the row's columns as every target does: NULL reads as 0,
// "" or nil, a boolean as 1 or 0, a number's text as its value.
func (r *row) Scan(dest ...any) error {
	if len(dest) > len(r.v) {
		return fmt.Errorf("scan: %d destinations for %d columns", len(dest), len(r.v))
	}
	for i, d := range dest {
		v := r.v[i]
		switch p := d.(type) {
		case *int64:
			n, err := r.int(i, v)
			if err != nil {
				return err
			}
			*p = n
		case *int:
			n, err := r.int(i, v)
			if err != nil {
				return err
			}
			*p = int(n)
		case *float64:
			if v == nil {
				*p = 0
				continue
			}
			if r.p.bools[i] {
				*p = float64(boolInt(v))
				continue
			}
			f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(v), len(v)), 64)
			if err != nil {
				return fmt.Errorf("scan column %d: %q is not a number", i+1, v)
			}
			*p = f
		case *string:
			*p = string(v)
		case *[]byte:
			*p = append((*p)[:0], v...)
		default:
			return fmt.Errorf("cannot scan into %T", d)
		}
	}
	return nil
}

func (r *row) int(i int, v []byte) (int64, error) {
	if v == nil {
		return 0, nil
	}
	if r.p.bools[i] {
		return boolInt(v), nil
	}
	s := unsafe.String(unsafe.SliceData(v), len(v))
	n, err := strconv.ParseInt(s, 10, 64)
	if err == nil {
		return n, nil
	}
	// numeric and float columns holding a whole number
	if f, ferr := strconv.ParseFloat(s, 64); ferr == nil && f == math.Trunc(f) && math.Abs(f) < 1<<63 {
		return int64(f), nil
	}
	return 0, fmt.Errorf("scan column %d: %q is not an integer", i+1, v)
}

func boolInt(v []byte) int64 {
	if len(v) > 0 && v[0] == 't' {
		return 1
	}
	return 0
}
