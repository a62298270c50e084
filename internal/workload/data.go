package workload

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"litebench/internal/dialect"
)

// Row data is a pure function of (seed, row index): the same seed gives the
// same bytes whatever the worker count, order or batch size.

// mix is splitmix64's finaliser over seed and i.
func mix(seed, i uint64) uint64 {
	z := seed*0x9E3779B97F4A7C15 + i*0xBF58476D1CE4E5B9 + 0x94D049BB133111EB
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// Schema is a table the seeds use, with its deterministic rows.
type Schema struct {
	Name string
	// DDL defines the table for every engine's dialect.
	DDL     dialect.Table
	Table   string
	Columns []string
	// Row writes row i's values into dst (len(dst) == len(Columns)),
	// taking their space from a (which may be nil: then every value is
	// allocated).
	Row func(seed uint64, i int64, dst []any, a *Arena)
	// KeyCol is the primary key column, always Columns[0]; KeyOf(seed, i, a)
	// is row i's key (what Row writes there), without generating the row:
	// point reads and updates call it in the measured loop.
	KeyCol string
	KeyOf  func(seed uint64, i int64, a *Arena) any
	// UpdateCols are the columns an update rewrites (with the values of a
	// row generated under another seed).
	UpdateCols []string
}

// Key returns row i's primary key, its space taken from a.
func (s *Schema) Key(seed uint64, i int64, a *Arena) any { return s.KeyOf(seed, i, a) }

// Keys of the schemas: row index i (bench, as seed 000), i+1 (INTEGER
// PRIMARY KEY tables), or a UUID (users, seed 002).
func indexKey(_ uint64, i int64, a *Arena) any { return a.Int(i) }
func rowidKey(_ uint64, i int64, a *Arena) any { return a.Int(i + 1) }
func usersKey(seed uint64, i int64, a *Arena) any {
	return a.Str(appendUUIDv4(a.Buf(36), mix(seed, uint64(i)), mix(seed^0xA5A5A5A5, uint64(i))))
}

// Schemas by name.
var Schemas = map[string]*Schema{
	"bench": {
		Name: "bench",
		DDL: dialect.Table{Name: "bench", Columns: []dialect.Column{
			{Name: "ID", Type: dialect.Int, PrimaryKey: true}, {Name: "rand", Type: dialect.Text}, {Name: "hash", Type: dialect.Text}}},
		Table:   "bench",
		Columns: []string{"ID", "rand", "hash"},
		KeyCol:  "ID", KeyOf: indexKey, UpdateCols: []string{"rand", "hash"},
		Row: func(seed uint64, i int64, dst []any, a *Arena) {
			r, h := a.Bytes(16), a.Bytes(64)
			benchInto(seed, i, r, h)
			dst[0], dst[1], dst[2] = a.Int(i), a.Str(r), a.Str(h)
		},
	},
	"users": {
		Name: "users",
		DDL: dialect.Table{Name: "users", Columns: []dialect.Column{
			{Name: "id", Type: dialect.Blob, PrimaryKey: true, NotNull: true},
			{Name: "created_at", Type: dialect.Text, NotNull: true},
			{Name: "username", Type: dialect.Text, NotNull: true},
		}, Indexes: []dialect.Index{{Name: "idx_users_on_id", Columns: []string{"id"}, Unique: true}}},
		Table:   "users",
		Columns: []string{"id", "created_at", "username"},
		KeyCol:  "id", KeyOf: usersKey, UpdateCols: []string{"created_at", "username"},
		Row: func(seed uint64, i int64, dst []any, a *Arena) {
			dst[0] = usersKey(seed, i, a)
			dst[1] = a.Str(baseTime.Add(time.Duration(i)*time.Millisecond).AppendFormat(a.Buf(len(time.RFC3339Nano)), time.RFC3339Nano))
			dst[2] = "Someone"
		},
	},
	"account": {
		Name: "account",
		DDL: dialect.Table{Name: "account", Columns: []dialect.Column{
			{Name: "id", Type: dialect.Integer, PrimaryKey: true},
			{Name: "email", Type: dialect.Text, NotNull: true, Unique: true},
			{Name: "name", Type: dialect.Text, NotNull: true},
			{Name: "description", Type: dialect.Text},
			{Name: "created_at", Type: dialect.Integer, NotNull: true},
			{Name: "version", Type: dialect.Integer},
		}, Indexes: []dialect.Index{{Name: "account_name", Columns: []string{"name"}}}},
		Table:   "account",
		Columns: []string{"id", "email", "name", "description", "created_at", "version"},
		KeyCol:  "id", KeyOf: rowidKey, UpdateCols: []string{"name", "description"},
		Row: func(seed uint64, i int64, dst []any, a *Arena) {
			m := mix(seed, uint64(i))
			dst[0] = a.Int(i + 1)
			dst[1] = a.Str(append(strconv.AppendInt(append(a.Buf(40), "user"...), i+1, 10), "@example.com"...))
			dst[2] = a.Str(append(append(append(a.Buf(24), names[m%uint64(len(names))]...), ' '), names[(m>>16)%uint64(len(names))]...))
			n := 64 + int(m>>40)%64
			dst[3] = a.Str(appendText(a.Buf(n+16), seed, i, n))
			dst[4] = a.Int(baseTime.UnixMilli() + i)
			dst[5] = int64(1)
		},
	},
	"foo": {
		Name: "foo",
		DDL: dialect.Table{Name: "foo", Columns: []dialect.Column{
			{Name: "id", Type: dialect.Integer, PrimaryKey: true, NotNull: true}, {Name: "name", Type: dialect.Text}}},
		Table:   "foo",
		Columns: []string{"id", "name"},
		KeyCol:  "id", KeyOf: rowidKey, UpdateCols: []string{"name"},
		Row: func(seed uint64, i int64, dst []any, a *Arena) {
			// seed 001: 30 random capital letters
			b := a.Bytes(30)
			m := mix(seed, uint64(i))
			for k := range b {
				if k%12 == 0 && k > 0 {
					m = mix(m, uint64(k))
				}
				b[k] = byte('A' + m%26)
				m /= 26
			}
			dst[0], dst[1] = a.Int(i+1), a.Str(b)
		},
	},
	"pages": {
		Name: "pages",
		DDL: dialect.Table{Name: "pages", Columns: []dialect.Column{
			{Name: "id", Type: dialect.Integer, PrimaryKey: true}, {Name: "body", Type: dialect.Text}}},
		Table:   "pages",
		Columns: []string{"id", "body"},
		KeyCol:  "id", KeyOf: rowidKey, UpdateCols: []string{"body"},
		Row: func(seed uint64, i int64, dst []any, a *Arena) {
			dst[0] = a.Int(i + 1)
			dst[1] = a.Str(appendText(a.Buf(PageBodySize+16), seed, i, PageBodySize))
		},
	},
}

// PageBodySize is the default body size of the pages schema (seed 003).
const PageBodySize = 5400

var baseTime = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

var names = []string{"Ada", "Alan", "Barbara", "Claude", "Donald", "Edsger", "Frances", "Grace", "John", "Ken", "Leslie", "Margaret", "Niklaus", "Radia", "Tony", "Barbara"}

// BenchValues returns row i's rand (8 random bytes, hex) and hash (SHA-256
// of those bytes, hex), as seed 000 generates them.
func BenchValues(seed uint64, i int64) (string, string) {
	var r [16]byte
	var h [64]byte
	benchInto(seed, i, r[:], h[:])
	return string(r[:]), string(h[:])
}

// benchInto writes BenchValues' hex into r (16 bytes) and h (64 bytes).
func benchInto(seed uint64, i int64, r, h []byte) {
	var b [8]byte
	v := mix(seed, uint64(i))
	for k := range b {
		b[k] = byte(v >> (8 * k))
	}
	sum := sha256.Sum256(b[:])
	hex.Encode(r, b[:])
	hex.Encode(h, sum[:])
}

// CheckBench verifies a bench row the way seed 000's reader does: decode
// rand, hash it, compare with the stored hash.
func CheckBench(rand, hash string) bool {
	b, err := hex.DecodeString(rand)
	if err != nil {
		return false
	}
	sum := sha256.Sum256(b)
	var want [64]byte
	hex.Encode(want[:], sum[:])
	return string(want[:]) == hash
}

// appendUUIDv4 appends the version 4 UUID made of a and b, in its
// 8-4-4-4-12 lowercase hex form.
func appendUUIDv4(dst []byte, a, b uint64) []byte {
	var u [16]byte
	for k := 0; k < 8; k++ {
		u[k] = byte(a >> (8 * k))
		u[8+k] = byte(b >> (8 * k))
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	for k, g := range [...][2]int{{0, 4}, {4, 6}, {6, 8}, {8, 10}, {10, 16}} {
		if k > 0 {
			dst = append(dst, '-')
		}
		dst = hex.AppendEncode(dst, u[g[0]:g[1]])
	}
	return dst
}

var words = strings.Fields(`lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor
incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco
laboris nisi aliquip ex ea commodo consequat duis aute irure in reprehenderit voluptate velit esse
cillum fugiat nulla pariatur excepteur sint occaecat cupidatat non proident sunt culpa qui officia
deserunt mollit anim id est laborum sqlite page journal wal checkpoint`)

// Text returns n bytes of deterministic words for row i.
func Text(seed uint64, i int64, n int) string {
	return string(appendText(make([]byte, 0, n+16), seed, i, n))
}

// appendText appends Text(seed, i, n) to dst.
func appendText(dst []byte, seed uint64, i int64, n int) []byte {
	start := len(dst)
	k := uint64(0)
	for len(dst)-start < n {
		w := words[mix(seed^0x5bd1e995, uint64(i)<<20|k)%uint64(len(words))]
		if len(dst) > start {
			dst = append(dst, ' ')
		}
		dst = append(dst, w...)
		k++
	}
	return dst[:start+n]
}
