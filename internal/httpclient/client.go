// Package httpclient is the HTTP/1.1 client of litebench's load generator:
// one persistent connection per client, one request at a time on it (no
// pipelining), as wrk and hey load a server. It only sends GET requests
// and reads the status and the body's length; in steady state a request
// allocates nothing.
package httpclient

import (
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

// statusError is the error of a response whose status is not 200.
type statusError int

func (e statusError) Error() string { return fmt.Sprintf("%v %d", ErrStatus, int(e)) }
func (e statusError) Unwrap() error { return ErrStatus }

func statusErr(status int) error { return statusError(status) }

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
	p    parser
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
	c.p.reset()
	for {
		used, done, ferr := c.p.feed(c.buf[c.r:c.w])
		c.r += used
		got = got || used > 0
		if ferr != nil {
			return 0, c.p.n, got, ferr
		}
		if done {
			break
		}
		if err = c.fill(); err == io.EOF {
			err = c.p.eof(got || c.w > c.r)
		}
		if err != nil {
			return c.p.status, c.p.n, got || c.w > c.r, err
		}
		if c.p.state == stDone { // a body that ended with the connection
			break
		}
	}
	status, n = c.p.status, c.p.n
	c.used = true
	if c.p.close {
		c.drop()
	}
	if status != 200 {
		return status, n, got, statusErr(status)
	}
	return status, n, got, nil
}

// fill reads more of the response into the buffer, moving the unread
// bytes to its start first when it is full.
func (c *Client) fill() error {
	if c.r == c.w {
		c.r, c.w = 0, 0
	}
	if c.w == len(c.buf) {
		if c.r == 0 {
			return errHeaderSize
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
