package results

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"litebench/internal/own"
)

func sample(id string) *Result {
	return &Result{
		RunID: id, SweepID: "sw1", Workload: "insert", Target: "mattn", SQLite: "3.51.0",
		Settings: map[string]string{"journal": "wal", "batch": "1000"},
		Params:   map[string]string{"rows": "1000", "schema": "bench"},
		Status:   StatusOK, StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC),
		Rows: 1000, Elapsed: 0.5, RowsPerSecond: 2000,
		Extra: map[string]float64{"db_bytes": 4096},
		Ops: []Op{{Name: "insert", Count: 1000, Errors: map[string]int64{"busy": 2}, Retries: 3,
			Service: Latency{"p50": 1.5, "p99": 9, "max": 12, "count": 1000}, Hist: "HISTFAAAA"}},
		Env: Env{Target: "mattn", OS: "linux", Cores: 2, GoVersion: "go1.26"},
	}
}

func TestJSONLineRoundTrip(t *testing.T) {
	r := sample("r1")
	b, err := MarshalJSONLine(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalJSONLine(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, r) {
		t.Errorf("round trip changed the result:\n%+v\n%+v", got, r)
	}
	b2, _ := MarshalJSONLine(got)
	if !bytes.Equal(b, b2) {
		t.Error("re-encoding differs")
	}
	// The flat fields scripts use are present.
	for _, f := range []string{`"run_id"`, `"sqlite_version"`, `"elapsed_seconds"`, `"rows_per_second"`, `"latency_us":{"insert":{`, `"errors":{"busy":2}`} {
		if !bytes.Contains(b, []byte(f)) {
			t.Errorf("JSON lacks %s: %s", f, b)
		}
	}
	if _, err := UnmarshalJSONLine([]byte(`{"x":1}`)); err == nil {
		t.Error("foreign JSON accepted")
	}
}

func TestStoreSaveGetList(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Save(sample("sw1.1")); err != nil {
		t.Fatal(err)
	}
	r2 := sample("sw1.2")
	r2.Status = StatusInterrupted
	if err := s.Save(r2); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if ok, err := own.Check(path, own.Store); !ok || err != nil {
		t.Fatalf("store not marked: %v", err)
	}
	ro, err := OpenStoreReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	got, err := ro.Get("sw1")
	if err != nil || len(got) != 2 {
		t.Fatalf("sweep get: %v %d", err, len(got))
	}
	if !reflect.DeepEqual(got[0], sample("sw1.1")) {
		t.Error("stored run differs from the saved one")
	}
	one, err := ro.Get("sw1.2")
	if err != nil || len(one) != 1 || one[0].Status != StatusInterrupted {
		t.Fatalf("run get: %v", err)
	}
	if _, err := ro.Get("nope"); err == nil {
		t.Error("missing id found")
	}
	last, err := ro.LastSweep()
	if err != nil || len(last) != 2 {
		t.Errorf("last sweep: %v %d", err, len(last))
	}
}

func TestStoreRefusesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("hello, this is not a database at all, not even close to one, really...............................................!"), 0o644)
	before, _ := os.ReadFile(text)
	if _, err := OpenStore(text); !errors.Is(err, own.ErrNotOurs) {
		t.Errorf("text file: %v", err)
	}
	after, _ := os.ReadFile(text)
	if !bytes.Equal(before, after) {
		t.Error("foreign file modified")
	}
	// A bench database is litebench's, but not a store.
	bench := filepath.Join(dir, "bench.db")
	s, err := OpenStore(bench)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := own.Check(bench, own.Bench(func(string) bool { return true })); !errors.Is(err, own.ErrNotOurs) {
		t.Errorf("store accepted as bench db: %v", err)
	}
}
