package own

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"
	"golang.org/x/sys/unix"

	"github.com/litebench/litebench/internal/own/owntest"
)

func same(t *testing.T, path string, before *owntest.FileState) {
	t.Helper()
	if after := owntest.State(t, path); !reflect.DeepEqual(before, after) {
		t.Errorf("%s changed: %+v -> %+v", path, before, after)
	}
}

func exec(t *testing.T, path string, qs ...string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range qs {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func schemaOf(t *testing.T, db *sql.DB) []Object {
	t.Helper()
	rows, err := db.Query("SELECT type, name FROM sqlite_master")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []Object
	for rows.Next() {
		var o Object
		rows.Scan(&o.Type, &o.Name)
		out = append(out, o)
	}
	return out
}

func sorted(os []Object) []Object {
	sort.Slice(os, func(i, j int) bool { return os[i].Type+os[i].Name < os[j].Type+os[j].Name })
	return os
}

// ReadDatabase must see what SQLite sees: a schema spread over interior
// pages, rows on overflow pages, small and large pages, UTF-16 text, and
// tables still only in a live WAL.
func TestReadDatabaseMatchesSQLite(t *testing.T) {
	long := strings.Repeat("x", 3000)
	cases := map[string][]string{
		"many tables, 512-byte pages": {"PRAGMA page_size=512", "PRAGMA application_id=7"},
		"64k pages":                   {"PRAGMA page_size=65536"},
		"utf-16":                      {"PRAGMA encoding='UTF-16le'"},
		"big-endian utf-16":           {"PRAGMA encoding='UTF-16be'"},
	}
	for name, pre := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "a.db")
			qs := append([]string{}, pre...)
			for i := range 120 {
				qs = append(qs, fmt.Sprintf("CREATE TABLE t%03d_%s(a)", i, strings.Repeat("n", i%40)))
			}
			qs = append(qs, "CREATE TABLE big(a DEFAULT '"+long+"')", "CREATE INDEX ib ON big(a)", "CREATE VIEW v AS SELECT 1")
			exec(t, path, qs...)
			got, err := ReadDatabase(path)
			if err != nil {
				t.Fatal(err)
			}
			db, _ := sql.Open("sqlite3", "file:"+path+"?mode=ro")
			defer db.Close()
			if want := schemaOf(t, db); !reflect.DeepEqual(sorted(got.Objects), sorted(want)) {
				t.Errorf("schema differs: got %d objects, want %d", len(got.Objects), len(want))
			}
		})
	}
	t.Run("live WAL", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "w.db")
		db, _ := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL")
		defer db.Close()
		db.SetMaxOpenConns(1)
		for _, q := range []string{"PRAGMA wal_autocheckpoint=0", "CREATE TABLE a(x)", "PRAGMA wal_checkpoint", "PRAGMA application_id=42", "CREATE TABLE b(x)", "CREATE TABLE c(x)", "DROP TABLE a"} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		got, err := ReadDatabase(path)
		if err != nil {
			t.Fatal(err)
		}
		if !got.WAL || got.AppID != 42 || got.WALFrames == 0 {
			t.Errorf("WAL %v app id %d frames %d", got.WAL, got.AppID, got.WALFrames)
		}
		if want := schemaOf(t, db); !reflect.DeepEqual(sorted(got.Objects), sorted(want)) {
			t.Errorf("schema %v, SQLite sees %v", got.Objects, want)
		}
	})
}

func benchTables(n string) bool { return n == "bench" || n == "idx" }

// newBench makes a database litebench would have made.
func newBench(t *testing.T, dir string, extra ...string) string {
	t.Helper()
	path := filepath.Join(dir, "bench.db")
	exec(t, path, append([]string{fmt.Sprintf("PRAGMA application_id=%d", BenchAppID), "CREATE TABLE bench(a)", "CREATE INDEX idx ON bench(a)"}, extra...)...)
	return path
}

func refused(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want a refusal saying %q", err, want)
	}
	if err != nil && strings.Contains(err.Error(), "\n") {
		t.Errorf("refusal is not one line: %q", err)
	}
}

