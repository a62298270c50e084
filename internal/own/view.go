package own

import (
	"errors"
	"io"
	"os"
	"path/filepath"
)

// View is how a read-only command opens a database file so that SQLite
// sees what a reader would (the WAL included) and writes not one byte
// beside it.
//
// SQLite's read-only modes fall short of that. immutable=1 creates and
// locks nothing but ignores the WAL: a WAL database then answers
// journal_mode "delete", and what only its -wal holds is not seen. mode=ro
// without immutable reads the WAL, but creates a -wal and a -shm beside a
// WAL database that has none (and leaves them), and writes to an existing
// -shm. So a database that is in WAL mode (by its header) or has a -wal or
// -shm beside it is read through a private view: a directory of this
// process's own holding a hard link to the main file (a copy where a link
// cannot be made) and a copy of its -wal, in which SQLite builds its -shm.
// Any other database is read in place with immutable=1.
type View struct {
	// Path is the file to open; Immutable says to open it with
	// immutable=1 (else mode=ro).
	Path      string
	Immutable bool
	dir       string
}

// OpenView prepares to read the database at path (one Read accepted).
// Close removes what it made.
func OpenView(path string, in *Info) (*View, error) {
	wal, _ := lstat(path + "-wal")
	shm, _ := lstat(path + "-shm")
	if !in.WAL && wal == nil && shm == nil {
		return &View{Path: path, Immutable: true}, nil
	}
	dir, err := os.MkdirTemp("", "litebench-view-")
	if err != nil {
		return nil, err
	}
	v := &View{Path: filepath.Join(dir, "db"), dir: dir}
	if err := os.Link(path, v.Path); err != nil {
		err = copyFile(path, v.Path)
		if err != nil {
			v.Close()
			return nil, err
		}
	}
	if wal != nil && wal.Size() > 0 {
		if err := copyFile(path+"-wal", v.Path+"-wal"); err != nil {
			v.Close()
			return nil, err
		}
	}
	return v, nil
}

// Close removes the private view, if one was made.
func (v *View) Close() error {
	if v.dir == "" {
		return nil
	}
	return os.RemoveAll(v.dir)
}

// copyFile copies the regular file from to the new file to.
func copyFile(from, to string) error {
	src, err := openRegular(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	return errors.Join(err, dst.Close())
}
