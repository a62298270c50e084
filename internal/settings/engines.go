package settings

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Which engines a setting applies to. An engine's own setting applies to
// that engine and to those it is shared with (--sync, which every engine
// maps onto its own commit durability); an application-side setting
// applies to every engine but those that declare they cannot honour it
// (--tx immediate on a server).
var (
	engMu   sync.Mutex
	shared  = map[string]map[string]bool{}   // key → engines that also honour it
	ignored = map[string]map[string]string{} // key → engine → why not
)

// Share declares that engine honours another engine's setting key, in its
// own terms.
func Share(key, engine string) {
	engMu.Lock()
	defer engMu.Unlock()
	if shared[key] == nil {
		shared[key] = map[string]bool{}
	}
	shared[key][engine] = true
}

// Ignore declares that engine cannot honour the application-side setting
// key, and why.
func Ignore(engine, key, why string) {
	engMu.Lock()
	defer engMu.Unlock()
	if ignored[key] == nil {
		ignored[key] = map[string]string{}
	}
	ignored[key][engine] = why
}

// Applies reports whether setting key has an effect on engine's cells.
func Applies(key, engine string) bool {
	sp := Lookup(key)
	if sp == nil {
		return false
	}
	engMu.Lock()
	defer engMu.Unlock()
	if sp.Engine == "" {
		_, no := ignored[key][engine]
		return !no
	}
	return sp.Engine == engine || shared[key][engine]
}

// EnginesOf names the engines setting key applies to ("" for every
// engine but those that ignore it), for messages.
func EnginesOf(key string) string {
	sp := Lookup(key)
	if sp == nil || sp.Engine == "" {
		return ""
	}
	engMu.Lock()
	defer engMu.Unlock()
	names := []string{sp.Engine}
	for e := range shared[key] {
		names = append(names, e)
	}
	sort.Strings(names[1:])
	return strings.Join(names, ", ")
}

// For returns s as it runs on engine: every setting that has no effect
// there back at its default, so that it neither labels nor splits the
// engine's cells.
func (s Settings) For(engine string) Settings {
	c := s.Clone()
	def := Default()
	for k := range c.v {
		if Lookup(k) != nil && !Applies(k, engine) {
			c.v[k] = def.v[k]
		}
	}
	return c
}

// WorkerMap is Map as a worker of engine's clients is sent it: the
// application-side settings and those that apply to engine (its own and
// the ones it shares), but for those at their default that say so
// (Spec.OmitDefault). A worker of another language knows its engine's
// settings, not every one litebench has registered.
func (s Settings) WorkerMap(engine string) map[string]string {
	m := s.Map()
	for k, v := range m {
		sp := Lookup(k)
		if sp != nil && (sp.Engine != "" && !Applies(k, engine) || sp.OmitDefault && v == sp.Default) {
			delete(m, k)
		}
	}
	return m
}

// NotFor explains why key has no effect on engine ("" when it has one).
func NotFor(key, engine string) string {
	if Applies(key, engine) {
		return ""
	}
	engMu.Lock()
	why := ignored[key][engine]
	engMu.Unlock()
	if why != "" {
		return fmt.Sprintf("--%s does not apply to %s: %s", key, engine, why)
	}
	return fmt.Sprintf("--%s applies to %s only", key, EnginesOf(key))
}
