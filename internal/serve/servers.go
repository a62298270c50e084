package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// Servers are the HTTP servers a Server's strategies run behind: Go's
// net/http, and fasthttp (which the published experiment served with,
// through the fiber framework).
var Servers = []string{"fasthttp", "net/http"}

// DefaultServer is the server used when none is named.
const DefaultServer = "fasthttp"

// CheckServer validates an HTTP server name.
func CheckServer(name string) error {
	for _, k := range Servers {
		if name == k {
			return nil
		}
	}
	return fmt.Errorf("--server %q: want one of %s", name, strings.Join(Servers, ", "))
}

// HTTP is an HTTP server answering with a Server's pages.
type HTTP interface {
	// Serve accepts connections on ln until Shutdown or Close; it then
	// returns nil.
	Serve(ln net.Listener) error
	// Shutdown stops accepting, lets requests in flight finish for up to
	// grace, then closes every connection that is left.
	Shutdown(grace time.Duration)
	// Close closes the listener and every connection at once.
	Close()
}

// NewHTTP returns the HTTP server kind (one of Servers) for s. Idle
// keep-alive connections are closed after idle (DefaultIdleTimeout when
// 0); both kinds use the same timeouts and give the same status, headers
// that matter (Content-Type, Content-Length, Allow) and body.
func NewHTTP(kind string, s *Server, idle time.Duration) (HTTP, error) {
	if err := CheckServer(kind); err != nil {
		return nil, err
	}
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	if kind == "net/http" {
		return stdServer{HTTPServer(s, idle)}, nil
	}
	f := &fastServer{conns: map[net.Conn]struct{}{}}
	f.srv = &fasthttp.Server{
		Handler:               s.ServeFast,
		ReadTimeout:           ReadHeaderTimeout,
		WriteTimeout:          WriteTimeout,
		IdleTimeout:           idle,
		NoDefaultServerHeader: true,
		Logger:                quiet{},
		ConnState:             f.track,
	}
	return f, nil
}

type stdServer struct{ *http.Server }

func (s stdServer) Serve(ln net.Listener) error {
	if err := s.Server.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func (s stdServer) Shutdown(grace time.Duration) { Shutdown(s.Server, grace) }
func (s stdServer) Close()                       { s.Server.Close() } //nolint:errcheck

// fastServer is fasthttp's server with the connections it has open, so
// that Close can close them (fasthttp's shutdown leaves busy ones open).
type fastServer struct {
	srv   *fasthttp.Server
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

func (f *fastServer) track(c net.Conn, st fasthttp.ConnState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch st {
	case fasthttp.StateNew:
		f.conns[c] = struct{}{}
	case fasthttp.StateClosed, fasthttp.StateHijacked:
		delete(f.conns, c)
	}
}

func (f *fastServer) Serve(ln net.Listener) error { return f.srv.Serve(ln) }

func (f *fastServer) Shutdown(grace time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if f.srv.ShutdownWithContext(ctx) != nil {
		f.closeConns()
	}
}

func (f *fastServer) Close() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f.srv.ShutdownWithContext(ctx) //nolint:errcheck // closes the listeners; the connections follow
	f.closeConns()
}

func (f *fastServer) closeConns() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.conns {
		c.Close()
	}
}

// quiet drops fasthttp's log lines (clients that go away mid-request).
type quiet struct{}

func (quiet) Printf(string, ...any) {}

// ServeFast is ServeHTTP for fasthttp.
func (s *Server) ServeFast(ctx *fasthttp.RequestCtx) {
	var idv string
	if q := ctx.QueryArgs(); q.Len() > 0 {
		idv = string(q.Peek("id"))
	}
	a := s.answer(ctx, string(ctx.Method()), idv)
	h := &ctx.Response.Header
	switch {
	case a.msg != "":
		// As http.Error writes it.
		if a.status == http.StatusMethodNotAllowed {
			h.Set("Allow", Allowed)
		}
		h.Set("X-Content-Type-Options", "nosniff")
		ctx.SetStatusCode(a.status)
		ctx.SetContentType("text/plain; charset=utf-8")
		ctx.SetBodyString(a.msg + "\n")
	case a.file != nil:
		// fasthttp closes the stream once it is sent (the seed's
		// SetBodyStream); HEAD sends the length only.
		ctx.SetContentType(PageType)
		if ctx.IsHead() {
			a.file.Close()
			h.SetContentLength(int(a.size))
			return
		}
		ctx.SetBodyStream(a.file, int(a.size))
	default:
		ctx.SetContentType(PageType)
		ctx.SetBody(a.body)
	}
}