func TestCheckAndRemove(t *testing.T) {
	k := Bench(benchTables)
	dir := t.TempDir()
	other := t.TempDir()
	ours := newBench(t, other)
	mk := map[string]func(p string) error{
		"an empty file":               func(p string) error { return os.WriteFile(p, nil, 0o644) },
		"a directory":                 func(p string) error { return os.Mkdir(p, 0o755) },
		"a named pipe":                func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"a dangling symbolic link":    func(p string) error { return os.Symlink(filepath.Join(dir, "nowhere"), p) },
		"a symbolic link (to " + ours: func(p string) error { return os.Symlink(ours, p) },
		"is not a SQLite database":    func(p string) error { return os.WriteFile(p, bytes.Repeat([]byte("text "), 40), 0o644) },
		"application_id 0x0": func(p string) error {
			exec(t, p, "CREATE TABLE bench(a)")
			return nil
		},
		"is a litebench results store": func(p string) error {
			exec(t, p, fmt.Sprintf("PRAGMA application_id=%d", StoreAppID), "CREATE TABLE runs(a)")
			return nil
		},
		`holds table "mine"`: func(p string) error {
			exec(t, p, fmt.Sprintf("PRAGMA application_id=%d", BenchAppID), "CREATE TABLE bench(a)", "CREATE TABLE mine(a)")
			return nil
		},
		`holds view "v"`: func(p string) error {
			exec(t, p, fmt.Sprintf("PRAGMA application_id=%d", BenchAppID), "CREATE VIEW v AS SELECT 1")
			return nil
		},
	}
	if os.Geteuid() == 0 {
		mk["a character device"] = func(p string) error { return unix.Mknod(p, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))) }
	}
	i := 0
	for want, mkfile := range mk {
		i++
		p := filepath.Join(dir, fmt.Sprintf("f%d.db", i))
		if err := mkfile(p); err != nil {
			t.Fatal(err)
		}
		before, target := owntest.State(t, p), owntest.State(t, ours)
		done := make(chan error, 2)
		go func() {
			_, err := Check(p, k)
			done <- err
			done <- Remove(p, k)
		}()
		for range 2 {
			select {
			case err := <-done:
				refused(t, err, want)
				if !errors.Is(err, ErrNotOurs) {
					t.Errorf("%s: %v does not wrap ErrNotOurs", want, err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: check hangs", want)
			}
		}
		same(t, p, before)
		same(t, ours, target)
	}

	// A stray companion beside a database that does not exist is refused,
	// never deleted.
	for _, suf := range Companions {
		p := filepath.Join(dir, "new"+suf+".db")
		os.WriteFile(p+suf, []byte("someone's journal"), 0o644)
		before := owntest.State(t, p+suf)
		_, err := Check(p, k)
		refused(t, err, "exists but "+p+" does not")
		if err := Remove(p, k); err == nil {
			t.Error("Remove passed a stray companion")
		}
		same(t, p+suf, before)
	}

	// Ours passes, and Remove takes it with its companions.
	if ok, err := Check(ours, k); !ok || err != nil {
		t.Fatalf("our database: %v %v", ok, err)
	}
	os.WriteFile(ours+"-shm", make([]byte, 32768), 0o644)
	if err := Remove(ours, k); err != nil {
		t.Fatal(err)
	}
	for _, suf := range append(Companions, "") {
		if _, err := os.Lstat(ours + suf); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left", ours+suf)
		}
	}
	if ok, err := Check(ours, k); ok || err != nil {
		t.Errorf("removed path: %v %v", ok, err)
	}
}

func TestCheckSeesUseAndUnfinishedTransactions(t *testing.T) {
	k := Bench(benchTables)
	path := newBench(t, t.TempDir())
	// A WAL connection of another process holds the -shm's connection
	// lock; an open file description lock stands for it here.
	shm, err := os.OpenFile(path+"-shm", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	shm.Truncate(32768)
	if err := setlk(shm, unix.F_RDLCK, 128); err != nil {
		t.Fatal(err)
	}
	before := owntest.State(t, path)
	refused(t, Remove(path, k), "is open in another process")
	same(t, path, before)
	shm.Close()
	os.Remove(path + "-shm")

	// A hot rollback journal: the transaction must be rolled back first.
	os.WriteFile(path+"-journal", append([]byte{0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7}, make([]byte, 504)...), 0o644)
	refused(t, Remove(path, k), "holds an unfinished transaction")
	same(t, path, before)
	// An empty (truncated) journal is finished.
	os.WriteFile(path+"-journal", nil, 0o644)
	if err := Remove(path, k); err != nil {
		t.Errorf("finished journal: %v", err)
	}
}

func TestReadForReadOnlyCommands(t *testing.T) {
	dir := t.TempDir()
	ours := newBench(t, dir)
	in, err := Read(ours)
	if err != nil || in.Kind != "bench database" || !in.Immutable {
		t.Fatalf("%+v %v", in, err)
	}
	foreign := filepath.Join(dir, "f.db")
	exec(t, foreign, "PRAGMA journal_mode=WAL", "CREATE TABLE t(a)")
	os.WriteFile(foreign+"-wal", nil, 0o644)
	if in, err := Read(foreign); err != nil || in.Kind != "" || !in.Immutable {
		t.Errorf("foreign: %+v %v", in, err)
	}
	os.WriteFile(ours+"-wal", nil, 0o644)
	if in, err := Read(ours); err != nil || in.Immutable {
		t.Errorf("ours with a WAL: %+v %v", in, err)
	}
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o644)
	_, err = Read(empty)
	refused(t, err, "is an empty file")
}

