package spec

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/litebench/litebench/internal/workload"
)

// Script is one pgbench script of a run: -f FILE@WEIGHT.
type Script struct {
	Name   string // the file, as messages name it
	Text   string
	Weight string // "" for 1
}

// ParseScripts reads pgbench scripts as a workload: each script a
// transaction chosen by its weight, init (may be nil) run once before the
// measured part with :names substituted, defines (-D NAME=VALUE) the
// variables they read, each a parameter of the workload (a comma list
// sweeps it).
func ParseScripts(scripts []Script, init *Script, defines []string) (*File, error) {
	f := &File{Kind: "scripts", Settings: map[string]string{}, load: map[string]*tmpl{}, stmts: map[string]*Stmt{}, assigned: map[string]bool{}}
	if len(scripts) == 0 {
		return nil, fmt.Errorf("no script: give one with -f FILE.sql")
	}
	var names []string
	for _, d := range defines {
		k, v, ok := strings.Cut(d, "=")
		if !ok || !isName(k) || strings.Contains(k, ".") {
			return nil, fmt.Errorf("-D %q: want NAME=VALUE, NAME letters, digits and _", d)
		}
		for _, p := range f.Params {
			if p.Name == k {
				return nil, fmt.Errorf("-D %s is given twice", k)
			}
		}
		f.Params = append(f.Params, &Param{Name: k, Default: v, Help: "-D " + k + "=VALUE (a comma list sweeps it)", Sweep: true, Pos: Pos{File: "-D"}})
		f.Sources = append(f.Sources, Source{Name: "-D", Text: d})
	}
	seen := map[string]int{}
	for _, s := range scripts {
		name := strings.TrimSuffix(filepath.Base(s.Name), filepath.Ext(s.Name))
		if !nameRE.MatchString(name) {
			name = "script"
		}
		if seen[name]++; seen[name] > 1 {
			name += "#" + strconv.Itoa(seen[name])
		}
		names = append(names, name)
		steps, err := parseScript(fileSource(s.Name, s.Text), nil)
		if err != nil {
			return nil, err
		}
		t := &Txn{Name: name, Pos: Pos{File: s.Name}, Steps: steps}
		if err := checkSteps(t); err != nil {
			var e *Error
			if errors.As(err, &e) && strings.HasPrefix(e.Msg, "transaction") {
				return nil, errorf(Pos{File: s.Name, Line: 1, Col: 1}, "the script has no SQL command; pgbench needs at least one")
			}
			return nil, err
		}
		f.Txns = append(f.Txns, t)
		w := s.Weight
		if w == "" {
			w = "1"
		}
		x, err := strconv.ParseFloat(w, 64)
		if err != nil || x < 0 {
			return nil, fmt.Errorf("-f %s@%s: the weight is a number of at least 0", s.Name, s.Weight)
		}
		f.mix = append(f.mix, mixEntry{name: name, weight: &tmpl{s: w, pos: Pos{File: s.Name}}, pos: Pos{File: s.Name}})
		f.Sources = append(f.Sources, Source{Name: s.Name, Text: s.Text, Weight: s.Weight})
	}
	f.hasMix = true
	total := 0.0
	for _, m := range f.mix {
		x, _ := strconv.ParseFloat(m.weight.s, 64)
		total += x
	}
	if total == 0 {
		return nil, fmt.Errorf("-f: every weight is 0; give at least one script a weight above 0 (-f FILE@1)")
	}
	f.Name = strings.Join(names, "+")
	f.Pos = Pos{File: scripts[0].Name, Line: 1, Col: 1}
	if init != nil {
		cmds, err := splitSQL(fileSource(init.Name, init.Text))
		if err != nil {
			return nil, err
		}
		if len(cmds) == 0 {
			return nil, fmt.Errorf("--init %s: no SQL command in it", init.Name)
		}
		f.init, f.initSub = cmds, true
		f.Sources = append(f.Sources, Source{Name: init.Name, Text: init.Text, Init: true})
	}
	f.Summary = "pgbench scripts " + strings.Join(names, ", ")
	if err := f.finish(); err != nil {
		return nil, err
	}
	return f, nil
}

// FromDefinition rebuilds a workload from its definition (a worker job's).
func FromDefinition(d *workload.Definition) (*workload.Spec, error) {
	var allow []string
	var sources []workload.DefSource
	for _, s := range d.Sources {
		if s.Name == AllowAttachSource {
			allow = append(allow, s.Text)
		} else {
			sources = append(sources, s)
		}
	}
	sp, err := fromSources(d.Kind, sources)
	if err != nil {
		return nil, err
	}
	if err := sp.AllowAttach(allow); err != nil {
		return nil, err
	}
	return sp, nil
}

func fromSources(kind string, sources []workload.DefSource) (*workload.Spec, error) {
	switch kind {
	case "file":
		if len(sources) != 1 {
			return nil, fmt.Errorf("a workload file's definition holds one text, not %d", len(sources))
		}
		f, err := ParseFile(sources[0].Name, []byte(sources[0].Text))
		if err != nil {
			return nil, err
		}
		return f.WorkloadSpec(nil), nil
	case "scripts":
		var scripts []Script
		var init *Script
		var defines []string
		for _, s := range sources {
			switch {
			case s.Name == "-D":
				defines = append(defines, s.Text)
			case s.Init:
				init = &Script{Name: s.Name, Text: s.Text}
			default:
				scripts = append(scripts, Script{Name: s.Name, Text: s.Text, Weight: s.Weight})
			}
		}
		f, err := ParseScripts(scripts, init, defines)
		if err != nil {
			return nil, err
		}
		return f.WorkloadSpec(nil), nil
	}
	return nil, fmt.Errorf("unknown kind of workload definition %q", kind)
}
