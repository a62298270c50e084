package spec

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/errors.golden")

// Every bad file in testdata/bad gives one line: FILE:LINE:COLUMN and
// what was expected there. The lines are kept in testdata/errors.golden
// ('go test ./internal/spec -run Errors -update' rewrites it).
func TestErrorsGolden(t *testing.T) {
	paths, err := filepath.Glob("testdata/bad/*")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	var b bytes.Buffer
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(p)
		if strings.HasSuffix(p, ".toml") {
			_, err = ParseFile(name, data)
		} else {
			_, err = ParseScripts([]Script{{Name: name, Text: string(data)}}, nil, nil)
		}
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") {
			t.Errorf("%s: the error is not one line:\n%s", name, msg)
		}
		if !strings.HasPrefix(msg, name+":") {
			t.Errorf("%s: the error does not start with the file's name: %s", name, msg)
		}
		b.WriteString(msg + "\n")
	}
	// Bad options of scripts name the option.
	for _, c := range []struct {
		scripts []Script
		defines []string
	}{
		{[]Script{{Name: "a.sql", Text: "SELECT 1;", Weight: "0"}, {Name: "b.sql", Text: "SELECT 2;", Weight: "0"}}, nil},
		{[]Script{{Name: "a.sql", Text: "SELECT 1;", Weight: "x"}}, nil},
		{[]Script{{Name: "a.sql", Text: "SELECT :n;"}}, []string{"n"}},
		{[]Script{{Name: "a.sql", Text: "SELECT :n;"}}, []string{"n=1", "n=2"}},
	} {
		_, err := ParseScripts(c.scripts, nil, c.defines)
		if err == nil {
			t.Errorf("%v %v: no error", c.scripts, c.defines)
			continue
		}
		b.WriteString(err.Error() + "\n")
	}
	golden := filepath.Join("testdata", "errors.golden")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./internal/spec -run Errors -update creates it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("errors differ from %s (-update rewrites it if the change is meant):\n%s", golden, b.String())
	}
}

// Every example and built-in file parses.
func TestExamplesParse(t *testing.T) {
	paths, _ := filepath.Glob("../../examples/*.toml")
	if len(paths) == 0 {
		t.Fatal("no examples")
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseFile(p, data); err != nil {
			t.Errorf("%v", err)
		}
	}
}
