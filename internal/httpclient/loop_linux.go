package httpclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// HasLoop says whether this system has the event-loop client.
const HasLoop = true

// Loop drives several connections to one target from one goroutine, as
// wrk's threads do: each connection carries one request at a time, and
// the loop waits on an epoll set of its own for whichever answers first.
// A request costs a write and a read (and a share of one epoll_wait),
// with no goroutine parked or woken per request: the load generator's
// CPU then goes to the server. When nothing is ready the goroutine parks
// in Go's poller on the epoll descriptor, so it holds no thread while it
// waits.
type Loop struct {
	t   Target
	ctx context.Context
	// Dials counts connections opened.
	Dials int

	ep    *os.File // the epoll set, in Go's poller
	epfd  int
	rc    syscall.RawConn
	stop  func() bool
	conns []loopConn
	evs   []syscall.EpollEvent
	each  func(Result) // the current Wait's callback
	ended int          // requests the current Wait has ended
	poll  func(uintptr) bool
	perr  error
	dl    time.Time
	check time.Time // when to look for stalled requests next
}

// loopConn is one connection of a loop and its request in flight.
type loopConn struct {
	fd      int // -1: none
	buf     []byte
	r, w    int
	p       parser
	used    bool // has carried a response
	busy    bool // a request is in flight
	got     bool // a byte of its response arrived
	retried bool // sent again after the server closed it while idle
	sent    time.Time
}

// Result is the end of one request of a loop.
type Result struct {
	Conn   int
	Status int
	N      int64 // body bytes
	Err    error // wraps ErrStatus for a status other than 200
}

// NewLoop returns a loop of n connections to t, opened as they are first
// used. When ctx ends, Wait returns at once and no connection is opened
// any more.
func NewLoop(ctx context.Context, t Target, n int) (*Loop, error) {
	fd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll: %w", err)
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("epoll: %w", err)
	}
	ep := os.NewFile(uintptr(fd), "epoll")
	rc, err := ep.SyscallConn()
	if err != nil {
		ep.Close()
		return nil, fmt.Errorf("epoll: %w", err)
	}
	l := &Loop{t: t, ctx: ctx, ep: ep, epfd: fd, rc: rc, conns: make([]loopConn, n), evs: make([]syscall.EpollEvent, min(n, 256))}
	for k := range l.conns {
		l.conns[k] = loopConn{fd: -1, buf: make([]byte, bufSize)}
	}
	l.poll = l.pollOnce
	l.stop = context.AfterFunc(ctx, func() {
		ep.SetReadDeadline(time.Unix(1, 0)) //nolint:errcheck // wakes a Wait
	})
	return l, nil
}

// Close closes the loop's connections and its epoll set.
func (l *Loop) Close() {
	l.stop()
	for k := range l.conns {
		l.drop(k)
	}
	l.ep.Close()
}

func (l *Loop) drop(k int) {
	c := &l.conns[k]
	if c.fd >= 0 {
		syscall.Close(c.fd) // leaves the epoll set with it
		c.fd, c.used = -1, false
	}
	c.r, c.w = 0, 0
}

// dial opens connection k with Go's dialer (name resolution, the
// context) and keeps a duplicate of its descriptor for the loop.
func (l *Loop) dial(k int) error {
	if err := l.ctx.Err(); err != nil {
		return err
	}
	var d net.Dialer
	conn, err := d.DialContext(l.ctx, "tcp", l.t.addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	rc, err := conn.(*net.TCPConn).SyscallConn()
	if err != nil {
		return err
	}
	fd, derr := -1, error(nil)
	if err := rc.Control(func(s uintptr) {
		fd, derr = syscall.Dup(int(s)) // shares O_NONBLOCK with the original
		if derr == nil {
			syscall.CloseOnExec(fd)
		}
	}); err != nil {
		return err
	}
	if derr != nil {
		return derr
	}
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(k)}
	if err := syscall.EpollCtl(l.epfd, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
		syscall.Close(fd)
		return err
	}
	l.Dials++
	c := &l.conns[k]
	c.fd, c.used = fd, false
	return nil
}

// Start sends the target's GET on connection k, opening it if needed.
// An error is the request's: it failed at once and is not in flight.
// Once ctx has ended no request starts.
func (l *Loop) Start(k int) error {
	if err := l.ctx.Err(); err != nil {
		return err
	}
	c := &l.conns[k]
	c.retried = false
	return l.send(k)
}

func (l *Loop) send(k int) error {
	c := &l.conns[k]
	if c.fd < 0 {
		if err := l.dial(k); err != nil {
			return err
		}
	}
	c.p.reset()
	c.got, c.r, c.w = false, 0, 0
	req := l.t.req
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(c.fd), uintptr(unsafe.Pointer(&req[0])), uintptr(len(req)))
	if e != 0 || int(n) != len(req) {
		err := error(e)
		if e == 0 || e == syscall.EAGAIN {
			err = errors.New("request not sent whole")
		}
		if l.stale(k, err) {
			return l.send(k)
		}
		return err
	}
	c.busy = true
	c.sent = time.Time{}
	return nil
}