func TestCheckMarked(t *testing.T) {
	dir := t.TempDir()
	const marker = "<!-- ours -->"
	p := filepath.Join(dir, "r.html")
	if ok, err := CheckMarked(p, marker, "report"); ok || err != nil {
		t.Errorf("new: %v %v", ok, err)
	}
	os.WriteFile(p, []byte(marker+"x"), 0o644)
	if ok, err := CheckMarked(p, marker, "report"); !ok || err != nil {
		t.Errorf("ours: %v %v", ok, err)
	}
	os.WriteFile(p, []byte("<html>mine"), 0o644)
	_, err := CheckMarked(p, marker, "report")
	refused(t, err, "is not a report litebench wrote")
	fifo := filepath.Join(dir, "fifo.html")
	syscall.Mkfifo(fifo, 0o644)
	_, err = CheckMarked(fifo, marker, "report")
	refused(t, err, "is a named pipe")
	_, err = CheckMarked(filepath.Join(dir, "no", "r.html"), marker, "report")
	refused(t, err, "does not exist")
}

// forget makes this process's claims look like another process's, so the
// next LockDB takes its own locks (open file description locks conflict
// between descriptions, even in one process).
func forget() {
	heldMu.Lock()
	held = map[string]*DBLock{}
	heldMu.Unlock()
}

func TestDBLock(t *testing.T) {
	db := filepath.Join(t.TempDir(), "x.db")
	owner, err := LockDB(db, false)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := LockDB(db, false); err != nil || again != owner {
		t.Fatalf("a second claim of this process: %v", err)
	}
	owner.Release()
	forget()
	want := fmt.Sprintf("is in use by litebench pid %d", os.Getpid())
	_, err = LockDB(db, false)
	refused(t, err, want)
	refused(t, ProbeDB(db, false), want)
	_, err = LockDB(db, true)
	refused(t, err, "is being set up by litebench pid")
	refused(t, ProbeDB(db, true), "is being set up")

	owner.Share()
	att, err := LockDB(db, true)
	if err != nil {
		t.Fatalf("attach after Share: %v", err)
	}
	forget()
	att2, err := LockDB(db, true)
	if err != nil {
		t.Fatalf("second attach: %v", err)
	}
	refused(t, owner.Exclusive(), "in use by attached litebench processes")
	att.Release()
	att2.Release()
	if err := owner.Exclusive(); err != nil {
		t.Fatalf("exclusive once the attached left: %v", err)
	}
	owner.Release()
	if _, err := os.Lstat(db + LockSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Error("lock file left behind")
	}
	// A lock file left by a killed process is simply locked again.
	os.WriteFile(db+LockSuffix, []byte("litebench pid 1\n"), 0o644)
	l, err := LockDB(db, false)
	if err != nil {
		t.Fatalf("stale lock file: %v", err)
	}
	l.Release()
	// A file of that name that is not ours is refused.
	os.WriteFile(db+LockSuffix, []byte("my notes"), 0o644)
	_, err = LockDB(db, false)
	refused(t, err, "is not a litebench lock file")
}

