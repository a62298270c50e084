package gen

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// A Generator makes one column's value for row i under a seed. Each kind is
// a small struct of parameters: integer kinds have an Int method, text kinds
// an Append method that appends the value's bytes; Compile checks a list of
// columns and Table.Row generates them. Fields named Stream pick an
// independent stream of random numbers (0 in the built-in schemas).
type Generator interface {
	// Kind is the generator's name in the specification.
	Kind() string
}

// Seq is Start + i: row indexes and rowids.
type Seq struct {
	Start int64 `json:"start"`
}

// UniformInt is a random integer in [Lo, Hi] (modulo the span: a bias below
// 2^-40 for spans under 2^24).
type UniformInt struct {
	Lo     int64  `json:"lo"`
	Hi     int64  `json:"hi"`
	Stream uint64 `json:"stream,string"`
}

// ZipfInt is a zipfian integer in [0, N): YCSB's scrambled zipfian, the
// distribution of zipfian keys.
type ZipfInt struct {
	N      int64   `json:"n"`
	Theta  float64 `json:"theta"`
	Stream uint64  `json:"stream,string"`
}

// LatestInt is a skewed-latest integer in [0, N): the top of the range is
// hot (N−1 the most), as the latest key distribution picks rows.
type LatestInt struct {
	N      int64   `json:"n"`
	Theta  float64 `json:"theta"`
	Stream uint64  `json:"stream,string"`
}

// ConstInt is Value on every row.
type ConstInt struct {
	Value int64 `json:"value"`
}

// Timestamp is Start + i·Step, as text (Format "rfc3339nano": UTC, the
// fraction of a second without trailing zeros) or as an integer (Format
// "unix_ms": milliseconds since 1970, rounded down).
type Timestamp struct {
	Start  time.Time     `json:"start"`
	Step   time.Duration `json:"step_ns"`
	Format string        `json:"format"`
}

// Timestamp formats.
const (
	RFC3339Nano = "rfc3339nano"
	UnixMilli   = "unix_ms"
)

// Hex is Bytes random bytes, in lowercase hex (2·Bytes characters).
type Hex struct {
	Bytes  int    `json:"bytes"`
	Stream uint64 `json:"stream,string"`
}

// Letters is Len random capital letters A–Z.
type Letters struct {
	Len    int    `json:"len"`
	Stream uint64 `json:"stream,string"`
}

// Text is words of lorem ipsum separated by spaces, cut to a length drawn
// in [Min, Max] (Max − Min below 2^24).
type Text struct {
	Min    int    `json:"min"`
	Max    int    `json:"max"`
	Stream uint64 `json:"stream,string"`
}

// UUID4 is a random (version 4, variant 1) UUID in its 36-character form.
type UUID4 struct {
	Stream uint64 `json:"stream,string"`
}

// SHA256Of is the lowercase hex SHA-256 of an earlier column's value: of
// its text, of an integer's decimal digits, or (DecodeHex, for a Hex
// column) of the bytes the hex encodes.
type SHA256Of struct {
	Column    string `json:"column"`
	DecodeHex bool   `json:"decode_hex"`
}

// Choice is Count (1 to 4; 0 means 1) random items of List joined by Sep.
type Choice struct {
	List   []string `json:"list"`
	Count  int      `json:"count"`
	Sep    string   `json:"sep"`
	Stream uint64   `json:"stream,string"`
}

// Const is Value on every row.
type Const struct {
	Value string `json:"value"`
}

// SeqText is Prefix, the decimal Start + i, then Suffix.
type SeqText struct {
	Prefix string `json:"prefix"`
	Start  int64  `json:"start"`
	Suffix string `json:"suffix"`
}

func (Seq) Kind() string        { return "seq" }
func (UniformInt) Kind() string { return "uniform_int" }
func (ZipfInt) Kind() string    { return "zipf_int" }
func (LatestInt) Kind() string  { return "latest_int" }
func (ConstInt) Kind() string   { return "const_int" }
func (Timestamp) Kind() string  { return "timestamp" }
func (Hex) Kind() string        { return "hex" }
func (Letters) Kind() string    { return "letters" }
func (Text) Kind() string       { return "text" }
func (UUID4) Kind() string      { return "uuid4" }
func (SHA256Of) Kind() string   { return "sha256_of" }
func (Choice) Kind() string     { return "choice" }
func (Const) Kind() string      { return "const" }
func (SeqText) Kind() string    { return "seq_text" }

// Int returns row i's value.
func (g Seq) Int(_ uint64, i int64) int64 { return g.Start + i }

// Int returns row i's value.
func (g UniformInt) Int(seed uint64, i int64) int64 {
	m := Draw(seed, g.Stream, uint64(i))
	span := uint64(g.Hi-g.Lo) + 1
	if span == 0 { // the whole int64 range
		return g.Lo + int64(m)
	}
	return g.Lo + int64(m%span)
}

// Int returns row i's value, with z prepared by NewZipf(g.N, g.Theta).
func (g ZipfInt) Int(z *Zipf, seed uint64, i int64) int64 {
	return Scatter(z.Rank(Unit(Draw(seed, g.Stream, uint64(i)))), g.N)
}

// Int returns row i's value, with z prepared by NewZipf(g.N, g.Theta).
func (g LatestInt) Int(z *Zipf, seed uint64, i int64) int64 {
	return max(g.N-1-z.Rank(Unit(Draw(seed, g.Stream, uint64(i)))), 0)
}

// Int returns row i's value.
func (g ConstInt) Int(uint64, int64) int64 { return g.Value }

func (g Timestamp) at(i int64) int64 { return g.Start.UnixNano() + i*int64(g.Step) }

