package serve

import (
	"net"
	"strings"
	"testing"
)

func TestExposure(t *testing.T) {
	for _, c := range []struct {
		addr net.Addr
		want string
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, ""},
		{&net.TCPAddr{IP: net.IPv4(127, 0, 1, 1), Port: 8080}, ""},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 8080}, ""},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 8080}, "every network interface"},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 8080}, "every network interface"},
		{&net.TCPAddr{Port: 8080}, "every network interface"},
		{&net.TCPAddr{IP: net.IPv4(192, 168, 1, 5), Port: 8080}, "192.168.1.5"},
		{&net.TCPAddr{IP: net.ParseIP("2001:db8::1"), Port: 8080}, "2001:db8::1"},
		{&net.UnixAddr{Name: "/tmp/s", Net: "unix"}, ""},
	} {
		got := Exposure(c.addr)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("Exposure(%v) = %q, want %q", c.addr, got, c.want)
		}
	}
}

func TestConns(t *testing.T) {
	for _, c := range []struct {
		strategy               string
		handles, pool, clients int
		want                   int
	}{
		{"file", 5, 0, 50, 0},
		{"stmt-pool", 20000, 0, 50, 20000},
		{"conn-pool", 5, 1, 50, 5},
		{"direct", 0, 0, 50, 1},
		{"plain", 5, 0, 50, 50},
		{"prepared", 5, 4, 50, 4},
		{"prepared", 5, 100, 50, 50},
	} {
		if got := Conns(c.strategy, c.handles, c.pool, c.clients); got != c.want {
			t.Errorf("Conns(%s, handles %d, pool %d, clients %d) = %d, want %d", c.strategy, c.handles, c.pool, c.clients, got, c.want)
		}
	}
}
