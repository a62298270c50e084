package archtest

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// imports is the module's import graph as 'go list' gives it: every
// package and its own (non-test) imports.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", Module+"/...")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v: %s", err, stderr.String())
	}
	graph := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 0 {
			graph[f[0]] = f[1:]
		}
	}
	return graph
}

// The layering holds: no package imports what a rule refuses, but for
// the exceptions listed with their reasons, and every exception is still
// needed.
func TestLayering(t *testing.T) {
	graph := imports(t)
	for _, p := range []string{"internal/cli", "internal/engine/sqlite", "internal/report", "internal/workload", "internal/target/external"} {
		if _, ok := graph[Module+"/"+p]; !ok {
			t.Fatalf("go list did not list %s: the graph is not the module's", p)
		}
	}
	bad, stale := Violations(graph, Rules, Exceptions)
	for _, b := range bad {
		t.Error(b)
	}
	for _, s := range stale {
		t.Errorf("the exception %s is no longer needed: remove it from Exceptions", s)
	}
}

// Each rule refuses what it says and allows the rest.
func TestRulesRefuse(t *testing.T) {
	m := func(p ...string) []string {
		for i := range p {
			p[i] = Module + "/" + p[i]
		}
		return p
	}
	graph := map[string][]string{
		Module + "/internal/engine/dqlite":    m("internal/worker", "internal/proc", "internal/engine"),
		Module + "/internal/target/x":         m("internal/plan", "internal/target"),
		Module + "/internal/workload":         m("internal/results", "internal/serve", "internal/units"),
		Module + "/internal/httpbench":        m("internal/serve", "internal/httpclient", "internal/workload"),
		Module + "/internal/report":           m("internal/results", "internal/stats", "internal/metrics"),
		Module + "/internal/runner":           m("internal/cli", "internal/worker"),
		Module + "/cmd/litebench":             m("internal/cli"),
		Module + "/internal/target/external":  m("internal/worker"),
		"example.com/other/internal/engine/z": {"example.com/other/internal/worker"},
	}
	bad, stale := Violations(graph, Rules, []Exception{
		{From: "internal/target/external", Import: "internal/worker"},
		{From: "internal/spec", Import: "internal/results"},
	})
	var got []string
	for _, b := range bad {
		got = append(got, b[:strings.Index(b, ", against")])
	}
	want := []string{
		"internal/engine/dqlite imports internal/worker",
		"internal/report imports internal/metrics",
		"internal/runner imports internal/cli",
		"internal/target/x imports internal/plan",
		"internal/workload imports internal/results",
		"internal/workload imports internal/serve",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(stale) != 1 || stale[0] != "internal/spec → internal/results" {
		t.Errorf("stale exceptions %v, want [internal/spec → internal/results]", stale)
	}
}
