package spec

import (
	"testing"

	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/workload"
)

// The resource demand of the built-in workloads (files) and of the native
// ones: what the runs would hold, checked before anything starts (http's
// is tested in package httpbench).
func TestDemand(t *testing.T) {
	build := func(name string, params, set map[string]string) (workload.Workload, settings.Settings) {
		t.Helper()
		return buildWorkload(t, name, params, set)
	}
	for _, c := range []struct {
		name     string
		params   map[string]string
		set      map[string]string
		flags    string
		conns    int
		sockets  int
		hists    int
		inMemory bool
	}{
		{"insert", map[string]string{"workers": "8"}, nil, "--workers 8", 8, 0, 24, false},
		{"insert", map[string]string{"workers": "8"}, map[string]string{"pool": "2"}, "--workers 8", 2, 0, 24, false},
		{"read", map[string]string{"workers": "10"}, nil, "--workers 10", 10, 0, 10, false},
		{"mixed", map[string]string{"readers": "100", "writers": "10"}, map[string]string{"pool": "1"}, "--readers 100 --writers 10", 1, 0, 110, false},
		{"mixed", map[string]string{"readers": "1", "writers": "1"}, map[string]string{"writer": "single"}, "--readers 1 --writers 1", 3, 0, 2, false},
		// Open loop: up to --max-inflight executors, each with service and
		// response histograms of both op kinds, twice with a warm-up.
		{"mixed", map[string]string{"rate": "1000", "max-inflight": "500"}, nil, "--max-inflight 500", 500, 0, 2000, false},
		{"mixed", map[string]string{"rate": "1000", "max-inflight": "500", "warmup": "1s"}, map[string]string{"in-memory": "true"}, "--max-inflight 500", 500, 0, 4000, true},
	} {
		w, s := build(c.name, c.params, c.set)
		d, ok := workload.Demand(w, s)
		if !ok || d.Flags != c.flags || d.Conns != c.conns || d.Sockets != c.sockets || d.Histograms != c.hists || d.InMemory != c.inMemory {
			t.Errorf("%s %v %v: %+v", c.name, c.params, c.set, d)
		}
	}
	w, s := build("scan", nil, nil)
	if _, ok := workload.Demand(w, s); ok {
		t.Error("scan has a demand")
	}
}
