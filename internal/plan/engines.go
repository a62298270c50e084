package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/workload"
)

// cellSettings are the settings of one cell of target t: s with the
// settings of the sweep's other engines put back to their defaults (or
// refused when no target of the sweep uses them; see engine.ForCell).
// seen holds the cells built so far: a cell whose settings were put back
// and that comes out the same as one of them (a SQLite setting axis on a
// dqlite target) is a repeat.
func cellSettings(spec *workload.Spec, t target.Target, s settings.Settings, targets []target.Target, pp map[string]string, seen map[string]bool) (settings.Settings, bool, error) {
	def := settings.Default()
	for k, v := range spec.SettingDefaults {
		def.Set(k, v)
	}
	sweep := map[string]bool{}
	for _, x := range targets {
		sweep[x.Engine().Name()] = true
	}
	out, err := engine.ForCell(t.Engine(), s, def, sweep)
	if err != nil {
		return out, false, &InputError{fmt.Sprintf("--target %s: %v", t.Name(), err)}
	}
	key := cellKey(t, pp, out)
	if seen[key] && key != cellKey(t, pp, s) {
		return out, true, nil
	}
	seen[key] = true
	return out, false, nil
}

func cellKey(t target.Target, pp map[string]string, s settings.Settings) string {
	parts := []string{t.Name()}
	for k, v := range pp {
		parts = append(parts, "p:"+k+"="+v)
	}
	for k, v := range s.Map() {
		parts = append(parts, "s:"+k+"="+v)
	}
	sort.Strings(parts[1:])
	return strings.Join(parts, "\x00")
}
