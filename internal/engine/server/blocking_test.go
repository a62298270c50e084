package server

import (
	"context"
	"errors"
	"io"
	"net"
	"runtime"
	"testing"
	"time"
)

// listen accepts connections on loopback and echoes what they send.
func listen(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); io.Copy(c, c) }() //nolint:errcheck
		}
	}()
	return ln.Addr().String()
}

func TestBlockingConnsHoldThreads(t *testing.T) {
	addr := listen(t)
	base := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(base)
	var conns []net.Conn
	for i := 1; i <= 3; i++ {
		c, err := DialBlocking(context.Background(), "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		if got := runtime.GOMAXPROCS(0); got != base+i {
			t.Fatalf("%d blocking connections open: GOMAXPROCS %d, want %d", i, got, base+i)
		}
	}
	// A round trip works on the blocking socket.
	if _, err := conns[0].Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(conns[0], buf); err != nil || string(buf) != "ping" {
		t.Fatalf("echo: %q, %v", buf, err)
	}
	// Closing one keeps the high-water mark (no resize per connection
	// when they come and go); a second Close gives nothing back twice.
	conns[2].Close()
	if err := conns[2].Close(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("second Close: %v, want net.ErrClosed", err)
	}
	if got := runtime.GOMAXPROCS(0); got != base+3 {
		t.Errorf("after one of three closed: GOMAXPROCS %d, want %d", got, base+3)
	}
	// A new one within the mark raises nothing.
	c, err := DialBlocking(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	conns[2] = c
	if got := runtime.GOMAXPROCS(0); got != base+3 {
		t.Errorf("reopened: GOMAXPROCS %d, want %d", got, base+3)
	}
	for _, c := range conns {
		c.Close()
	}
	if got := runtime.GOMAXPROCS(0); got != base {
		t.Errorf("all closed: GOMAXPROCS %d, want it back at %d", got, base)
	}
}

func TestBlockingConnsRaiseIsBounded(t *testing.T) {
	addr := listen(t)
	base := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(base)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range maxRaise + 10 {
		c, err := DialBlocking(context.Background(), "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	if got := runtime.GOMAXPROCS(0); got != base+maxRaise {
		t.Fatalf("%d blocking connections open: GOMAXPROCS %d, want %d (the bound)", len(conns), got, base+maxRaise)
	}
}

func TestInterruptWakesBlockedRead(t *testing.T) {
	addr := listen(t)
	c, err := DialBlocking(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 1))
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	Interrupt(c)
	select {
	case err := <-done:
		if err == nil {
			t.Error("read after the interrupt returned no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the interrupt did not wake the blocked read")
	}
}
