package own

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// litebench keeps records of what a process started or made and must undo
// if it is killed (its child process groups, its temp directories) in a
// state directory of its own: TMPDIR/.litebench-UID, mode 0700, owned by
// this user, there while it holds records. A record is a small file that its process holds a lock on
// (open file description lock, dropped by the kernel however the process
// ends) until it removes it; a record nobody holds is a killed run's, and
// the next run undoes what it names and removes it.

// StateDir is litebench's state directory for this user under the temp
// dir, created if missing (and removed with its last record). It fails when the path exists and is not a
// directory of this user's that only this user may enter.
func StateDir() (string, error) {
	d := filepath.Join(os.TempDir(), fmt.Sprintf(".litebench-%d", os.Geteuid()))
	if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	fi, err := os.Lstat(d)
	if err != nil {
		return "", err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Geteuid() || fi.Mode().Perm()&0o077 != 0 {
		return "", notOurs(d, "is not litebench's state directory (a directory of this user's, mode 0700)", "remove it yourself")
	}
	return d, nil
}

// Record is a record in the state directory that this process holds.
type Record struct {
	path string
	f    *os.File
}

// NewRecord writes a record named prefix plus a random suffix holding
// data, and holds it until Drop. The record is written and locked under a
// temporary name and then renamed, so that a sweeper never sees it
// unlocked.
func NewRecord(prefix string, data []byte) (*Record, error) {
	var rnd [8]byte
	rand.Read(rnd[:]) //nolint:errcheck // never fails
	name := prefix + hex.EncodeToString(rnd[:])
	var dir string
	var f *os.File
	var err error
	// The directory goes when its last record does: another process may
	// remove it between making and using it.
	for range 5 {
		if dir, err = StateDir(); err != nil {
			return nil, err
		}
		f, err = os.OpenFile(filepath.Join(dir, ".new-"+name), os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if !errors.Is(err, os.ErrNotExist) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	tmp := filepath.Join(dir, ".new-"+name)
	if err = setlk(f, unix.F_WRLCK, 0); err == nil {
		if _, err = f.Write(data); err == nil {
			err = os.Rename(tmp, filepath.Join(dir, name))
		}
	}
	if err != nil {
		f.Close()
		os.Remove(tmp)
		os.Remove(dir) // if it is empty
		return nil, fmt.Errorf("litebench state record: %w", err)
	}
	return &Record{path: filepath.Join(dir, name), f: f}, nil
}

// Update replaces what the record holds.
func (r *Record) Update(data []byte) error {
	if err := r.f.Truncate(0); err != nil {
		return err
	}
	_, err := r.f.WriteAt(data, 0)
	return err
}

// Drop removes the record and lets go of it; the state directory goes
// with its last record.
func (r *Record) Drop() {
	if r == nil || r.f == nil {
		return
	}
	os.Remove(r.path)
	os.Remove(filepath.Dir(r.path)) // fails unless it is empty
	r.f.Close()
	r.f = nil
}

// leave lets go of the record without removing it: the next sweep finds
// it.
func (r *Record) leave() {
	if r != nil && r.f != nil {
		r.f.Close()
		r.f = nil
	}
}

// Stale calls undo for every record named prefix… that no live process
// holds (its process was killed), holding it meanwhile; a record undo
// returns true for is removed, and so is one a killed process left empty.
func Stale(prefix string, undo func(data []byte) bool) {
	dir, err := StateDir()
	if err != nil {
		return
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		name := e.Name()
		ours := strings.HasPrefix(name, prefix) || strings.HasPrefix(name, ".new-"+prefix)
		if !ours || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, name)
		f, err := os.OpenFile(p, os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if err != nil {
			continue
		}
		if setlk(f, unix.F_WRLCK, 0) != nil {
			f.Close() // its process runs
			continue
		}
		st, err1 := f.Stat()
		now, err2 := os.Lstat(p)
		if err1 != nil || err2 != nil || !os.SameFile(st, now) {
			f.Close() // another sweeper removed it meanwhile
			continue
		}
		data, _ := os.ReadFile(p)
		if len(data) == 0 || undo(data) {
			os.Remove(p)
		}
		f.Close()
	}
	os.Remove(dir) // if it is empty
}
