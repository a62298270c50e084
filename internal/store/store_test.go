package store

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/own"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/results/resultstest"
)

// The test binary doubles as a process that opens a store (creating it)
// and saves one run, for the tests that need several real processes.
func TestMain(m *testing.M) {
	if p := os.Getenv("LITEBENCH_TEST_STORE"); p != "" {
		fmt.Println("start")
		s, err := Open(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if id := os.Getenv("LITEBENCH_TEST_RUN"); id != "" {
			if err := s.Save(resultstest.Sample(id)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		s.Close()
		fmt.Println("done")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func storeProcess(path, run string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "LITEBENCH_TEST_STORE="+path, "LITEBENCH_TEST_RUN="+run)
	return cmd
}

// A SIGKILL at any moment of a store's creation leaves no store or one
// that opens, reads and takes new runs: never a file litebench refuses.
func TestKillDuringStoreCreation(t *testing.T) {
	dir := t.TempDir()
	// started runs a process that creates the store at path and returns
	// once it is about to; wait returns once it has.
	started := func(path string) (cmd *exec.Cmd, wait func()) {
		cmd = storeProcess(path, "")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		rd := bufio.NewReader(out)
		if line, err := rd.ReadString('\n'); line != "start\n" {
			t.Fatalf("child: %q %v", line, err)
		}
		return cmd, func() { rd.ReadString('\n'); cmd.Wait() }
	}
	// How long creating a store takes here.
	_, wait := started(filepath.Join(dir, "probe.db"))
	start := time.Now()
	wait()
	whole := time.Since(start)
	present, absent := 0, 0
	for i := range 24 {
		path := filepath.Join(dir, fmt.Sprintf("s%d.db", i))
		cmd, _ := started(path)
		time.Sleep(time.Duration(rand.Int64N(int64(whole))))
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			absent++
		} else {
			present++
			ro, err := OpenReadOnly(path)
			if err != nil {
				t.Fatalf("trial %d: store left unreadable: %v", i, err)
			}
			if _, err := ro.List(0); err != nil {
				t.Fatalf("trial %d: store left unreadable: %v", i, err)
			}
			ro.Close()
		}
		s, err := Open(path)
		if err != nil {
			t.Fatalf("trial %d: store refused after a kill: %v", i, err)
		}
		if err := s.Save(resultstest.Sample("after")); err != nil {
			t.Fatalf("trial %d: %v", i, err)
		}
		s.Close()
	}
	t.Logf("creation takes %v; after the kill %d stores were complete, %d absent", whole, present, absent)
	if left, _ := filepath.Glob(filepath.Join(dir, ".*litebench-new-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// Processes that create and append to one new store at once lose no run.
func TestConcurrentFirstCreation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	const n = 6
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := storeProcess(path, fmt.Sprintf("run%d", i)).CombinedOutput(); err != nil {
				t.Errorf("process %d: %v: %s", i, err, out)
			}
		}()
	}
	wg.Wait()
	s, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rs, err := s.List(0)
	if err != nil || len(rs) != n {
		t.Fatalf("%d runs stored, want %d (%v)", len(rs), n, err)
	}
}

func fileSum(t *testing.T, path string) string {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	return fmt.Sprintf("%x %v", sha256.Sum256(b), st.ModTime().UnixNano())
}

func TestReadOnlyLeavesTheStoreAlone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Save(resultstest.Sample("a.1"))
	s.Close()
	before := fileSum(t, path)
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	if rs, err := ro.List(0); err != nil || len(rs) != 1 {
		t.Fatalf("%v %v", rs, err)
	}
	ro.Close()
	if after := fileSum(t, path); after != before {
		t.Error("reading changed the store")
	}
	for _, suf := range own.Companions {
		if _, err := os.Lstat(path + suf); err == nil {
			t.Errorf("reading created %s", path+suf)
		}
	}

	// While a writer has it open, readers see what is in its WAL.
	w, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Save(resultstest.Sample("a.2"))
	ro, err = OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if rs, err := ro.List(0); err != nil || len(rs) != 2 {
		t.Errorf("reader beside a writer sees %d runs (%v)", len(rs), err)
	}
}

func TestRunningAndLost(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d, err := own.NewDir()
	if err != nil {
		t.Fatal(err)
	}
	s.SetLock(d.LockPath())
	r := resultstest.Sample("r.1")
	r.Status = results.StatusRunning
	if err := s.Begin(r); err != nil {
		t.Fatal(err)
	}
	status := func() string {
		ro, err := OpenReadOnly(path)
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		rs, err := ro.Get("r.1")
		if err != nil {
			t.Fatal(err)
		}
		return rs[0].Status
	}
	if got := status(); got != results.StatusRunning {
		t.Errorf("live run is %s", got)
	}
	d.Close(false) // the process is gone and its directory with it
	if got := status(); got != results.StatusLost {
		t.Errorf("run of a dead process is %s, want lost", got)
	}
	if err := s.Save(resultstest.Sample("r.1")); err != nil {
		t.Fatal(err)
	}
	if got := status(); got != results.StatusOK {
		t.Errorf("saved run is %s", got)
	}
}

func TestOldStoreIsReadAndMigrated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := results.MarshalJSONLine(resultstest.Sample("old.1"))
	old := strings.SplitN(schema, "result TEXT NOT NULL,", 2)[0] + "result TEXT NOT NULL);"
	for _, q := range []string{fmt.Sprintf("PRAGMA application_id=%d", own.StoreAppID), "PRAGMA user_version=1", "PRAGMA journal_mode=WAL", old,
		fmt.Sprintf("INSERT INTO runs VALUES('old.1','sw1','2026-01-02T03:04:05Z','insert','mattn','ok',1000,0.5,2000,'%s')", b)} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	if rs, err := ro.List(0); err != nil || len(rs) != 1 {
		t.Fatalf("old store read: %v %v", rs, err)
	}
	ro.Close()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.version != schemaVersion {
		t.Errorf("version %d", s.version)
	}
	if err := s.Begin(resultstest.Sample("new.1")); err != nil {
		t.Fatal(err)
	}
}

func TestImportAllOrNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Save(resultstest.Sample("x.1"))
	var dup *DuplicateError
	if _, err := s.Import([]*results.Result{resultstest.Sample("x.2"), resultstest.Sample("x.1")}, false); !errors.As(err, &dup) || dup.RunID != "x.1" {
		t.Fatalf("duplicate: %v", err)
	}
	if got, _ := s.Existing([]string{"x.2"}); got["x.2"] {
		t.Error("a refused import wrote a run")
	}
	r := resultstest.Sample("x.1")
	r.Rows = 7
	n, err := s.Import([]*results.Result{resultstest.Sample("x.2"), r}, true)
	if err != nil || n != 1 {
		t.Fatalf("replace: %d %v", n, err)
	}
	got, _ := s.Get("x.1")
	if got[0].Rows != 7 {
		t.Error("run not replaced")
	}
}

