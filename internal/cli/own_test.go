package cli

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/litebench/litebench/internal/own"
	"github.com/litebench/litebench/internal/own/owntest"
	"github.com/litebench/litebench/internal/results"
	resultstore "github.com/litebench/litebench/internal/store"
	"github.com/litebench/litebench/internal/target"
)

func litebench(env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), envTestMain+"=1"), env...)
	return cmd
}

// background starts litebench in another process and returns once a line
// of its stderr contains ready (its run is under way).
func background(t *testing.T, env []string, ready string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := litebench(env, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	seen := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		var all []string
		for sc.Scan() {
			all = append(all, sc.Text())
			if strings.Contains(sc.Text(), ready) {
				seen <- ""
				io.Copy(io.Discard, stderr)
				return
			}
		}
		seen <- strings.Join(all, "\n")
	}()
	select {
	case out := <-seen:
		if out != "" {
			t.Fatalf("litebench %v ended before %q:\n%s", args, ready, out)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("litebench %v: no %q within 60s", args, ready)
	}
	return cmd
}

// runWithin is run with a deadline: a command that blocks (on a named
// pipe, say) fails the test instead of hanging it.
func runWithin(t *testing.T, args ...string) outcome {
	t.Helper()
	done := make(chan outcome, 1)
	go func() { done <- run(t, context.Background(), args...) }()
	select {
	case o := <-done:
		return o
	case <-time.After(30 * time.Second):
		t.Fatalf("litebench %v hangs", args)
		return outcome{}
	}
}

// untouched records path, its companions and its lock file now, and
// returns a check that they are byte-identical (mtime included) and that
// nothing was created beside them.
func untouched(t *testing.T, path string) func(what string) {
	t.Helper()
	names := []string{path, path + own.LockSuffix}
	for _, suf := range own.Companions {
		names = append(names, path+suf)
	}
	return owntest.Untouched(t, names...)
}

func sqlExec(t *testing.T, path string, qs ...string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range qs {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// refused asserts exit 2 with one line naming the file.
func refused(t *testing.T, o outcome, what, path string) {
	t.Helper()
	if o.code != ExitUsage {
		t.Errorf("%s: exit %d, want 2: %s", what, o.code, o.err)
		return
	}
	if strings.Count(strings.TrimSpace(o.err), "\n") != 0 || !strings.Contains(o.err, path) {
		t.Errorf("%s: want one line naming %s, got %q", what, path, o.err)
	}
}

// Every kind of file litebench did not make is refused by every command
// that would write, reuse or remove it, and left exactly as it was; the
// read-only commands refuse what is not a database file and never hang.
func TestRefusesWhatIsNotOurs(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store.db")
	ours := filepath.Join(dir, "ours.db")
	if o := run(t, context.Background(), "insert", "--rows", "50", "--db", ours, "--keep", "--store", store, "--progress", "0"); o.code != 0 {
		t.Fatal(o.err)
	}
	withTable := filepath.Join(dir, "with-table.db")
	if o := run(t, context.Background(), "insert", "--rows", "50", "--db", withTable, "--keep", "--no-store", "--progress", "0"); o.code != 0 {
		t.Fatal(o.err)
	}
	sqlExec(t, withTable, "CREATE TABLE mine(x)", "INSERT INTO mine VALUES ('precious')")
	foreign := filepath.Join(dir, "foreign.db")
	sqlExec(t, foreign, "PRAGMA journal_mode=WAL", "CREATE TABLE t(x)", "INSERT INTO t VALUES (1)")

	files := map[string]func(p string) error{
		"fifo":          func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"empty":         func(p string) error { return os.WriteFile(p, nil, 0o644) },
		"text":          func(p string) error { return os.WriteFile(p, []byte(strings.Repeat("not a database ", 20)), 0o644) },
		"directory":     func(p string) error { return os.Mkdir(p, 0o755) },
		"dangling link": func(p string) error { return os.Symlink(filepath.Join(dir, "gone.db"), p) },
		"link to ours":  func(p string) error { return os.Symlink(ours, p) },
		"socket": func(p string) error {
			fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
			if err != nil {
				return err
			}
			return unix.Bind(fd, &unix.SockaddrUnix{Name: p})
		},
	}
	if os.Geteuid() == 0 {
		files["character device"] = func(p string) error { return unix.Mknod(p, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))) }
	} else {
		t.Log("not root: no character device case")
	}
	paths := map[string]string{"foreign database": foreign, "user table": withTable}
	for name, mk := range files {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".db")
		if err := mk(p); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		paths[name] = p
	}
	for name, p := range paths {
		check := untouched(t, p)
		target := untouched(t, ours)
		storeBefore := untouched(t, store)
		writers := [][]string{
			{"insert", "--rows", "10", "--db", p, "--store", store, "--progress", "0"},
			{"scan", "--rows", "10", "--db", p, "--store", store, "--progress", "0"},
			{"read", "--rows", "10", "--count", "10", "--db", p, "--no-store", "--progress", "0"},
			{"serve", "--db", p, "--addr", "127.0.0.1:0"},
			{"insert", "--rows", "10", "--store", p, "--progress", "0"},
			{"import", "--store", p, "/dev/null"},
		}
		for _, args := range writers {
			refused(t, runWithin(t, args...), name+": "+args[0], p)
		}
		readers := [][]string{{"runs", "--store", p}, {"show", "--last", "--store", p}, {"export", "--all", "--store", p},
			{"report", "--store", p, "-o", filepath.Join(dir, "r.html")}, {"compare", "a", "b", "--store", p},
			{"report", "--store", store, "-o", p}}
		if name != "foreign database" && name != "user table" {
			readers = append(readers, []string{"inspect", "--db", p}, []string{"pragma", "page_size", "--db", p})
		}
		for _, args := range readers {
			refused(t, runWithin(t, args...), name+": "+strings.Join(args[:2], " "), p)
		}
		check(name)
		target(name + " (the linked database)")
		storeBefore(name + " (the store)")
	}

	// The read-only commands read a foreign database, or a litebench one
	// holding a user's table, and change nothing, not even an mtime.
	for _, p := range []string{foreign, withTable} {
		check := untouched(t, p)
		o := runWithin(t, "inspect", "--db", p)
		if o.code != 0 {
			t.Errorf("inspect %s: %d %s", p, o.code, o.err)
		}
		if p == withTable && !strings.Contains(o.out, `table "mine"`) {
			t.Errorf("inspect does not name the user's table:\n%s", o.out)
		}
		if p == foreign && (!strings.Contains(o.out, "not litebench") || !strings.Contains(o.out, "wal")) {
			t.Errorf("inspect of a foreign WAL database:\n%s", o.out)
		}
		if o := runWithin(t, "pragma", "user_version", "--db", p); o.code != 0 {
			t.Errorf("pragma %s: %d %s", p, o.code, o.err)
		}
		check("read-only commands on " + p)
	}
}

