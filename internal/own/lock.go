package own

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Locks are open file description locks (fcntl F_OFD_SETLK) on small lock
// files that litebench creates and removes: the kernel drops them when the
// process ends, however it ends, so a crash never leaves a stale claim,
// and a lock file left behind is simply locked again. A lock file holds
// "litebench pid N" for messages.
//
// A database's lock file, X.litebench-lock, has two lock bytes:
//
//	byte 0  the owner: the one process that may create, reset or remove X
//	byte 1  its users: exclusive while the owner creates or resets X,
//	        shared by the owner and every attached process afterwards

// LockSuffix names the lock file beside a file litebench guards.
const LockSuffix = ".litebench-lock"

const lockHeader = "litebench pid "

func setlk(f *os.File, typ int16, b int64) error {
	lk := unix.Flock_t{Type: typ, Whence: io.SeekStart, Start: b, Len: 1}
	return unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk)
}

// conflict reports whether a lock of type typ on byte b would conflict
// with a lock another open file description holds.
func conflict(f *os.File, typ int16, b int64) bool {
	lk := unix.Flock_t{Type: typ, Whence: io.SeekStart, Start: b, Len: 1}
	return unix.FcntlFlock(f.Fd(), unix.F_OFD_GETLK, &lk) == nil && lk.Type != unix.F_UNLCK
}

func busy(err error) bool {
	return errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EACCES)
}

// openLock opens the lock file at path, creating it if create is set. An
// existing file must be a regular file that litebench wrote.
func openLock(path string, create bool) (*os.File, error) {
	fi, err := lstat(path)
	if err != nil {
		return nil, err
	}
	if fi != nil {
		if !fi.Mode().IsRegular() {
			return nil, notRegular(path, fi, "a litebench lock file")
		}
		if fi.Size() > 0 {
			// Another process may remove the file between the two looks:
			// then it is as if it had not been there.
			if _, err := readPid(path); err != nil && !(errors.Is(err, os.ErrNotExist) && create) {
				return nil, err
			}
		}
	} else if !create {
		return nil, os.ErrNotExist
	}
	flags := os.O_RDWR
	if create {
		flags |= os.O_CREATE
	}
	return openFile(path, flags)
}

// readPid returns the pid written in a lock file (0 if none yet).
func readPid(path string) (int, error) {
	f, err := openRegular(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	b := make([]byte, 64)
	n, _ := f.ReadAt(b, 0)
	s := string(b[:n])
	if s == "" {
		return 0, nil
	}
	if !strings.HasPrefix(s, lockHeader) {
		return 0, notOurs(path, "exists and is not a litebench lock file", "remove it yourself if nothing uses it")
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(s, lockHeader)))
	return pid, nil
}

func writePid(f *os.File) {
	f.Truncate(0)                                                   //nolint:errcheck // the pid is for messages only
	f.WriteAt([]byte(lockHeader+strconv.Itoa(os.Getpid())+"\n"), 0) //nolint:errcheck
}

