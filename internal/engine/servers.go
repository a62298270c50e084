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
	// Keep leaves the managed servers' directories (stopped) to the user.
	Keep bool
}

// NewServers returns an empty set of servers.
func NewServers() *Servers {
	return &Servers{dsn: map[string]string{}, started: map[string]io.Closer{}}
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