func TestValidate(t *testing.T) {
	if err := results.Validate(resultstest.Sample("ok")); err != nil {
		t.Fatalf("a good run: %v", err)
	}
	for want, spoil := range map[string]func(r *results.Result){
		"run_id is empty":        func(r *results.Result) { r.RunID = " " },
		"workload is empty":      func(r *results.Result) { r.Workload = "" },
		"target is empty":        func(r *results.Result) { r.Target = "" },
		"started_at is missing":  func(r *results.Result) { r.StartedAt = time.Time{} },
		`status "great"`:         func(r *results.Result) { r.Status = "great" },
		"status running":         func(r *results.Result) { r.Status = results.StatusRunning },
		"count is -1":            func(r *results.Result) { r.Rows = -1 },
		"elapsed_seconds is NaN": func(r *results.Result) { r.Elapsed = math.NaN() },
		"metric throughput is +Inf": func(r *results.Result) {
			r.Metrics = append(r.Metrics, results.Metric{Name: "throughput", Unit: "rows/s", Value: math.Inf(1)})
		},
		"ops insert count is -5": func(r *results.Result) { r.Ops[0].Count = -5 },
		"ops insert errors busy": func(r *results.Result) { r.Ops[0].Errors["busy"] = -1 },
		"ops insert service p99": func(r *results.Result) { r.Ops[0].Service["p99"] = -3 },
		"metric db_size is NaN": func(r *results.Result) {
			r.Metrics = append(r.Metrics, results.Metric{Name: "db_size", Unit: "bytes", Value: math.NaN()})
		},
	} {
		r := resultstest.Sample("bad")
		spoil(r)
		if err := results.Validate(r); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
}

// A store written by schema-1 litebench opens, its runs upgraded; new runs
// saved beside them read back as they were.
func TestStoreOfSchema1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	copyFile(t, filepath.Join("testdata", "schema1-store.db"), path)
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	old, err := ro.List(0)
	ro.Close()
	if err != nil || len(old) != 2 {
		t.Fatalf("list: %v, %d runs", err, len(old))
	}
	for _, r := range old {
		if r.Schema != results.SchemaVersion || r.Headline().Unit == "" {
			t.Errorf("%s not upgraded: %+v", r.RunID, r.Headline())
		}
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Save(resultstest.Sample("sw1.1")); err != nil {
		t.Fatal(err)
	}
	all, err := s.List(0)
	if err != nil || len(all) != 3 {
		t.Fatalf("list: %v, %d runs", err, len(all))
	}
	got, err := s.Get("sw1.1")
	if err != nil || !reflect.DeepEqual(got[0], resultstest.Sample("sw1.1")) {
		t.Errorf("saved run differs: %v", err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestStoreSaveGetList(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Save(resultstest.Sample("sw1.1")); err != nil {
		t.Fatal(err)
	}
	r2 := resultstest.Sample("sw1.2")
	r2.Status = results.StatusInterrupted
	if err := s.Save(r2); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if ok, err := own.Check(path, own.Store); !ok || err != nil {
		t.Fatalf("store not marked: %v", err)
	}
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	got, err := ro.Get("sw1")
	if err != nil || len(got) != 2 {
		t.Fatalf("sweep get: %v %d", err, len(got))
	}
	if !reflect.DeepEqual(got[0], resultstest.Sample("sw1.1")) {
		t.Error("stored run differs from the saved one")
	}
	one, err := ro.Get("sw1.2")
	if err != nil || len(one) != 1 || one[0].Status != results.StatusInterrupted {
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
	if _, err := Open(text); !errors.Is(err, own.ErrNotOurs) {
		t.Errorf("text file: %v", err)
	}
	after, _ := os.ReadFile(text)
	if !bytes.Equal(before, after) {
		t.Error("foreign file modified")
	}
	// A bench database is litebench's, but not a store.
	bench := filepath.Join(dir, "bench.db")
	s, err := Open(bench)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := own.Check(bench, own.Bench(func(string) bool { return true })); !errors.Is(err, own.ErrNotOurs) {
		t.Errorf("store accepted as bench db: %v", err)
	}
}