// lockAt opens (creating) the lock file at path and takes the locks lock
// asks for; busy is returned when one is held elsewhere. A lock file that
// another process removed between our open and our lock is not the one at
// path any more: then it starts again.
func lockAt(path string, lock func(f *os.File) error) (*os.File, error) {
	for range 50 {
		f, err := openLock(path, true)
		if err != nil {
			return nil, err
		}
		if err := lock(f); err != nil {
			f.Close()
			return nil, err
		}
		st, err1 := f.Stat()
		now, err2 := os.Lstat(path)
		if err1 == nil && err2 == nil && os.SameFile(st, now) {
			return f, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("%s: lock file keeps changing; try again", path)
}

// removeIfSole removes a lock file when no other process holds a lock on
// it, then closes it (dropping this process's locks).
func removeIfSole(f *os.File, path string) {
	if setlk(f, unix.F_WRLCK, 0) == nil && setlk(f, unix.F_WRLCK, 1) == nil {
		os.Remove(path)
	}
	f.Close()
}

// DBLock is this process's claim on a bench database: as its owner (the
// one process that may create, reset and remove it) or attached (using it
// as it is, beside its owner). The claims of one process on one database
// are one DBLock, counted: LockDB again returns it.
type DBLock struct {
	db, path string
	f        *os.File
	attached bool
	refs     int
}

var (
	heldMu sync.Mutex
	held   = map[string]*DBLock{}
)

func key(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return path
}

// inUseBy is the refusal of a database another litebench process owns.
func inUseBy(db, lockPath, how, fix string) error {
	who := "another litebench process"
	if pid, _ := readPid(lockPath); pid > 0 {
		who = "litebench pid " + strconv.Itoa(pid)
	}
	return &Error{Path: db, Reason: how + " " + who, Fix: fix, err: ErrInUse}
}

const (
	fixOwned     = "wait for it to finish, or pass --attach to use it beside that process"
	fixSettingUp = "attach once its run has started"
	fixAttached  = "wait for the attached litebench processes to finish"
)

// LockDB claims the database at path: as its owner, exclusively (other
// owners and attaching processes are refused until Share), or attached,
// shared with its owner and other attached processes.
func LockDB(path string, attach bool) (*DBLock, error) {
	heldMu.Lock()
	defer heldMu.Unlock()
	k := key(path)
	if l := held[k]; l != nil {
		l.refs++
		return l, nil
	}
	lp := path + LockSuffix
	f, err := lockAt(lp, func(f *os.File) error {
		if attach {
			if err := setlk(f, unix.F_RDLCK, 1); busy(err) {
				return inUseBy(path, lp, "is being set up by", fixSettingUp)
			} else if err != nil {
				return err
			}
			return nil
		}
		if err := setlk(f, unix.F_WRLCK, 0); busy(err) {
			return inUseBy(path, lp, "is in use by", fixOwned)
		} else if err != nil {
			return err
		}
		if err := setlk(f, unix.F_WRLCK, 1); busy(err) {
			return &Error{Path: path, Reason: "is in use by attached litebench processes", Fix: fixAttached, err: ErrInUse}
		} else if err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !attach {
		writePid(f)
	}
	l := &DBLock{db: path, path: lp, f: f, attached: attach, refs: 1}
	held[k] = l
	return l, nil
}

// ProbeDB reports, without creating anything, whether LockDB(path,
// attach) would be refused because another process holds the database.
func ProbeDB(path string, attach bool) error {
	heldMu.Lock()
	defer heldMu.Unlock()
	if held[key(path)] != nil {
		return nil
	}
	lp := path + LockSuffix
	f, err := openLock(lp, false)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	switch {
	case attach && conflict(f, unix.F_RDLCK, 1):
		return inUseBy(path, lp, "is being set up by", fixSettingUp)
	case !attach && conflict(f, unix.F_WRLCK, 0):
		return inUseBy(path, lp, "is in use by", fixOwned)
	case !attach && conflict(f, unix.F_WRLCK, 1):
		return &Error{Path: path, Reason: "is in use by attached litebench processes", Fix: fixAttached, err: ErrInUse}
	}
	return nil
}

// Attached reports whether the claim is an attached one.
func (l *DBLock) Attached() bool { return l.attached }

// Share lets attached processes in: the owner calls it once the database
// is set up.
func (l *DBLock) Share() {
	if !l.attached {
		setlk(l.f, unix.F_RDLCK, 1) //nolint:errcheck // converting a held lock does not fail
	}
}

// Exclusive takes the database back from attached processes before the
// owner resets or removes it; it fails while any is attached.
func (l *DBLock) Exclusive() error {
	if l.attached {
		return &Error{Path: l.db, Reason: "is attached, not owned, by this process", Fix: "run without --attach to reset it", err: ErrInUse}
	}
	if err := setlk(l.f, unix.F_WRLCK, 1); busy(err) {
		return &Error{Path: l.db, Reason: "is in use by attached litebench processes", Fix: fixAttached, err: ErrInUse}
	} else if err != nil {
		return err
	}
	return nil
}

// Remove deletes the owned database (own.Remove) unless attached processes
// still use it; then it stays.
func (l *DBLock) Remove(k Kind) error {
	if err := l.Exclusive(); err != nil {
		return err
	}
	return Remove(l.db, k)
}

// Release drops one claim; the last one drops the locks and removes the
// lock file unless another process still holds it.
func (l *DBLock) Release() {
	heldMu.Lock()
	defer heldMu.Unlock()
	if l.refs--; l.refs > 0 {
		return
	}
	delete(held, key(l.db))
	removeIfSole(l.f, l.path)
}

// Create makes the SQLite file at path of kind k atomically: build makes
// it under a temporary name in the same directory, complete (stamped, in
// its journal mode, with its schema, closed), and it is then linked into
// place, never over an existing file. A kill at any instant leaves either
// no file at path or a complete one. Processes creating the same path are
// serialised by a lock file beside it; one that finds the file made
// meanwhile uses it. It returns nil when path exists and passes Check.
func Create(path string, k Kind, wait time.Duration, build func(tmp string) error) error {
	lp := path + LockSuffix
	var f *os.File
	deadline := time.Now().Add(wait)
	for {
		var err error
		f, err = lockAt(lp, func(f *os.File) error { return setlk(f, unix.F_WRLCK, 0) })
		if err == nil {
			break
		}
		if !busy(err) || time.Now().After(deadline) {
			if busy(err) {
				return inUseBy(path, lp, "is being created by", "try again")
			}
			return err
		}
		time.Sleep(5 * time.Millisecond)
	}
	defer removeIfSole(f, lp)
	writePid(f)
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	prefix := "." + base + ".litebench-new-"
	// Only the holder of this lock makes files of that name (each under a
	// new random name, with O_EXCL), so any found now were left by a
	// creator that was killed: before it linked the file into place (an
	// incomplete file and its journals), or after (a second name of the
	// file at path).
	old, _ := filepath.Glob(filepath.Join(dir, prefix+"*"))
	for _, o := range old {
		if fi, err := os.Lstat(o); err == nil && fi.Mode().IsRegular() {
			os.Remove(o)
		}
	}
	if exists, err := Check(path, k); err != nil || exists {
		return err
	}
	tf, err := os.CreateTemp(dir, prefix+"*")
	if err != nil {
		return err
	}
	tmp := tf.Name()
	tf.Close()
	if err := build(tmp); err != nil {
		removeAll(tmp)
		return err
	}
	if db, err := ReadDatabase(tmp); err != nil || db.AppID != k.AppID {
		removeAll(tmp)
		return fmt.Errorf("creating %s: the new file is not complete (%v)", path, err)
	}
	for _, suf := range Companions {
		if c, _ := lstat(tmp + suf); c != nil {
			removeAll(tmp)
			return fmt.Errorf("creating %s: SQLite left %s behind", path, tmp+suf)
		}
	}
	if err := linkNew(tmp, path); err != nil {
		removeAll(tmp)
		if errors.Is(err, os.ErrExist) {
			return notOurs(path, "appeared while litebench was creating it", fixNew)
		}
		return err
	}
	os.Remove(tmp)
	syncDir(dir)
	return nil
}

func removeAll(p string) {
	for _, suf := range append(Companions, "") {
		os.Remove(p + suf)
	}
}

// linkNew gives the file at tmp the name path without replacing anything
// there: link(2), or renameat2(RENAME_NOREPLACE) where the file system has
// no hard links, or (where neither exists) a rename after a look, which
// the creation lock makes safe from other litebench processes.
func linkNew(tmp, path string) error {
	err := os.Link(tmp, path)
	if err == nil || errors.Is(err, os.ErrExist) {
		return err
	}
	err = unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_NOREPLACE)
	if err == nil || errors.Is(err, os.ErrExist) {
		if err != nil {
			return os.ErrExist
		}
		return nil
	}
	if fi, _ := lstat(path); fi != nil {
		return os.ErrExist
	}
	return os.Rename(tmp, path)
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync() //nolint:errcheck // best effort: the file itself is synced by SQLite
		d.Close()
	}
}

// Dir is a directory litebench made under the temp dir, named litebench-*,
// marked as litebench's by a lock file inside that this process holds
// until Close, and stamped by a record in litebench's state directory
// (StateDir) written before the directory is made. CleanStale removes the
// ones whose process is gone: by their lock file, or by their record when
// the process was killed before the lock file was in place or while the
// directory was being removed.
type Dir struct {
	Path string
	f    *os.File
	rec  *Record
}

// DirLockName is the lock file inside a Dir.
const DirLockName = "litebench.lock"

// dirRecord prefixes the names of Dirs' records.
const dirRecord = "dir-"

// NewDir makes a new marked directory under the temp dir.
func NewDir() (*Dir, error) {
	var rnd [8]byte
	rand.Read(rnd[:]) //nolint:errcheck // never fails
	d := filepath.Join(os.TempDir(), "litebench-"+hex.EncodeToString(rnd[:]))
	// Without a usable state directory the directory is still marked by
	// its lock file, as before the records existed.
	rec, _ := NewRecord(dirRecord, []byte(d+"\n"))
	if err := os.Mkdir(d, 0o700); err != nil {
		rec.Drop()
		return nil, err
	}
	if id := dirID(d); rec != nil && id != "" {
		rec.Update([]byte(d + "\n" + id + "\n")) //nolint:errcheck // without it only an empty directory goes
	}
	// The lock is taken under a temporary name and the file then renamed
	// to its marking name, so a cleaner never sees the mark unlocked.
	tmp := filepath.Join(d, newLockName)
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err == nil {
		if err = setlk(f, unix.F_WRLCK, 0); err == nil {
			writePid(f)
			err = os.Rename(tmp, filepath.Join(d, DirLockName))
		}
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		os.RemoveAll(d)
		rec.Drop()
		return nil, err
	}
	return &Dir{Path: d, f: f, rec: rec}, nil
}

// newLockName is a Dir's lock file before it is in place.
const newLockName = ".new.lock"

// LockPath is the path of the directory's lock file: Alive(LockPath())
// tells other processes whether this one still runs.
func (d *Dir) LockPath() string { return filepath.Join(d.Path, DirLockName) }

// Close removes the directory, or with keep leaves it (and what is in it)
// to the user, unmarked, so that no cleaner removes it; an empty one (what
// was kept lives elsewhere, at --db say) goes all the same. The lock file
// goes last, so that a run killed meanwhile leaves a marked directory.
func (d *Dir) Close(keep bool) {
	if keep {
		os.Remove(d.LockPath())
		os.Remove(d.Path) // fails unless empty
		d.rec.Drop()
		d.f.Close()
		return
	}
	if removeDir(d.Path) {
		d.rec.Drop()
	} else {
		d.rec.leave() // the next run's CleanStale tries again
	}
	d.f.Close()
}

// removeDir removes the directory at d, its lock file last, and reports
// whether it is gone.
func removeDir(d string) bool {
	ents, _ := os.ReadDir(d)
	ok := true
	for _, e := range ents {
		if e.Name() != DirLockName {
			if os.RemoveAll(filepath.Join(d, e.Name())) != nil {
				ok = false
			}
		}
	}
	if !ok {
		return false
	}
	os.Remove(filepath.Join(d, DirLockName))
	err := os.Remove(d)
	return err == nil || errors.Is(err, os.ErrNotExist)
}

// Alive reports whether the process that holds the lock file at lockPath
// (a Dir's) is still running.
func Alive(lockPath string) bool {
	f, err := openRegular(lockPath)
	if err != nil {
		return false
	}
	defer f.Close()
	return conflict(f, unix.F_WRLCK, 0)
}

// CleanStale removes the directories NewDir made whose process has gone
// (killed before it could remove them), and returns their paths. Only
// directories of this user that carry the mark (an unlocked lock file
// inside), or that a record of a killed litebench process names, are
// touched.
func CleanStale() []string {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "litebench-*"))
	var out []string
	for _, d := range dirs {
		if !mine(d) {
			continue
		}
		lp := filepath.Join(d, DirLockName)
		f, err := openLock(lp, false)
		if err != nil {
			continue
		}
		if setlk(f, unix.F_WRLCK, 0) == nil && removeDir(d) {
			out = append(out, d)
		}
		f.Close()
	}
	// A record that no process holds names a directory of a killed run,
	// with or without its lock file: it goes if it is still the one that
	// run made (same inode), or, if the run was killed before it noted
	// the inode, while it holds nothing. The record goes once the
	// directory is gone or found not to be litebench's.
	Stale(dirRecord, func(data []byte) bool {
		path, id, _ := strings.Cut(strings.TrimSpace(string(data)), "\n")
		_, err := os.Lstat(path)
		if errors.Is(err, os.ErrNotExist) {
			return true
		}
		if err != nil || !mine(path) || Alive(filepath.Join(path, DirLockName)) {
			return err == nil
		}
		if id != dirID(path) {
			ents, _ := os.ReadDir(path)
			if id != "" || len(ents) > 1 || len(ents) == 1 && ents[0].Name() != newLockName {
				return true // not the directory the record's run made
			}
		}
		if removeDir(path) {
			out = append(out, path)
			return true
		}
		return false
	})
	return out
}

// dirID identifies the directory at d (not following a symbolic link):
// its file handle, which holds the inode's generation as well as its
// number (an inode number is reused at once), or where the file system has
// none, its device, inode and birth time.
func dirID(d string) string {
	if h, mnt, err := unix.NameToHandleAt(unix.AT_FDCWD, d, 0); err == nil {
		return fmt.Sprintf("h%d:%d:%x", mnt, h.Type(), h.Bytes())
	}
	var st unix.Statx_t
	if unix.Statx(unix.AT_FDCWD, d, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_INO|unix.STATX_BTIME, &st) != nil {
		return ""
	}
	id := fmt.Sprintf("%d:%d", unix.Mkdev(st.Dev_major, st.Dev_minor), st.Ino)
	if st.Mask&unix.STATX_BTIME != 0 {
		id += fmt.Sprintf(":%d.%09d", st.Btime.Sec, st.Btime.Nsec)
	}
	return id
}

// mine reports whether d is a directory (not a symbolic link) of this
// user's.
func mine(d string) bool {
	fi, err := os.Lstat(d)
	if err != nil || !fi.IsDir() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
