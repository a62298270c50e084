package spec

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/litebench/litebench/internal/sqlfence"
)

// The fence: workload SQL touches no file but the run's own database.
// ATTACH, DETACH, VACUUM INTO and load_extension() are refused in every
// text the workload runs (statements, inline steps, init, checks, table
// DDL), as the texts are after parameters are put in, when the workload
// is resolved for a run or a check. The one exception is an ATTACH of a
// file the user named with --allow-attach, written as a string literal:
// the parser rewrites every such literal to a read-only URI
// (file:/abs/path?mode=ro), so an allowed ATTACH can neither create nor
// write its file.

// AllowAttachSource names the definition sources that carry
// --allow-attach paths to a worker process.
const AllowAttachSource = "--allow-attach"

// attachReadOnly rewrites the file names of q's ATTACH statements that
// are plain paths in string literals to read-only URIs.
func attachReadOnly(q string) string {
	fs := sqlfence.Scan(q)
	for k := len(fs) - 1; k >= 0; k-- {
		f := fs[k]
		if f.Kind != sqlfence.Attach || !f.HasLiteral() || f.File == "" || f.File == ":memory:" || strings.HasPrefix(f.File, "file:") {
			continue
		}
		u, err := sqlfence.ReadOnlyURI(f.File)
		if err != nil {
			continue
		}
		q = q[:f.Lit[0]] + "'" + strings.ReplaceAll(u, "'", "''") + "'" + q[f.Lit[1]:]
	}
	return q
}

// AllowedPaths checks the paths of --allow-attach: each must be a file
// that exists; it returns them absolute.
func AllowedPaths(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("--allow-attach %s: %v", p, err)
		}
		st, err := os.Stat(abs)
		switch {
		case err != nil:
			return nil, fmt.Errorf("--allow-attach %s: no such file; name an existing database (it is attached read-only)", p)
		case !st.Mode().IsRegular():
			return nil, fmt.Errorf("--allow-attach %s: not a regular file; name a database file", p)
		}
		out = append(out, abs)
	}
	return out, nil
}

// allowedURI reports whether name is the read-only URI of an allowed
// path.
func allowedURI(name string, allow []string) bool {
	if !sqlfence.ReadOnly(name) {
		return false
	}
	u, err := url.Parse(name)
	if err != nil {
		return false
	}
	for _, p := range allow {
		if filepath.Clean(u.Path) == p {
			return true
		}
	}
	return false
}

// fenceText checks one text as it will run. orig is the text as written
// and at places its bytes; when the text as run differs in its findings
// (a parameter put in), the message names pos and the text as run.
func fenceText(final, orig string, pos Pos, at func(int) Pos, allow []string) error {
	fs := sqlfence.Scan(final)
	if len(fs) == 0 {
		return nil
	}
	var orig0 []sqlfence.Finding
	if orig != "" && at != nil {
		orig0 = sqlfence.Scan(orig)
	}
	for k, f := range fs {
		if f.Kind == sqlfence.Attach && f.HasLiteral() && allowedURI(f.File, allow) {
			continue
		}
		p, stmt, written := pos, f.Stmt, f.File
		if len(orig0) == len(fs) {
			p, stmt, written = at(orig0[k].Off), orig0[k].Stmt, orig0[k].File
		}
		return &Error{Pos: p, Msg: refusal(f.Kind, stmt, written, len(allow) > 0)}
	}
	return nil
}

