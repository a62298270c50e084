// Package sqlfence keeps workload SQL inside the run's own SQLite
// database. It finds, in an SQL text, the statements that reach other
// files: ATTACH (which opens or creates any file), DETACH, VACUUM INTO
// (which writes a copy anywhere) and load_extension() (which loads code).
// The controller refuses a workload holding one before anything runs;
// the in-process Go clients add an authorizer (Authorize) as a second
// line.
//
// The scanner tokenizes as SQLite does: -- and /* */ comments, '…'
// strings, "…", `…` and […] quoted names, several statements in one text
// split at ';', keywords in any case.
package sqlfence

import (
	"net/url"
	"path/filepath"
	"strings"
)

// Kinds of finding.
const (
	Attach        = "ATTACH"
	Detach        = "DETACH"
	VacuumInto    = "VACUUM INTO"
	LoadExtension = "load_extension()"
)

// Finding is one statement that reaches beyond the run's database.
type Finding struct {
	// Kind is Attach, Detach, VacuumInto or LoadExtension.
	Kind string
	// Off is the byte offset in the text of the statement's first word
	// (of the function's name for LoadExtension).
	Off int
	// Stmt is the statement, its white space collapsed, shortened to
	// about 80 bytes: for messages.
	Stmt string
	// File is the file name of an ATTACH written as one string literal
	// ('victim.db'), and Lit its bytes in the text, quotes included;
	// Lit is [0, 0] when the name is an expression.
	File string
	Lit  [2]int
}

// HasLiteral reports whether an ATTACH names its file as one string.
func (f Finding) HasLiteral() bool { return f.Lit[1] > f.Lit[0] }

type tokKind int

const (
	tWord  tokKind = iota // keyword or bare name
	tQName                // "name", `name`, [name]
	tStr                  // 'string'
	tPunct                // anything else, one byte
	tSemi                 // ;
)

type token struct {
	kind     tokKind
	off, end int
	val      string // the word, the unquoted name or string
}

// tokenize splits q into tokens, dropping white space and comments.
func tokenize(q string) []token {
	var out []token
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			if e := strings.Index(q[i+2:], "*/"); e >= 0 {
				i += e + 4
			} else {
				i = len(q)
			}
		case c == '\'' || c == '"' || c == '`':
			end, val := quoted(q, i)
			k := tStr
			if c != '\'' {
				k = tQName
			}
			out = append(out, token{k, i, end, val})
			i = end
		case c == '[':
			end := len(q)
			if e := strings.IndexByte(q[i+1:], ']'); e >= 0 {
				end = i + 1 + e + 1
			}
			out = append(out, token{tQName, i, end, strings.TrimSuffix(q[i+1:end], "]")})
			i = end
		case c == ';':
			out = append(out, token{tSemi, i, i + 1, ";"})
			i++
		case isWordStart(c):
			j := i + 1
			for j < len(q) && isWordByte(q[j]) {
				j++
			}
			out = append(out, token{tWord, i, j, q[i:j]})
			i = j
		default:
			out = append(out, token{tPunct, i, i + 1, q[i : i+1]})
			i++
		}
	}
	return out
}

// quoted reads the quoted token at i: its end and its value with doubled
// quotes made single. An unclosed quote runs to the end of the text.
func quoted(q string, i int) (int, string) {
	c := q[i]
	var b strings.Builder
	for j := i + 1; j < len(q); j++ {
		if q[j] == c {
			if j+1 < len(q) && q[j+1] == c {
				b.WriteByte(c)
				j++
				continue
			}
			return j + 1, b.String()
		}
		b.WriteByte(q[j])
	}
	return len(q), b.String()
}

func isWordStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isWordByte(c byte) bool {
	return isWordStart(c) || c >= '0' && c <= '9' || c == '$'
}

func (t token) is(word string) bool { return t.kind == tWord && strings.EqualFold(t.val, word) }

// Scan returns the statements of q that reach beyond the run's database,
// in order.
func Scan(q string) []Finding {
	toks := tokenize(q)
	var out []Finding
	for start := 0; start < len(toks); {
		end := start
		for end < len(toks) && toks[end].kind != tSemi {
			end++
		}
		out = append(out, scanStmt(q, toks[start:end])...)
		start = end + 1
	}
	return out
}