// A -wal, -shm or -journal beside a database that does not exist belongs
// to someone: litebench neither deletes it nor creates a database beside it.
func TestStrayCompanionsAreRefused(t *testing.T) {
	dir := t.TempDir()
	for _, suf := range own.Companions {
		p := filepath.Join(dir, "x"+suf+".db")
		os.WriteFile(p+suf, []byte("someone's journal"), 0o600)
		check := untouched(t, p)
		refused(t, runWithin(t, "insert", "--rows", "10", "--db", p, "--no-store", "--progress", "0"), "insert beside "+suf, p+suf)
		refused(t, runWithin(t, "insert", "--rows", "10", "--store", p, "--progress", "0"), "store beside "+suf, p+suf)
		check(suf)
	}
}

// A table the user added to a litebench database makes it the user's:
// insert, read and serve refuse it, and serve does not remove it at Ctrl-C
// when the table was added while it served.
func TestUserTableKeepsTheDatabase(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "b.db")
	addr, stop := startServe(t, "--db", db, "--addr", "127.0.0.1:0", "--rows", "3", "--journal", "wal")
	if addr == "" {
		t.Fatal("serve did not start")
	}
	sqlExec(t, db, "CREATE TABLE mine(x)", "INSERT INTO mine VALUES ('precious')")
	if code := stop(); code != ExitInterrupted {
		t.Fatalf("serve exit %d", code)
	}
	var n int
	h, _ := sql.Open("sqlite3", "file:"+db+"?mode=ro")
	err := h.QueryRow("SELECT count(*) FROM mine").Scan(&n)
	h.Close()
	if err != nil || n != 1 {
		t.Fatalf("serve removed the database with the user's table: %v", err)
	}
	check := untouched(t, db)
	for _, args := range [][]string{
		{"insert", "--rows", "10", "--db", db, "--no-store", "--progress", "0"},
		{"read", "--rows", "10", "--count", "10", "--db", db, "--no-store", "--progress", "0"},
		{"serve", "--db", db, "--addr", "127.0.0.1:0"},
	} {
		o := runWithin(t, args...)
		refused(t, o, args[0], db)
		if !strings.Contains(o.err, `table "mine"`) {
			t.Errorf("%s: does not name the table: %s", args[0], o.err)
		}
	}
	check("after the refusals")
}

