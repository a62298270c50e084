package cli

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	flag "github.com/spf13/pflag"

	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/units"
)

// Every command parses its flags with parse, so that they all behave alike:
//
//   - --name VALUE and --name=VALUE; -name works too, for the seeds' habit
//     (-t 1) and Go's flag package;
//   - a boolean flag stands alone (--vacuum means true) or takes a value,
//     as --vacuum=false or --vacuum false: the word after a boolean flag is
//     its value when it is true or false, or a comma list of them
//     (--prepared true,false); any other word stays a positional argument;
//   - flags may come before or after positional arguments; "--" ends them;
//   - errors name the flag as it was typed, in one line.

// parse parses args into fs; on --help it writes help to out.
func parse(fs *flag.FlagSet, args []string, out io.Writer, help func(io.Writer)) error {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.VisitAll(func(f *flag.Flag) {
		switch f.Value.Type() {
		case "int", "int64":
			f.Value = countValue{f.Value}
		case "float64":
			f.Value = numberValue{f.Value}
		}
	})
	if c, ok := out.(*flagCollector); ok {
		c.add(fs, help)
		return flag.ErrHelp
	}
	args, typed := normalizeArgs(fs, args)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			help(out)
			return flag.ErrHelp
		}
		return usagef("%s: %s (see 'litebench %s --help')", fs.Name(), flagError(fs, err, typed), fs.Name())
	}
	return nil
}

// boolWords are the words a boolean flag takes from the next argument.
func boolWords(s string) bool {
	for _, w := range strings.Split(s, ",") {
		switch strings.ToLower(strings.TrimSpace(w)) {
		case "true", "false":
		default:
			return false
		}
	}
	return s != ""
}

// isBoolFlag reports whether f may stand alone.
func isBoolFlag(f *flag.Flag) bool { return f != nil && f.NoOptDefVal != "" }

// normalizeArgs rewrites args into what pflag parses as described above:
// -name becomes --name for a long flag, and a boolean flag followed by
// true or false becomes --name=VALUE. typed maps each flag's name to the
// way it was written (-name or --name), for messages.
func normalizeArgs(fs *flag.FlagSet, args []string) ([]string, map[string]string) {
	typed := map[string]string{}
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' || a == "-" {
			out = append(out, a)
			continue
		}
		dashes := "--"
		body := strings.TrimPrefix(a, "--")
		if !strings.HasPrefix(a, "--") {
			dashes, body = "-", a[1:]
		}
		name, _, hasValue := strings.Cut(body, "=")
		f := fs.Lookup(name)
		if f == nil {
			// Unknown, or -h: pflag says what it is.
			typed[name] = dashes
			out = append(out, a)
			continue
		}
		typed[name] = dashes
		a = "--" + body
		switch {
		case hasValue:
		case isBoolFlag(f):
			if i+1 < len(args) && boolWords(args[i+1]) {
				i++
				a += "=" + args[i]
			}
		case i+1 < len(args):
			// The value, whatever it looks like (--cache-size -64MB).
			out = append(out, a)
			i++
			a = args[i]
		}
		out = append(out, a)
	}
	return out, typed
}

// flagError says what is wrong with a flag, naming it as it was typed.
func flagError(fs *flag.FlagSet, err error, typed map[string]string) string {
	as := func(name string) string {
		d, ok := typed[name]
		if !ok {
			d = "--"
		}
		return d + name
	}
	var nx *flag.NotExistError
	var vr *flag.ValueRequiredError
	var iv *flag.InvalidValueError
	var is *flag.InvalidSyntaxError
	switch {
	case errors.As(err, &nx):
		name := nx.GetSpecifiedName()
		if s := nx.GetSpecifiedShortnames(); s != "" {
			name = s
		}
		msg := "unknown flag " + as(name)
		if near := closeNames(name, flagNames(fs)); len(near) > 0 {
			msg += "; did you mean --" + strings.Join(near, " or --") + "?"
		}
		return msg
	case errors.As(err, &vr):
		return as(vr.GetSpecifiedName()) + " needs a value"
	case errors.As(err, &iv):
		f := iv.GetFlag()
		return fmt.Sprintf("%s %q: want %s", as(f.Name), iv.GetValue(), valueKind(f))
	case errors.As(err, &is):
		return "bad flag " + is.GetSpecifiedFlag()
	}
	return err.Error()
}

