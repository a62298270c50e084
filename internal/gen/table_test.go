package gen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

var base = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// every is one column of each generator kind, with parameters that reach
// their corners.
var every = []Column{
	{"seq", Seq{Start: 1}},
	{"small", UniformInt{Lo: -5, Hi: 5}},
	{"all", UniformInt{Lo: math.MinInt64, Hi: math.MaxInt64, Stream: 2}},
	{"zipf", ZipfInt{N: 1000, Theta: 0.99}},
	{"latest", LatestInt{N: 1000, Theta: 0.9, Stream: 4}},
	{"one", ConstInt{Value: 1}},
	{"ms", Timestamp{Start: base, Step: time.Millisecond, Format: UnixMilli}},
	{"before", Timestamp{Start: time.Unix(0, 0).UTC(), Step: -time.Microsecond - 1, Format: UnixMilli}},
	{"at", Timestamp{Start: base, Step: 1234567, Format: RFC3339Nano}},
	{"rand", Hex{Bytes: 8}},
	{"long", Hex{Bytes: 21, Stream: 3}},
	{"hash", SHA256Of{Column: "rand", DecodeHex: true}},
	{"seqhash", SHA256Of{Column: "seq"}},
	{"letters", Letters{Len: 30}},
	{"text", Text{Min: 0, Max: 40}},
	{"page", Text{Min: 300, Max: 300, Stream: 9}},
	{"texthash", SHA256Of{Column: "page"}},
	{"uuid", UUID4{}},
	{"names", Choice{List: []string{"Ada", "Grace", "Edsger"}, Count: 4, Sep: ", "}},
	{"const", Const{Value: "Someone"}},
	{"email", SeqText{Prefix: "user", Start: 1, Suffix: "@example.com"}},
}

func TestRow(t *testing.T) {
	tb := MustCompile(every...)
	vals := make([]Value, len(every))
	col := map[string]int{}
	for k, c := range every {
		col[c.Name] = k
	}
	for i := int64(0); i < 2000; i++ {
		buf := tb.Row(7, i, make([]byte, 0, tb.MaxLen()), vals)
		if len(buf) > tb.MaxLen() {
			t.Fatalf("row %d: %d bytes of text, MaxLen %d", i, len(buf), tb.MaxLen())
		}
		text := func(name string) string { return string(vals[col[name]].Text) }
		num := func(name string) int64 { return vals[col[name]].Int }
		// Each column alone gives what the row gives.
		for k := range every {
			if tb.IsText(k) {
				if got := tb.AppendText(k, nil, 7, i); !bytes.Equal(got, vals[k].Text) {
					t.Fatalf("row %d %s: alone %q, in the row %q", i, every[k].Name, got, vals[k].Text)
				}
			} else if got := tb.Int(k, 7, i); got != vals[k].Int {
				t.Fatalf("row %d %s: alone %d, in the row %d", i, every[k].Name, got, vals[k].Int)
			}
		}
		raw, _ := hex.DecodeString(text("rand"))
		sum := sha256.Sum256(raw)
		if len(raw) != 8 || text("hash") != hex.EncodeToString(sum[:]) {
			t.Fatalf("row %d: hash %s of rand %s", i, text("hash"), text("rand"))
		}
		sum = sha256.Sum256([]byte(strconv.FormatInt(num("seq"), 10)))
		if text("seqhash") != hex.EncodeToString(sum[:]) {
			t.Fatalf("row %d: seqhash", i)
		}
		sum = sha256.Sum256([]byte(text("page")))
		if text("texthash") != hex.EncodeToString(sum[:]) {
			t.Fatalf("row %d: texthash", i)
		}
		if v := num("small"); v < -5 || v > 5 {
			t.Fatalf("row %d: uniform_int %d out of [-5, 5]", i, v)
		}
		if v := num("zipf"); v < 0 || v >= 1000 {
			t.Fatalf("row %d: zipf_int %d out of [0, 1000)", i, v)
		}
		if v, z := num("latest"), NewZipf(1000, 0.9); v != 999-z.Rank(Unit(Draw(7, 4, uint64(i)))) {
			t.Fatalf("row %d: latest_int %d is not 999 - rank", i, v)
		}
		if want := base.Add(time.Duration(i) * 1234567).Format(time.RFC3339Nano); text("at") != want {
			t.Fatalf("row %d: timestamp %s, want %s", i, text("at"), want)
		}
		if want := time.Unix(0, 0).Add(time.Duration(i) * (-time.Microsecond - 1)).UnixMilli(); num("before") != want {
			t.Fatalf("row %d: unix_ms %d, want %d", i, num("before"), want)
		}
		if n := len(text("text")); n > 40 || strings.HasPrefix(text("text"), " ") {
			t.Fatalf("row %d: text %q", i, text("text"))
		}
		if len(text("page")) != 300 || len(text("long")) != 42 || len(text("letters")) != 30 {
			t.Fatalf("row %d: lengths", i)
		}
		if u := text("uuid"); len(u) != 36 || u[14] != '4' || !strings.ContainsRune("89ab", rune(u[19])) {
			t.Fatalf("row %d: uuid %s", i, u)
		}
		if text("email") != "user"+strconv.FormatInt(i+1, 10)+"@example.com" || num("seq") != i+1 {
			t.Fatalf("row %d: %s %d", i, text("email"), num("seq"))
		}
	}
}

