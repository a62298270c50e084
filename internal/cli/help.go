package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	flag "github.com/spf13/pflag"

	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/workload"
)

// A command's --help is a manual page: its NAME, SYNOPSIS and DESCRIPTION
// (and any sections of its own, such as the workloads run names), then its
// flags in groups, each line made from the registered flag so that help
// says exactly what is parsed, then EXAMPLES, SEE ALSO and EXIT STATUS.
// 'litebench man' is built from the same pages.

// helpWidth is the width every page is laid out in.
const helpWidth = 80

// helpPage is what a command says about itself beyond its flags.
type helpPage struct {
	// text is NAME, SYNOPSIS, DESCRIPTION and any further sections of
	// the command's own, laid out as printed: headings at the margin,
	// bodies indented four spaces.
	text string
	// group is the heading of the command's own flags (default FLAGS).
	group string
	// examples are command lines that work as they are.
	examples []string
	// seeAlso are the related commands ("show", "list settings").
	seeAlso []string
	// exit is the EXIT STATUS body; empty for the usual one.
	exit string
}

// paramUsage is the help of a workload parameter's flag.
func paramUsage(p workload.Param) string {
	var tail []string
	if p.Default != "" {
		tail = append(tail, "default "+p.Default)
	}
	if p.Sweep {
		tail = append(tail, "comma list = sweep")
	}
	if len(tail) == 0 {
		return p.Help
	}
	return p.Help + " (" + strings.Join(tail, "; ") + ")"
}

// groupKey is the flag annotation naming the group a flag is listed in.
const groupKey = "litebench-help-group"

// Flag groups, in the order pages list them.
const (
	groupWorkload = "WORKLOAD FLAGS"
	groupTarget   = "TARGET AND OUTPUT FLAGS"
	groupStore    = "STORE FLAGS"
)

// inGroup lists the flags names of fs under group.
func inGroup(fs *flag.FlagSet, group string, names ...string) {
	for _, n := range names {
		fs.SetAnnotation(n, groupKey, []string{group})
	}
}

// settingGroup is the heading of an engine's settings ("" for the
// application side's).
func settingGroup(engine string) string {
	if engine == "" {
		return "APPLICATION SETTING FLAGS"
	}
	return strings.ToUpper(engine) + " SETTING FLAGS"
}

// commonFlags are the names of the flags every benchmarking command shares
// (common.register), settings aside.
func commonFlags() map[string]bool {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	var c common
	c.register(fs)
	names := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) {
		if len(f.Annotations[groupKey]) == 0 {
			names[f.Name] = true
		}
	})
	return names
}

// flagGroup is the heading f is listed under on a page whose own flags
// are headed own; shared says whether fs has all of common's flags.
func flagGroup(f *flag.Flag, own string, shared map[string]bool) string {
	switch {
	case len(f.Annotations[groupKey]) > 0:
		return f.Annotations[groupKey][0]
	case f.Name == "store" || f.Name == "no-store":
		return groupStore
	case shared[f.Name]:
		return groupTarget
	}
	return own
}

// groupRank orders the groups: the workload's, the command's own, the
// settings (in the order engines registered them), target and output,
// then the store.
func groupRank(g, own string) int {
	switch g {
	case groupWorkload:
		return 0
	case own:
		return 1
	case groupTarget:
		return 1000
	case groupStore:
		return 1001
	}
	for i, sp := range settings.Specs {
		if settingGroup(sp.Engine) == g {
			return 2 + i
		}
	}
	return 999
}

// help returns the function that prints p with the flags of fs.
func (p helpPage) help(fs *flag.FlagSet) func(io.Writer) {
	return func(w io.Writer) { io.WriteString(w, p.render(fs)) }
}

// render lays out the whole page.
func (p helpPage) render(fs *flag.FlagSet) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(p.text, "\n") + "\n\n")
	writeFlagGroups(&b, fs, p.group)
	b.WriteString("EXAMPLES\n")
	for _, e := range p.examples {
		b.WriteString(wrapCommand(e))
	}
	if len(p.seeAlso) > 0 {
		var refs []string
		for _, s := range p.seeAlso {
			refs = append(refs, "litebench "+s)
		}
		b.WriteString("\nSEE ALSO\n")
		b.WriteString(wrap(strings.Join(refs, ", "), 4, 4))
	}
	exit := p.exit
	if exit == "" {
		exit = "0 success, 1 a run failed, 2 bad input (nothing was touched), 130 interrupted."
	}
	b.WriteString("\nEXIT STATUS\n")
	b.WriteString(wrap(exit, 4, 4))
	return b.String()
}

