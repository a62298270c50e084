// Package cli is litebench's command line: one file per verb, flags and
// wiring only. Main runs a whole command, so tests drive it end to end.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	flag "github.com/spf13/pflag"

	_ "github.com/litebench/litebench/internal/httpbench" // the http workload
	"github.com/litebench/litebench/internal/runner"
	"github.com/litebench/litebench/internal/target"
	_ "github.com/litebench/litebench/internal/target/all"
)

// Exit codes.
const (
	ExitOK          = 0
	ExitFailed      = 1  // a run failed
	ExitUsage       = 2  // bad input; nothing was touched
	ExitGate        = 99 // compare --fail-if: a threshold was crossed
	ExitInterrupted = 130
)

// usageError is bad input: one line, exit 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// errInterrupted ends a command that was stopped with Ctrl-C.
var errInterrupted = errors.New("interrupted")

// errStopped ends a command that runs nothing and was stopped with Ctrl-C.
var errStopped = fmt.Errorf("%w; nothing was written", errInterrupted)

// errFailed reports that at least one run failed (details already printed).
var errFailed = errors.New("a run failed")

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, out, errw io.Writer) error
}

var commands []command

func init() {
	commands = []command{
		{"insert", "insert deterministic rows (shortcut for 'run insert')", wl("insert")},
		{"scan", "read and verify every bench row (shortcut for 'run scan')", wl("scan")},
		{"paginate", "OFFSET vs keyset pagination (shortcut for 'run paginate')", wl("paginate")},
		{"read", "point reads, closed or open loop (shortcut for 'run read')", wl("read")},
		{"write", "inserts, updates or upserts, closed or open loop (shortcut for 'run write')", wl("write")},
		{"mixed", "readers and writers at once, or a rate with a write ratio (shortcut for 'run mixed')", wl("mixed")},
		{"run", "run a workload: litebench run WORKLOAD|FILE.toml|-f SCRIPT.sql [flags]", cmdRun},
		{"workload", "print a built-in workload file, or check one: litebench workload show|check", cmdWorkload},
		{"suite", "run a built-in suite of sweeps: litebench suite NAME", cmdSuite},
		{"audit", "crash runs on purpose: acknowledged commits lost and corruption, per setting and fault", cmdAudit},
		{"tune", "search the settings for the best cell of a workload that keeps the durability it needs", cmdTune},
		{"list", "list targets, suites, workloads or settings", cmdList},
		{"runs", "list the runs in the results store", cmdRuns},
		{"show", "print stored runs or sweeps again, in any format", cmdShow},
		{"pragma", "print a pragma's value on a target or a database file", cmdPragma},
		{"inspect", "describe a database file without changing it", cmdInspect},
		{"selfcheck", "measure litebench's own overhead against a plain Go loop", cmdSelfcheck},
		{"compare", "compare two runs, sweeps or --where/--vs sides, with significance", cmdCompare},
		{"export", "write stored runs as JSON lines", cmdExport},
		{"report", "write a self-contained HTML report with charts", cmdReport},
		{"import", "add exported runs to a store", cmdImport},
		{"serve", "serve one page row over HTTP by a strategy of 'Making SQLite faster in Go', for wrk, hey or ab", cmdServe},
		{"conform", "check targets' workers against the Go reference (data, digests, reports)", cmdConform},
		{"worker", "serve the worker protocol on stdin/stdout (for --placement process)", cmdWorker},
		{"version", "print litebench's version", cmdVersion},
		{"completion", "print a shell completion script: litebench completion bash|zsh|fish", cmdCompletion},
		{"man", "print the manual page (roff) to standard output", cmdMan},
	}
}

func wl(name string) func(context.Context, []string, io.Writer, io.Writer) error {
	return func(ctx context.Context, args []string, out, errw io.Writer) error {
		return runWorkload(ctx, name, args, out, errw)
	}
}

