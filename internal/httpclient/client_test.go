package httpclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// canned serves each request on a connection with the next of responses
// (the last one again once they run out), closing the connection after
// those that say so (a "close" marker appended). It counts requests.
type canned struct {
	ln       net.Listener
	requests atomic.Int64
	conns    atomic.Int64
}

func serveCanned(t testing.TB, responses ...string) *canned {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &canned{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.conns.Add(1)
			go s.conn(c, responses)
		}
	}()
	return s
}

func (s *canned) conn(c net.Conn, responses []string) {
	defer c.Close()
	buf := make([]byte, 4096)
	var pending []byte
	type answer struct {
		b     []byte
		close bool
	}
	var answers []answer
	for _, r := range responses {
		resp, closeAfter := strings.CutSuffix(r, "close")
		answers = append(answers, answer{[]byte(resp), closeAfter})
	}
	i := 0
	for {
		k, err := c.Read(buf)
		if err != nil {
			return
		}
		pending = append(pending, buf[:k]...)
		for {
			j := bytes.Index(pending, []byte("\r\n\r\n"))
			if j < 0 {
				break
			}
			pending = pending[:copy(pending, pending[j+4:])]
			s.requests.Add(1)
			a := answers[min(i, len(answers)-1)]
			i++
			if _, err := c.Write(a.b); err != nil || a.close {
				return
			}
		}
	}
}

func (s *canned) url() string { return "http://" + s.ln.Addr().String() + "/p?id=1" }

func client(t testing.TB, url string) *Client {
	tg, err := Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	c := New(context.Background(), tg)
	t.Cleanup(c.Close)
	return c
}

// getter is a client sending one request at a time: the Client, or a
// Loop of one connection.
type getter interface {
	Get() (status int, n int64, err error)
	dials() int
}

func (c *Client) dials() int { return c.Dials }

type loopGetter struct {
	l  *Loop
	rs *[]Result
	fn func(Result) // appends to rs, made once
}

func (g loopGetter) dials() int { return g.l.Dials }

func (g loopGetter) Get() (int, int64, error) {
	if err := g.l.Start(0); err != nil {
		return 0, 0, err
	}
	*g.rs = (*g.rs)[:0]
	if err := g.l.Wait(g.fn); err != nil {
		return 0, 0, err
	}
	rs := *g.rs
	if len(rs) != 1 || rs[0].Conn != 0 {
		return 0, 0, fmt.Errorf("results %+v for one request", rs)
	}
	return rs[0].Status, rs[0].N, rs[0].Err
}

func loopClient(t testing.TB, ctx context.Context, url string) loopGetter {
	tg, err := Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewLoop(ctx, tg, 1)
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(l.Close)
	rs := make([]Result, 0, 4)
	return loopGetter{l: l, rs: &rs, fn: func(r Result) { rs = append(rs, r) }}
}

// eachClient runs f with a maker of each kind of client.
func eachClient(t *testing.T, f func(t *testing.T, mk func(url string) getter)) {
	t.Run("client", func(t *testing.T) { f(t, func(url string) getter { return client(t, url) }) })
	t.Run("loop", func(t *testing.T) {
		f(t, func(url string) getter { return loopClient(t, context.Background(), url) })
	})
}

const ok5 = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\nhello"