// refusal is the message for a refused statement.
func refusal(kind, stmt, file string, allowing bool) string {
	switch kind {
	case sqlfence.Attach:
		fix := "to read a database of yours, give its path to --allow-attach and ATTACH it by that path written as a string"
		if file != "" && !strings.HasPrefix(file, "file:") && file != ":memory:" {
			fix = "to read it, run with --allow-attach " + file + " (attached read-only)"
			if allowing {
				fix = "it is not a path given to --allow-attach; add --allow-attach " + file + " (attached read-only)"
			}
		}
		return fmt.Sprintf("%s refused: workload SQL may open no file but the run's database; %s", quoteStmt(stmt), fix)
	case sqlfence.Detach:
		return fmt.Sprintf("%s refused: workload SQL may not detach databases; remove it", quoteStmt(stmt))
	case sqlfence.VacuumInto:
		return fmt.Sprintf("%s refused: VACUUM INTO writes a copy of the database to another file; remove it (plain VACUUM is fine)", quoteStmt(stmt))
	default:
		return fmt.Sprintf("%s refused: workload SQL may not load extensions; remove load_extension()", quoteStmt(stmt))
	}
}

func quoteStmt(s string) string { return "«" + s + "»" }

// fence checks every text the resolved workload runs.
func (w *Workload) fence() error {
	f, allow := w.f, w.allow
	stmt := func(s *Stmt, final string) error {
		return fenceText(final, s.orig, s.Pos, s.at, allow)
	}
	seen := map[*Stmt]bool{}
	check := func(s *Stmt) error {
		if s == nil || seen[s] {
			return nil
		}
		seen[s] = true
		if err := stmt(s, s.SQL); err != nil {
			return err
		}
		for _, d := range sortedKeys(s.dialects) {
			at := func(int) Pos { return s.Pos }
			if err := fenceText(s.dialects[d], s.dialectsOrig[d], s.Pos, at, allow); err != nil {
				return err
			}
		}
		return nil
	}
	for _, name := range sortedKeys(f.stmts) {
		if err := check(f.stmts[name]); err != nil {
			return err
		}
	}
	for _, t := range f.Txns {
		for _, st := range t.Steps {
			if err := check(st.stmt); err != nil {
				return err
			}
		}
	}
	for _, tr := range w.tables {
		for k, q := range tr.create {
			pos := tr.t.Pos
			if k < len(tr.t.create) {
				pos = tr.t.create[k].pos
			}
			if err := fenceText(q, "", pos, nil, allow); err != nil {
				return err
			}
		}
	}
	for _, s := range w.init {
		if err := stmt(s, substitute(s.SQL, w.lookup)); err != nil {
			return err
		}
	}
	for _, c := range w.checks {
		if err := stmt(c.c.stmt, c.sql); err != nil {
			return err
		}
	}
	return nil
}

// attaches reports whether q attaches a database (one the fence let
// through: read-only, named by --allow-attach). A check runs it so that
// statements reading the attached database prepare.
func attaches(q string) bool {
	for _, f := range sqlfence.Scan(q) {
		if f.Kind == sqlfence.Attach {
			return true
		}
	}
	return false
}

// attachesAll checks that some ATTACH of the file names each allowed
// path (given as paths, absolute as abs): an --allow-attach that nothing
// uses is a mistake (a typo, or the wrong workload).
func (f *File) attachesAll(paths, abs []string) error {
	var stmts []*Stmt
	for _, name := range sortedKeys(f.stmts) {
		stmts = append(stmts, f.stmts[name])
	}
	for _, t := range f.Txns {
		for _, st := range t.Steps {
			stmts = append(stmts, st.stmt)
		}
	}
	stmts = append(stmts, f.init...)
	for _, c := range f.Checks {
		stmts = append(stmts, c.stmt)
	}
	named := map[string]bool{}
	for _, s := range stmts {
		if s == nil {
			continue
		}
		for _, x := range sqlfence.Scan(s.SQL) {
			if x.Kind != sqlfence.Attach || !sqlfence.ReadOnly(x.File) {
				continue
			}
			if u, err := url.Parse(x.File); err == nil {
				named[filepath.Clean(u.Path)] = true
			}
		}
	}
	for k, p := range abs {
		if !named[p] {
			return fmt.Errorf("--allow-attach %s: no ATTACH of %s names this file; attach it by this path written as a string (ATTACH DATABASE '%s' AS name), or remove --allow-attach", paths[k], f.Name, paths[k])
		}
	}
	return nil
}
