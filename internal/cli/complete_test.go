package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/workload"
)

func TestCompletionScriptsNameCommandsAndFlags(t *testing.T) {
	ctx := context.Background()
	for _, sh := range []string{"bash", "zsh", "fish"} {
		o := run(t, ctx, "completion", sh)
		if o.code != ExitOK {
			t.Fatalf("completion %s: exit %d: %s", sh, o.code, o.err)
		}
		for _, w := range []string{"insert", "pragma", "suite", "--rows", "--cache-size", "--prepared", "--target", "mattn", "wal-growth"} {
			if sh == "fish" && strings.HasPrefix(w, "--") && w != "--target" {
				w = "-l " + w[2:]
			}
			if !strings.Contains(o.out, w) {
				t.Errorf("completion %s lacks %s", sh, w)
			}
		}
		if sh == "bash" {
			p := filepath.Join(t.TempDir(), "c.bash")
			os.WriteFile(p, []byte(o.out), 0o644)
			if out, err := exec.Command("bash", "-n", p).CombinedOutput(); err != nil {
				t.Errorf("bash -n: %v: %s", err, out)
			}
		}
	}
	if o := run(t, ctx, "completion", "tcsh"); o.code != ExitUsage {
		t.Errorf("completion tcsh: exit %d", o.code)
	}
}

func TestManPage(t *testing.T) {
	o := run(t, context.Background(), "man")
	if o.code != ExitOK || !strings.HasPrefix(o.out, ".TH LITEBENCH 1") {
		t.Fatalf("man: exit %d, %q", o.code, o.out[:min(len(o.out), 80)])
	}
	for _, c := range commands {
		if !selfDescribing(c.name) && !strings.Contains(o.out, ".SS litebench "+c.name+"\n") {
			t.Errorf("man page lacks %s", c.name)
		}
	}
	for _, s := range []string{".SH NAME", ".SH SYNOPSIS", ".SH EXAMPLES", "--cache-size",
		".B WORKLOAD FLAGS", ".B TARGET AND OUTPUT FLAGS", ".B STORE FLAGS", ".B SQLITE SETTING FLAGS", ".B SEE ALSO", "--nodes"} {
		if !strings.Contains(o.out, s) {
			t.Errorf("man page lacks %q", s)
		}
	}
}

// Every command's --help reads like a manual page and names only
// commands that exist.
func TestHelpNamesRealCommands(t *testing.T) {
	real := map[string]bool{"help": true}
	for _, c := range commands {
		real[c.name] = true
	}
	mention := regexp.MustCompile(`(?m)(?:^    |'|\$ )litebench ([a-z][a-z-]*)`)
	for _, d := range commandDocs(context.Background()) {
		if selfDescribing(d.name) {
			continue
		}
		for _, want := range []string{"NAME", "SYNOPSIS"} {
			if !strings.Contains(d.help, want+"\n") {
				t.Errorf("%s --help lacks %s", d.name, want)
			}
		}
		for _, w := range []string{"seed 00", "Seed 00", "batchSize", "records/s"} {
			if strings.Contains(d.help, w) {
				t.Errorf("%s --help says %q; name the experiment or the setting instead", d.name, w)
			}
		}
		for _, m := range mention.FindAllStringSubmatch(d.help, -1) {
			if !real[m[1]] {
				t.Errorf("%s --help names 'litebench %s', which is not a command", d.name, m[1])
			}
		}
	}
	quick, _ := os.ReadFile(filepath.Join("testdata", "suite-quick.txt"))
	for _, w := range []string{"Seed 00", "batchSize", "records/s", " non "} {
		if strings.Contains(string(quick), w) {
			t.Errorf("suite quick's tables say %q", w)
		}
	}
	for _, w := range workload.Names() {
		o := run(t, context.Background(), "run", w, "--help")
		for _, m := range mention.FindAllStringSubmatch(o.out, -1) {
			if !real[m[1]] {
				t.Errorf("run %s --help names 'litebench %s', which is not a command", w, m[1])
			}
		}
	}
}
