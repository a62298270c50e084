package spec_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// runnerCasesPath holds programs with the content digests the reference
// evaluator gives after set-up and after the run: what a worker of
// another language checks its program runner against.
const runnerCasesPath = "../../workers/python/tests/data/programs.json"

// runnerCase is a program, the settings of its job and its digests.
type runnerCase struct {
	Name     string            `json:"name"`
	Settings map[string]string `json:"settings"`
	Program  json.RawMessage   `json:"program"`
	Setup    string            `json:"setup_digest"`
	Final    string            `json:"final_digest"`
}

// The runner cases on disk are what the reference gives (-update
// rewrites them).
func TestProgramRunnerCases(t *testing.T) {
	ex := "../../examples/"
	count := map[string]string{"count": "300"}
	cases := []programCase{
		{"kv", fileDef(t, "testdata/program/kv.toml"), map[string]string{"count": "300", "keys": "1000"}, true},
		{"select-only", scriptsDef(t, ex+"pgbench/init.sql", []string{"scale=1"}, ex+"pgbench/select.sql"), count, true},
	}
	var out []runnerCase
	for _, c := range cases {
		j := c.job(t, filepath.Join(t.TempDir(), "x.db"))
		p := c.program(t, j)
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		setup, final := runReference(t, p, filepath.Join(t.TempDir(), "ref.db"))
		out = append(out, runnerCase{Name: c.name, Settings: j.Settings, Program: b, Setup: setup, Final: final})
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