// scanStmt looks at one statement's tokens.
func scanStmt(q string, ts []token) []Finding {
	if len(ts) == 0 {
		return nil
	}
	text := oneLine(q[ts[0].off:ts[len(ts)-1].end])
	var out []Finding
	lead := 0
	if ts[0].is("EXPLAIN") {
		lead = 1
		if len(ts) > 2 && ts[1].is("QUERY") && ts[2].is("PLAN") {
			lead = 3
		}
	}
	if lead < len(ts) {
		first := ts[lead]
		switch {
		case first.is("ATTACH"):
			f := Finding{Kind: Attach, Off: first.off, Stmt: text}
			k := lead + 1
			if k < len(ts) && ts[k].is("DATABASE") {
				k++
			}
			if k+1 < len(ts) && ts[k].kind == tStr && ts[k+1].is("AS") {
				f.File, f.Lit = ts[k].val, [2]int{ts[k].off, ts[k].end}
			}
			out = append(out, f)
		case first.is("DETACH"):
			out = append(out, Finding{Kind: Detach, Off: first.off, Stmt: text})
		case first.is("VACUUM"):
			for _, t := range ts[lead+1:] {
				if t.is("INTO") {
					out = append(out, Finding{Kind: VacuumInto, Off: first.off, Stmt: text})
					break
				}
			}
		}
	}
	for k, t := range ts {
		if (t.kind == tWord || t.kind == tQName) && strings.EqualFold(t.val, "load_extension") &&
			k+1 < len(ts) && ts[k+1].kind == tPunct && ts[k+1].val == "(" {
			out = append(out, Finding{Kind: LoadExtension, Off: t.off, Stmt: text})
		}
	}
	return out
}

// oneLine collapses white space and shortens s for a one-line message.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		cut := 77
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

// ReadOnlyURI is the URI filename that opens path read-only (and never
// creates it): file:/abs/path?mode=ro, the path made absolute.
func ReadOnlyURI(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	u := url.URL{Scheme: "file", Path: abs, RawQuery: "mode=ro"}
	return u.String(), nil
}

// ReadOnly reports whether name is a URI filename that ReadOnlyURI could
// have written: file: with an absolute path and mode=ro as its only
// parameter. Such an ATTACH neither creates nor writes a file, on a
// connection opened with URI filenames enabled (all of litebench's Go
// clients open so).
func ReadOnly(name string) bool {
	if !strings.HasPrefix(name, "file:") || strings.Contains(name, "#") {
		return false
	}
	u, err := url.Parse(name)
	if err != nil || u.Scheme != "file" || u.Opaque != "" || u.Host != "" || !strings.HasPrefix(u.Path, "/") {
		return false
	}
	return u.RawQuery == "mode=ro"
}

// Authorizer action codes of SQLite (sqlite3.h), the same in every
// driver.
const (
	ActionAttach = 24 // SQLITE_ATTACH: arg1 is the file name
	authAttach   = ActionAttach
	authDetach   = 25 // SQLITE_DETACH: arg1 is the schema
	authFunction = 31 // SQLITE_FUNCTION: arg2 is the function's name
)

// AttachLimit is the SQLITE_LIMIT_ATTACHED litebench's Go clients set on
// each connection: one database beside main and temp, not 0, because
// plain VACUUM attaches its temporary copy under the same limit and fails
// with "too many attached databases - max 0" at 0. The authorizer is
// what refuses an ATTACH; the limit bounds what an allowed one can add.
const AttachLimit = 1

// Deny is what Authorize returns to refuse (SQLITE_DENY); 0 is SQLITE_OK.
const Deny = 1

// Authorize is the authorizer of litebench's in-process Go clients: it
// denies DETACH, load_extension() and every ATTACH but of a temporary
// database (the empty name, which plain VACUUM attaches) or of a
// read-only URI (what --allow-attach writes). VACUUM INTO attaches its
// output file by name and is denied with it. action is SQLite's action
// code; arg1 and arg2 its first two arguments.
func Authorize(action int, arg1, arg2 string) int {
	switch action {
	case authAttach:
		if arg1 == "" || ReadOnly(arg1) {
			return 0
		}
		return Deny
	case authDetach:
		return Deny
	case authFunction:
		if strings.EqualFold(arg2, "load_extension") {
			return Deny
		}
	}
	return 0
}