// writeFlagGroups lists every flag of fs under its group's heading.
func writeFlagGroups(b *strings.Builder, fs *flag.FlagSet, own string) {
	if own == "" {
		own = "FLAGS"
	}
	groups := map[string][]*flag.Flag{}
	var order []string
	if fs != nil {
		shared := map[string]bool{}
		if c := commonFlags(); hasAll(fs, c) {
			shared = c
		}
		sorted := fs.SortFlags
		fs.SortFlags = false // as registered
		fs.VisitAll(func(f *flag.Flag) {
			if f.Hidden {
				return
			}
			g := flagGroup(f, own, shared)
			if groups[g] == nil {
				order = append(order, g)
			}
			groups[g] = append(groups[g], f)
		})
		fs.SortFlags = sorted
	}
	if len(order) == 0 {
		fmt.Fprintf(b, "%s\n    -h, --help     print this page\n\n", own)
		return
	}
	// A stable insertion sort by rank keeps registration order within.
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && groupRank(order[j], own) < groupRank(order[j-1], own); j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	for _, g := range order {
		b.WriteString(g + "\n")
		for _, f := range groups[g] {
			b.WriteString(flagLine(f))
		}
		b.WriteString("\n")
	}
}

func hasAll(fs *flag.FlagSet, names map[string]bool) bool {
	for n := range names {
		if fs.Lookup(n) == nil {
			return false
		}
	}
	return true
}

// flagColumn is where a flag's description starts.
const flagColumn = 28

// flagLine is f's entry: its name and value, then what it does and its
// default, wrapped beside it.
func flagLine(f *flag.Flag) string {
	name := "--" + f.Name
	if len(f.Name) == 1 {
		name = "-" + f.Name
	}
	if f.Shorthand != "" {
		name = "-" + f.Shorthand + ", " + name
	}
	if v := flagValue(f); strings.HasPrefix(v, "[") {
		name += v
	} else if v != "" {
		name += " " + v
	}
	usage := strings.TrimSpace(f.Usage)
	if def := f.DefValue; !zeroDefault(def) && !strings.Contains(usage, "(default") {
		usage += " (default " + def + ")"
	}
	head := "    " + name
	if utf8.RuneCountInString(head)+2 > flagColumn {
		return head + "\n" + wrap(usage, flagColumn, flagColumn)
	}
	return head + strings.Repeat(" ", flagColumn-utf8.RuneCountInString(head)) + wrapAt(usage, flagColumn, flagColumn)
}

func zeroDefault(def string) bool {
	switch def {
	case "", "0", "false", "0s", "[]":
		return true
	}
	return false
}

// flagValue is the placeholder for f's value: none for a switch, [=BOOL]
// for a boolean that also takes a list, else what the value is.
func flagValue(f *flag.Flag) string {
	if v := f.Annotations["litebench-help-value"]; len(v) > 0 {
		return v[0]
	}
	switch f.Value.Type() {
	case "bool":
		if _, ok := f.Value.(listFlag); ok {
			return "[=BOOL]"
		}
		return ""
	case "int", "int64", "uint", "uint64":
		return "N"
	case "float64":
		return "X"
	case "duration":
		return "DURATION"
	}
	def := f.DefValue
	if sp := settings.Lookup(f.Name); sp != nil && def == "" {
		def = sp.Default
	}
	if _, err := strconv.ParseInt(def, 10, 64); err == nil {
		return "N"
	}
	if _, err := strconv.ParseFloat(def, 64); err == nil {
		return "X"
	}
	if _, err := time.ParseDuration(def); err == nil {
		return "DURATION"
	}
	n := f.Name
	switch {
	case n == "target":
		return "LIST"
	case n == "dir":
		return "DIR"
	case n == "format":
		return "FORMAT"
	case n == "o" || n == "db" || n == "store" || n == "report" || strings.HasSuffix(n, "file"):
		return "FILE"
	case strings.Contains(n, "size") || n == "memory" || n == "wal-warn":
		return "SIZE"
	case n == "addr":
		return "HOST:PORT"
	}
	if t := f.Value.Type(); t != "string" {
		return strings.ToUpper(t)
	}
	return "VALUE"
}

// wrap fills text to helpWidth, its first line indented by first, the
// others by indent.
func wrap(text string, first, indent int) string {
	return strings.Repeat(" ", first) + wrapAt(text, first, indent)
}

// wrapAt fills text to helpWidth from column col, where the caller has
// left the line, continuing lines indented by indent.
func wrapAt(text string, col, indent int) string {
	var b strings.Builder
	start := true
	for _, word := range strings.Fields(text) {
		n := utf8.RuneCountInString(word)
		if !start && col+1+n > helpWidth {
			b.WriteString("\n" + strings.Repeat(" ", indent))
			col, start = indent, true
		}
		if !start {
			b.WriteString(" ")
			col++
		}
		b.WriteString(word)
		col += n
		start = false
	}
	b.WriteString("\n")
	return b.String()
}

// wrapCommand lays out a command line, continuing a long one with a
// backslash as a shell would read it.
func wrapCommand(cmd string) string {
	var b strings.Builder
	line := "    "
	for i, word := range shellFields(cmd) {
		if i > 0 && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word)+2 > helpWidth {
			b.WriteString(line + " \\\n")
			line = "        " + word
			continue
		}
		if i > 0 {
			line += " "
		}
		line += word
	}
	return b.String() + line + "\n"
}

// shellFields splits a command line at spaces outside quotes, keeping the
// quotes.
func shellFields(s string) []string {
	var out []string
	var cur strings.Builder
	var q rune
	for _, r := range s {
		switch {
		case q != 0:
			if r == q {
				q = 0
			}
		case r == '\'' || r == '"':
			q = r
		case r == ' ':
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteRune(r)
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}
