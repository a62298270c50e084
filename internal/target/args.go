package target

import (
	"fmt"
	"unsafe"
)

// Kind is the type of a bound value.
type Kind uint8

// Kinds of values.
const (
	Null Kind = iota
	Int
	Float
	Text
	Blob
)

// Value is one typed argument.
type Value struct {
	Kind Kind
	I    int64
	F    float64
	S    string
	B    []byte
}

// Args are a statement's typed arguments. A worker keeps one Args and
// refills it for every statement (Reset, then append), so binding
// allocates nothing: direct clients bind each value by its kind, and
// database/sql clients get interfaces that point into the Args (Values).
// Strings and byte slices are referenced, not copied: they must stay
// unchanged until the statement returns (every driver copies what it
// binds).
type Args struct {
	v     []Value
	boxed []any
	// raw, when set (Boxed), holds the values as they were generated;
	// database/sql clients take it as it is, direct clients unbox it.
	raw []any
	err error
}

// A returns Args holding vals (see Add), for statements off the hot path.
func A(vals ...any) *Args {
	a := &Args{}
	for _, v := range vals {
		a.Add(v)
	}
	return a
}

// Reset empties a for reuse.
func (a *Args) Reset() {
	a.v, a.err, a.raw = a.v[:0], nil, nil
}

// Boxed makes a hold vals, values as generated (see Add), without
// converting them: a database/sql client passes them on as they are (the
// insert path, where every row's values are already interfaces), a direct
// client converts them when it binds. vals must not change until the
// statement returns.
func (a *Args) Boxed(vals []any) {
	a.v, a.err, a.raw = a.v[:0], nil, vals
}

// unbox turns raw values into typed ones. It is inlined where values are
// added or bound: typed arguments (the common case) cost a comparison.
func (a *Args) unbox() {
	if a != nil && a.raw != nil {
		a.unboxRaw()
	}
}

//go:noinline
func (a *Args) unboxRaw() {
	raw := a.raw
	a.raw = nil
	for _, v := range raw {
		a.Add(v)
	}
}

// Len is the number of arguments.
func (a *Args) Len() int {
	if a == nil {
		return 0
	}
	if a.raw != nil {
		return len(a.raw)
	}
	return len(a.v)
}

// At returns argument i (from 0).
func (a *Args) At(i int) *Value {
	a.unbox()
	return &a.v[i]
}

// Int appends an integer.
func (a *Args) Int(v int64) { a.unbox(); a.v = append(a.v, Value{Kind: Int, I: v}) }

// Float appends a float.
func (a *Args) Float(v float64) { a.unbox(); a.v = append(a.v, Value{Kind: Float, F: v}) }

// Text appends a string.
func (a *Args) Text(v string) { a.unbox(); a.v = append(a.v, Value{Kind: Text, S: v}) }

// Blob appends bytes.
func (a *Args) Blob(v []byte) { a.unbox(); a.v = append(a.v, Value{Kind: Blob, B: v}) }

// Null appends NULL.
func (a *Args) Null() { a.unbox(); a.v = append(a.v, Value{Kind: Null}) }

// Add appends a generated value: an int64, int, float64, string, []byte or
// nil. Any other type makes binding fail with an error naming it.
func (a *Args) Add(v any) {
	switch x := v.(type) {
	case int64:
		a.Int(x)
	case string:
		a.Text(x)
	case int:
		a.Int(int64(x))
	case []byte:
		a.Blob(x)
	case float64:
		a.Float(x)
	case nil:
		a.Null()
	default:
		if a.err == nil {
			a.err = fmt.Errorf("cannot bind a %T", v)
		}
		a.Null()
	}
}

// Err reports a value Add could not take.
func (a *Args) Err() error {
	if a == nil {
		return nil
	}
	// Raw values are not checked here: database/sql checks what it is
	// given, and a direct client unboxes (and so checks) before binding.
	return a.err
}

// Values returns the arguments as interfaces for database/sql. The
// interfaces point into a (no value is copied or boxed on the heap): they
// are valid until a is next changed.
func (a *Args) Values() []any {
	if a == nil {
		return nil
	}
	if a.raw != nil {
		return a.raw
	}
	if len(a.v) == 0 {
		return nil
	}
	a.boxed = a.boxed[:0]
	for i := range a.v {
		v := &a.v[i]
		var b any
		switch v.Kind {
		case Int:
			b = BoxInt64(&v.I)
		case Float:
			b = box(float64Type, unsafe.Pointer(&v.F))
		case Text:
			b = BoxString(&v.S)
		case Blob:
			b = box(bytesType, unsafe.Pointer(&v.B))
		}
		a.boxed = append(a.boxed, b)
	}
	return a.boxed
}

// eface is the layout of an empty interface: type word, data pointer.
type eface struct {
	typ, data unsafe.Pointer
}