// Two litebench processes on one database: the second is refused while
// the first runs, unless it attaches to scan beside it; once the first is
// killed, the kernel has dropped its claim and the database is usable.
func TestTwoProcessesOneDatabase(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "shared.db")
	owner := background(t, nil, "/50000000", "insert", "--db", db, "--rows", "50m", "--journal", "wal", "--sync", "off",
		"--batch", "1000", "--no-store", "--progress", "100ms")
	fi, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	o := runWithin(t, "insert", "--db", db, "--rows", "10", "--no-store", "--progress", "0")
	refused(t, o, "second owner", db)
	if want := fmt.Sprintf("in use by litebench pid %d", owner.Process.Pid); !strings.Contains(o.err, want) {
		t.Errorf("refusal %q lacks %q", o.err, want)
	}
	refused(t, runWithin(t, "write", "--db", db, "--attach", "--rows", "10", "--no-store", "--progress", "0"), "attached write without --from", db)
	if now, err := os.Stat(db); err != nil || !os.SameFile(fi, now) {
		t.Fatalf("the owner's database was replaced: %v", err)
	}

	o = runWithin(t, "scan", "--db", db, "--attach", "--rows", "1000", "--no-store", "--progress", "0", "--format", "json")
	if o.code != 0 {
		t.Fatalf("attached scan: exit %d: %s", o.code, o.err)
	}
	j := jsonLines(t, o.out)[0]
	if j["rows"].(float64) == 0 || !strings.Contains(fmt.Sprint(j["notes"]), "attached to "+db) {
		t.Errorf("attached scan read %v rows, notes %v", j["rows"], j["notes"])
	}
	if j["status"] != "ok" {
		t.Errorf("attached scan status %v: %v", j["status"], j["error"])
	}
	if !strings.Contains(fmt.Sprint(j["command"]), "--attach") {
		t.Errorf("command %v lacks --attach", j["command"])
	}
	if now, err := os.Stat(db); err != nil || !os.SameFile(fi, now) {
		t.Fatalf("attaching replaced the database: %v", err)
	}

	owner.Process.Signal(syscall.SIGKILL)
	owner.Wait()
	if o := runWithin(t, "insert", "--db", db, "--rows", "100", "--no-store", "--progress", "0"); o.code != 0 {
		t.Fatalf("after the owner was killed: exit %d: %s", o.code, o.err)
	}
	if n, _ := countRows(t, db, "bench"); n != 100 {
		t.Errorf("%d rows", n)
	}
	if _, err := os.Lstat(db + own.LockSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Error("lock file left behind")
	}
}

// A run whose process is killed is listed as lost, and the next litebench
// removes the temp dir it left.
func TestKilledRunIsLostAndItsTempDirCleaned(t *testing.T) {
	tmp := t.TempDir()
	store := filepath.Join(t.TempDir(), "store.db")
	env := []string{"TMPDIR=" + tmp}
	victim := background(t, env, "/50000000", "insert", "--rows", "50m", "--batch", "1000", "--journal", "wal", "--sync", "off",
		"--store", store, "--progress", "100ms")
	if o := run(t, context.Background(), "runs", "--store", store); o.code != 0 || !strings.Contains(o.out, "running") {
		t.Errorf("runs while it runs: %d %s %s", o.code, o.out, o.err)
	}
	victim.Process.Signal(syscall.SIGKILL)
	victim.Wait()
	left, _ := filepath.Glob(filepath.Join(tmp, "litebench-*"))
	if len(left) != 1 {
		t.Fatalf("killed run left %v", left)
	}
	o := run(t, context.Background(), "runs", "--store", store)
	if o.code != 0 || !strings.Contains(o.out, " lost ") {
		t.Errorf("runs after the kill: %d %s %s", o.code, o.out, o.err)
	}
	t.Setenv("TMPDIR", tmp)
	if o := run(t, context.Background(), "insert", "--rows", "100", "--store", store, "--progress", "0"); o.code != 0 {
		t.Fatal(o.err)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "litebench-*")); len(left) != 0 {
		t.Errorf("temp dirs left: %v", left)
	}
	s, err := resultstore.OpenReadOnly(store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rs, _ := s.List(0)
	statuses := map[string]int{}
	for _, r := range rs {
		statuses[r.Status]++
	}
	if statuses["lost"] != 1 || statuses["ok"] != 1 || len(rs) != 2 {
		t.Errorf("stored runs: %v", statuses)
	}
}