// stale drops connection k after err, and reports whether its request is
// to be sent again on a new connection: once, when a kept-alive
// connection turns out to have been closed by the server while idle
// (nothing of the response arrived), as net/http does for a GET.
func (l *Loop) stale(k int, err error) bool {
	c := &l.conns[k]
	reused := c.used
	l.drop(k)
	if !reused || c.got || c.retried || l.ctx.Err() != nil || !retryable(err) {
		return false
	}
	c.retried = true
	return true
}

// Wait calls each with every request that ends, as it ends (each may
// Start the connection's next request at once, as wrk does), and returns
// once at least one has, waiting for them when none has. It returns ctx's
// error once ctx ends; the requests each saw before ended. A request with
// no answer for Timeout fails.
func (l *Loop) Wait(each func(Result)) error {
	l.each, l.ended = each, 0
	defer func() { l.each = nil }()
	for {
		if err := l.ctx.Err(); err != nil {
			return err
		}
		if l.ended > 0 {
			return nil
		}
		now := time.Now()
		if now.After(l.check) {
			l.stalled(now)
			if l.ended > 0 {
				return nil
			}
		}
		if l.dl.Sub(now) < time.Second {
			l.dl = now.Add(2 * time.Second)
			l.ep.SetReadDeadline(l.dl) //nolint:errcheck // the set is in the poller
			if err := l.ctx.Err(); err != nil {
				return err // the interrupt's deadline may be lost
			}
		}
		l.perr = nil
		err := l.rc.Read(l.poll)
		if l.perr != nil {
			return l.perr
		}
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			return err
		}
	}
}

// pollOnce takes what the epoll set has ready, without waiting, until a
// request ends or nothing is ready, and reports whether a request ended;
// if none did, the loop parks until the set is readable again. Parking
// only once the set has nothing ready matters: Go's poller sees the set
// edge-triggered, so a connection still readable (data left after one
// read, say) wakes nobody.
func (l *Loop) pollOnce(uintptr) bool {
	for {
		n, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(l.epfd), uintptr(unsafe.Pointer(&l.evs[0])), uintptr(len(l.evs)), 0, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			l.perr = fmt.Errorf("epoll_wait: %w", e)
			return true
		}
		if n == 0 {
			return false
		}
		for _, ev := range l.evs[:n] {
			l.readable(int(ev.Fd))
		}
		if l.ended > 0 {
			return true
		}
	}
}

// stalled fails the requests that have waited more than Timeout. A
// request's clock starts at the first look after it was sent: the look
// happens every second, so the bound is between Timeout and
// Timeout+1s.
func (l *Loop) stalled(now time.Time) {
	l.check = now.Add(time.Second)
	for k := range l.conns {
		c := &l.conns[k]
		if !c.busy {
			continue
		}
		if c.sent.IsZero() {
			c.sent = now
		} else if now.Sub(c.sent) > Timeout {
			l.finish(k, fmt.Errorf("no answer for %v", Timeout))
		}
	}
}

// readable reads what connection k has and ends its request if the
// response is complete. One read per readiness: the set is level
// triggered, so what is left is reported again.
func (l *Loop) readable(k int) {
	c := &l.conns[k]
	if !c.busy {
		// The server spoke or closed while no request was in flight:
		// nothing to end; the next request finds out.
		l.drop(k)
		return
	}
	if c.r == c.w {
		c.r, c.w = 0, 0
	}
	if c.w == len(c.buf) {
		if c.r == 0 {
			l.finish(k, errHeaderSize)
			return
		}
		c.w = copy(c.buf, c.buf[c.r:c.w])
		c.r = 0
	}
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(c.fd), uintptr(unsafe.Pointer(&c.buf[c.w])), uintptr(len(c.buf)-c.w))
	switch {
	case e == syscall.EAGAIN || e == syscall.EINTR:
		return
	case e != 0:
		l.finish(k, e)
		return
	case n == 0:
		if err := c.p.eof(c.got || c.w > c.r); err != nil {
			l.finish(k, err)
			return
		}
		c.p.close = true
		l.complete(k)
		return
	}
	c.w += int(n)
	c.got = true
	used, done, err := c.p.feed(c.buf[c.r:c.w])
	c.r += used
	if err != nil {
		l.finish(k, err)
	} else if done {
		l.complete(k)
	}
}

// complete ends connection k's request with its response.
func (l *Loop) complete(k int) {
	c := &l.conns[k]
	c.busy, c.used = false, true
	r := Result{Conn: k, Status: c.p.status, N: c.p.n}
	if c.p.close {
		l.drop(k)
	}
	if r.Status != 200 {
		r.Err = statusErr(r.Status)
	}
	l.ended++
	l.each(r)
}

// finish ends connection k's request with err, or sends it again on a
// new connection when the server had closed the idle one.
func (l *Loop) finish(k int, err error) {
	c := &l.conns[k]
	c.busy = false
	status, n := c.p.status, c.p.n
	if l.stale(k, err) {
		if err = l.send(k); err == nil {
			return
		}
		status, n = 0, 0
	}
	l.ended++
	l.each(Result{Conn: k, Status: status, N: n, Err: err})
}
