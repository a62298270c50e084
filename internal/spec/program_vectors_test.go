package spec_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/spec"
)

// vectorsPath is what workers in other languages check their expression
// evaluators against (docs/workload-program.md).
const vectorsPath = "testdata/program-vectors.json"

// vectorExprs are evaluated five times each on a fresh worker: every
// operator, every function, conversions and failures.
var vectorExprs = []string{
	"random(1, 100)", "random(-5, 5)", "random(-9223372036854775808, 9223372036854775807)",
	"random_exponential(1, 100, 5)", "random_exponential(1, 1000000, 0.5)",
	"random_gaussian(1, 100, 2.5)", "random_gaussian(-50, 50, 7)",
	"random_zipfian(1, 100, 1.5)", "random_zipfian(1, 1000000, 1.01)", "random_zipfian(5, 5, 2)",
	"hash_fnv1a(42, 0)", "hash_murmur2(42, 0)", "hash(:client_id)", "hash_fnv1a(-1)", "hash(random(1, 10), 99)",
	"7 / 2", "-7 / 2", "7 % -3", "-7 % 3", "7.0 / 2", "1 + 2 * 3 - 4", "2 - 3 - 4", "1.5 * 4", "1e3 + 0.25",
	"9223372036854775807 + 1", "-9223372036854775808 - 1", "4611686018427387904 * 2", "5 / 0", "5 % 0", "-9223372036854775808 / -1", "1.0 / 0",
	"1 << 62", "1 << 64", "-1 >> 1", "5 # 3", "5 & 3 | 8", "~5", "-(3)", "- -9223372036854775808",
	"abs(-3)", "abs(-2.5)", "int(-2.7)", "int(1e30)", "double(3)", "mod(-7, 3)", "mod(7, -1)",
	"exp(1)", "exp(-0.5)", "ln(10)", "ln(0.3)", "pow(2, 0.5)", "power(2.5, 3.2)", "pow(-2, 3)", "sqrt(2)", "pi()",
	"greatest(1, 2.5, NULL)", "greatest(3, 1, 2)", "least(3, 1, 2)", "least(NULL, 2)",
	"NULL IS NULL", "1 IS NOT NULL", "0 IS TRUE", "NULL IS NOT FALSE", "1 ISNULL", "1 NOTNULL",
	"TRUE AND NULL", "FALSE AND NULL", "NULL OR TRUE", "NULL OR FALSE", "NOT TRUE", "NOT NULL",
	"1 = 1.0", "2 <> 3", "2 != 2", "1 < 2", "2 <= 1", "3 > 2.5", "3 >= 3", "NULL = 1", "1 + NULL",
	"CASE WHEN 1 > 2 THEN 'a' WHEN 2 > 1 THEN 'b' END", "CASE WHEN FALSE THEN 1 END", "CASE WHEN NULL THEN 1 ELSE 2 END",
	"hex(8)", "hex(0)", "letters(5)", "text(3, 20)", "text(4, 2)", "uuid4()", "choice(1, 'two', 3.5)", "'it''s'",
	":n + 1", ":f * 2", ":s + 1", ":s", ":yes AND TRUE", ":n = 41", ":client_id", ":scale",
	"rows(t)", "key(t)", "key(t, zipfian)", "key(t, zipfian, 0.5)", "key(t, latest)", "key(u)", "rows(empty)", "key(empty)",
	"random(10, 1)", "random_gaussian(1, 10, 1)", "random_exponential(1, 10, 0)", "random_zipfian(1, 10, 1)", "random(1, NULL)",
	"random(1, 10) + random(1, 10) * 100",
}

const vectorsFile = `name = "vectors"

[params]
n = "41"
f = "2.5"
s = "abc"
yes = "on"

[[table]]
name = "t"
rows = 1000
columns = [{ name = "id", type = "integer", primary_key = true, gen = "seq(1)" }]

[[table]]
name = "u"
rows = 50
columns = [{ name = "id", type = "text", primary_key = true, gen = "uuid4()" }, { name = "v", gen = "uniform(1, 9)" }]

[[table]]
name = "empty"
columns = [{ name = "id", type = "integer", primary_key = true, gen = "seq(1)" }]

[transaction.all]
steps = [
%s
  "SELECT 1",
]
`

