package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/workload"
)

// A Go worker given a job with its program runs that program: the same
// rows as when it compiles the file itself (content digests after set-up
// and after the run), and a program that is not the file's, compiled
// for the target's engine, is refused before anything runs.
func TestJobProgramRuns(t *testing.T) {
	b, err := os.ReadFile("../spec/testdata/program/weighted.toml")
	if err != nil {
		t.Fatal(err)
	}
	job := func(name string) *Job {
		return &Job{RunID: name, Workload: "x", Target: "mattn", Path: filepath.Join(t.TempDir(), name+".db"), Digest: true,
			Spec:     &workload.Definition{Kind: "file", Sources: []workload.DefSource{{Name: "weighted.toml", Text: string(b)}}},
			Params:   map[string]string{"count": "300"},
			Settings: map[string]string{"journal": "wal"}}
	}
	run := func(j *Job) (string, string, error) {
		ctx := context.Background()
		l := NewLocal()
		defer l.Close()
		setup, err := l.Setup(ctx, j)
		if err != nil {
			return "", "", err
		}
		fin, err := l.Run(ctx, func(Event) {})
		if err != nil || fin.Status != "ok" {
			t.Fatalf("%s: %v %s %s", j.RunID, err, fin.Status, fin.Error)
		}
		return setup.Digest, fin.Digest, nil
	}
	plainSetup, plainFinal, err := run(job("plain"))
	if err != nil {
		t.Fatal(err)
	}
	j := job("program")
	wl, _, err := Resolve(job("compile"))
	if err != nil {
		t.Fatal(err)
	}
	if j.Program, err = wl.(Programmed).ProgramJSON(dialect.SQLite); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(j.Program, []byte(`"steps"`)) {
		t.Fatalf("program %s", j.Program)
	}
	setup, final, err := run(j)
	if err != nil {
		t.Fatal(err)
	}
	if setup != plainSetup || final != plainFinal || setup == "" || final == "" {
		t.Errorf("digests with the job's program %s %s, compiled by the worker %s %s", setup, final, plainSetup, plainFinal)
	}

	// The same program for another seed is not this job's.
	var p struct{ Seed string }
	if err := json.Unmarshal(j.Program, &p); err != nil {
		t.Fatal(err)
	}
	bad := job("bad")
	bad.Program = bytes.Replace(j.Program, []byte(`"seed":"`+p.Seed+`"`), []byte(`"seed":"12345"`), 1)
	if bytes.Equal(bad.Program, j.Program) {
		t.Fatalf("no seed %q in %s", p.Seed, j.Program)
	}
	_, _, err = run(bad)
	if err == nil || !strings.Contains(err.Error(), "its program is not ledger compiled for sqlite") {
		t.Errorf("a program of another seed: %v", err)
	}
	if _, statErr := os.Stat(bad.Path); statErr == nil {
		t.Errorf("%s was created for a refused job", bad.Path)
	}
}
