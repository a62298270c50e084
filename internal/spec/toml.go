package spec

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// A workload file is TOML. The document is first decoded by go-toml, which
// checks the language (syntax, duplicate keys, redefined tables) and says
// where a mistake is; then its parser's expressions are walked into a tree
// of nodes that keep the line and column of every key and value, so that
// every later complaint (an unknown generator, an unbound parameter, a
// statement SQLite cannot prepare) names file:line:column too.

// Pos is a place in a file: line and column from 1.
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Error is a mistake in a workload file or script: where, and what was
// expected there.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

func errorf(p Pos, format string, a ...any) error {
	return &Error{Pos: p, Msg: fmt.Sprintf(format, a...)}
}

type nkind uint8

const (
	nString nkind = iota + 1
	nInt
	nFloat
	nBool
	nTime
	nArray
	nTable
)

func (k nkind) String() string {
	switch k {
	case nString:
		return "a string"
	case nInt:
		return "an integer"
	case nFloat:
		return "a number"
	case nBool:
		return "true or false"
	case nTime:
		return "a date"
	case nArray:
		return "a list"
	case nTable:
		return "a table"
	}
	return "nothing"
}

// node is one value of the document.
type node struct {
	kind nkind
	pos  Pos // the value
	key  Pos // the key naming it, for a table member (else pos)
	name string
	str  string
	i    int64
	f    float64
	b    bool
	// content is where a string's text starts and whether its offsets map
	// one to one onto the file (no escapes), for positions inside it.
	content Pos
	exact   bool
	items   []*node
	keys    []string
	vals    map[string]*node
	used    map[string]bool
}

func newTable(p Pos, name string) *node {
	return &node{kind: nTable, pos: p, key: p, name: name, vals: map[string]*node{}, used: map[string]bool{}}
}

func (n *node) set(name string, v *node) {
	if _, ok := n.vals[name]; !ok {
		n.keys = append(n.keys, name)
	}
	n.vals[name] = v
}

// get returns the member called name (nil if absent) and marks it used.
func (n *node) get(name string) *node {
	if n == nil || n.kind != nTable {
		return nil
	}
	n.used[name] = true
	return n.vals[name]
}

// unknown complains about the first member nobody asked for.
func (n *node) unknown(what string, known ...string) error {
	for _, k := range n.keys {
		if !n.used[k] {
			return errorf(n.vals[k].key, "%s has no key %q (known: %s)", what, k, strings.Join(known, ", "))
		}
	}
	return nil
}

// at is the position of byte k of a string's text: exact for strings
// without escapes, the string's start otherwise.
func (n *node) at(k int) Pos {
	if !n.exact || k <= 0 {
		if n.exact {
			return n.content
		}
		return n.pos
	}
	p := n.content
	for _, c := range []byte(n.str[:min(k, len(n.str))]) {
		if c == '\n' {
			p.Line++
			p.Col = 1
		} else {
			p.Col++
		}
	}
	return p
}

// lines maps byte offsets of a document onto lines and columns.
type lines struct {
	file  string
	start []int
}

func newLines(file string, data []byte) *lines {
	l := &lines{file: file, start: []int{0}}
	for i, c := range data {
		if c == '\n' {
			l.start = append(l.start, i+1)
		}
	}
	return l
}

func (l *lines) pos(off int) Pos {
	lo, hi := 0, len(l.start)-1
	for lo < hi {
		m := (lo + hi + 1) / 2
		if l.start[m] <= off {
			lo = m
		} else {
			hi = m - 1
		}
	}
	return Pos{File: l.file, Line: lo + 1, Col: off - l.start[lo] + 1}
}

// parseTOML reads a document into its tree.
func parseTOML(file string, data []byte) (*node, error) {
	var check map[string]any
	if err := toml.Unmarshal(data, &check); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			return nil, errorf(Pos{file, line, col}, "not valid TOML: %s", strings.TrimPrefix(de.Error(), "toml: "))
		}
		return nil, errorf(Pos{File: file}, "not valid TOML: %v", err)
	}
	ls := newLines(file, data)
	b := &builder{ls: ls}
	b.p.Reset(data)
	root := newTable(Pos{File: file, Line: 1, Col: 1}, "")
	cur := root
	for b.p.NextExpression() {
		e := b.p.Expression()
		switch e.Kind {
		case unstable.KeyValue:
			b.keyValue(cur, e)
		case unstable.Table:
			keys, kp := b.key(e.Key())
			cur = root
			for _, k := range keys {
				cur = b.child(cur, k, kp)
			}
			cur.key, cur.pos = kp, kp
		case unstable.ArrayTable:
			keys, kp := b.key(e.Key())
			t := root
			for _, k := range keys[:len(keys)-1] {
				t = b.child(t, k, kp)
			}
			last := keys[len(keys)-1]
			arr := t.vals[last]
			if arr == nil {
				arr = &node{kind: nArray, pos: kp, key: kp, name: last}
				t.set(last, arr)
			}
			cur = newTable(kp, last)
			arr.items = append(arr.items, cur)
		}
	}
	if err := b.p.Error(); err != nil {
		return nil, errorf(Pos{File: file}, "not valid TOML: %v", err)
	}
	return root, nil
}

