package settings_test

import (
	"strings"
	"testing"

	_ "github.com/litebench/litebench/internal/engine/sqlite" // SQLite's settings
	"github.com/litebench/litebench/internal/settings"
)

func TestSetCanonicalises(t *testing.T) {
	s := settings.Default()
	for _, c := range []struct{ key, in, want string }{
		{"journal", "WAL", "wal"},
		{"sync", "0", "off"},
		{"sync", "NORMAL", "normal"},
		{"busy-timeout", "10000", "10000"},
		{"batch", "1k", "1000"},
		{"prepared", "yes", "true"},
		{"busy-retry", "3", "3"},
		{"busy-retry", "forever", "until"},
		{"busy-retry", "backoff", "backoff:1ms..100ms"},
		{"busy-retry", "Backoff:500us..1s", "backoff:500µs..1s"},
		{"page-size", "8192", "8192"},
	} {
		if err := s.Set(c.key, c.in); err != nil {
			t.Fatalf("Set(%s, %s): %v", c.key, c.in, err)
		}
		if got := s.Get(c.key); got != c.want {
			t.Errorf("Set(%s, %s) = %s, want %s", c.key, c.in, got, c.want)
		}
	}
}

func TestSetRejects(t *testing.T) {
	for _, c := range []struct{ key, in, msg string }{
		{"journal", "fast", "want one of"},
		{"batch", "0", "at least 1"},
		{"sync", "4", "want default"},
		{"page-size", "1000", "power of two"},
		{"pool", "-1", "between"},
		{"nosuch", "1", "unknown setting"},
		{"busy-retry", "backoff:10ms..1ms", "0 < MIN <= MAX <= 10s"},
		{"busy-retry", "backoff:0s..1s", "0 < MIN <= MAX <= 10s"},
		{"busy-retry", "backoff:1ms..1m", "0 < MIN <= MAX <= 10s"},
		{"busy-retry", "backoff:1ms", "want backoff:MIN..MAX"},
		{"busy-retry", "spin", "until, or backoff"},
	} {
		err := settings.Default().Set(c.key, c.in)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Set(%s, %s) = %v, want error containing %q", c.key, c.in, err, c.msg)
		}
	}
}

func TestMatrixCartesianProduct(t *testing.T) {
	m := settings.NewMatrix()
	if err := m.SetList("journal", "delete,wal"); err != nil {
		t.Fatal(err)
	}
	if err := m.SetList("batch", "10,100,1000"); err != nil {
		t.Fatal(err)
	}
	if err := m.SetList("sync", "off"); err != nil {
		t.Fatal(err)
	}
	pts := m.Points()
	if len(pts) != 6 || m.Size() != 6 {
		t.Fatalf("got %d points, want 6", len(pts))
	}
	seen := map[string]bool{}
	for _, p := range pts {
		if p.Get("sync") != "off" {
			t.Errorf("base setting lost: sync=%s", p.Get("sync"))
		}
		seen[p.Get("journal")+"/"+p.Get("batch")] = true
	}
	if len(seen) != 6 {
		t.Errorf("points not distinct: %v", seen)
	}
	if pts[0].Get("journal") != "delete" || pts[0].Get("batch") != "10" || pts[1].Get("batch") != "100" {
		t.Errorf("first axis must be outermost: %v %v", pts[0].Map(), pts[1].Map())
	}
	if got := m.Varying(); len(got) != 2 {
		t.Errorf("Varying = %v", got)
	}
}

func TestMatrixDeduplicatesAndValidatesLists(t *testing.T) {
	m := settings.NewMatrix()
	if err := m.SetList("sync", "0,off,OFF"); err != nil {
		t.Fatal(err)
	}
	if m.Size() != 1 || m.Base.Get("sync") != "off" {
		t.Errorf("equal values must collapse: size %d sync %s", m.Size(), m.Base.Get("sync"))
	}
	if err := m.SetList("batch", "10,,20"); err == nil {
		t.Error("empty list element accepted")
	}
	if err := m.SetList("batch", "10,x"); err == nil {
		t.Error("bad list element accepted")
	}
}

func TestApplyDSN(t *testing.T) {
	m := settings.NewMatrix()
	d, err := m.ApplyDSN("file:a.db?_journal=wal&_sync=0&_busy_timeout=10000&cache=shared&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	if d.Path != "a.db" {
		t.Errorf("path %q", d.Path)
	}
	want := map[string]string{"journal": "wal", "sync": "off", "busy-timeout": "10000", "shared-cache": "true", "tx": "immediate"}
	for k, v := range want {
		if got := m.Base.Get(k); got != v {
			t.Errorf("%s = %s, want %s", k, got, v)
		}
	}
	m = settings.NewMatrix()
	if _, err := m.ApplyDSN("file:x.db?mode=memory&_sync=1"); err != nil {
		t.Fatal(err)
	}
	if m.Base.Get("in-memory") != "true" || m.Base.Get("sync") != "normal" {
		t.Errorf("memory=%s sync=%s", m.Base.Get("in-memory"), m.Base.Get("sync"))
	}
	// As the seeds' driver reads it: without "file:", SQLite's own URI
	// parameters are dropped, and said to be.
	m = settings.NewMatrix()
	d, err = m.ApplyDSN("a.db?_sync=0&mode=memory&cache=shared")
	if err != nil {
		t.Fatal(err)
	}
	if m.Base.Get("in-memory") != "false" || m.Base.Get("shared-cache") != "false" || m.Base.Get("sync") != "off" {
		t.Errorf("a.db?mode=memory&cache=shared: memory=%s shared=%s sync=%s, want a file without shared cache, sync off",
			m.Base.Get("in-memory"), m.Base.Get("shared-cache"), m.Base.Get("sync"))
	}
	if len(d.Ignored) != 1 || !strings.Contains(d.Ignored[0], "cache=shared and mode=memory ignored") || !strings.Contains(d.Ignored[0], "--in-memory") {
		t.Errorf("ignored: %q", d.Ignored)
	}
	for _, bad := range []string{"a.db?_bogus=1", "a.db?_journal=fast", "?_sync=0", "file:a.db?mode=ro"} {
		if _, err := settings.NewMatrix().ApplyDSN(bad); err == nil {
			t.Errorf("ApplyDSN(%q) accepted", bad)
		}
	}
}

// TestWorkerMapLeavesOutOtherEnginesDefaults: a worker of one engine is not
// sent another engine's settings (it would refuse them as unknown), but is
// sent its own, the application side's, and those its engine shares.
func TestWorkerMapLeavesOutOtherEnginesDefaults(t *testing.T) {
	settings.Register("other-engine-for-test", []settings.Spec{{Key: "other-knob", Default: "1", Canon: settings.IntRange(0, 9)}}, nil)
	s := settings.Default()
	if _, ok := s.WorkerMap("sqlite")["other-knob"]; ok {
		t.Errorf("another engine's setting at its default was sent")
	}
	if _, ok := s.WorkerMap("sqlite")["batch"]; !ok {
		t.Errorf("an application-side setting was left out")
	}
	if _, ok := s.WorkerMap("other-engine-for-test")["other-knob"]; !ok {
		t.Errorf("the engine's own setting was left out")
	}
	settings.Share("other-knob", "sqlite")
	if _, ok := s.WorkerMap("sqlite")["other-knob"]; !ok {
		t.Errorf("a setting the engine shares was left out")
	}
}
