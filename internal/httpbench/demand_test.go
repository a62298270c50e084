package httpbench

import (
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/workload"
)

// build is the http workload with params over its defaults, and settings
// over theirs.
func build(t *testing.T, params, set map[string]string) (workload.Workload, settings.Settings) {
	t.Helper()
	sp, err := workload.Get("http")
	if err != nil {
		t.Fatal(err)
	}
	s := settings.Default()
	for k, v := range set {
		if err := s.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	p := map[string]string{}
	for _, x := range sp.Params {
		p[x.Name] = x.Default
	}
	for k, v := range params {
		p[k] = v
	}
	w, err := sp.New(p, s)
	if err != nil {
		t.Fatalf("http %v: %v", params, err)
	}
	return w, s
}

// What a run holds, checked before anything starts: the server's handles
// plus its setup handle, both ends of every loopback connection.
func TestDemand(t *testing.T) {
	for _, c := range []struct {
		params   map[string]string
		set      map[string]string
		flags    string
		conns    int
		sockets  int
		hists    int
		inMemory bool
	}{
		{map[string]string{"handles": "20000", "concurrency": "50"}, nil, "--handles 20000 --concurrency 50", 20001, 100, 50, false},
		{map[string]string{"strategy": "plain", "concurrency": "50"}, map[string]string{"pool": "4"}, "--concurrency 50", 5, 100, 50, false},
		{map[string]string{"strategy": "file", "rate": "100", "max-inflight": "300"}, nil, "--max-inflight 300", 1, 600, 600, false},
		{map[string]string{"url": "http://127.0.0.1:1/", "concurrency": "50"}, nil, "--concurrency 50", 0, 50, 50, false},
		{map[string]string{"strategy": "file", "concurrency": "3"}, map[string]string{"in-memory": "true"}, "--concurrency 3", 1, 6, 3, true},
	} {
		w, s := build(t, c.params, c.set)
		d, ok := workload.Demand(w, s)
		if !ok || d.Flags != c.flags || d.Conns != c.conns || d.Sockets != c.sockets || d.Histograms != c.hists || d.InMemory != c.inMemory {
			t.Errorf("http %v %v: %+v", c.params, c.set, d)
		}
	}
	w, s := build(t, map[string]string{"strategy": "file", "concurrency": "7"}, nil)
	if d, _ := workload.Demand(w, s); d.Files != 7 || !strings.Contains(d.Flags, "--concurrency 7") {
		t.Errorf("file control: %+v", d)
	}
}