var (
	int64Type   = typeOf(int64(0))
	float64Type = typeOf(float64(0))
	stringType  = typeOf("")
	bytesType   = typeOf([]byte(nil))
)

func typeOf(v any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&v)).typ }

// BoxString returns *p in an interface without copying it or allocating
// the interface's box: the interface refers to *p, which must not change
// while the interface is in use.
func BoxString(p *string) any { return box(stringType, unsafe.Pointer(p)) }

// BoxInt64 is BoxString for an int64.
func BoxInt64(p *int64) any { return box(int64Type, unsafe.Pointer(p)) }

// box builds an interface of type typ whose value lives at data, without
// allocating. The value must not change while the interface is in use.
// It depends on the runtime's layout of an empty interface; this file is
// the one place that does.
func box(typ, data unsafe.Pointer) any {
	var v any
	e := (*eface)(unsafe.Pointer(&v))
	e.typ, e.data = typ, data
	return v
}

// Binder binds parameters of a direct API's statement, numbered from 1.
type Binder interface {
	BindNull(i int) error
	BindInt64(i int, v int64) error
	BindFloat(i int, v float64) error
	BindText(i int, v string) error
	BindBlob(i int, v []byte) error
}

// ValuesBinder is a Binder whose driver binds a statement's values in one
// call, as interfaces (go-sqlite-lite's Stmt.Bind): the pool hands it a's
// Values, the values as generated or interfaces pointing into a, instead
// of unboxing them to have the driver box them again. vals holds int64,
// float64, string, []byte or nil values (what Add accepts)
// and must not be kept past the statement's execution. It binds
// parameters 1..len(vals) and NULL to the statement's others.
type ValuesBinder interface {
	BindValues(vals []any) error
}

// RawValuesBinder is a ValuesBinder whose driver binds a typed value
// (Binder) as cheaply as BindValues binds an interface: it is given in
// one call only the values as generated (Args.Boxed, the insert path's
// rows), and typed values are bound one by one, without boxing them into
// interfaces for it to unbox (a point read's key).
type RawValuesBinder interface {
	ValuesBinder
	RawValuesOnly()
}

// bind binds a's values to parameters 1..a.Len() of b, in one call
// through vb when b's driver has it (nil when not) and, when rawOnly (vb
// is a RawValuesBinder), the values are as generated: the pool finds vb
// once, when it prepares the statement, rather than asserting it on every
// execution.
func bind(b Binder, vb ValuesBinder, rawOnly bool, a *Args) error {
	if a == nil {
		if vb != nil && !rawOnly {
			return vb.BindValues(nil)
		}
		return nil
	}
	if a.err != nil {
		return a.err
	}
	if vb != nil && (a.raw != nil || !rawOnly) {
		return vb.BindValues(a.Values())
	}
	a.unbox()
	if a.err != nil {
		return a.err
	}
	for i := range a.v {
		v := &a.v[i]
		var err error
		switch v.Kind {
		case Int:
			err = b.BindInt64(i+1, v.I)
		case Float:
			err = b.BindFloat(i+1, v.F)
		case Text:
			err = b.BindText(i+1, v.S)
		case Blob:
			err = b.BindBlob(i+1, v.B)
		default:
			err = b.BindNull(i + 1)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Columns reads the current row of a direct API's statement, columns
// numbered from 0.
type Columns interface {
	ColumnInt64(i int) int64
	ColumnFloat(i int) float64
	ColumnText(i int) string
	// AppendColumn appends the column's bytes (text or blob) to dst.
	AppendColumn(i int, dst []byte) []byte
}

// Scan copies the current row of c into dest, which holds *int64, *int,
// *float64, *string or *[]byte values (a *[]byte is refilled in place, so
// a reused buffer allocates nothing).
func Scan(c Columns, dest []any) error {
	for i, d := range dest {
		// The schemas' types, told by one comparison each before the
		// type switch.
		if p, ok := d.(*[]byte); ok {
			*p = c.AppendColumn(i, (*p)[:0])
			continue
		}
		if p, ok := d.(*int64); ok {
			*p = c.ColumnInt64(i)
			continue
		}
		if err := ScanColumn(c, i, d); err != nil {
			return err
		}
	}
	return nil
}

// ScanColumn copies column i of c's current row into d, as Scan does.
func ScanColumn(c Columns, i int, d any) error {
	switch p := d.(type) {
	case *[]byte:
		*p = c.AppendColumn(i, (*p)[:0])
	case *int64:
		*p = c.ColumnInt64(i)
	case *int:
		*p = int(c.ColumnInt64(i))
	case *float64:
		*p = c.ColumnFloat(i)
	case *string:
		*p = c.ColumnText(i)
	default:
		return fmt.Errorf("cannot scan into %T", d)
	}
	return nil
}
