package own

import (
	"errors"
	"os"
	"syscall"
)

// WritableDir says why litebench cannot create its files in dir, for
// the flag that named it (what, such as "--dir"): dir does not exist, is
// not a directory, or refuses a new file (its permissions, a read-only
// file system); nil when it can. It finds out as the run would, by
// creating a file of its own there and removing it at once, so a
// command refused here has created nothing.
func WritableDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, syscall.ENOTDIR):
		return &Error{Path: dir, Reason: "is not a directory (a file is in its path)", Fix: "name a directory", err: err}
	case errors.Is(err, os.ErrNotExist):
		return &Error{Path: dir, Reason: "does not exist", Fix: "create it first", err: err}
	case err != nil:
		return &Error{Path: dir, Reason: "cannot be read: " + errText(err), Fix: "name a directory litebench can write", err: err}
	case !st.IsDir():
		return &Error{Path: dir, Reason: "is not a directory", Fix: "name a directory", err: syscall.ENOTDIR}
	}
	f, err := os.CreateTemp(dir, ".litebench-probe-*")
	if err != nil {
		return &Error{Path: dir, Reason: "is not writable: " + errText(err), Fix: "name a directory litebench can write", err: err}
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// errText is the system's words for err, without the path it names.
func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
