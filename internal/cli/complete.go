package cli

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	flag "github.com/spf13/pflag"

	"github.com/litebench/litebench/internal/runner"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/workload"
)

// commandDoc is what a command says about itself: its flags and its
// --help text, taken by running it with --help into a flagCollector.
type commandDoc struct {
	command
	flags []*flag.Flag
	help  string
}

// selfDescribing are the commands that describe the others.
func selfDescribing(name string) bool { return name == "completion" || name == "man" }

// commandDocs collects every command's flags and help text.
func commandDocs(ctx context.Context) []commandDoc {
	var docs []commandDoc
	for _, c := range commands {
		d := commandDoc{command: c}
		if selfDescribing(c.name) {
			d.help = c.summary + "\n"
			docs = append(docs, d)
			continue
		}
		col := &flagCollector{}
		c.run(ctx, []string{"--help"}, col, io.Discard)
		if col.fs != nil {
			col.fs.VisitAll(func(f *flag.Flag) { d.flags = append(d.flags, f) })
		}
		d.help = col.help.String()
		docs = append(docs, d)
	}
	return docs
}

// words a command's first argument may be, for completion.
func firstArgs(name string) []string {
	switch name {
	case "run":
		return workload.Names()
	case "suite":
		var n []string
		for _, s := range suites {
			n = append(n, s.name)
		}
		return n
	case "list":
		return []string{"targets", "suites", "workloads", "settings"}
	case "workload":
		return []string{"show", "check"}
	case "completion":
		return []string{"bash", "zsh", "fish"}
	case "help":
		return commandNames()
	}
	return nil
}

func commandNames() []string {
	var n []string
	for _, c := range commands {
		n = append(n, c.name)
	}
	return n
}

func targetNames() []string {
	var n []string
	ts, _ := target.All()
	for _, t := range ts {
		n = append(n, t.Name())
	}
	sort.Strings(n)
	return n
}

func cmdCompletion(ctx context.Context, args []string, out, errw io.Writer) error {
	page := helpPage{text: `NAME
    litebench completion - print a shell completion script

SYNOPSIS
    litebench completion bash|zsh|fish

DESCRIPTION
    Prints a script that completes litebench's commands, their flags, the
    names of workloads, suites and targets. It is made from the flags each
    command parses, so it is never behind the commands.
`, examples: []string{
		"source <(litebench completion bash)",
		`litebench completion zsh > "${fpath[1]}/_litebench"`,
		"litebench completion fish > ~/.config/fish/completions/litebench.fish",
	}, seeAlso: []string{"man"}}
	fs := flag.NewFlagSet("completion", flag.ContinueOnError)
	if err := parse(fs, args, out, page.help(fs)); err != nil {
		return err
	}
	docs := commandDocs(ctx)
	switch fs.Arg(0) {
	case "bash":
		writeBash(out, docs)
	case "zsh":
		writeZsh(out, docs)
	case "fish":
		writeFish(out, docs)
	case "":
		return usagef("completion: name a shell: bash, zsh or fish")
	default:
		return usagef("completion: unknown shell %q; want bash, zsh or fish", fs.Arg(0))
	}
	return nil
}

func flagWords(d commandDoc) []string {
	var w []string
	for _, f := range d.flags {
		w = append(w, "--"+f.Name)
	}
	return w
}

func writeBash(w io.Writer, docs []commandDoc) {
	var b strings.Builder
	b.WriteString(`# bash completion for litebench: source <(litebench completion bash)
_litebench() {
    local cur prev words
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "` + strings.Join(commandNames(), " ") + `" -- "$cur"))
        return
    fi
    if [ "$prev" = "--target" ]; then
        COMPREPLY=($(compgen -W "` + strings.Join(targetNames(), " ") + `" -- "$cur"))
        return
    fi
    case "${COMP_WORDS[1]}" in
`)
	for _, d := range docs {
		fmt.Fprintf(&b, "        %s)\n            words=%q\n", d.name, strings.Join(flagWords(d), " "))
		if fa := firstArgs(d.name); len(fa) > 0 {
			fmt.Fprintf(&b, "            if [ \"$COMP_CWORD\" -eq 2 ] && [[ \"$cur\" != -* ]]; then\n                COMPREPLY=($(compgen -W %q -- \"$cur\"))\n                return\n            fi\n", strings.Join(fa, " "))
		}
		b.WriteString("            ;;\n")
	}
	b.WriteString(`    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -o filenames -F _litebench litebench
`)
	io.WriteString(w, b.String())
}

