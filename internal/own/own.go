// Package own is litebench's one rule about files. Only a path that does
// not exist may be created. Anything that exists is used, replaced or
// removed only if it is a regular file (looked at without following
// symbolic links) that litebench made: a SQLite database carrying one of
// litebench's application ids and, for a bench database, holding only
// tables litebench creates; or a file litebench writes whole that starts
// with litebench's marker. A database's companion files (-wal, -shm,
// -journal) go only together with a main file that passes; a companion
// beside a database that does not exist is refused, never deleted.
// Everything else (empty files, devices, pipes, sockets, symbolic links,
// directories, other programs' databases) is refused with one line that
// names the file and what to do.
//
// The package reads files itself, without a SQLite driver: a check takes
// no lock, creates nothing and cannot hang on a pipe or a busy database.
// Checks of a database must run before this process opens it with SQLite:
// closing any descriptor of a file drops the POSIX locks the process holds
// on it.
package own

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Application ids that mark the SQLite files litebench creates.
const (
	StoreAppID int32 = 0x4c420001 // results store
	BenchAppID int32 = 0x4c420002 // bench database
)

// ErrNotOurs is wrapped by refusals of files litebench did not create.
var ErrNotOurs = errors.New("not created by litebench")

// ErrInUse is wrapped by refusals of files another process is using.
var ErrInUse = errors.New("in use")

// Error is a refusal: one line naming the file, why, and what to do.
type Error struct {
	Path   string
	Reason string // follows the path: "is a named pipe, not a ..."
	Fix    string
	err    error
}

func (e *Error) Error() string {
	s := e.Path + " " + e.Reason
	if e.Fix != "" {
		s += "; " + e.Fix
	}
	return s
}

func (e *Error) Unwrap() error { return e.err }

func notOurs(path, reason, fix string) error {
	return &Error{Path: path, Reason: reason, Fix: fix, err: ErrNotOurs}
}

// Companions are the files SQLite keeps beside a database.
var Companions = []string{"-wal", "-shm", "-journal"}

// Kind is a kind of SQLite file litebench makes.
type Kind struct {
	Name  string // "bench database", "results store"
	AppID int32
	// Tables, when set, says which tables and indexes a file of this kind
	// may hold besides SQLite's own (sqlite_*); anything else is the
	// user's, and the file is refused.
	Tables func(name string) bool
	// Shared files are used by several processes at once (the store); a
	// file of any other kind that another process has open is refused.
	Shared bool
}

// Store is the kind of the results store.
var Store = Kind{Name: "results store", AppID: StoreAppID, Shared: true}

// Bench is the kind of a bench database whose tables and indexes are
// those tables allows.
func Bench(tables func(name string) bool) Kind {
	return Kind{Name: benchName, AppID: BenchAppID, Tables: tables}
}

const (
	benchName = "bench database"
	fixNew    = "name a new file"
)

// describe names what a non-regular file is.
func describe(path string, fi os.FileInfo) string {
	m := fi.Mode()
	switch {
	case m&os.ModeSymlink != 0:
		to, _ := os.Readlink(path)
		if _, err := os.Stat(path); err != nil {
			return "a dangling symbolic link (to " + to + ")"
		}
		return "a symbolic link (to " + to + ")"
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	}
	return "not a regular file"
}

// lstat returns nil, nil when path does not exist.
func lstat(path string) (os.FileInfo, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return fi, err
}

// notRegular is the refusal of an existing path that is not a regular file.
func notRegular(path string, fi os.FileInfo, what string) error {
	fix := fixNew
	if fi.Mode()&os.ModeSymlink != 0 {
		fix = "name a new file, or the file itself if litebench made it"
	}
	return notOurs(path, "is "+describe(path, fi)+", not "+what, fix)
}

// openRegular opens an existing regular file for reading: it looks before
// it opens, never follows a symbolic link and never blocks (a named pipe
// swapped in between is caught by the second look).
func openRegular(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi, "a regular file")
	}
	return openFile(path, os.O_RDONLY)
}

// openFile opens path with flags, never following a symbolic link or
// blocking, and makes sure that what it opened is a regular file.
func openFile(path string, flags int) (*os.File, error) {
	f, err := os.OpenFile(path, flags|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, notOurs(path, "changed while litebench looked at it", "try again")
	}
	return f, nil
}

