package spec_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// runnerCasesPath holds programs with the content digests the reference
// evaluator gives after set-up and after the run: what the workers of
// other languages check their program runners against.
const runnerCasesPath = "testdata/program-runs.json"

// runnerCase is a program, the settings of its job and its digests.
type runnerCase struct {
	ID       string            `json:"id"`
	Name     string            `json:"name"`
	Settings map[string]string `json:"settings"`
	Program  json.RawMessage   `json:"program"`
	Setup    string            `json:"setup_digest"`
	Final    string            `json:"final_digest"`
}

// The runner cases on disk are what the reference gives (-update
// rewrites them).
func TestProgramRunnerCases(t *testing.T) {
	var out []runnerCase
	seen := map[string]int{}
	for _, c := range ProgramCases(t) {
		if !c.deterministic {
			continue
		}
		j := c.job(t, filepath.Join(t.TempDir(), "x.db"))
		p := c.program(t, j)
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		setup, final := runReference(t, p, filepath.Join(t.TempDir(), "ref.db"))
		seen[c.name]++
		id := c.name
		if n := seen[c.name]; n > 1 {
			id = fmt.Sprintf("%s-%d", c.name, n)
		}
		out = append(out, runnerCase{ID: id, Name: c.name, Settings: j.Settings, Program: b, Setup: setup, Final: final})
	}
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.MkdirAll(filepath.Dir(runnerCasesPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(runnerCasesPath, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old, err := os.ReadFile(runnerCasesPath)
	if err != nil {
		t.Fatalf("%v (go test ./internal/spec -run TestProgramRunnerCases -update writes it)", err)
	}
	if !bytes.Equal(old, b) {
		t.Fatalf("%s is out of date: go test ./internal/spec -run TestProgramRunnerCases -update", runnerCasesPath)
	}
}