type programVectors struct {
	About   string          `json:"about"`
	Program json.RawMessage `json:"program"`
	Cases   []vectorCase    `json:"cases"`
}

type vectorCase struct {
	Src    string      `json:"src"`
	Worker int         `json:"worker"`
	Expr   *spec.Expr  `json:"expr"`
	Values []vectorVal `json:"values,omitempty"`
	Error  string      `json:"error,omitempty"`
}

// vectorVal is a value, typed: int (decimal), float (IEEE bits in hex),
// text, bool, or null.
type vectorVal map[string]any

func typed(v any) vectorVal {
	switch v := v.(type) {
	case int64:
		return vectorVal{"int": strconv.FormatInt(v, 10)}
	case float64:
		return vectorVal{"float": fmt.Sprintf("%016x", math.Float64bits(v))}
	case string:
		return vectorVal{"text": v}
	case bool:
		return vectorVal{"bool": v}
	}
	return vectorVal{"null": true}
}

func makeProgramVectors(t *testing.T) []byte {
	var steps []string
	for k, e := range vectorExprs {
		steps = append(steps, fmt.Sprintf("  '''\\set r%d %s''',", k, e))
	}
	f, err := spec.ParseFile("vectors.toml", []byte(fmt.Sprintf(vectorsFile, strings.Join(steps, "\n"))))
	if err != nil {
		t.Fatal(err)
	}
	w, err := f.Resolve(map[string]string{"count": "1"}, settings.Default())
	if err != nil {
		t.Fatal(err)
	}
	p, err := w.Program(dialect.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	// The workers need the tables, the variables and the seed; the steps
	// are the cases.
	head, err := json.Marshal(struct {
		Seed     string              `json:"seed"`
		Tables   []spec.ProgramTable `json:"tables"`
		Vars     []spec.ProgramVar   `json:"vars"`
		ClientID int                 `json:"client_id"`
		Scale    int                 `json:"scale"`
	}{p.Seed, p.Tables, p.Vars, p.ClientID, p.Scale})
	if err != nil {
		t.Fatal(err)
	}
	v := programVectors{About: "workload programs' expressions (docs/workload-program.md): each case evaluated five times in a row by a fresh worker of the program; values are typed, floats given by their IEEE-754 bits", Program: head}
	for k, src := range vectorExprs {
		for _, worker := range []int{0, 3} {
			if worker == 3 && !strings.Contains(src, "random") && !strings.Contains(src, "key") && !strings.Contains(src, "client_id") {
				continue
			}
			c := vectorCase{Src: src, Worker: worker, Expr: p.Transactions[0].Steps[k].Expr}
			ev, err := spec.NewEvaluator(p, worker)
			if err != nil {
				t.Fatal(err)
			}
			for range 5 {
				x, err := ev.Eval(c.Expr)
				if err != nil {
					c.Error = err.Error()
					break
				}
				c.Values = append(c.Values, typed(x))
			}
			v.Cases = append(v.Cases, c)
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The expression vectors on disk are what the evaluator gives (-update
// rewrites them); docs/workload-files.md §7's table is among them.
func TestProgramVectors(t *testing.T) {
	b := makeProgramVectors(t)
	// -update (the package's flag, which rewrites its golden files) rewrites
	// the vectors too.
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(vectorsPath, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old, err := os.ReadFile(vectorsPath)
	if err != nil {
		t.Fatalf("%v (go test ./internal/spec -run TestProgramVectors -update writes it)", err)
	}
	if !bytes.Equal(old, b) {
		t.Fatalf("%s is out of date: go test ./internal/spec -run TestProgramVectors -update", vectorsPath)
	}
	var v programVectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"random(1, 100)":                "75 12 29 63 27",
		"random_exponential(1, 100, 5)": "27 3 7 20 7",
		"random_gaussian(1, 100, 2.5)":  "57 22 16 12 39",
		"random_zipfian(1, 100, 1.5)":   "1 14 1 10 4",
	}
	for _, c := range v.Cases {
		if w, ok := want[c.Src]; ok && c.Worker == 0 {
			var got []string
			for _, x := range c.Values {
				got = append(got, fmt.Sprint(x["int"]))
			}
			if strings.Join(got, " ") != w {
				t.Errorf("%s: %v, the docs say %s", c.Src, got, w)
			}
		}
	}
}