// Benchmarks started at once create one store together and lose no run.
func TestConcurrentRunsShareANewStore(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store.db")
	const n = 4
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := litebench(nil, "insert", "--rows", "300", "--seed", fmt.Sprint(i+1), "--store", store, "--progress", "0", "--dir", dir).CombinedOutput()
			if err != nil {
				t.Errorf("process %d: %v: %s", i, err, out)
			}
		}()
	}
	wg.Wait()
	s, err := resultstore.OpenReadOnly(store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rs, err := s.List(0)
	ok := 0
	for _, r := range rs {
		if r.Status == results.StatusOK {
			ok++
		}
	}
	if err != nil || ok != n {
		t.Errorf("%d runs stored, want %d (%v)", ok, n, err)
	}
}

func TestImportRefusesDuplicatesAndBadRuns(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store.db")
	if o := run(t, context.Background(), "insert", "--rows", "100", "--batch", "10,100", "--store", store, "--progress", "0"); o.code != 0 {
		t.Fatal(o.err)
	}
	o := run(t, context.Background(), "export", "--all", "--store", store)
	lines := strings.Split(strings.TrimSpace(o.out), "\n")
	if o.code != 0 || len(lines) != 2 {
		t.Fatalf("export: %d %d lines", o.code, len(lines))
	}
	file := filepath.Join(dir, "runs.jsonl")
	os.WriteFile(file, []byte(o.out), 0o644)
	check := untouched(t, store)
	o = run(t, context.Background(), "import", "--store", store, file)
	refused(t, o, "duplicate", file+" line 1")
	if !strings.Contains(o.err, "--replace") {
		t.Errorf("refusal does not name --replace: %s", o.err)
	}
	bad := map[string]string{
		`{"run_id":"x"}`: "workload is empty",
		strings.Replace(lines[0], `"rows":100`, `"rows":-5`, 1):          "rows is -5",
		strings.Replace(lines[0], `"status":"ok"`, `"status":"good"`, 1): `status "good"`,
		lines[0] + "\n" + lines[0]:                                       "is also at " + file + " line 1",
		"not json":                                                       "line 1",
	}
	for text, want := range bad {
		os.WriteFile(file, []byte(text+"\n"), 0o644)
		o := run(t, context.Background(), "import", "--store", filepath.Join(dir, "new.db"), file)
		refused(t, o, want, file)
		if !strings.Contains(o.err, want) {
			t.Errorf("%q: %s", want, o.err)
		}
		if _, err := os.Lstat(filepath.Join(dir, "new.db")); err == nil {
			t.Errorf("%q: store created", want)
		}
	}
	check("refused imports")
	os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	o = run(t, context.Background(), "import", "--store", store, "--replace", file)
	if o.code != 0 || !strings.Contains(o.err, "replacing 2") {
		t.Errorf("--replace: %d %s", o.code, o.err)
	}
}

// The read-only commands on litebench's own store and database create no
// -shm or -wal and leave the files byte-identical, mtime included.
func TestReadOnlyCommandsLeaveFilesAlone(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store.db")
	db := filepath.Join(dir, "b.db")
	if o := run(t, context.Background(), "insert", "--rows", "100", "--db", db, "--keep", "--journal", "wal", "--store", store, "--progress", "0"); o.code != 0 {
		t.Fatal(o.err)
	}
	foreign := filepath.Join(dir, "foreign.db")
	sqlExec(t, foreign, "PRAGMA journal_mode=WAL", "CREATE TABLE t(x)")
	checkStore, checkDB, checkForeign := untouched(t, store), untouched(t, db), untouched(t, foreign)
	cmds := [][]string{
		{"runs", "--store", store}, {"show", "--last", "--store", store}, {"export", "--all", "--store", store},
		{"compare", "--where", "target=mattn", "--vs", "target=mattn", "--store", store},
		{"report", "--store", store, "-o", filepath.Join(dir, "r.html")},
	}
	for _, name := range target.InProcessNames() {
		for _, p := range []string{db, foreign} {
			cmds = append(cmds, []string{"inspect", "--db", p, "--target", name}, []string{"pragma", "journal_mode", "--db", p, "--target", name})
		}
	}
	for _, args := range cmds {
		if o := runWithin(t, args...); o.code != 0 && args[0] != "compare" {
			t.Errorf("%v: exit %d: %s", args, o.code, o.err)
		}
	}
	checkStore("read-only commands")
	checkDB("read-only commands")
	checkForeign("read-only commands")
}
