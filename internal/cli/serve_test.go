package cli

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/serve"
)

// startServe runs 'litebench serve args...' and returns its address and a
// stop function that returns the exit code.
func startServe(t *testing.T, args ...string) (string, func() int) {
	t.Helper()
	addr, stop, _ := startServeStderr(t, args...)
	return addr, stop
}

// startServeStderr is startServe that also returns serve's stderr.
func startServeStderr(t *testing.T, args ...string) (string, func() int, *watchWriter) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	errw := &watchWriter{}
	go func() {
		code := Main(ctx, append([]string{"serve"}, args...), pw, errw)
		pw.CloseWithError(io.EOF)
		done <- code
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("serve printed nothing: %v (exit %d)", err, <-done)
	}
	go io.Copy(io.Discard, pr)
	m := regexp.MustCompile(`http://([^/]+)/`).FindStringSubmatch(line)
	if m == nil {
		cancel()
		t.Fatalf("no address in %q", line)
	}
	return m[1], func() int {
		cancel()
		select {
		case c := <-done:
			return c
		case <-time.After(10 * time.Second):
			t.Fatal("serve did not stop")
			return -1
		}
	}, errw
}

func TestServeEveryStrategy(t *testing.T) {
	for _, s := range serve.Strategies {
		t.Run(s, func(t *testing.T) {
			target := "mattn"
			if s == "direct" {
				target = "zombie"
			}
			addr, stop := startServe(t, "--strategy", s, "--target", target, "--addr", "127.0.0.1:0",
				"--body-size", "3000", "--rows", "5", "--journal", "wal")
			for id, want := range map[string]int{"": 3000, "?id=5": 3000} {
				resp, err := http.Get("http://" + addr + "/" + id)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || len(b) != want {
					t.Errorf("GET /%s: %d, %d bytes", id, resp.StatusCode, len(b))
				}
			}
			if s != "file" {
				resp, err := http.Get("http://" + addr + "/?id=99")
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != 404 {
					t.Errorf("missing page: status %d", resp.StatusCode)
				}
			}
			// The built-in load generator against this server: counts add
			// up and every body checks out.
			loadServer(t, addr, 400, "--body-size", "3000", "--concurrency", "4")
			if code := stop(); code != ExitInterrupted {
				t.Errorf("serve exit %d after interrupt", code)
			}
		})
	}
}

// loadServer runs the built-in client against the server at addr for n
// requests and checks that every one succeeded.
func loadServer(t *testing.T, addr string, n int, args ...string) {
	t.Helper()
	o := run(t, context.Background(), append([]string{"run", "http", "--url", "http://" + addr + "/", "--count", strconv.Itoa(n),
		"--no-store", "--progress", "0", "--format", "json"}, args...)...)
	if o.code != 0 {
		t.Fatalf("run http: exit %d: %s", o.code, o.err)
	}
	j := jsonLines(t, o.out)[0]
	if e, _ := j["errors"].(map[string]any); len(e) != 0 {
		t.Errorf("errors: %v", e)
	}
	if got := j["ops"].([]any)[0].(map[string]any)["count"].(float64); got != float64(n) {
		t.Errorf("count %v, want %d", got, n)
	}
}

// Wrong body sizes are errors the load generator counts, not successes.
func TestHTTPMismatchCounted(t *testing.T) {
	addr, stop := startServe(t, "--strategy", "prepared", "--addr", "127.0.0.1:0", "--body-size", "100")
	defer stop()
	o := run(t, context.Background(), "run", "http", "--url", "http://"+addr+"/", "--body-size", "101",
		"--concurrency", "2", "--count", "50", "--no-store", "--progress", "0", "--format", "json")
	j := jsonLines(t, o.out)[0]
	if e, _ := j["errors"].(map[string]any); e["mismatch"] != 50.0 {
		t.Errorf("errors %v, want 50 mismatches", j["errors"])
	}
}

func TestServeDefaultIsLoopback(t *testing.T) {
	addr, stop := startServe(t, "--strategy", "file")
	defer stop()
	host, _, _ := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		t.Fatalf("default address %s is not loopback", addr)
	}
	// And it is not reachable through the machine's other addresses.
	_, port, _ := net.SplitHostPort(addr)
	ifaces, _ := net.InterfaceAddrs()
	for _, a := range ifaces {
		ipn, ok := a.(*net.IPNet)
		if !ok || ipn.IP.IsLoopback() || ipn.IP.To4() == nil {
			continue
		}
		c, err := net.DialTimeout("tcp", net.JoinHostPort(ipn.IP.String(), port), 300*time.Millisecond)
		if err == nil {
			c.Close()
			t.Errorf("reachable on %s", ipn.IP)
		}
	}
}

func TestServeBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "--strategy", "turbo"},
		{"serve", "--strategy", "direct", "--target", "mattn"},
		{"serve", "--addr", "nonsense"},
		{"run", "http", "--strategy", "turbo"},
		{"run", "http", "--url", "ftp://x"},
	} {
		o := run(t, context.Background(), append(args, "--no-store")...)
		if o.code != 2 || strings.Count(strings.TrimSpace(o.err), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, o.code, o.err)
		}
	}
}

func TestRunHTTPSweepWithControl(t *testing.T) {
	o := run(t, context.Background(), "run", "http", "--strategy", "plain,stmt-pool,direct,file", "--concurrency", "4",
		"--count", "300", "--journal", "wal", "--no-store", "--progress", "0")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	if !strings.Contains(o.out, "vs file") || !strings.Contains(o.out, "zombie") {
		t.Errorf("table lacks the file ratio or the direct target:\n%s", o.out)
	}
}