func TestGetFramings(t *testing.T) {
	for _, c := range []struct {
		name, resp string
		status     int
		n          int64
		dials      int // after three requests
	}{
		{"content-length", ok5, 200, 5, 1},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\nA\r\n0123456789\r\n0\r\nTrailer: t\r\n\r\n", 200, 13, 1},
		{"lower-case headers", "HTTP/1.1 200 OK\r\ncontent-length:  4 \r\n\r\nabcd", 200, 4, 1},
		{"connection close", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nhiclose", 200, 2, 3},
		{"body to EOF", "HTTP/1.0 200 OK\r\n\r\nuntil the endclose", 200, 13, 3},
		{"empty 204", "HTTP/1.1 204 No Content\r\n\r\n", 204, 0, 1},
		{"404 with body", "HTTP/1.1 404 Not Found\r\nContent-Length: 13\r\n\r\nno such page\n", 404, 13, 1},
	} {
		eachClient(t, func(t *testing.T, mk func(string) getter) {
			t.Run(c.name, func(t *testing.T) {
				s := serveCanned(t, c.resp)
				cl := mk(s.url())
				for i := 0; i < 3; i++ {
					status, n, err := cl.Get()
					if status != c.status || n != c.n {
						t.Fatalf("request %d: status %d, %d bytes, want %d, %d (%v)", i, status, n, c.status, c.n, err)
					}
					if (err != nil) != (c.status != 200) || (err != nil && !errors.Is(err, ErrStatus)) {
						t.Fatalf("request %d: error %v with status %d", i, err, status)
					}
				}
				if cl.dials() != c.dials || s.requests.Load() != 3 {
					t.Errorf("%d dials for %d requests, want %d for 3", cl.dials(), s.requests.Load(), c.dials)
				}
			})
		})
	}
}

// A kept-alive connection the server closed without answering is
// replaced once, silently; a new connection's failure is an error.
func TestGetRetriesStaleConnection(t *testing.T) {
	eachClient(t, func(t *testing.T, mk func(string) getter) {
		// The server answers the first request, then closes the connection
		// at the next one without answering; a new connection starts over.
		s := serveCanned(t, ok5, "close")
		cl := mk(s.url())
		for i := 0; i < 4; i++ {
			if _, n, err := cl.Get(); err != nil || n != 5 {
				t.Fatalf("request %d: %d bytes, %v", i, n, err)
			}
		}
		if cl.dials() != 4 {
			t.Errorf("%d dials, want 4 (each second request on a connection is refused)", cl.dials())
		}
		// A server that never answers on a new connection: the error shows.
		s = serveCanned(t, "close")
		cl = mk(s.url())
		if _, _, err := cl.Get(); err == nil {
			t.Fatal("a connection closed without a response is not an error")
		}
		if s.requests.Load() != 1 {
			t.Errorf("sent %d times, want once", s.requests.Load())
		}
	})
}

func TestGetBadResponses(t *testing.T) {
	for _, resp := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshortclose",
		"HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n",
		"SSH-2.0-OpenSSH\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
	} {
		eachClient(t, func(t *testing.T, mk func(string) getter) {
			s := serveCanned(t, resp)
			cl := mk(s.url())
			if status, n, err := cl.Get(); err == nil || errors.Is(err, ErrStatus) {
				t.Errorf("%q: status %d, %d bytes, error %v; want a framing error", resp, status, n, err)
			}
		})
	}
}

// silentServer accepts a connection and never answers.
func silentServer(t *testing.T) Target {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err == nil {
			defer c.Close()
			io.Copy(io.Discard, c) //nolint:errcheck // never answers
		}
	}()
	tg, _ := Parse("http://" + ln.Addr().String() + "/")
	return tg
}

// An interrupt ends a request waiting for a server that does not answer.
func TestGetInterrupted(t *testing.T) {
	tg := silentServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	cl := New(ctx, tg)
	defer cl.Close()
	done := make(chan error, 1)
	go func() { _, _, err := cl.Get(); done <- err }()
	cancel()
	if err := <-done; err == nil {
		t.Fatal("an interrupted request succeeded")
	}
}

func TestParse(t *testing.T) {
	tg, err := Parse("http://localhost:8080/a/b?id=3")
	if err != nil || tg.Addr() != "localhost:8080" || string(tg.req) != "GET /a/b?id=3 HTTP/1.1\r\nHost: localhost:8080\r\nUser-Agent: litebench\r\n\r\n" {
		t.Errorf("Parse = %q, %q, %v", tg.Addr(), tg.req, err)
	}
	if tg, _ := Parse("http://example.test"); tg.Addr() != "example.test:80" || !strings.HasPrefix(string(tg.req), "GET / ") {
		t.Errorf("Parse without port or path = %q, %q", tg.Addr(), tg.req)
	}
	for _, bad := range []string{"https://h/", "h:80", "http:///", "http://u:p@h/", "ftp://h/"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
}

// The client reads what a real server writes.
func TestGetNetHTTP(t *testing.T) {
	body := strings.Repeat("x", 70000) // more than the buffer
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("id") == "1" {
			io.WriteString(w, body) //nolint:errcheck // chunked: no length set
		}
	})}
	go srv.Serve(ln) //nolint:errcheck
	defer srv.Close()
	eachClient(t, func(t *testing.T, mk func(string) getter) {
		cl := mk("http://" + ln.Addr().String() + "/?id=1")
		for i := 0; i < 3; i++ {
			if status, n, err := cl.Get(); status != 200 || n != int64(len(body)) || err != nil {
				t.Fatalf("status %d, %d bytes, %v", status, n, err)
			}
		}
		if cl.dials() != 1 {
			t.Errorf("%d dials, want 1", cl.dials())
		}
	})
}

