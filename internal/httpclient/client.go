// Package httpclient is the HTTP/1.1 client of litebench's load generator:
// one persistent connection per client, one request at a time on it (no
// pipelining), as wrk and hey load a server. It only sends GET requests
// and reads the status and the body's length; in steady state a request
// allocates nothing.
package httpclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"syscall"
	"time"
)

// Target is a parsed URL to GET: where to connect and the request bytes.
type Target struct {
	addr string
	req  []byte
}

// Parse checks an http:// URL and builds its GET request.
func Parse(raw string) (Target, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Host == "" || u.User != nil || u.Fragment != "" {
		return Target{}, fmt.Errorf("%q: want http://HOST:PORT/PATH", raw)
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	req := "GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUser-Agent: litebench\r\n\r\n"
	return Target{addr: addr, req: []byte(req)}, nil
}

// Addr is the host:port the target's connections go to.
func (t Target) Addr() string { return t.addr }

// Timeout bounds how long a request may wait for the server: a stalled
// server fails the request after between Timeout and Timeout+deadlineSlack.
const Timeout = 30 * time.Second

// deadlineSlack is how often a busy connection moves its deadline: once
// every slack instead of once per request.
const deadlineSlack = 5 * time.Second

// bufSize is the read buffer: a response's header must fit in it.
const bufSize = 16 << 10

// ErrStatus is wrapped by the error of a response whose status is not 200.
var ErrStatus = errors.New("unexpected status")

// Client sends requests to one target over one connection at a time,
// opened when first needed and again after an error. It is used by one
// goroutine.
type Client struct {
	t   Target
	ctx context.Context
	// Dials counts connections opened.
	Dials int

	conn net.Conn
	stop func() bool // unregisters the interrupt hook of conn
	used bool        // conn has carried a response
	dl   time.Time   // conn's current deadline
	buf  []byte
	r, w int // unread bytes are buf[r:w]
}

// New returns a client of t. When ctx ends, a request in flight fails at
// once and no connection is opened any more.
func New(ctx context.Context, t Target) *Client {
	return &Client{t: t, ctx: ctx, buf: make([]byte, bufSize)}
}

// Close closes the connection.
func (c *Client) Close() {
	c.drop()
}

func (c *Client) drop() {
	if c.conn != nil {
		c.stop()
		c.conn.Close()
		c.conn, c.used = nil, false
	}
	c.r, c.w = 0, 0
}

func (c *Client) dial() error {
	if err := c.ctx.Err(); err != nil {
		return err
	}
	var d net.Dialer
	conn, err := d.DialContext(c.ctx, "tcp", c.t.addr)
	if err != nil {
		return err
	}
	c.Dials++
	c.conn, c.used, c.dl = conn, false, time.Time{}
	c.stop = context.AfterFunc(c.ctx, func() {
		conn.SetDeadline(time.Unix(1, 0)) //nolint:errcheck // unblocks the request in flight
	})
	return nil
}

// Get sends the target's GET and reads the response. It returns the
// status and the body's length; a status other than 200 is an error
// wrapping ErrStatus (the body is still read, and n is its length). A
// request on a kept-alive connection that the server had closed is sent
// again once on a new connection, as net/http does for a GET.
func (c *Client) Get() (status int, n int64, err error) {
	for attempt := 0; ; attempt++ {
		reused := c.conn != nil && c.used
		var got bool // a byte of the response arrived
		status, n, got, err = c.roundTrip()
		if err == nil || c.ctx.Err() != nil {
			return status, n, err
		}
		if errors.Is(err, ErrStatus) {
			return status, n, err
		}
		c.drop()
		if !reused || got || attempt > 0 || !retryable(err) {
			return status, n, err
		}
	}
}

// retryable is an error of a connection the server closed while idle.
func retryable(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

func (c *Client) roundTrip() (status int, n int64, got bool, err error) {
	if c.conn == nil {
		if err = c.dial(); err != nil {
			return 0, 0, false, err
		}
	}
	if now := time.Now(); c.dl.Sub(now) < Timeout {
		c.dl = now.Add(Timeout + deadlineSlack)
		if err = c.conn.SetDeadline(c.dl); err != nil {
			return 0, 0, false, err
		}
	}
	if _, err = c.conn.Write(c.t.req); err != nil {
		return 0, 0, false, err
	}
	// Header: up to the blank line.
	end := -1
	for {
		if end = bytes.Index(c.buf[c.r:c.w], crlf2); end >= 0 {
			break
		}
		if err = c.fill(); err != nil {
			return 0, 0, c.w > c.r, err
		}
	}
	got = true
	head := c.buf[c.r : c.r+end+2]
	c.r += end + 4
	var h header
	if err = h.parse(head); err != nil {
		return 0, 0, got, err
	}
	status = h.status
	switch {
	case h.chunked:
		n, err = c.chunked()
	case h.length >= 0:
		n, err = c.discard(h.length)
	case status == 204 || status == 304 || status < 200:
	default:
		n, err = c.toEOF()
		h.close = true
	}
	if err != nil {
		return status, n, got, err
	}
	c.used = true
	if h.close {
		c.drop()
	}
	if status != 200 {
		return status, n, got, fmt.Errorf("%w %d", ErrStatus, status)
	}
	return status, n, got, nil
}

var crlf2 = []byte("\r\n\r\n")

// fill reads more of the response into the buffer, moving the unread
// bytes to its start first when it is full.
func (c *Client) fill() error {
	if c.w == len(c.buf) {
		if c.r == 0 {
			return errors.New("response header larger than 16 KiB")
		}
		c.w = copy(c.buf, c.buf[c.r:c.w])
		c.r = 0
	}
	k, err := c.conn.Read(c.buf[c.w:])
	c.w += k
	if k > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// discard consumes n bytes of body.
func (c *Client) discard(n int64) (int64, error) {
	left := n
	for left > 0 {
		if c.r == c.w {
			c.r, c.w = 0, 0
			if err := c.fill(); err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return n - left, err
			}
		}
		k := min(int64(c.w-c.r), left)
		c.r += int(k)
		left -= k
	}
	return n, nil
}

// toEOF consumes a body that ends with the connection.
func (c *Client) toEOF() (int64, error) {
	n := int64(c.w - c.r)
	for {
		c.r, c.w = 0, 0
		err := c.fill()
		n += int64(c.w)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// line returns the next CRLF-terminated line (without the CRLF).
func (c *Client) line() ([]byte, error) {
	for {
		if i := bytes.Index(c.buf[c.r:c.w], crlf2[:2]); i >= 0 {
			l := c.buf[c.r : c.r+i]
			c.r += i + 2
			return l, nil
		}
		if err := c.fill(); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// chunked consumes a chunked body and its trailer.
func (c *Client) chunked() (int64, error) {
	var n int64
	for {
		l, err := c.line()
		if err != nil {
			return n, err
		}
		if i := bytes.IndexByte(l, ';'); i >= 0 {
			l = l[:i]
		}
		size, ok := parseUint(bytes.TrimSpace(l), 16)
		if !ok {
			return n, fmt.Errorf("bad chunk size %q", l)
		}
		if size == 0 {
			for { // trailer, up to an empty line
				l, err := c.line()
				if err != nil {
					return n, err
				}
				if len(l) == 0 {
					return n, nil
				}
			}
		}
		if _, err := c.discard(size); err != nil {
			return n, err
		}
		n += size
		if l, err := c.line(); err != nil || len(l) != 0 {
			if err == nil {
				err = errors.New("chunk not followed by CRLF")
			}
			return n, err
		}
	}
}

// header is what the client reads of a response header.
type header struct {
	status  int
	length  int64 // -1 when absent
	chunked bool
	close   bool
}

// parse reads the status line and the headers that frame the body.
func (h *header) parse(b []byte) error {
	h.length = -1
	i := bytes.Index(b, crlf2[:2])
	sl := b[:i]
	if len(sl) < 12 || !bytes.HasPrefix(sl, []byte("HTTP/1.")) || sl[8] != ' ' {
		return fmt.Errorf("bad status line %q", sl)
	}
	st, ok := parseUint(sl[9:12], 10)
	if !ok || st < 100 || (len(sl) > 12 && sl[12] != ' ') {
		return fmt.Errorf("bad status line %q", sl)
	}
	h.status = int(st)
	h.close = sl[7] == '0' // HTTP/1.0 closes unless it says keep-alive
	for b = b[i+2:]; len(b) > 0; {
		j := bytes.Index(b, crlf2[:2])
		l := b[:j]
		b = b[j+2:]
		k := bytes.IndexByte(l, ':')
		if k < 0 {
			return fmt.Errorf("bad header line %q", l)
		}
		name, v := l[:k], bytes.TrimSpace(l[k+1:])
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, ok := parseUint(v, 10)
			if !ok {
				return fmt.Errorf("bad Content-Length %q", v)
			}
			h.length = n
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			h.chunked = bytes.EqualFold(v, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			if bytes.EqualFold(v, []byte("close")) {
				h.close = true
			} else if bytes.EqualFold(v, []byte("keep-alive")) {
				h.close = false
			}
		}
	}
	return nil
}

// parseUint parses a number in base 10 or 16 without allocating.
func parseUint(b []byte, base int64) (int64, bool) {
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var n int64
	for _, ch := range b {
		var d int64
		switch {
		case '0' <= ch && ch <= '9':
			d = int64(ch - '0')
		case base == 16 && 'a' <= ch && ch <= 'f':
			d = int64(ch-'a') + 10
		case base == 16 && 'A' <= ch && ch <= 'F':
			d = int64(ch-'A') + 10
		default:
			return 0, false
		}
		n = n*base + d
	}
	return n, true
}
