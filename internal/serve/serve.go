// Package serve is seed 003's experiment as a server: one ~5.4 KB row of a
// pages table returned over HTTP, with the application-side strategies the
// seed compares, and the same bytes from a file as the control.
package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"litebench/internal/engine"
	"litebench/internal/target"
)

// Strategies in the seed's order.
var Strategies = []string{"plain", "prepared", "conn-pool", "stmt-pool", "direct", "file"}

// Describe says what each strategy does.
var Describe = map[string]string{
	"plain":     "db.QueryRow per request on the target's pool",
	"prepared":  "one prepared statement shared by all requests",
	"conn-pool": "a channel pool of N single-connection handles, ad hoc query on each",
	"stmt-pool": "a channel pool of N handles, each with its prepared statement",
	"direct":    "stmt-pool on a direct-API target (zombie, ncruces-direct)",
	"file":      "the same bytes from a file: open, stat, copy (the control)",
}

// CheckStrategy validates a strategy name.
func CheckStrategy(s string) error {
	for _, k := range Strategies {
		if s == k {
			return nil
		}
	}
	return fmt.Errorf("--strategy %q: want one of %s", s, strings.Join(Strategies, ", "))
}

// Check validates a strategy for a target and database: direct needs a
// direct-API target, and the pooled strategies open several handles, which
// an in-memory database (private to one connection pool) cannot serve.
func Check(strategy string, t target.Target, memory bool) error {
	if err := CheckStrategy(strategy); err != nil {
		return err
	}
	if strategy == "direct" && t != nil && t.API() != "direct" {
		return fmt.Errorf("--strategy direct needs a direct-API target (--target zombie or ncruces-direct), not %s (%s)", t.Name(), t.API())
	}
	if memory && strategy != "plain" && strategy != "prepared" && strategy != "file" {
		return fmt.Errorf("--strategy %s opens several handles: it needs a database file, not --in-memory", strategy)
	}
	return nil
}

// Query is the statement every SQLite strategy runs.
const Query = "SELECT body FROM pages WHERE id = ?"

// Config describes a server.
type Config struct {
	Strategy string
	Target   target.Target
	// Endpoint is the database the handles open (read-only, immutable when
	// asked: an instance's ReadEndpoint), Pool how plain and prepared run
	// their pool.
	Endpoint engine.Endpoint
	Pool     target.PoolOptions
	// Handles is N of conn-pool, stmt-pool and direct.
	Handles int
	// File is the control's file.
	File string
}

type handle struct {
	db   target.DB
	stmt target.Stmt
}

// Server serves GET /?id=N (default 1) with the page's body.
type Server struct {
	cfg    Config
	db     target.DB
	stmt   target.Stmt
	pool   chan handle
	opened []handle
}

// New opens what the strategy needs.
func New(ctx context.Context, cfg Config) (*Server, error) {
	if err := Check(cfg.Strategy, cfg.Target, cfg.Endpoint.InMemory); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg}
	if cfg.Strategy == "file" {
		if _, err := os.Stat(cfg.File); err != nil {
			return nil, err
		}
		return s, nil
	}
	var err error
	switch cfg.Strategy {
	case "plain", "prepared":
		if s.db, err = cfg.Target.Open(ctx, cfg.Endpoint, cfg.Pool); err != nil {
			return nil, err
		}
		if cfg.Strategy == "prepared" {
			if s.stmt, err = s.db.Prepare(ctx, Query); err != nil {
				s.Close()
				return nil, err
			}
		}
	default:
		n := max(cfg.Handles, 1)
		s.pool = make(chan handle, n)
		for i := 0; i < n; i++ {
			o := cfg.Pool
			o.MaxOpen, o.ConnPerOp = 1, false
			db, err := cfg.Target.Open(ctx, cfg.Endpoint, o)
			if err != nil {
				s.Close()
				return nil, err
			}
			h := handle{db: db}
			if cfg.Strategy != "conn-pool" {
				if h.stmt, err = db.Prepare(ctx, Query); err != nil {
					db.Close()
					s.Close()
					return nil, err
				}
			}
			s.opened = append(s.opened, h)
			s.pool <- h
		}
	}
	return s, nil
}

// Close releases every handle.
func (s *Server) Close() {
	if s.stmt != nil {
		s.stmt.Close()
	}
	if s.db != nil {
		s.db.Close()
	}
	for _, h := range s.opened {
		if h.stmt != nil {
			h.stmt.Close()
		}
		h.db.Close()
	}
}

var errNotFound = errors.New("no such page")

// Body returns page id's body by the server's strategy.
func (s *Server) Body(ctx context.Context, id int64) ([]byte, error) {
	var body []byte
	found := false
	scan := func(r target.Row) error {
		found = true
		return r.Scan(&body)
	}
	var err error
	args := target.A(id)
	switch s.cfg.Strategy {
	case "plain":
		err = s.db.Query(ctx, Query, args, scan)
	case "prepared":
		err = s.stmt.Query(ctx, args, scan)
	default:
		h := <-s.pool
		if h.stmt != nil {
			err = h.stmt.Query(ctx, args, scan)
		} else {
			err = h.db.Query(ctx, Query, args, scan)
		}
		s.pool <- h
	}
	if err == nil && !found {
		err = errNotFound
	}
	return body, err
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := int64(1)
	if v := r.URL.Query().Get("id"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			http.Error(w, "bad id", http.StatusBadRequest)
			return
		}
		id = n
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	if s.cfg.Strategy == "file" {
		f, err := os.Open(s.cfg.File)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		h.Set("Content-Length", strconv.FormatInt(st.Size(), 10))
		io.Copy(w, f) //nolint:errcheck // the client sees a short body
		return
	}
	// Statements run under a context that cannot be cancelled: a
	// cancellable one makes drivers start a goroutine per query.
	body, err := s.Body(context.WithoutCancel(r.Context()), id)
	if errors.Is(err, errNotFound) {
		http.Error(w, "no such page", http.StatusNotFound)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body) //nolint:errcheck
}
