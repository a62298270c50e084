package serve_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/serve"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/workload"
)

// pagesDB provisions a database of 3 pages of 700 bytes on zombie (a
// direct-API target, so every strategy can run on it) and writes page 1
// to a file for the control.
func pagesDB(t *testing.T) (target.Target, engine.Instance, string) {
	t.Helper()
	ctx := context.Background()
	tg, err := target.Get("zombie")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := settings.Default()
	inst, err := tg.Engine().Provision(ctx, engine.Request{Settings: s, Path: filepath.Join(dir, "p.db"), Reuse: true, Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := target.Open(ctx, tg, inst.Endpoint(), target.PolicyOf(s))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if err := workload.SetupPages(ctx, sess, 3, 700, 7, false); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "page.html")
	if err := os.WriteFile(file, []byte(workload.Text(7, 0, 700)), 0o600); err != nil {
		t.Fatal(err)
	}
	return tg, inst, file
}

// exchange is what a client sees of one response.
type exchange struct {
	status                     int
	ctype, length, allow, body string
}

func (e exchange) String() string {
	b := e.body
	if len(b) > 40 {
		b = b[:40] + "…"
	}
	return fmt.Sprintf("%d type=%q length=%q allow=%q body(%d)=%q", e.status, e.ctype, e.length, e.allow, len(e.body), b)
}

// Both HTTP servers answer every strategy's requests, good and bad, with
// the same status, headers and body.
func TestServersAnswerAlike(t *testing.T) {
	tg, inst, file := pagesDB(t)
	requests := []struct{ method, path string }{
		{"GET", "/"}, {"GET", "/?id=2"}, {"GET", "/?id=3&x=1"}, {"GET", "/?id=99"},
		{"GET", "/?id=abc"}, {"HEAD", "/"}, {"POST", "/"}, {"DELETE", "/?id=1"},
	}
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	for _, strategy := range serve.Strategies {
		got := map[string][]exchange{}
		for _, kind := range serve.Servers {
			srv, err := serve.New(context.Background(), serve.Config{Strategy: strategy, Target: tg, Endpoint: inst.ReadEndpoint(false), Handles: 2, File: file})
			if err != nil {
				t.Fatal(err)
			}
			hs, err := serve.NewHTTP(kind, srv, 0)
			if err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- hs.Serve(ln) }()
			for _, rq := range requests {
				req, _ := http.NewRequest(rq.method, "http://"+ln.Addr().String()+rq.path, nil)
				resp, err := client.Do(req)
				if err != nil {
					t.Fatalf("%s %s: %s %s: %v", strategy, kind, rq.method, rq.path, err)
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
				h := resp.Header
				got[kind] = append(got[kind], exchange{resp.StatusCode, h.Get("Content-Type"), h.Get("Content-Length"), h.Get("Allow"), string(b)})
			}
			client.CloseIdleConnections()
			hs.Shutdown(time.Second)
			if err := <-done; err != nil {
				t.Errorf("%s: Serve: %v", kind, err)
			}
			srv.Close()
		}
		std, fast := got["net/http"], got["fasthttp"]
		for i, rq := range requests {
			if std[i] != fast[i] {
				t.Errorf("%s: %s %s:\n net/http %v\n fasthttp %v", strategy, rq.method, rq.path, std[i], fast[i])
			}
		}
		// What they agree on is right.
		page := workload.Text(7, 0, 700)
		if std[0].status != 200 || std[0].body != page || std[0].ctype != serve.PageType || std[0].length != "700" {
			t.Errorf("%s: GET / = %v, want page 1", strategy, std[0])
		}
		if strategy != "file" && std[1].body != workload.Text(7, 1, 700) {
			t.Errorf("%s: GET /?id=2 = %v, want page 2", strategy, std[1])
		}
		if std[5].status != 200 || std[5].body != "" || std[5].length != "700" {
			t.Errorf("%s: HEAD / = %v, want 200, length 700 and no body", strategy, std[5])
		}
		if std[6].status != 405 || std[6].allow != serve.Allowed {
			t.Errorf("%s: POST / = %v, want 405 with Allow", strategy, std[6])
		}
		if strategy != "file" && (std[3].status != 404 || std[4].status != 400) {
			t.Errorf("%s: missing page %v, bad id %v: want 404 and 400", strategy, std[3], std[4])
		}
	}
}

func TestCheckServer(t *testing.T) {
	for _, k := range serve.Servers {
		if err := serve.CheckServer(k); err != nil {
			t.Errorf("CheckServer(%q): %v", k, err)
		}
	}
	if err := serve.CheckServer("fiber"); err == nil || !strings.Contains(err.Error(), "net/http") {
		t.Errorf("CheckServer(fiber) = %v, want an error naming the servers", err)
	}
	if _, err := serve.NewHTTP("apache", nil, 0); err == nil {
		t.Error("NewHTTP(apache) succeeded")
	}
}
