package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/litebench/litebench/internal/spec"
)

// isWorkloadFile says whether a run's first argument names a workload
// file rather than a built-in.
func isWorkloadFile(arg string) bool { return strings.HasSuffix(arg, ".toml") }

// readInput reads a file a command line names: a missing or unreadable
// one is bad input.
func readInput(what, path string) (string, error) {
	st, err := os.Stat(path)
	switch {
	case err != nil && errors.Is(err, os.ErrNotExist):
		return "", usagef("%s %s: no such file", what, path)
	case err != nil:
		return "", usagef("%s %s: %v", what, path, err)
	case !st.Mode().IsRegular():
		return "", usagef("%s %s: not a regular file", what, path)
	case st.Size() > 16<<20:
		return "", usagef("%s %s: larger than 16MB; a workload is text", what, path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", usagef("%s %s: %v", what, path, err)
	}
	return string(b), nil
}

// runFile is 'litebench run FILE.toml [flags]'.
func runFile(ctx context.Context, path string, args []string, out, errw io.Writer) error {
	text, err := readInput("run", path)
	if err != nil {
		return err
	}
	f, err := spec.ParseFile(path, []byte(text))
	if err != nil {
		return usageError{err.Error()}
	}
	return runSpec(ctx, f.WorkloadSpec([]string{"run", path}), "run "+path, args, out, errw)
}

// scriptArgs says whether a run names pgbench scripts (-f).
func scriptArgs(args []string) bool {
	for _, a := range args {
		if a == "-f" || a == "--file" || strings.HasPrefix(a, "-f=") || strings.HasPrefix(a, "--file=") {
			return true
		}
	}
	return false
}

// runScripts is 'litebench run -f A.sql@9 -f B.sql@1 --init I.sql -D
// NAME=VALUE [flags]': pgbench's script options, then the rest as for any
// workload.
func runScripts(ctx context.Context, args []string, out, errw io.Writer) error {
	f, command, rest, err := parseScriptArgs(args)
	if err != nil {
		return err
	}
	return runSpec(ctx, f.WorkloadSpec(command), "run -f", rest, out, errw)
}

// parseScriptArgs takes pgbench's options (-f, --init, -D) out of args and
// reads the scripts; it returns them as a workload, the words that name
// it on a command line, and the other arguments.
func parseScriptArgs(args []string) (f *spec.File, command, rest []string, err error) {
	var scripts []spec.Script
	var init *spec.Script
	var defines []string
	command = []string{"run"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, inline := strings.Cut(a, "=")
		switch name {
		case "-f", "--file", "--init", "-D":
		default:
			if strings.HasPrefix(a, "-D") && len(a) > 2 {
				name, val, inline = "-D", a[2:], true
				break
			}
			rest = append(rest, a)
			continue
		}
		if !inline {
			if i+1 >= len(args) {
				return nil, nil, nil, usagef("run: %s needs a value", name)
			}
			i++
			val = args[i]
		}
		command = append(command, name, val)
		switch name {
		case "-D":
			defines = append(defines, val)
		case "--init":
			if init != nil {
				return nil, nil, nil, usagef("run: --init is given twice")
			}
			text, err := readInput("--init", val)
			if err != nil {
				return nil, nil, nil, err
			}
			init = &spec.Script{Name: val, Text: text}
		default:
			path, weight := val, ""
			if at := strings.LastIndexByte(val, '@'); at > 0 {
				path, weight = val[:at], val[at+1:]
			}
			if isWorkloadFile(path) {
				return nil, nil, nil, usagef("-f %s: -f takes pgbench scripts (SQL); a workload file runs as 'litebench run %s'", path, path)
			}
			text, err := readInput("-f", path)
			if err != nil {
				return nil, nil, nil, err
			}
			scripts = append(scripts, spec.Script{Name: path, Text: text, Weight: weight})
		}
	}
	if f, err = spec.ParseScripts(scripts, init, defines); err != nil {
		return nil, nil, nil, usageError{err.Error()}
	}
	return f, command, rest, nil
}