// Text lengths cover [Min, Max].
func TestTextLengths(t *testing.T) {
	g := Text{Min: 3, Max: 6}
	seen := map[int]bool{}
	for i := range int64(200) {
		n := len(g.Append(nil, 1, i))
		if n != g.Len(1, i) || n < 3 || n > 6 {
			t.Fatalf("row %d: %d bytes", i, n)
		}
		seen[n] = true
	}
	if len(seen) != 4 {
		t.Errorf("lengths seen %v, want 3 to 6", seen)
	}
}

// A row costs no allocation when its buffer has room.
func TestRowAllocs(t *testing.T) {
	tb := MustCompile(every...)
	vals := make([]Value, len(every))
	buf := make([]byte, 0, tb.MaxLen())
	if n := testing.AllocsPerRun(100, func() { tb.Row(3, 12345, buf, vals) }); n != 0 {
		t.Errorf("%v allocations per row", n)
	}
	if n := testing.AllocsPerRun(100, func() { AppendUUID(buf, 1, 2) }); n != 0 {
		t.Errorf("%v allocations per UUID", n)
	}
}

func TestCompileErrors(t *testing.T) {
	for _, c := range []struct {
		cols []Column
		want string
	}{
		{[]Column{{"", Seq{}}}, "column 1 has no name"},
		{[]Column{{"a", Seq{}}, {"a", Seq{}}}, `column "a" appears twice`},
		{[]Column{{"a", nil}}, "no generator"},
		{[]Column{{"a", UniformInt{Lo: 2, Hi: 1}}}, "lo 2 is above hi 1"},
		{[]Column{{"a", ZipfInt{N: 10, Theta: 1}}}, "0 < theta < 1"},
		{[]Column{{"a", Timestamp{Format: "iso"}}}, `format "iso"`},
		{[]Column{{"a", Hex{}}}, "bytes from 1 to 8388608 (values up to 16777216 bytes, the limit), not 0"},
		{[]Column{{"a", Hex{Bytes: 1 << 30}}}, "bytes from 1 to 8388608"},
		{[]Column{{"a", Letters{Len: -1}}}, "len from 0 to 16777216"},
		{[]Column{{"a", Letters{Len: 2e9}}}, "letters wants len from 0 to 16777216 (the limit of a value's bytes), not 2000000000"},
		{[]Column{{"a", Text{Min: 1e9, Max: 1e9}}}, "text wants max ≤ 16777216 (the limit of a value's bytes), not 1000000000"},
		{[]Column{{"a", Text{Min: 5, Max: 4}}}, "min ≤ max"},
		{[]Column{{"a", SHA256Of{Column: "b"}}, {"b", Seq{}}}, "earlier column"},
		{[]Column{{"b", Seq{}}, {"a", SHA256Of{Column: "b", DecodeHex: true}}}, "not hex"},
		{[]Column{{"a", Choice{}}}, "choice wants a list"},
		{[]Column{{"a", Choice{List: []string{"x"}, Count: 5}}}, "count from 1 to 4"},
	} {
		_, err := Compile(c.cols)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.cols, err, c.want)
		}
	}
}