// valueKind names what a flag's value must be.
func valueKind(f *flag.Flag) string {
	switch f.Value.Type() {
	case "int", "int64", "uint", "uint64":
		return "a whole number such as 1000 or 10k"
	case "float64":
		return "a number such as 0.5 or 2.5k"
	case "duration":
		return "a duration such as 500ms, 10s or 2m"
	case "bool":
		return "true or false"
	}
	return "a valid value"
}

func flagNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// closeNames returns the names within an edit distance of two of name, or
// that contain it, closest first (at most three).
func closeNames(name string, names []string) []string {
	type scored struct {
		n string
		d int
	}
	var best []scored
	for _, n := range names {
		d := editDistance(strings.ToLower(name), strings.ToLower(n))
		if d <= 2 || (len(name) >= 3 && strings.Contains(n, name)) {
			best = append(best, scored{n, d})
		}
	}
	for i := 1; i < len(best); i++ {
		for j := i; j > 0 && best[j].d < best[j-1].d; j-- {
			best[j], best[j-1] = best[j-1], best[j]
		}
	}
	var out []string
	for i := 0; i < len(best) && i < 3; i++ {
		out = append(out, best[i].n)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// countValue is an integer flag that reads counts as every count is read
// (10k, 1.5m).
type countValue struct{ flag.Value }

func (v countValue) Set(s string) error {
	n, err := units.ParseCount(s)
	if err != nil {
		return err
	}
	return v.Value.Set(strconv.FormatInt(n, 10))
}

// numberValue is a number flag that takes a count's suffixes (2.5k).
type numberValue struct{ flag.Value }

func (v numberValue) Set(s string) error {
	f, err := units.ParseNumber(s)
	if err != nil {
		return err
	}
	return v.Value.Set(strconv.FormatFloat(f, 'g', -1, 64))
}

// listFlag is a string flag that may also stand alone, meaning true: a
// boolean setting or parameter, which takes a comma list for a sweep
// (--prepared, --prepared=false, --prepared true,false).
type listFlag struct{ v *string }

func (b listFlag) String() string {
	if b.v == nil {
		return ""
	}
	return *b.v
}
func (b listFlag) Set(s string) error { *b.v = s; return nil }
func (b listFlag) Type() string       { return "bool" }

// isBoolDefault says whether a setting or parameter with this default is
// a boolean one.
func isBoolDefault(def string) bool { return def == "true" || def == "false" }

// stringFlag adds a string flag with default def; a boolean one may also
// stand alone, meaning true.
func stringFlag(fs *flag.FlagSet, v *string, name, def, usage string, boolean bool) {
	if !boolean {
		fs.StringVar(v, name, def, usage)
		return
	}
	*v = def
	fs.Var(listFlag{v}, name, usage)
	fs.Lookup(name).NoOptDefVal = "true"
}

// registerSettings adds a flag for every setting; an unset one is "".
func registerSettings(fs *flag.FlagSet) map[string]*string {
	vals := map[string]*string{}
	for _, sp := range settings.Specs {
		v := new(string)
		vals[sp.Key] = v
		stringFlag(fs, v, sp.Key, "", sp.Help+" (default "+sp.Default+"; comma list = sweep)", isBoolDefault(sp.Default))
		inGroup(fs, settingGroup(sp.Engine), sp.Key)
	}
	return vals
}

// flagCollector is an output that, passed to a command with --help, takes
// the command's flags and help text instead of printing them (for
// completion scripts and the man page).
type flagCollector struct {
	fs   *flag.FlagSet
	help strings.Builder
}

func (c *flagCollector) Write(p []byte) (int, error) { return c.help.Write(p) }

func (c *flagCollector) add(fs *flag.FlagSet, help func(io.Writer)) {
	c.fs = fs
	help(c)
}
