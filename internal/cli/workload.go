package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	flag "github.com/spf13/pflag"

	sweep "github.com/litebench/litebench/internal/plan"
	"github.com/litebench/litebench/internal/report"
	"github.com/litebench/litebench/internal/spec"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/workload"
)

// listWorkloads is 'litebench list workloads': the built-ins, what they
// are written as, and the libraries workload files may include.
func listWorkloads(out io.Writer) error {
	t := &report.Table{Headers: []string{"workload", "written as", "what it does"}}
	for _, n := range workload.Names() {
		sp, _ := workload.Get(n)
		kind := "a workload file (litebench workload show " + n + ")"
		if sp.Kind == "native" {
			kind = "Go (native)"
		}
		t.Rows = append(t.Rows, []string{n, kind, sp.Summary})
	}
	for _, n := range spec.LibraryNames() {
		t.Rows = append(t.Rows, []string{n, "a library of tables (include = [\"" + n + "\"])", "not a workload: the tables workload files include"})
	}
	t.Notes = append(t.Notes, "Run your own: litebench run FILE.toml, or pgbench scripts: litebench run -f SCRIPT.sql[@WEIGHT] (docs/workload-files.md).")
	return t.Render(out, "table")
}

var workloadUsage = `NAME
    litebench workload - print or check workload files

SYNOPSIS
    litebench workload show NAME     print a built-in workload file (or
                                     library) to copy and edit
    litebench workload check FILE    check a workload file without running it
    litebench workload check -f SCRIPT.sql[@W] … [--init FILE] [-D NAME=VALUE …]

DESCRIPTION
    The built-in workloads insert, read, write and mixed are workload files
    like yours: 'litebench workload show read > my.toml' gives one to edit,
    and 'litebench run my.toml' runs it with every flag a built-in takes.
    check reports the first mistake as FILE:LINE:COLUMN and what was
    expected (exit 2), and checks that every statement prepares in an
    in-memory database of --target's engine. SQL that reaches beyond the
    run's database (ATTACH, DETACH, VACUUM INTO, load_extension()) is
    refused, as run refuses it, unless --allow-attach names the file an
    ATTACH opens (read-only). docs/workload-files.md is the reference.
`

// workloadCmdPage is the manual page of 'litebench workload'.
var workloadCmdPage = helpPage{text: workloadUsage, examples: []string{
	"litebench workload show read > my.toml",
	"litebench workload check my.toml --target modernc",
	"litebench workload check -f select.sql@9 -f update.sql@1",
}, seeAlso: []string{"run", "list workloads"}}

// workloadFlags are the flags of 'workload check': the target whose
// engine prepares the statements.
func workloadFlags() (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("workload check", flag.ContinueOnError)
	registerAllowAttach(fs, new([]string))
	return fs, fs.String("target", target.Default(), "target whose engine prepares the statements")
}

func cmdWorkload(ctx context.Context, args []string, out, errw io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) == 0 {
			return usagef("workload: say show NAME or check FILE (see 'litebench workload --help')")
		}
		fs, _ := workloadFlags()
		return parse(fs, []string{"--help"}, out, workloadCmdPage.help(fs))
	}
	switch args[0] {
	case "show":
		if len(args) != 2 {
			return usagef("workload show: name one built-in workload (%s)", strings.Join(spec.BuiltinNames(), ", "))
		}
		text, ok := spec.Builtin(args[1])
		if !ok {
			if sp, err := workload.Get(args[1]); err == nil && sp.Kind == "native" {
				return usagef("workload show: %s is written in Go, not as a file; workload files call what it does as a native step (docs/workload-files.md)", args[1])
			}
			return usagef("workload show: no built-in workload file %q (known: %s)", args[1], strings.Join(spec.BuiltinNames(), ", "))
		}
		_, err := io.WriteString(out, text)
		return err
	case "check":
		return checkWorkload(ctx, args[1:], out)
	}
	return usagef("workload: unknown subcommand %q; want show or check", args[0])
}

// checkWorkload parses a workload file (or scripts) and prepares its
// statements in memory, running and creating nothing.
func checkWorkload(ctx context.Context, args []string, out io.Writer) error {
	fs, targets := workloadFlags()
	var sp *workload.Spec
	var rest []string
	if len(args) > 0 && isWorkloadFile(args[0]) {
		text, err := readInput("workload check", args[0])
		if err != nil {
			return err
		}
		f, err := spec.ParseFile(args[0], []byte(text))
		if err != nil {
			return usageError{err.Error()}
		}
		sp, rest = f.WorkloadSpec(nil), args[1:]
	} else if scriptArgs(args) {
		f, _, others, err := parseScriptArgs(args)
		if err != nil {
			return err
		}
		sp, rest = f.WorkloadSpec(nil), others
	} else {
		return usagef("workload check: name a workload file (FILE.toml) or scripts (-f FILE.sql)")
	}
	if err := parse(fs, rest, out, workloadCmdPage.help(fs)); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("workload check: only --target may follow the file")
	}
	var c common
	c.targets = *targets
	ts, err := c.targetList()
	if err != nil {
		return err
	}
	allow, _ := fs.GetStringArray("allow-attach")
	if err := fenceWorkload(sp, allow, ts); err != nil {
		return err
	}
	m, _, err := sweep.Matrix(sp.SettingDefaults, "", nil)
	if err != nil {
		return usage(err)
	}
	p := map[string]string{}
	for _, x := range sp.Params {
		p[x.Name] = strings.Split(x.Default, ",")[0]
	}
	w, err := sp.New(p, m.Points()[0])
	if err != nil {
		return usageError{err.Error()}
	}
	if v, ok := w.(interface {
		Validate(context.Context, target.Target) error
	}); ok {
		if err := v.Validate(ctx, ts[0]); err != nil {
			return usageError{err.Error()}
		}
	}
	fmt.Fprintf(out, "%s: ok (%d parameters, %d op kinds)\n", sp.Name, len(sp.Params), len(w.Ops()))
	return nil
}
