package workload

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"litebench/internal/gen"
)

// Row data is a pure function of (seed, row index): the same seed gives the
// same bytes whatever the worker count, order or batch size. The values
// come from internal/gen, which docs/data-generation.md specifies.

// Schema is a table the seeds use, with its deterministic rows.
type Schema struct {
	Name   string
	Create []string
	Table  string
	// Gen is the columns with their generators; Columns are their names.
	Gen     *gen.Table
	Columns []string
	// KeyCol is the primary key column, always Columns[0]; Key(seed, i)
	// is row i's key (what Row writes there), without generating the row:
	// point reads and updates call it in the measured loop.
	KeyCol string
	// UpdateCols are the columns an update rewrites (with the values of a
	// row generated under another seed).
	UpdateCols []string
}

func newSchema(name string, create []string, update []string, cols ...gen.Column) *Schema {
	s := &Schema{Name: name, Create: create, Table: name, Gen: gen.MustCompile(cols...), UpdateCols: update}
	for _, c := range cols {
		s.Columns = append(s.Columns, c.Name)
	}
	s.KeyCol = s.Columns[0]
	return s
}

// Row writes row i's values into dst (len(dst) == len(Columns)), taking
// string space and interface boxes from a (which may be nil).
func (s *Schema) Row(seed uint64, i int64, dst []any, a *Arena) {
	var small [8]gen.Value
	vals := small[:0]
	if len(dst) > len(small) {
		vals = make([]gen.Value, len(dst))
	}
	vals = vals[:len(dst)]
	buf := s.Gen.Row(seed, i, a.Reserve(s.Gen.MaxLen()), vals)
	a.Commit(buf)
	for k, v := range vals {
		if s.Gen.IsText(k) {
			dst[k] = a.Str(v.Text)
		} else {
			dst[k] = a.Int(v.Int)
		}
	}
}

// IntKey says whether the key is an integer (KeyInt), else text
// (AppendKey).
func (s *Schema) IntKey() bool { return !s.Gen.IsText(0) }

// KeyInt returns row i's integer key.
func (s *Schema) KeyInt(seed uint64, i int64) int64 { return s.Gen.Int(0, seed, i) }

// AppendKey appends row i's text key to dst.
func (s *Schema) AppendKey(dst []byte, seed uint64, i int64) []byte {
	return s.Gen.AppendText(0, dst, seed, i)
}

// Key returns row i's primary key, as Row writes it.
func (s *Schema) Key(seed uint64, i int64) any {
	if s.IntKey() {
		return s.KeyInt(seed, i)
	}
	return string(s.AppendKey(nil, seed, i))
}

// The seeds' tables: row index i (bench, as seed 000), i+1 (INTEGER PRIMARY
// KEY tables), or a UUID (users, seed 002).
var (
	baseTime = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	names    = []string{"Ada", "Alan", "Barbara", "Claude", "Donald", "Edsger", "Frances", "Grace", "John", "Ken", "Leslie", "Margaret", "Niklaus", "Radia", "Tony", "Barbara"}
	rowid    = gen.Seq{Start: 1}

	bench = newSchema("bench",
		[]string{"CREATE TABLE bench(ID int PRIMARY KEY ASC, rand TEXT, hash TEXT)"},
		[]string{"rand", "hash"},
		gen.Column{Name: "ID", Gen: gen.Seq{}},
		// 8 random bytes in hex, and the SHA-256 of those bytes.
		gen.Column{Name: "rand", Gen: gen.Hex{Bytes: 8}},
		gen.Column{Name: "hash", Gen: gen.SHA256Of{Column: "rand", DecodeHex: true}})
)

// Schemas by name.
var Schemas = map[string]*Schema{
	"bench": bench,
	"users": newSchema("users",
		[]string{
			"CREATE TABLE users(id BLOB PRIMARY KEY NOT NULL, created_at TEXT NOT NULL, username TEXT NOT NULL)",
			"CREATE UNIQUE INDEX idx_users_on_id ON users(id)",
		},
		[]string{"created_at", "username"},
		gen.Column{Name: "id", Gen: gen.UUID4{}},
		gen.Column{Name: "created_at", Gen: gen.Timestamp{Start: baseTime, Step: time.Millisecond, Format: gen.RFC3339Nano}},
		gen.Column{Name: "username", Gen: gen.Const{Value: "Someone"}}),
	"account": newSchema("account",
		[]string{
			`CREATE TABLE account(id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL, description TEXT, created_at INTEGER NOT NULL, version INTEGER)`,
			"CREATE INDEX account_name ON account(name)",
		},
		[]string{"name", "description"},
		gen.Column{Name: "id", Gen: rowid},
		gen.Column{Name: "email", Gen: gen.SeqText{Prefix: "user", Start: 1, Suffix: "@example.com"}},
		gen.Column{Name: "name", Gen: gen.Choice{List: names, Count: 2, Sep: " "}},
		gen.Column{Name: "description", Gen: gen.Text{Min: 64, Max: 127}},
		gen.Column{Name: "created_at", Gen: gen.Timestamp{Start: baseTime, Step: time.Millisecond, Format: gen.UnixMilli}},
		gen.Column{Name: "version", Gen: gen.ConstInt{Value: 1}}),
	"foo": newSchema("foo",
		[]string{"CREATE TABLE foo(id INTEGER NOT NULL PRIMARY KEY, name TEXT)"},
		[]string{"name"},
		gen.Column{Name: "id", Gen: rowid},
		// seed 001: 30 random capital letters
		gen.Column{Name: "name", Gen: gen.Letters{Len: 30}}),
	"pages": newSchema("pages",
		[]string{"CREATE TABLE pages(id INTEGER PRIMARY KEY, body TEXT)"},
		[]string{"body"},
		gen.Column{Name: "id", Gen: rowid},
		gen.Column{Name: "body", Gen: gen.Text{Min: PageBodySize, Max: PageBodySize}}),
}

// PageBodySize is the default body size of the pages schema (seed 003).
const PageBodySize = 5400

// BenchValues returns row i's rand (8 random bytes, hex) and hash (SHA-256
// of those bytes, hex), as seed 000 generates them.
func BenchValues(seed uint64, i int64) (string, string) {
	var buf [80]byte
	var vals [3]gen.Value
	bench.Gen.Row(seed, i, buf[:0], vals[:])
	return string(vals[1].Text), string(vals[2].Text)
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

// Text returns n bytes of deterministic words for row i.
func Text(seed uint64, i int64, n int) string {
	return string(gen.AppendWords(make([]byte, 0, n), seed, i, n))
}