type builder struct {
	p  unstable.Parser
	ls *lines
}

func (b *builder) rangePos(r unstable.Range) Pos { return b.ls.pos(int(r.Offset)) }

func (b *builder) key(it unstable.Iterator) ([]string, Pos) {
	var keys []string
	var p Pos
	for it.Next() {
		n := it.Node()
		if keys == nil {
			p = b.rangePos(n.Raw)
		}
		keys = append(keys, string(n.Data))
	}
	return keys, p
}

// keyValue sets a (possibly dotted) key of table t.
func (b *builder) keyValue(t *node, kv *unstable.Node) {
	keys, kp := b.key(kv.Key())
	for _, k := range keys[:len(keys)-1] {
		t = b.child(t, k, kp)
	}
	v := b.value(kv.Value(), kp)
	v.key, v.name = kp, keys[len(keys)-1]
	t.set(v.name, v)
}

// child descends into table t's member k, creating it, or into the last
// table of an array of tables.
func (b *builder) child(t *node, k string, p Pos) *node {
	c := t.vals[k]
	switch {
	case c == nil:
		c = newTable(p, k)
		t.set(k, c)
	case c.kind == nArray && len(c.items) > 0:
		c = c.items[len(c.items)-1]
	}
	return c
}

func (b *builder) value(n *unstable.Node, keyPos Pos) *node {
	p := keyPos
	if n.Raw.Length > 0 {
		p = b.rangePos(n.Raw)
	}
	v := &node{pos: p, key: keyPos}
	switch n.Kind {
	case unstable.String:
		v.kind, v.str = nString, string(n.Data)
		raw := b.p.Raw(n.Raw)
		open := 1
		if bytes.HasPrefix(raw, []byte(`"""`)) || bytes.HasPrefix(raw, []byte(`'''`)) {
			open = 3
		}
		body := raw[open : len(raw)-open]
		off := int(n.Raw.Offset) + open
		if open == 3 {
			// A newline right after the opening delimiter is not part of
			// the string.
			if bytes.HasPrefix(body, []byte("\r\n")) {
				body, off = body[2:], off+2
			} else if bytes.HasPrefix(body, []byte("\n")) {
				body, off = body[1:], off+1
			}
		}
		v.content, v.exact = b.ls.pos(off), string(body) == v.str
	case unstable.Bool:
		v.kind, v.b = nBool, string(n.Data) == "true"
	case unstable.Integer:
		v.kind = nInt
		s := strings.ReplaceAll(string(n.Data), "_", "")
		i, err := strconv.ParseInt(strings.TrimPrefix(s, "+"), 0, 64)
		if err != nil { // go-toml accepted it, so it is in range
			i = 0
		}
		v.i = i
	case unstable.Float:
		v.kind = nFloat
		s := strings.ReplaceAll(string(n.Data), "_", "")
		switch strings.TrimLeft(s, "+-") {
		case "inf":
			v.f = math.Inf(1)
			if strings.HasPrefix(s, "-") {
				v.f = math.Inf(-1)
			}
		case "nan":
			v.f = math.NaN()
		default:
			v.f, _ = strconv.ParseFloat(s, 64)
		}
	case unstable.LocalDate, unstable.LocalTime, unstable.LocalDateTime, unstable.DateTime:
		v.kind, v.str = nTime, string(n.Data)
	case unstable.Array:
		v.kind = nArray
		it := n.Children()
		for it.Next() {
			c := it.Node()
			if c.Kind == unstable.Comment {
				continue
			}
			item := b.value(c, p)
			if len(v.items) == 0 && n.Raw.Length == 0 {
				v.pos = item.pos
			}
			v.items = append(v.items, item)
		}
	case unstable.InlineTable:
		t := newTable(p, "")
		it := n.Children()
		for it.Next() {
			if kv := it.Node(); kv.Kind == unstable.KeyValue {
				b.keyValue(t, kv)
			}
		}
		t.key = keyPos
		return t
	}
	return v
}
