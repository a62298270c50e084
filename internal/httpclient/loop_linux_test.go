package httpclient

import (
	"context"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A loop's connections carry requests at the same time, each result
// names its connection, and each connection has one request at a time.
func TestLoopConnections(t *testing.T) {
	body := strings.Repeat("y", 20000)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, body) //nolint:errcheck
	})}
	go srv.Serve(ln) //nolint:errcheck
	defer srv.Close()
	tg, _ := Parse("http://" + ln.Addr().String() + "/")
	const conns, each = 7, 30
	l, err := NewLoop(context.Background(), tg, conns)
	if err != nil {
		t.Skip(err)
	}
	defer l.Close()
	left := make([]int, conns)
	for k := range left {
		left[k] = each - 1
		if err := l.Start(k); err != nil {
			t.Fatal(err)
		}
	}
	inflight, done := conns, 0
	for inflight > 0 {
		err := l.Wait(func(r Result) {
			inflight--
			done++
			if r.Err != nil || r.Status != 200 || r.N != int64(len(body)) {
				t.Fatalf("connection %d: status %d, %d bytes, %v", r.Conn, r.Status, r.N, r.Err)
			}
			if left[r.Conn] > 0 {
				left[r.Conn]--
				if err := l.Start(r.Conn); err != nil { // at once, from the callback
					t.Fatal(err)
				}
				inflight++
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if done != conns*each || l.Dials != conns {
		t.Errorf("%d requests on %d connections, want %d on %d", done, l.Dials, conns*each, conns)
	}
}

// An interrupt ends a Wait for a server that does not answer.
func TestLoopInterrupted(t *testing.T) {
	tg := silentServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	l, err := NewLoop(ctx, tg, 1)
	if err != nil {
		t.Skip(err)
	}
	defer l.Close()
	if err := l.Start(0); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- l.Wait(func(Result) {}) }()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != context.Canceled {
			t.Fatalf("Wait = %v, want the interrupt", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("an interrupt did not end the Wait")
	}
	if err := l.Start(0); err == nil {
		t.Error("a request started after the interrupt")
	}
}

// BenchmarkLoopParallel is BenchmarkGetParallel's load (50 connections)
// on one event loop per core instead of a goroutine per connection.
func BenchmarkLoopParallel(b *testing.B) {
	s := serveCanned(b, page+strings.Repeat("p", 5400))
	tg, _ := Parse(s.url())
	loops := runtime.GOMAXPROCS(0)
	per := 50 / loops
	var left atomic.Int64
	left.Store(int64(b.N))
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	for range loops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := NewLoop(context.Background(), tg, per)
			if err != nil {
				b.Error(err)
				return
			}
			defer l.Close()
			inflight := 0
			for k := 0; k < per && left.Add(-1) >= 0; k++ {
				if err := l.Start(k); err != nil {
					b.Error(err)
					return
				}
				inflight++
			}
			for inflight > 0 {
				err := l.Wait(func(r Result) {
					inflight--
					if r.Err != nil {
						b.Error(r.Err)
						return
					}
					if left.Add(-1) >= 0 {
						if err := l.Start(r.Conn); err != nil {
							b.Error(err)
							return
						}
						inflight++
					}
				})
				if err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
