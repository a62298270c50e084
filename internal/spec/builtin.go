package spec

import (
	"embed"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/workload"
)

// The built-in workloads insert, read, write and mixed are workload files
// like a user's, embedded; schemas is a library of the seeds' tables they
// include. 'litebench workload show NAME' prints one.
//
//go:embed builtin/*.toml
var builtinFS embed.FS

// libraries are built-in files that define tables for others to include.
var libraries = map[string]bool{"schemas": true}

func init() {
	for _, name := range BuiltinNames() {
		if libraries[name] {
			continue
		}
		text, _ := Builtin(name)
		f, err := ParseFile(name+".toml", []byte(text))
		if err != nil {
			panic(fmt.Sprintf("built-in workload %s: %v", name, err))
		}
		f.builtin = true
		workload.Register(f.WorkloadSpec(nil))
	}
}

// BuiltinNames lists the embedded files: workloads and libraries.
func BuiltinNames() []string {
	ents, _ := builtinFS.ReadDir("builtin")
	var names []string
	for _, e := range ents {
		names = append(names, strings.TrimSuffix(e.Name(), ".toml"))
	}
	sort.Strings(names)
	return names
}

// Builtin returns an embedded file's text.
func Builtin(name string) (string, bool) {
	b, err := builtinFS.ReadFile(path.Join("builtin", name+".toml"))
	return string(b), err == nil
}

// Library returns a built-in library's text.
func Library(name string) (string, bool) {
	if !libraries[name] {
		return "", false
	}
	return Builtin(name)
}

// LibraryNames lists the built-in libraries.
func LibraryNames() []string { return sortedKeys(libraries) }

// WorkloadSpec is the file as a workload kind: its parameters, its
// setting defaults, and New, which resolves a cell. command is how a
// command line names it (nil for its name).
func (f *File) WorkloadSpec(command []string) *workload.Spec {
	sp := &workload.Spec{Name: f.Name, Summary: f.Summary, Kind: f.Kind, Command: command, SettingDefaults: f.settingDefaults()}
	for _, p := range f.Params {
		sp.Params = append(sp.Params, workload.Param{Name: p.Name, Default: p.Default, Help: p.Help, Sweep: p.Sweep})
	}
	var allow []string
	sp.AllowAttach = func(paths []string) error {
		a, err := AllowedPaths(paths)
		if err != nil {
			return err
		}
		if err := f.attachesAll(paths, a); err != nil {
			return err
		}
		allow = a
		return nil
	}
	sp.New = func(p map[string]string, s settings.Settings) (workload.Workload, error) {
		w, err := f.resolve(p, s, allow, true)
		if err != nil {
			return nil, err
		}
		return w, nil
	}
	return sp
}

// settingDefaults are the file's [settings], one row per write operation
// unless they say otherwise (a workload of transactions), and the BEGIN
// mode its transactions write.
func (f *File) settingDefaults() map[string]string {
	m := map[string]string{}
	if f.insert == nil {
		m["batch"] = "1"
	}
	for _, t := range f.Txns {
		for _, st := range t.Steps {
			if st.kind == sBegin && st.mode != "" && st.mode != "deferred" {
				m["tx"] = st.mode
			}
		}
	}
	for k, v := range f.Settings {
		m[k] = v
	}
	return m
}
