package archtest

import (
	"fmt"
	"sort"
	"strings"
)

// Module is litebench's module path.
const Module = "github.com/litebench/litebench"

// A Rule forbids the packages From matches to import what Allowed
// refuses. Only a package's own imports count, not its tests': a test
// may bring a whole build together.
type Rule struct {
	// Says is the rule in plain words.
	Says string
	// From matches the packages the rule governs (paths relative to the
	// module: "internal/engine/sqlite").
	From func(pkg string) bool
	// Allowed says whether a package From matches may import imp (a path
	// relative to the module; only the module's own packages are asked).
	Allowed func(imp string) bool
}

// Exception is an import a rule refuses that the code still has, with
// the reason it stays; the test fails when it is gone, so that the
// exception goes too.
type Exception struct {
	From, Import string
	Why          string
}

// under matches root and the packages under it.
func under(roots ...string) func(string) bool {
	return func(p string) bool {
		for _, r := range roots {
			if p == r || strings.HasPrefix(p, r+"/") {
				return true
			}
		}
		return false
	}
}

func not(f func(string) bool) func(string) bool { return func(p string) bool { return !f(p) } }

// Rules are litebench's layering, lowest layers first.
var Rules = []Rule{
	{
		Says:    "engines (internal/engine/...) and clients (internal/target/...) never import the worker, the runner or the planner (internal/worker, internal/runner, internal/plan): a run is built from them, not the other way round",
		From:    under("internal/engine", "internal/target"),
		Allowed: not(under("internal/worker", "internal/runner", "internal/plan")),
	},
	{
		Says:    "workloads (internal/workload, internal/spec, internal/httpbench) never import internal/results: a workload reports figures by name through its Env, and the runner makes the result",
		From:    under("internal/workload", "internal/spec", "internal/httpbench"),
		Allowed: not(under("internal/results")),
	},
	{
		Says:    "the SQL workloads (internal/workload, internal/spec) import neither the HTTP server nor its client (internal/serve, internal/httpclient): the HTTP benchmark is internal/httpbench",
		From:    under("internal/workload", "internal/spec"),
		Allowed: not(under("internal/serve", "internal/httpclient")),
	},
	{
		Says: "internal/report imports only internal/results, internal/units, internal/stats and internal/histcodec of litebench's packages: reports are pure functions of results",
		From: under("internal/report"),
		Allowed: func(imp string) bool {
			switch imp {
			case "internal/results", "internal/units", "internal/stats", "internal/histcodec":
				return true
			}
			return false
		},
	},
	{
		Says:    "no package under internal/ imports internal/cli: the command line is the top floor, and only cmd/litebench calls it",
		From:    under("internal"),
		Allowed: not(under("internal/cli")),
	},
}

// Exceptions are the imports today's code has against Rules.
var Exceptions = []Exception{
	{From: "internal/target/external", Import: "internal/worker",
		Why: "a worker-process client learns its engine's version and capabilities by starting its worker and reading its hello (worker.StartCommand, worker.Job); the fix is the protocol's process side (Process, Event, Job) in a package below target"},
}

// Violations are the imports of graph (package → its imports, full
// paths) that rules refuse, but for exceptions, as "RULE: FROM imports
// IMPORT" lines, sorted; and the exceptions graph no longer has.
func Violations(graph map[string][]string, rules []Rule, exceptions []Exception) (bad, stale []string) {
	excepted := map[[2]string]bool{}
	for _, e := range exceptions {
		excepted[[2]string{e.From, e.Import}] = false
	}
	for full, imps := range graph {
		pkg, ok := strings.CutPrefix(full, Module+"/")
		if !ok {
			continue
		}
		for _, r := range rules {
			if !r.From(pkg) {
				continue
			}
			for _, fi := range imps {
				imp, ok := strings.CutPrefix(fi, Module+"/")
				if !ok || r.Allowed(imp) {
					continue
				}
				k := [2]string{pkg, imp}
				if _, ok := excepted[k]; ok {
					excepted[k] = true
					continue
				}
				bad = append(bad, fmt.Sprintf("%s imports %s, against the rule: %s", pkg, imp, r.Says))
			}
		}
	}
	for k, used := range excepted {
		if !used {
			stale = append(stale, k[0]+" → "+k[1])
		}
	}
	sort.Strings(bad)
	sort.Strings(stale)
	return bad, stale
}