func TestCreateIsSerialisedAndAtomic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	build := func(tmp string) error {
		exec(t, tmp, fmt.Sprintf("PRAGMA application_id=%d", StoreAppID), "PRAGMA journal_mode=WAL", "CREATE TABLE runs(a)")
		return nil
	}
	var mu sync.Mutex
	builds := 0
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := Create(path, Store, 10*time.Second, func(tmp string) error {
				mu.Lock()
				builds++
				mu.Unlock()
				return build(tmp)
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if builds != 1 {
		t.Errorf("%d builds, want 1", builds)
	}
	if ok, err := Check(path, Store); !ok || err != nil {
		t.Errorf("created store: %v %v", ok, err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*"))
	if len(left) != 1 {
		t.Errorf("files left: %v", left)
	}
	// A temporary file of a killed creator is removed by the next one.
	other := filepath.Join(filepath.Dir(path), "t.db")
	os.WriteFile(filepath.Join(filepath.Dir(path), ".t.db.litebench-new-123"), nil, 0o644)
	if err := Create(other, Store, time.Second, build); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".t.db.*")); len(m) != 0 {
		t.Errorf("stale temporary files: %v", m)
	}
	// An existing file is never replaced.
	foreign := filepath.Join(filepath.Dir(path), "f.db")
	os.WriteFile(foreign, []byte("mine"), 0o644)
	before := owntest.State(t, foreign)
	if err := Create(foreign, Store, time.Second, build); !errors.Is(err, ErrNotOurs) {
		t.Errorf("foreign file: %v", err)
	}
	same(t, foreign, before)
}

func TestDirCleanup(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	live, err := NewDir()
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close(false)
	dead, err := NewDir()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dead.Path, "litebench-x.db"), []byte("data"), 0o644)
	if !Alive(live.LockPath()) || !Alive(dead.LockPath()) {
		t.Fatal("running process reported dead")
	}
	dead.f.Close() // its process is killed: the kernel drops the lock
	if Alive(dead.LockPath()) {
		t.Error("dead process reported alive")
	}
	// A directory of the same pattern without the mark is not ours.
	plain := filepath.Join(os.TempDir(), "litebench-users-own")
	os.Mkdir(plain, 0o755)
	kept, _ := NewDir()
	os.WriteFile(filepath.Join(kept.Path, "litebench-y.db"), []byte("data"), 0o644)
	kept.Close(true)
	// Kept with nothing in it (the database was elsewhere): no litter.
	empty, _ := NewDir()
	empty.Close(true)
	if _, err := os.Stat(empty.Path); !os.IsNotExist(err) {
		t.Errorf("an empty kept directory stays behind: %v", err)
	}
	got := CleanStale()
	if len(got) != 1 || got[0] != dead.Path {
		t.Errorf("cleaned %v, want only %s", got, dead.Path)
	}
	for _, d := range []string{live.Path, plain, kept.Path} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s removed: %v", d, err)
		}
	}
}

// A run killed while it removed its directory (the lock file gone first
// in older versions) or before it had put its lock file in place leaves a
// directory without its mark: its record in the state directory stamps it
// as litebench's, and the next cleaner removes it; a directory the record
// names that is not the one its run made is left alone.
func TestDirCleanupWithoutLockFile(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	killed := func(d *Dir) {
		d.f.Close() // the kernel drops the locks of a killed process
		d.rec.leave()
	}
	// Killed while removing it, its lock file already gone.
	removing, err := NewDir()
	if err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(removing.Path, "data"), 0o700)
	os.WriteFile(filepath.Join(removing.Path, "data", "ibdata1"), []byte("data"), 0o644)
	os.Remove(removing.LockPath())
	killed(removing)

	// Killed between making it and noting its inode: empty.
	early := filepath.Join(os.TempDir(), "litebench-early")
	rec, err := NewRecord(dirRecord, []byte(early+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	os.Mkdir(early, 0o700)
	rec.leave()

	// The same, but the directory holds something: whose is unknown.
	unsure := filepath.Join(os.TempDir(), "litebench-unsure")
	rec, _ = NewRecord(dirRecord, []byte(unsure+"\n"))
	os.Mkdir(unsure, 0o700)
	os.WriteFile(filepath.Join(unsure, "notes.txt"), []byte("mine"), 0o644)
	rec.leave()

	// A record whose directory was replaced by another one.
	replaced, _ := NewDir()
	killed(replaced)
	os.RemoveAll(replaced.Path)
	os.Mkdir(replaced.Path, 0o700)
	os.WriteFile(filepath.Join(replaced.Path, "notes.txt"), []byte("mine"), 0o644)

	// A live run's directory, and one without a record or a lock file.
	live, _ := NewDir()
	defer live.Close(false)
	plain := filepath.Join(os.TempDir(), "litebench-users-own")
	os.Mkdir(plain, 0o755)

	got := CleanStale()
	slices.Sort(got)
	want := []string{removing.Path, early}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("cleaned %v, want %v", got, want)
	}
	for _, d := range want {
		if _, err := os.Lstat(d); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", d, err)
		}
	}
	for _, d := range []string{unsure, replaced.Path, live.Path, plain} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s removed: %v", d, err)
		}
	}
	// Only the live directory's record is left.
	state, _ := StateDir()
	if ents, _ := os.ReadDir(state); len(ents) != 1 {
		t.Errorf("records left: %v", ents)
	}
}