// companionsRegular refuses a database whose -wal, -shm or -journal is
// anything but a regular file.
func companionsRegular(path string) error {
	for _, suf := range Companions {
		c, err := lstat(path + suf)
		if err != nil {
			return err
		}
		if c != nil && !c.Mode().IsRegular() {
			return notRegular(path+suf, c, "a SQLite journal")
		}
	}
	return nil
}

// article is "a" or "an" before name.
func article(name string) string {
	if strings.IndexByte("aeiou", name[0]) >= 0 {
		return "an " + name
	}
	return "a " + name
}

// kindOf names litebench's kind for an application id, or "".
func kindOf(id int32) string {
	switch id {
	case StoreAppID:
		return Store.Name
	case BenchAppID:
		return benchName
	}
	return ""
}

// Check applies the rule to path before litebench creates, reuses or
// removes it as a file of kind k. It returns false when path does not
// exist and may be created, true when it exists and is litebench's, and
// an error (wrapping ErrNotOurs or ErrInUse) otherwise. It writes nothing.
func Check(path string, k Kind) (exists bool, err error) {
	what := article(k.Name) + " litebench created"
	fi, err := lstat(path)
	if err != nil {
		return false, err
	}
	if fi == nil {
		for _, suf := range Companions {
			if c, err := lstat(path + suf); err != nil {
				return false, err
			} else if c != nil {
				return false, notOurs(path+suf, "exists but "+path+" does not (a journal of another database?)",
					"litebench will not create a database beside it: remove it yourself or name another file")
			}
		}
		return false, nil
	}
	if !fi.Mode().IsRegular() {
		return false, notRegular(path, fi, what)
	}
	if fi.Size() == 0 {
		return false, notOurs(path, "is an empty file, not "+what, fixNew)
	}
	if err := companionsRegular(path); err != nil {
		return false, err
	}
	if !k.Shared {
		if err := inUse(path); err != nil {
			return false, err
		}
		if err := hotJournal(path); err != nil {
			return false, err
		}
	}
	db, err := ReadDatabase(path)
	if err != nil {
		return false, err
	}
	if db.AppID != k.AppID {
		if other := kindOf(db.AppID); other != "" {
			return false, notOurs(path, "is "+article("litebench "+other)+", not "+article(k.Name), fixNew)
		}
		return false, notOurs(path, fmt.Sprintf("is a SQLite database litebench did not create (application_id %#x)", uint32(db.AppID)), fixNew)
	}
	if k.Tables != nil {
		if foreign := Foreign(db, k.Tables); len(foreign) > 0 {
			return false, notOurs(path, "holds "+foreign[0]+" that litebench did not create",
				"litebench leaves it alone: name a new file, or remove it yourself")
		}
	}
	return true, nil
}

// Foreign lists the schema objects of db that tables does not allow, as
// `table "x"`; SQLite's own objects (sqlite_*) are always allowed, views
// and triggers never.
func Foreign(db *Database, tables func(string) bool) []string {
	var out []string
	for _, o := range db.Objects {
		if strings.HasPrefix(strings.ToLower(o.Name), "sqlite_") && (o.Type == "table" || o.Type == "index") {
			continue
		}
		if (o.Type == "table" || o.Type == "index") && tables(o.Name) {
			continue
		}
		out = append(out, fmt.Sprintf("%s %q", o.Type, o.Name))
	}
	return out
}

// ReadDatabase reads the header and schema of the database at path as last
// committed, without SQLite. path must be a non-empty regular file.
func ReadDatabase(path string) (*Database, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var db *Database
	for try := 1; ; try++ {
		var st os.FileInfo
		if st, err = f.Stat(); err != nil {
			return nil, err
		}
		if st.Size() == 0 {
			return nil, notOurs(path, "is an empty file, not a SQLite database", "name a SQLite database")
		}
		db, err = readDatabase(path, f, st.Size())
		// A process writing the database in WAL mode may checkpoint and
		// restart the WAL while it is read: read again.
		if err == nil || try == 5 || !errors.Is(err, errMalformed) {
			break
		}
		if w, _ := lstat(path + "-wal"); w == nil {
			break
		}
	}
	if errors.Is(err, errNotSQLite) {
		return nil, notOurs(path, "is not a SQLite database", fixNew)
	}
	if errors.Is(err, errMalformed) {
		return nil, notOurs(path, "looks like a SQLite database but cannot be read ("+err.Error()+")", fixNew)
	}
	var oe *Error
	if err != nil && !errors.As(err, &oe) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return db, err
}

