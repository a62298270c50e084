// Package serve is the HTTP page-serving experiment as a server: one
// ~5.4 KB row of a pages table returned over HTTP (net/http or fasthttp),
// with the application-side strategies of "Making SQLite faster in Go"
// (Turriate, 2020), and the same bytes from a file as the control.
package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/target"
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

// Pooled reports whether a strategy keeps a pool of --handles handles.
func Pooled(strategy string) bool {
	return strategy == "conn-pool" || strategy == "stmt-pool" || strategy == "direct"
}

// Conns is how many SQLite connections a server of strategy holds when
// clients requests run at once: the pool of handles, the database/sql
// pool (up to --pool, 0 = unlimited), or none for the file.
func Conns(strategy string, handles, pool, clients int) int {
	switch {
	case strategy == "file":
		return 0
	case Pooled(strategy):
		return max(handles, 1)
	case pool > 0 && pool < clients:
		return pool
	}
	return max(clients, 1)
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
	if memory && Pooled(strategy) {
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
			if err := ctx.Err(); err != nil {
				s.Close()
				return nil, err
			}
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

// Allowed is the Allow header of a 405: the server only reads.
const Allowed = "GET, HEAD"

// PageType is the Content-Type of a page.
const PageType = "text/html; charset=utf-8"

// reply is a request's answer, whichever HTTP server writes it: an error
// (status and message, written as net/http's http.Error does), the page's
// body, or the control's open file of size bytes.
type reply struct {
	status int
	msg    string
	body   []byte
	file   *os.File
	size   int64
}

// answer computes the reply to a request with method and the raw value
// of its id parameter (empty for the default page). A reply's file is
// the caller's to close.
func (s *Server) answer(ctx context.Context, method, idv string) reply {
	if method != http.MethodGet && method != http.MethodHead {
		return reply{status: http.StatusMethodNotAllowed, msg: "method " + method + " not allowed: this server only answers GET and HEAD"}
	}
	id := int64(1)
	if idv != "" {
		n, err := strconv.ParseInt(idv, 10, 64)
		if err != nil {
			return reply{status: http.StatusBadRequest, msg: "bad id"}
		}
		id = n
	}
	if s.cfg.Strategy == "file" {
		f, err := os.Open(s.cfg.File)
		if err != nil {
			return reply{status: http.StatusInternalServerError, msg: err.Error()}
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return reply{status: http.StatusInternalServerError, msg: err.Error()}
		}
		return reply{status: http.StatusOK, file: f, size: st.Size()}
	}
	// Statements run under a context that cannot be cancelled: a
	// cancellable one makes drivers start a goroutine per query.
	body, err := s.Body(context.WithoutCancel(ctx), id)
	if errors.Is(err, errNotFound) {
		return reply{status: http.StatusNotFound, msg: "no such page"}
	}
	if err != nil {
		return reply{status: http.StatusInternalServerError, msg: err.Error()}
	}
	return reply{status: http.StatusOK, body: body}
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var idv string
	if r.URL.RawQuery != "" {
		idv = r.URL.Query().Get("id")
	}
	a := s.answer(r.Context(), r.Method, idv)
	h := w.Header()
	switch {
	case a.msg != "":
		if a.status == http.StatusMethodNotAllowed {
			h.Set("Allow", Allowed)
		}
		http.Error(w, a.msg, a.status)
	case a.file != nil:
		defer a.file.Close()
		h.Set("Content-Type", PageType)
		h.Set("Content-Length", strconv.FormatInt(a.size, 10))
		if r.Method != http.MethodHead {
			io.Copy(w, a.file) //nolint:errcheck // the client sees a short body
		}
	default:
		h.Set("Content-Type", PageType)
		h.Set("Content-Length", strconv.Itoa(len(a.body)))
		w.Write(a.body) //nolint:errcheck
	}
}

// Connection timeouts of HTTPServer. A client must send a request's
// headers within ReadHeaderTimeout of connecting or of its previous
// response, and a response must be written within WriteTimeout; an idle
// keep-alive connection is closed after the idle timeout.
const (
	ReadHeaderTimeout  = 10 * time.Second
	WriteTimeout       = 30 * time.Second
	DefaultIdleTimeout = 30 * time.Second
)

// HTTPServer is the http.Server every litebench server runs h with: no
// connection is held for ever, idle keep-alive connections are closed after
// idle (DefaultIdleTimeout when 0).
func HTTPServer(h http.Handler, idle time.Duration) *http.Server {
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	return &http.Server{Handler: h, ReadHeaderTimeout: ReadHeaderTimeout, WriteTimeout: WriteTimeout, IdleTimeout: idle}
}

// Exposure says who besides this machine can reach a server listening on
// addr: "" for a loopback address, else a description of the exposure.
func Exposure(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return "" // not a network socket
	}
	switch {
	case tcp.IP.IsLoopback():
		return ""
	case tcp.IP == nil || tcp.IP.IsUnspecified():
		return "every network interface of this machine"
	}
	return "the network interface with address " + tcp.IP.String()
}

// Shutdown stops hs: it stops accepting, lets requests in flight finish for
// up to grace, then closes every connection that is left.
func Shutdown(hs *http.Server, grace time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if hs.Shutdown(ctx) != nil {
		hs.Close() //nolint:errcheck
	}
}
