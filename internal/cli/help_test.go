package cli

import (
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	flag "github.com/spf13/pflag"

	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/workload"
)

// helpInvocations are every page there is: each command's, each
// workload's, each suite's and the audit of another workload.
func helpInvocations() [][]string {
	var out [][]string
	for _, c := range commands {
		out = append(out, []string{c.name})
	}
	for _, w := range workload.Names() {
		out = append(out, []string{"run", w})
	}
	for _, s := range suites {
		out = append(out, []string{"suite", s.name})
	}
	return append(out, []string{"audit", "write"})
}

// collectFlags is the flag set args parse with, as the command builds it
// (nil when the command stops before parsing, e.g. on a missing file).
func collectFlags(ctx context.Context, args []string) *flag.FlagSet {
	for _, c := range commands {
		if c.name == args[0] {
			col := &flagCollector{}
			c.run(ctx, append(append([]string{}, args[1:]...), "--help"), col, io.Discard)
			return col.fs
		}
	}
	return nil
}

var flagEntry = regexp.MustCompile(`^    (?:-[a-zA-Z], )?(--?[a-z0-9][a-z0-9-]*)`)

// Every page has the sections of a manual page in order, fits in 80
// columns, lists every flag the command parses under a FLAGS heading and
// no flag it does not, and has examples that parse.
func TestHelpPages(t *testing.T) {
	ctx := context.Background()
	for _, inv := range helpInvocations() {
		what := strings.Join(inv, " ")
		o := run(t, ctx, append(append([]string{}, inv...), "--help")...)
		if o.code != ExitOK {
			t.Errorf("%s --help: exit %d: %s", what, o.code, o.err)
			continue
		}
		lines := strings.Split(strings.TrimRight(o.out, "\n"), "\n")
		var headings []string
		listed := map[string]bool{}
		section := ""
		for i, l := range lines {
			if n := utf8.RuneCountInString(l); n > helpWidth {
				t.Errorf("%s --help: line %d is %d columns: %q", what, i+1, n, l)
			}
			if heading.MatchString(l) {
				section = l
				headings = append(headings, l)
				continue
			}
			if m := flagEntry.FindStringSubmatch(l); m != nil && strings.HasSuffix(section, "FLAGS") {
				listed[strings.TrimLeft(m[1], "-")] = true
			}
		}
		order := []string{"NAME", "SYNOPSIS", "DESCRIPTION", "FLAGS", "EXAMPLES", "SEE ALSO", "EXIT STATUS"}
		at := 0
		for _, h := range headings {
			if at < len(order) && (h == order[at] || order[at] == "FLAGS" && strings.HasSuffix(h, "FLAGS")) {
				at++
			}
		}
		if at < len(order) {
			t.Errorf("%s --help: sections %v lack %s (or it is out of order)", what, headings, order[at])
		}
		fs := collectFlags(ctx, inv)
		if fs == nil {
			t.Errorf("%s --help: no flag set collected", what)
			continue
		}
		fs.VisitAll(func(f *flag.Flag) {
			if !f.Hidden && !listed[f.Name] {
				t.Errorf("%s --help: flag --%s is parsed but not listed under FLAGS", what, f.Name)
			}
			delete(listed, f.Name)
		})
		delete(listed, "help") // pages without flags say so
		for name := range listed {
			t.Errorf("%s --help: lists --%s, which it does not parse", what, name)
		}
		checkExamples(t, ctx, what, o.out)
	}
}

// pageExamples are the command lines of a page's EXAMPLES, continuation
// lines joined.
func pageExamples(page string) []string {
	_, rest, _ := strings.Cut(page, "\nEXAMPLES\n")
	rest, _, _ = strings.Cut(rest, "\n\n")
	return strings.Split(strings.ReplaceAll(rest, " \\\n", " "), "\n")
}

// invocations are the litebench command lines in a shell line, split at
// pipes, redirections and process substitutions, quotes removed.
func invocations(line string) [][]string {
	var out [][]string
	var cur []string
	in := false
	for _, w := range shellFields(line) {
		if strings.HasPrefix(w, "<(") {
			w = strings.TrimPrefix(w, "<(")
		}
		switch {
		case w == "|" || w == "&&" || w == ";" || strings.HasPrefix(w, ">") || strings.HasPrefix(w, "<"):
			if in {
				out = append(out, cur)
			}
			cur, in = nil, false
			continue
		case w == "litebench":
			in, cur = true, nil
			continue
		}
		if in {
			cur = append(cur, strings.Trim(strings.TrimSuffix(w, ")"), `'"`))
		}
	}
	if in {
		out = append(out, cur)
	}
	return out
}