// hotJournal refuses a database whose rollback journal holds a transaction
// (one in progress or interrupted): until SQLite rolls it back, what the
// file holds is not what was committed.
func hotJournal(path string) error {
	f, err := openRegular(path + "-journal")
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	var b [8]byte
	if n, _ := f.ReadAt(b[:], 0); n == 8 && b == [8]byte{0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7} {
		return &Error{Path: path + "-journal", Reason: "holds an unfinished transaction on " + path,
			Fix: "open " + path + " once with sqlite3 to roll it back, or remove both yourself", err: ErrNotOurs}
	}
	return nil
}

// inUse refuses a database that another process has open in WAL mode or
// holds a lock on, asking the kernel which locks SQLite's own protocol
// would take (the -shm's connection lock, the database's lock bytes).
func inUse(path string) error {
	probe := func(file string, start, n int64) (int32, bool) {
		f, err := openRegular(file)
		if err != nil {
			return 0, false
		}
		defer f.Close()
		lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: start, Len: n}
		if err := unix.FcntlFlock(f.Fd(), unix.F_GETLK, &lk); err != nil || lk.Type == unix.F_UNLCK {
			return 0, false
		}
		return lk.Pid, true
	}
	pid, held := probe(path+"-shm", 120, 9)
	if !held {
		pid, held = probe(path, 0x40000000, 512)
	}
	if held {
		who := "another process"
		if pid > 0 {
			who += fmt.Sprintf(" (pid %d)", pid)
		}
		return &Error{Path: path, Reason: "is open in " + who,
			Fix: "name a new file, or wait until that process closes it", err: ErrInUse}
	}
	return nil
}

// Remove deletes the database at path and its companions, if Check(path,
// k) passes; a path that does not exist is not an error. Companions go
// first, so that an interrupted removal leaves a main file that passes.
func Remove(path string, k Kind) error {
	exists, err := Check(path, k)
	if err != nil || !exists {
		return err
	}
	for _, suf := range append(Companions, "") {
		if err := os.Remove(path + suf); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// Info is what a read-only command learns about a database file.
type Info struct {
	*Database
	// Kind is litebench's kind of file ("bench database", "results
	// store"), or "" for a file litebench did not create.
	Kind string
	// Immutable says to open it with immutable=1: SQLite then creates no
	// -shm or -wal beside it and takes no lock. It is false only for
	// litebench's own files with a -wal, whose content must be read.
	Immutable bool
	// WALBytes is the size of the -wal beside it (0 if none).
	WALBytes int64
}

// Read looks at a database for a read-only command: path must be a
// non-empty regular file and a SQLite database. It writes nothing.
func Read(path string) (*Info, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &Error{Path: path, Reason: "is " + describe(path, fi) + ", not a database file",
			Fix: "name a SQLite database file", err: ErrNotOurs}
	}
	if err := companionsRegular(path); err != nil {
		return nil, err
	}
	db, err := ReadDatabase(path)
	if err != nil {
		return nil, err
	}
	in := &Info{Database: db, Kind: kindOf(db.AppID), Immutable: true}
	if c, _ := lstat(path + "-wal"); c != nil {
		in.WALBytes = c.Size()
		in.Immutable = in.Kind == ""
	}
	return in, nil
}

// CheckMarked applies the rule to a file litebench writes whole, such as
// an HTML report: a new path (in an existing directory), or a regular file
// that starts with marker. kind names the file in messages.
func CheckMarked(path, marker, kind string) (exists bool, err error) {
	if err := WritableDir(filepath.Dir(path)); err != nil {
		var e *Error
		errors.As(err, &e)
		return false, &Error{Path: path, Reason: "cannot be written: directory " + e.Path + " " + e.Reason, Fix: e.Fix, err: e.err}
	}
	fi, err := lstat(path)
	if err != nil || fi == nil {
		return false, err
	}
	what := article(kind) + " litebench wrote"
	if !fi.Mode().IsRegular() {
		return false, notRegular(path, fi, what)
	}
	f, err := openRegular(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, len(marker))
	n, _ := f.ReadAt(head, 0)
	if string(head[:n]) != marker {
		return false, notOurs(path, "exists and is not "+what, fixNew)
	}
	return true, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
