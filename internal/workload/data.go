package workload

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/gen"
)

// Row data is a pure function of (seed, row index): the same seed gives the
// same bytes whatever the worker count, order or batch size. The values
// come from internal/gen, which docs/data-generation.md specifies.

// Schema is a table the seeds use, with its deterministic rows.
type Schema struct {
	Name string
	// DDL defines the table for every engine's dialect.
	DDL   dialect.Table
	Table string
	// Gen is the columns with their generators; Columns are their names.
	Gen     *gen.Table
	Columns []string
	// KeyCol is the primary key column, always Columns[0]; Key(seed, i, a)
	// is row i's key (what Row writes there), without generating the row:
	// point reads and updates call it in the measured loop.
	KeyCol string
	// UpdateCols are the columns an update rewrites (with the values of a
	// row generated under another seed).
	UpdateCols []string
}

func newSchema(ddl dialect.Table, update []string, cols ...gen.Column) *Schema {
	return NewSchema(ddl, update, gen.MustCompile(cols...))
}

// NewSchema is the schema of a table defined as ddl whose rows t
// generates; its first column is the key, update the columns an update
// rewrites.
func NewSchema(ddl dialect.Table, update []string, t *gen.Table) *Schema {
	s := &Schema{Name: ddl.Name, DDL: ddl, Table: ddl.Name, Gen: t, UpdateCols: update}
	for _, c := range t.Columns() {
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

// Key returns row i's primary key, as Row writes it, its space taken from
// a (which may be nil: then the key is allocated).
func (s *Schema) Key(seed uint64, i int64, a *Arena) any {
	if s.IntKey() {
		return a.Int(s.KeyInt(seed, i))
	}
	return a.Str(s.AppendKey(a.Buf(64), seed, i))
}

// The seeds' tables: row index i (bench, as sqlite3perf), i+1 (INTEGER PRIMARY
// KEY tables), or a UUID (users, the rusqlite inserts benchmark).
var (
	baseTime = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	names    = []string{"Ada", "Alan", "Barbara", "Claude", "Donald", "Edsger", "Frances", "Grace", "John", "Ken", "Leslie", "Margaret", "Niklaus", "Radia", "Tony", "Barbara"}
	rowid    = gen.Seq{Start: 1}

	bench = newSchema(dialect.Table{Name: "bench", Columns: []dialect.Column{
		{Name: "ID", Type: dialect.Int, PrimaryKey: true}, {Name: "rand", Type: dialect.Text}, {Name: "hash", Type: dialect.Text}}},
		[]string{"rand", "hash"},
		gen.Column{Name: "ID", Gen: gen.Seq{}},
		// 8 random bytes in hex, and the SHA-256 of those bytes.
		gen.Column{Name: "rand", Gen: gen.Hex{Bytes: 8}},
		gen.Column{Name: "hash", Gen: gen.SHA256Of{Column: "rand", DecodeHex: true}})
)

// Schemas by name.
var Schemas = map[string]*Schema{
	"bench": bench,
	"users": newSchema(dialect.Table{Name: "users", Columns: []dialect.Column{
		{Name: "id", Type: dialect.Blob, PrimaryKey: true, NotNull: true},
		{Name: "created_at", Type: dialect.Text, NotNull: true},
		{Name: "username", Type: dialect.Text, NotNull: true},
	}, Indexes: []dialect.Index{{Name: "idx_users_on_id", Columns: []string{"id"}, Unique: true}}},
		[]string{"created_at", "username"},
		gen.Column{Name: "id", Gen: gen.UUID4{}},
		gen.Column{Name: "created_at", Gen: gen.Timestamp{Start: baseTime, Step: time.Millisecond, Format: gen.RFC3339Nano}},
		gen.Column{Name: "username", Gen: gen.Const{Value: "Someone"}}),
	"account": newSchema(dialect.Table{Name: "account", Columns: []dialect.Column{
		{Name: "id", Type: dialect.Integer, PrimaryKey: true},
		{Name: "email", Type: dialect.Text, NotNull: true, Unique: true},
		{Name: "name", Type: dialect.Text, NotNull: true},
		{Name: "description", Type: dialect.Text},
		{Name: "created_at", Type: dialect.Integer, NotNull: true},
		{Name: "version", Type: dialect.Integer},
	}, Indexes: []dialect.Index{{Name: "account_name", Columns: []string{"name"}}}},
		[]string{"name", "description"},
		gen.Column{Name: "id", Gen: rowid},
		gen.Column{Name: "email", Gen: gen.SeqText{Prefix: "user", Start: 1, Suffix: "@example.com"}},
		gen.Column{Name: "name", Gen: gen.Choice{List: names, Count: 2, Sep: " "}},
		gen.Column{Name: "description", Gen: gen.Text{Min: 64, Max: 127}},
		gen.Column{Name: "created_at", Gen: gen.Timestamp{Start: baseTime, Step: time.Millisecond, Format: gen.UnixMilli}},
		gen.Column{Name: "version", Gen: gen.ConstInt{Value: 1}}),
	"foo": newSchema(dialect.Table{Name: "foo", Columns: []dialect.Column{
		{Name: "id", Type: dialect.Integer, PrimaryKey: true, NotNull: true}, {Name: "name", Type: dialect.Text}}},
		[]string{"name"},
		gen.Column{Name: "id", Gen: rowid},
		// go-sqlite-bench: 30 random capital letters
		gen.Column{Name: "name", Gen: gen.Letters{Len: 30}}),
	"pages": newSchema(dialect.Table{Name: "pages", Columns: []dialect.Column{
		{Name: "id", Type: dialect.Integer, PrimaryKey: true}, {Name: "body", Type: dialect.Text}}},
		[]string{"body"},
		gen.Column{Name: "id", Gen: rowid},
		gen.Column{Name: "body", Gen: gen.Text{Min: PageBodySize, Max: PageBodySize}}),
}

// PageBodySize is the default body size of the pages schema (Turriate's HTTP benchmark).
const PageBodySize = 5400

// BenchValues returns row i's rand (8 random bytes, hex) and hash (SHA-256
// of those bytes, hex), as sqlite3perf generates them.
func BenchValues(seed uint64, i int64) (string, string) {
	var buf [80]byte
	var vals [3]gen.Value
	bench.Gen.Row(seed, i, buf[:0], vals[:])
	return string(vals[1].Text), string(vals[2].Text)
}

// CheckBench verifies a bench row the way sqlite3perf's reader does: decode
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