// checkExamples parses every example as its command would: the command
// exists, its flags are the command's own with values of their kind, each
// setting's values are valid, and a word that names a workload, suite or
// list is one there is.
func checkExamples(t *testing.T, ctx context.Context, what, page string) {
	t.Helper()
	ex := pageExamples(page)
	if len(ex) < 1 || len(ex) > 4 {
		t.Errorf("%s --help: %d examples, want 1 to 4", what, len(ex))
	}
	for _, line := range ex {
		invs := invocations(line)
		if len(invs) == 0 {
			t.Errorf("%s --help: example %q runs no litebench command", what, line)
		}
		for _, args := range invs {
			if len(args) == 0 || !isCommand(args[0]) {
				t.Errorf("%s --help: example %q: not a command", what, line)
				continue
			}
			// pgbench's script options are taken out before flags parse.
			var words []string
			for i := 1; i < len(args); i++ {
				if args[i] == "-f" || args[i] == "--init" || args[i] == "-D" {
					i++
					continue
				}
				words = append(words, args[i])
			}
			fs := collectFlags(ctx, args)
			if fs == nil {
				// It names a file that is not here: its command's flags.
				fs = collectFlags(ctx, args[:1])
			}
			nargs, _ := normalizeArgs(fs, words)
			if err := fs.Parse(nargs); err != nil {
				t.Errorf("%s --help: example %q: %v", what, line, err)
				continue
			}
			fs.Visit(func(f *flag.Flag) {
				if len(f.Annotations[groupKey]) == 0 || settings.Lookup(f.Name) == nil || !strings.HasSuffix(f.Annotations[groupKey][0], "SETTING FLAGS") {
					return
				}
				for _, v := range strings.Split(f.Value.String(), ",") {
					if err := settings.Default().Set(f.Name, v); err != nil {
						t.Errorf("%s --help: example %q: %v", what, line, err)
					}
				}
			})
			if known := firstArgs(args[0]); len(known) > 0 && fs.NArg() > 0 && !strings.ContainsAny(fs.Arg(0), "./") {
				if !contains(known, fs.Arg(0)) {
					t.Errorf("%s --help: example %q: %q is not one of %v", what, line, fs.Arg(0), known)
				}
			}
		}
	}
}

// Settings an engine registers appear in every page that takes settings,
// under the engine's own heading, without the page naming them.
func TestHelpListsEngineSettings(t *testing.T) {
	o := run(t, context.Background(), "insert", "--help")
	for _, sp := range settings.Specs {
		head := settingGroup(sp.Engine)
		_, after, ok := strings.Cut(o.out, "\n"+head+"\n")
		if !ok {
			t.Errorf("insert --help lacks %s", head)
			continue
		}
		body, _, _ := strings.Cut(after, "\n\n")
		if !regexp.MustCompile(`(?m)^    --` + regexp.QuoteMeta(sp.Key) + `\b`).MatchString(body) {
			t.Errorf("insert --help: --%s is not under %s", sp.Key, head)
		}
	}
}

// Each suite says which published experiment it reproduces, in its help
// and in 'litebench list suites'.
func TestSuitesNameTheirExperiment(t *testing.T) {
	list := run(t, context.Background(), "list", "suites")
	flat := strings.Join(strings.Fields(list.out), " ")
	for _, s := range suites {
		src := suiteSources[s.name]
		if src == "" {
			t.Errorf("suite %s names no published experiment", s.name)
			continue
		}
		o := run(t, context.Background(), "suite", s.name, "--help")
		if !strings.Contains(strings.Join(strings.Fields(o.out), " "), "Reproduces "+src) {
			t.Errorf("suite %s --help does not say what it reproduces", s.name)
		}
		if !strings.Contains(flat, src) {
			t.Errorf("list suites does not say what %s reproduces", s.name)
		}
	}
}

// A flag's line is made from the flag: its value, default and usage,
// wrapped beside the name.
func TestFlagLine(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.Int("limit", 50, "show at most N runs (0 = all)")
	fs.Bool("last", false, "the newest sweep")
	fs.String("innodb-buffer-pool-size", "default", "MariaDB innodb_buffer_pool_size of the managed server, e.g. 128MB or 1GB")
	got := flagLine(fs.Lookup("limit")) + flagLine(fs.Lookup("last")) + flagLine(fs.Lookup("innodb-buffer-pool-size"))
	want := "" +
		"    --limit N               show at most N runs (0 = all) (default 50)\n" +
		"    --last                  the newest sweep\n" +
		"    --innodb-buffer-pool-size SIZE\n" +
		"                            MariaDB innodb_buffer_pool_size of the managed\n" +
		"                            server, e.g. 128MB or 1GB (default default)\n"
	if got != want {
		t.Errorf("flag lines:\n%s\nwant:\n%s", got, want)
	}
}

// The overview fits in 80 columns too.
func TestUsageWidth(t *testing.T) {
	o := run(t, context.Background(), "help")
	for i, l := range strings.Split(o.out, "\n") {
		if n := utf8.RuneCountInString(l); n > helpWidth {
			t.Errorf("help: line %d is %d columns: %q", i+1, n, l)
		}
	}
}
