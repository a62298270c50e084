package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeLayoutNamesEveryPackage keeps the README's Layout true: every
// Go package under internal/ is named there, by its own path or by its
// parent's "*/" line.
func TestReadmeLayoutNamesEveryPackage(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	i := strings.Index(text, "\n## Layout")
	if i < 0 {
		t.Fatal("README.md has no Layout section")
	}
	layout := text[i:]
	if j := strings.Index(layout[1:], "\n## "); j >= 0 {
		layout = layout[:j+1]
	}
	pkgs := map[string]bool{}
	err = filepath.WalkDir("../../internal", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "third_party") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			rel, _ := filepath.Rel("../..", filepath.Dir(path))
			pkgs[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p := range pkgs {
		parent := p[:strings.LastIndex(p, "/")]
		if !strings.Contains(layout, p+"/") && !strings.Contains(layout, parent+"/*/") {
			t.Errorf("README.md's Layout does not name %s/: add a line for it", p)
		}
	}
}