// quote quotes s for a shell's single quotes.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func writeZsh(w io.Writer, docs []commandDoc) {
	var b strings.Builder
	b.WriteString("#compdef litebench\n# zsh completion for litebench: litebench completion zsh > \"${fpath[1]}/_litebench\"\n_litebench() {\n    local -a cmds\n    cmds=(\n")
	for _, d := range docs {
		fmt.Fprintf(&b, "        %s\n", quote(d.name+":"+strings.ReplaceAll(d.summary, ":", `\:`)))
	}
	b.WriteString("    )\n    if (( CURRENT == 2 )); then\n        _describe 'command' cmds\n        return\n    fi\n")
	fmt.Fprintf(&b, "    if [[ ${words[CURRENT-1]} == --target ]]; then\n        compadd -- %s\n        return\n    fi\n", strings.Join(targetNames(), " "))
	b.WriteString("    case ${words[2]} in\n")
	for _, d := range docs {
		fmt.Fprintf(&b, "    %s)\n", d.name)
		if fa := firstArgs(d.name); len(fa) > 0 {
			fmt.Fprintf(&b, "        if (( CURRENT == 3 )) && [[ ${words[CURRENT]} != -* ]]; then\n            compadd -- %s\n            return\n        fi\n", strings.Join(fa, " "))
		}
		if fw := flagWords(d); len(fw) > 0 {
			fmt.Fprintf(&b, "        if [[ ${words[CURRENT]} == -* ]]; then\n            compadd -- %s\n            return\n        fi\n", strings.Join(fw, " "))
		}
		b.WriteString("        ;;\n")
	}
	b.WriteString("    esac\n    _files\n}\n_litebench \"$@\"\n")
	io.WriteString(w, b.String())
}

func writeFish(w io.Writer, docs []commandDoc) {
	var b strings.Builder
	b.WriteString("# fish completion for litebench: litebench completion fish > ~/.config/fish/completions/litebench.fish\n")
	fmt.Fprintf(&b, "complete -c litebench -f -n '__fish_seen_subcommand_from %s; and __fish_prev_arg_in --target' -a %s\n",
		strings.Join(commandNames(), " "), quote(strings.Join(targetNames(), " ")))
	for _, d := range docs {
		fmt.Fprintf(&b, "complete -c litebench -f -n '__fish_use_subcommand' -a %s -d %s\n", d.name, quote(d.summary))
		if fa := firstArgs(d.name); len(fa) > 0 {
			fmt.Fprintf(&b, "complete -c litebench -f -n '__fish_seen_subcommand_from %s' -a %s\n", d.name, quote(strings.Join(fa, " ")))
		}
		for _, f := range d.flags {
			fmt.Fprintf(&b, "complete -c litebench -n '__fish_seen_subcommand_from %s' -l %s -d %s\n", d.name, f.Name, quote(firstLine(f.Usage)))
		}
	}
	io.WriteString(w, b.String())
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

func cmdMan(ctx context.Context, args []string, out, errw io.Writer) error {
	page := helpPage{text: `NAME
    litebench man - print litebench's manual page

SYNOPSIS
    litebench man

DESCRIPTION
    Writes the manual page, in roff, to standard output: the overview of
    'litebench help' and every command's --help, with its flags, examples
    and related commands.
`, examples: []string{
		"litebench man > litebench.1 && man ./litebench.1",
		"litebench man | groff -man -Tutf8 | less",
	}, seeAlso: []string{"help", "completion"}}
	fs := flag.NewFlagSet("man", flag.ContinueOnError)
	if err := parse(fs, args, out, page.help(fs)); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("man: takes no arguments")
	}
	v, _, _ := runner.BuildVersion()
	var b strings.Builder
	fmt.Fprintf(&b, ".TH LITEBENCH 1 \"\" \"litebench %s\" \"User Commands\"\n", roffEscape(v))
	var usage strings.Builder
	writeUsage(&usage)
	writeRoff(&b, usage.String(), ".SH")
	b.WriteString(".SH COMMANDS IN DETAIL\n")
	for _, d := range commandDocs(ctx) {
		if selfDescribing(d.name) {
			continue
		}
		fmt.Fprintf(&b, ".SS litebench %s\n", d.name)
		writeRoff(&b, d.help, ".TP\n.B")
	}
	_, err := io.WriteString(out, b.String())
	return err
}

var heading = regexp.MustCompile(`^[A-Z][A-Z ,]+$`)

// writeRoff writes help text (headings at the margin, indented bodies) as
// roff: each heading with mark, each body as it is laid out.
func writeRoff(b *strings.Builder, text, mark string) {
	open := false
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if heading.MatchString(line) {
			if open {
				b.WriteString(".fi\n")
			}
			fmt.Fprintf(b, "%s %s\n.nf\n", mark, line)
			open = true
			continue
		}
		if !open {
			b.WriteString(".nf\n")
			open = true
		}
		b.WriteString(roffEscape(strings.TrimPrefix(line, "    ")) + "\n")
	}
	if open {
		b.WriteString(".fi\n")
	}
}

func roffEscape(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