// A request in steady state allocates nothing (the canned server does
// not either).
func TestGetAllocations(t *testing.T) {
	eachClient(t, func(t *testing.T, mk func(string) getter) {
		s := serveCanned(t, ok5)
		cl := mk(s.url())
		if _, _, err := cl.Get(); err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(500, func() { cl.Get() }); a > 0 { //nolint:errcheck
			t.Errorf("%.1f allocations per request, want 0", a)
		}
	})
}

// The benchmarks load a server that answers from memory in the same
// process, like a 5400-byte page: ns/op includes the server's share, which
// is the same in both; allocs/op is the client's (the server allocates
// nothing). Get is one connection, a request at a time (latency);
// GetParallel is 50 connections on every core (the cost per request that
// takes CPU away from the server), and GetNetHTTP the same with Go's
// net/http client for comparison.

const page = "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: 5400\r\n\r\n"

func BenchmarkGet(b *testing.B) {
	s := serveCanned(b, page+strings.Repeat("p", 5400))
	cl := client(b, s.url())
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := cl.Get(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGetParallel(b *testing.B) {
	s := serveCanned(b, page+strings.Repeat("p", 5400))
	b.ReportAllocs()
	b.SetParallelism(25)
	b.RunParallel(func(pb *testing.PB) {
		cl := client(b, s.url())
		for pb.Next() {
			if _, _, err := cl.Get(); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkGetNetHTTP(b *testing.B) {
	s := serveCanned(b, page+strings.Repeat("p", 5400))
	tr := &http.Transport{MaxIdleConnsPerHost: 100, DisableCompression: true}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	b.ReportAllocs()
	b.SetParallelism(25)
	b.RunParallel(func(pb *testing.PB) {
		req, _ := http.NewRequest(http.MethodGet, s.url(), nil)
		buf := make([]byte, 32<<10)
		for pb.Next() {
			resp, err := hc.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			for {
				if _, err := resp.Body.Read(buf); err != nil {
					break
				}
			}
			resp.Body.Close()
		}
	})
}

// The parser reads a response in any pieces: each framing split at every
// byte gives the same status and length as in one piece.
func TestParserPieces(t *testing.T) {
	for _, resp := range []string{
		ok5,
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\nA\r\n0123456789\r\n0\r\nTrailer: t\r\n\r\n",
		"HTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.1 404 Not Found\r\nContent-Length: 13\r\n\r\nno such page\n",
	} {
		var whole parser
		used, done, err := whole.feed([]byte(resp))
		if !done || err != nil || used != len(resp) {
			t.Fatalf("%q in one piece: used %d of %d, done %v, %v", resp, used, len(resp), done, err)
		}
		for cut := 1; cut < len(resp); cut++ {
			var p parser
			b := []byte(resp[:cut])
			used, done, err := p.feed(b)
			if err != nil || done {
				t.Fatalf("%q cut at %d: done %v, %v", resp, cut, done, err)
			}
			rest := append(b[used:], resp[cut:]...)
			used, done, err = p.feed(rest)
			if !done || err != nil || used != len(rest) || p.status != whole.status || p.n != whole.n {
				t.Fatalf("%q cut at %d: status %d, %d bytes, done %v, %v; want %d, %d", resp, cut, p.status, p.n, done, err, whole.status, whole.n)
			}
		}
	}
}
