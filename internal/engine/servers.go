package engine

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// Served is an engine whose instances are databases on a server: a server
// litebench starts for the sweep (managed), or the user's own (--dsn).
// Either way an instance is a database litebench creates, named after the
// run, and drops at the end; nothing else on the server is touched.
type Served interface {
	Engine
	// Available is nil when litebench can start a server of its own here,
	// and otherwise says which package installs the missing program.
	Available() error
	// Schemes are the URL schemes of the engine's --dsn ("postgres").
	Schemes() []string
}

// IsServed reports whether e's instances live on a server.
func IsServed(e Engine) bool {
	_, ok := e.(Served)
	return ok
}

// Servers are the servers of a sweep: the managed ones litebench started,
// each kept under a key (the engine and the settings it was started
// with) until Close, and the user's servers named by URL, per engine.
type Servers struct {
	mu      sync.Mutex
	dsn     map[string]string
	started map[string]io.Closer
	order   []string
	fence   map[string]Fence
	log     io.Writer
	once    map[string]bool
	// Keep leaves the managed servers' directories (stopped) to the user.
	Keep bool
}

// NewServers returns an empty set of servers.
func NewServers() *Servers {
	return &Servers{dsn: map[string]string{}, started: map[string]io.Closer{}, fence: map[string]Fence{}}
}

// Fence is how the workload's SQL is kept to litebench's own database on a
// user's server (--dsn), decided before the sweep starts.
type Fence struct {
	// Role: run the workload's SQL as a role (user) litebench creates for
	// the run, with rights on the run's database only.
	Role bool
	// Why says why there is no such role (Role false).
	Why string
	// Statements is nil when the workload's SQL was checked before the
	// sweep and holds no database-level statement; otherwise the refusal
	// of the first one (or why it was not checked).
	Statements error
}

// SetFence records engine's fence on the user's server.
func (s *Servers) SetFence(engine string, f Fence) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fence[engine] = f
}

// FenceOf is engine's fence on the user's server.
func (s *Servers) FenceOf(engine string) Fence {
	if s == nil {
		return Fence{Statements: errors.New("not checked")}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.fence[engine]
	if !ok {
		return Fence{Role: true, Statements: errors.New("not checked")}
	}
	return f
}

// SetLog sends what litebench does on the user's servers outside a run
// (removing what a killed run left) to w, a line each.
func (s *Servers) SetLog(w io.Writer) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = w
}

// First reports whether this is the first call with key on s (true for a
// nil s).
func (s *Servers) First(key string) bool {
	if s == nil {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.once[key] {
		return false
	}
	if s.once == nil {
		s.once = map[string]bool{}
	}
	s.once[key] = true
	return true
}

// Logf writes a line to the log set by SetLog (if any).
func (s *Servers) Logf(format string, a ...any) {
	if s == nil {
		return
	}
	s.mu.Lock()
	w := s.log
	s.mu.Unlock()
	if w != nil {
		fmt.Fprintf(w, format+"\n", a...)
	}
}

// SetDSN points engine's runs at the user's server at u.
func (s *Servers) SetDSN(engine, u string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dsn[engine] = u
}

// DSN is the user's server for engine ("" for a managed one).
func (s *Servers) DSN(engine string) string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dsn[engine]
}

// Start returns the server kept under key, starting it with start the
// first time.
func (s *Servers) Start(key string, start func() (io.Closer, error)) (io.Closer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.started[key]; ok {
		return c, nil
	}
	c, err := start()
	if err != nil {
		return nil, err
	}
	s.started[key] = c
	s.order = append(s.order, key)
	return c, nil
}

// Close stops every managed server, the last started first, and removes
// what it made.
func (s *Servers) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for i := len(s.order) - 1; i >= 0; i-- {
		if err := s.started[s.order[i]].Close(); err != nil {
			errs = append(errs, err)
		}
	}
	s.started, s.order = map[string]io.Closer{}, nil
	return errors.Join(errs...)
}

// EngineOfDSN names the served engine whose URL scheme u has.
func EngineOfDSN(u string) (string, error) {
	pu, err := url.Parse(u)
	if err != nil || pu.Scheme == "" || pu.Host == "" {
		return "", fmt.Errorf("--dsn %q: want a URL such as postgres://user:password@host:5432/db or mariadb://user:password@host:3306/", Redact(u))
	}
	mu.Lock()
	defer mu.Unlock()
	var known []string
	for _, e := range engines {
		if sv, ok := e.(Served); ok {
			for _, sc := range sv.Schemes() {
				if strings.EqualFold(sc, pu.Scheme) {
					return e.Name(), nil
				}
				known = append(known, sc+"://")
			}
		}
	}
	sort.Strings(known)
	return "", fmt.Errorf("--dsn %s: unknown scheme %q (known: %s)", Redact(u), pu.Scheme, strings.Join(known, ", "))
}

// Redact is u without its password, for messages and results.
func Redact(u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return "(malformed URL)"
	}
	return pu.Redacted()
}
