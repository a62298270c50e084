package server

import (
	"context"
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// DialBlocking connects to addr over TCP and returns a connection whose
// reads and writes are plain blocking system calls on the thread that
// makes them, as a C client's are, instead of going through Go's network
// poller: a request-response protocol then waits for its answer with one
// wake-up of its own thread, not a poller's hand-off (on a busy machine
// the hand-off costs as much as the server's work on a point read).
func DialBlocking(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c, nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return c, nil
	}
	fd := -1
	rc.Control(func(f uintptr) { fd, err = syscall.Dup(int(f)) })
	if err != nil || fd < 0 {
		return c, nil
	}
	// The duplicate shares the socket; the original leaves the poller.
	c.Close()
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	syscall.CloseOnExec(fd)
	holdThread()
	return &blockingConn{fd: fd, local: c.LocalAddr(), remote: c.RemoteAddr()}, nil
}

type blockingConn struct {
	fd            int
	local, remote net.Addr
	closed        atomic.Bool
}

type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }
func (timeoutError) Unwrap() error   { return os.ErrDeadlineExceeded }

func (c *blockingConn) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(c.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return 0, timeoutError{}
		case err != nil:
			return 0, &net.OpError{Op: "read", Net: "tcp", Addr: c.remote, Err: err}
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *blockingConn) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		n, err := syscall.Write(c.fd, p[done:])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return done, timeoutError{}
		case err != nil:
			return done, &net.OpError{Op: "write", Net: "tcp", Addr: c.remote, Err: err}
		}
		done += n
	}
	return done, nil
}

// Close closes the socket once (a second Close is an error, as a
// net.Conn's is) and gives its thread back (see holdThread).
func (c *blockingConn) Close() error {
	if c.closed.Swap(true) {
		return &net.OpError{Op: "close", Net: "tcp", Addr: c.remote, Err: net.ErrClosed}
	}
	releaseThread()
	return syscall.Close(c.fd)
}

// shutdown ends the connection under a read or write in progress: both
// return at once (end of file, broken pipe).
func (c *blockingConn) shutdown() { syscall.Shutdown(c.fd, syscall.SHUT_RDWR) } //nolint:errcheck

// Interrupt makes a read or write in progress on c return now and c
// unusable: a blocking connection is shut down (a deadline would not wake
// a system call already waiting), another gets a deadline in the past.
// Call it before c is closed, never after.
func Interrupt(c net.Conn) {
	if b, ok := c.(*blockingConn); ok {
		b.shutdown()
		return
	}
	c.SetDeadline(time.Unix(1, 0)) //nolint:errcheck // wakes the call in progress
}
func (c *blockingConn) LocalAddr() net.Addr  { return c.local }
func (c *blockingConn) RemoteAddr() net.Addr { return c.remote }

// Deadlines are the socket's receive and send timeouts (a past deadline
// is the shortest one).
func (c *blockingConn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}
func (c *blockingConn) SetReadDeadline(t time.Time) error {
	return c.timeout(syscall.SO_RCVTIMEO, t)
}
func (c *blockingConn) SetWriteDeadline(t time.Time) error {
	return c.timeout(syscall.SO_SNDTIMEO, t)
}

func (c *blockingConn) timeout(opt int, t time.Time) error {
	var tv syscall.Timeval
	if !t.IsZero() {
		d := time.Until(t)
		if d < time.Microsecond {
			d = time.Microsecond
		}
		tv = syscall.NsecToTimeval(d.Nanoseconds())
	}
	return syscall.SetsockoptTimeval(c.fd, syscall.SOL_SOCKET, opt, &tv)
}
