package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// watchWriter is a stderr that calls fire once what was written contains
// mark.
type watchWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	mark string
	fire func()
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.fire != nil && strings.Contains(w.buf.String(), w.mark) {
		go w.fire()
		w.fire = nil
	}
	return len(p), nil
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// dialRaw opens a TCP connection to addr and sends nothing.
func dialRaw(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// keepAliveClient makes one HTTP/1.1 request on a new connection, reads
// the whole response, and returns the connection, left open.
func keepAliveClient(t *testing.T, addr string) net.Conn {
	t.Helper()
	c := dialRaw(t, addr)
	if _, err := io.WriteString(c, "GET /?id=1 HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Close {
		t.Fatalf("status %d, close %v", resp.StatusCode, resp.Close)
	}
	return c
}

func TestServeOnlyGETAndHEAD(t *testing.T) {
	for _, strategy := range []string{"prepared", "file"} {
		addr, stop := startServe(t, "--strategy", strategy, "--addr", "127.0.0.1:0", "--rows", "3", "--body-size", "700")
		for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS"} {
			req, _ := http.NewRequest(m, "http://"+addr+"/?id=1", strings.NewReader("x"))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" || len(b) == 700 {
				t.Errorf("%s %s: status %d, Allow %q, %d bytes", strategy, m, resp.StatusCode, resp.Header.Get("Allow"), len(b))
			}
		}
		resp, err := http.Head("http://" + addr + "/?id=1")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.ContentLength != 700 || len(b) != 0 {
			t.Errorf("%s HEAD: status %d, length %d, %d body bytes", strategy, resp.StatusCode, resp.ContentLength, len(b))
		}
		if code := stop(); code != ExitInterrupted {
			t.Errorf("exit %d", code)
		}
	}
}

func TestServeWarnsWhenExposed(t *testing.T) {
	cases := map[string]string{
		"0.0.0.0:0":   "every network interface",
		":0":          "every network interface",
		"127.0.0.1:0": "",
		"localhost:0": "",
	}
	if ln, err := net.Listen("tcp", "[::]:0"); err == nil {
		ln.Close()
		cases["[::]:0"] = "every network interface"
		cases["[::1]:0"] = ""
	}
	// An address of this machine that is not loopback.
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
				cases[n.IP.String()+":0"] = "address " + n.IP.String()
				break
			}
		}
	}
	for addr, want := range cases {
		got, stop, errw := startServeStderr(t, "--strategy", "file", "--addr", addr, "--body-size", "10")
		stop()
		warned := strings.Contains(errw.String(), "warning: listening on")
		switch {
		case want == "" && warned:
			t.Errorf("--addr %s (%s): warned: %s", addr, got, errw)
		case want != "" && (!warned || !strings.Contains(errw.String(), want) || !strings.Contains(errw.String(), "127.0.0.1:")):
			t.Errorf("--addr %s (%s): want a warning naming %q and the loopback fix, got %q", addr, got, want, errw)
		}
	}
	// A host name that resolves to this machine's network address.
	if host, err := os.Hostname(); err == nil {
		if ips, err := net.LookupIP(host); err == nil && len(ips) > 0 && !ips[0].IsLoopback() && ips[0].To4() != nil {
			_, stop, errw := startServeStderr(t, "--strategy", "file", "--addr", host+":0", "--body-size", "10")
			stop()
			if !strings.Contains(errw.String(), "warning: listening on") {
				t.Errorf("--addr %s:0 (%v): no warning", host, ips[0])
			}
		}
	}
}

func TestServeClosesIdleConnections(t *testing.T) {
	addr, stop := startServe(t, "--strategy", "prepared", "--addr", "127.0.0.1:0", "--rows", "3", "--body-size", "100",
		"--idle-timeout", "200ms")
	defer stop()
	c := keepAliveClient(t, addr)
	defer c.Close()
	// The server closes the idle connection: the read ends (EOF or
	// reset) long before the deadline.
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	var b [1]byte
	_, err := c.Read(b[:])
	var ne net.Error
	if err == nil || (errors.As(err, &ne) && ne.Timeout()) {
		t.Errorf("idle connection still open: %v", err)
	}
}

// The built-in client reconnects when the server closes idle
// connections: requests spaced wider than the idle timeout all succeed.
func TestHTTPClientSurvivesIdleTimeout(t *testing.T) {
	addr, stop := startServe(t, "--strategy", "prepared", "--addr", "127.0.0.1:0", "--rows", "3", "--body-size", "100",
		"--idle-timeout", "50ms")
	defer stop()
	loadServer(t, addr, 8, "--body-size", "100", "--rate", "8", "--max-inflight", "1")
}

func TestServeBadIdleTimeout(t *testing.T) {
	o := run(t, context.Background(), "serve", "--idle-timeout", "0s")
	if o.code != ExitUsage || !strings.Contains(o.err, "--idle-timeout") {
		t.Errorf("exit %d: %s", o.code, o.err)
	}
}