// Main runs litebench with args (without the program name) and returns the
// process exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := dispatch(withInvocation(ctx, args, stdout, stderr), args, stdout, stderr)
	var child childExit
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &child):
		return child.code
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	case errors.As(err, new(usageError)):
		fmt.Fprintln(stderr, "litebench: "+err.Error())
		return ExitUsage
	case errors.Is(err, errStopped):
		fmt.Fprintln(stderr, "litebench: "+err.Error())
		return ExitInterrupted
	case errors.Is(err, errInterrupted):
		fmt.Fprintln(stderr, "litebench: interrupted; finished runs and the partial one are saved")
		return ExitInterrupted
	case errors.Is(err, errFailed):
		return ExitFailed
	case errors.Is(err, errGate):
		return ExitGate
	default:
		fmt.Fprintln(stderr, "litebench: "+err.Error())
		return ExitFailed
	}
}

func dispatch(ctx context.Context, args []string, out, errw io.Writer) error {
	if len(args) == 0 {
		writeUsage(errw)
		return usagef("no command given; try 'litebench suite quick' or 'litebench help'")
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			return dispatch(ctx, []string{args[1], "--help"}, out, errw)
		}
		writeUsage(out)
		return nil
	case "--version", "-version":
		name = "version"
	}
	for _, c := range commands {
		if c.name == name {
			return c.run(ctx, args[1:], out, errw)
		}
	}
	return usagef("unknown command %q; see 'litebench help'", name)
}

func writeUsage(w io.Writer) {
	var b strings.Builder
	b.WriteString(`NAME
    litebench - measure, compare and tune SQLite for a workload

SYNOPSIS
    litebench COMMAND [flags]
    litebench help COMMAND

DESCRIPTION
    litebench runs a workload (schema, seeded data, a mix of operations) on a
    target (a SQLite driver and its API) with a set of settings (pragmas,
    pool, statement and transaction strategy). Any setting given a comma list
    turns the run into a sweep over every combination; each run is stored in
    the results store (./litebench.db) and printed as one table row.

COMMANDS
`)
	for _, c := range commands {
		fmt.Fprintf(&b, "    %-10s %s", c.name, wrapAt(c.summary, 15, 15))
	}
	b.WriteString(`
EXAMPLES
`)
	for _, e := range []string{
		"litebench suite quick",
		"litebench insert --rows 1m --journal wal --sync off --batch 1000",
		"litebench insert --target mattn,modernc --journal delete,wal --batch 10,100,1000",
		"litebench insert --db 'a.db?_journal=wal&_sync=0' --rows-per-stmt 100 --rows 50000",
		"litebench scan --rows 1.5m",
		"litebench paginate --rows 1m --depths 1000,100000,900000",
		"litebench list targets",
	} {
		b.WriteString(wrapCommand(e))
	}
	b.WriteString(`
EXIT STATUS
    0 success, 1 a run failed, 2 bad input (nothing was touched), 130
    interrupted.
`)
	io.WriteString(w, b.String())
}

// isCommand reports whether name is one of litebench's commands.
func isCommand(name string) bool {
	for _, c := range commands {
		if c.name == name {
			return true
		}
	}
	return false
}

func cmdVersion(ctx context.Context, args []string, out, errw io.Writer) error {
	page := helpPage{text: `NAME
    litebench version - print litebench's version

SYNOPSIS
    litebench version [--short]
    litebench --version

DESCRIPTION
    Prints the release, the commit it was built from (and whether the tree
    was modified), the Go version and platform, and the targets built in.
    --short prints only the version as every result records it
    (release+commit), the value 'compare --where litebench=V' selects.
`, examples: []string{"litebench version", "litebench version --short"}, seeAlso: []string{"list targets", "compare"}}
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	short := fs.Bool("short", false, "print only the version results record (release+commit)")
	if err := parse(fs, args, out, page.help(fs)); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("version: takes no arguments")
	}
	if *short {
		fmt.Fprintln(out, runner.Fingerprint(nopTarget{}, "", "").Litebench)
		return nil
	}
	v, commit, dirty := runner.BuildVersion()
	fmt.Fprintln(out, "litebench", v)
	if commit != "" {
		if dirty {
			commit += " (modified)"
		}
		fmt.Fprintln(out, "commit  ", commit)
	}
	fmt.Fprintln(out, "go      ", runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH)
	fmt.Fprintln(out, "targets ", strings.Join(target.InProcessNames(), ", "))
	return nil
}

func isTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