// Int returns row i's value (Format "unix_ms").
func (g Timestamp) Int(_ uint64, i int64) int64 {
	ns := g.at(i)
	ms := ns / 1e6
	if ns%1e6 < 0 {
		ms-- // round down
	}
	return ms
}

// Append appends row i's value (Format "rfc3339nano").
func (g Timestamp) Append(dst []byte, _ uint64, i int64) []byte {
	return time.Unix(0, g.at(i)).UTC().AppendFormat(dst, time.RFC3339Nano)
}

// Append appends row i's value.
func (g Hex) Append(dst []byte, seed uint64, i int64) []byte {
	start := len(dst)
	dst = g.AppendRaw(dst, seed, i)
	n := len(dst) - start
	dst = append(dst, make([]byte, n)...)
	// Encode in place from the end: byte k moves to 2k and 2k+1.
	for k := n - 1; k >= 0; k-- {
		c := dst[start+k]
		dst[start+2*k], dst[start+2*k+1] = hexDigits[c>>4], hexDigits[c&15]
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// AppendRaw appends the bytes Append encodes: 8 bytes of each of the
// numbers h = Draw(seed, Stream, i), Draw(h, 0, 1), Draw(h, 0, 2)…, least
// significant byte first, cut to Bytes.
func (g Hex) AppendRaw(dst []byte, seed uint64, i int64) []byte {
	h := Draw(seed, g.Stream, uint64(i))
	for j := 0; 8*j < g.Bytes; j++ {
		w := h
		if j > 0 {
			w = Draw(h, 0, uint64(j))
		}
		for k := range min(8, g.Bytes-8*j) {
			dst = append(dst, byte(w>>(8*k)))
		}
	}
	return dst
}

// putLE writes the low len(b) bytes of w into b, least significant first.
func putLE(b []byte, w uint64) {
	for k := range b {
		b[k] = byte(w >> (8 * k))
	}
}

// Append appends row i's value.
func (g Letters) Append(dst []byte, seed uint64, i int64) []byte {
	m := Draw(seed, g.Stream, uint64(i))
	for k := 0; k < g.Len; k++ {
		if k%12 == 0 && k > 0 {
			m = Draw(m, 0, uint64(k))
		}
		dst = append(dst, byte('A'+m%26))
		m /= 26
	}
	return dst
}

// Words are Text's vocabulary, in order.
var Words = strings.Fields(`lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor
incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco
laboris nisi aliquip ex ea commodo consequat duis aute irure in reprehenderit voluptate velit esse
cillum fugiat nulla pariatur excepteur sint occaecat cupidatat non proident sunt culpa qui officia
deserunt mollit anim id est laborum sqlite page journal wal checkpoint`)

// Len is row i's length.
func (g Text) Len(seed uint64, i int64) int {
	if g.Max <= g.Min {
		return g.Min
	}
	m := Draw(seed, g.Stream, uint64(i))
	return g.Min + int((m>>40)%uint64(g.Max-g.Min+1))
}

// Append appends row i's value.
func (g Text) Append(dst []byte, seed uint64, i int64) []byte {
	return AppendWords(dst, seed^g.Stream, i, g.Len(seed, i))
}

// AppendWords appends n bytes of row i's words: Text with Min = Max = n.
func AppendWords(dst []byte, seed uint64, i int64, n int) []byte {
	for k, left := uint64(0), n; left > 0; k++ {
		if k > 0 {
			dst = append(dst, ' ')
			if left--; left == 0 {
				break
			}
		}
		w := Words[Draw(seed, StreamWords, uint64(i)<<20|k)%uint64(len(Words))]
		w = w[:min(len(w), left)]
		dst = append(dst, w...)
		left -= len(w)
	}
	return dst
}

// Append appends row i's value.
func (g UUID4) Append(dst []byte, seed uint64, i int64) []byte {
	return AppendUUID(dst, Draw(seed, g.Stream, uint64(i)), Draw(seed, g.Stream^StreamUUIDLow, uint64(i)))
}

// AppendUUID appends the version 4 UUID of the 16 bytes a, then b, each
// least significant byte first.
func AppendUUID(dst []byte, a, b uint64) []byte {
	var u [16]byte
	putLE(u[:8], a)
	putLE(u[8:], b)
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	dst = hex.AppendEncode(dst, u[0:4])
	dst = append(dst, '-')
	dst = hex.AppendEncode(dst, u[4:6])
	dst = append(dst, '-')
	dst = hex.AppendEncode(dst, u[6:8])
	dst = append(dst, '-')
	dst = hex.AppendEncode(dst, u[8:10])
	dst = append(dst, '-')
	return hex.AppendEncode(dst, u[10:16])
}

// Append appends the hash of src (the source column's bytes).
func (g SHA256Of) Append(dst, src []byte) []byte {
	sum := sha256.Sum256(src)
	return hex.AppendEncode(dst, sum[:])
}

// Append appends row i's value.
func (g Choice) Append(dst []byte, seed uint64, i int64) []byte {
	m := Draw(seed, g.Stream, uint64(i))
	for j := range max(g.Count, 1) {
		if j > 0 {
			dst = append(dst, g.Sep...)
		}
		dst = append(dst, g.List[(m>>(16*j))%uint64(len(g.List))]...)
	}
	return dst
}

// Append appends row i's value.
func (g Const) Append(dst []byte, _ uint64, _ int64) []byte { return append(dst, g.Value...) }

// Append appends row i's value.
func (g SeqText) Append(dst []byte, _ uint64, i int64) []byte {
	dst = append(dst, g.Prefix...)
	dst = strconv.AppendInt(dst, g.Start+i, 10)
	return append(dst, g.Suffix...)
}
