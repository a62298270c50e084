// Package owntest helps tests assert that litebench left files alone.
package owntest

import (
	"crypto/sha256"
	"errors"
	"os"
	"reflect"
	"syscall"
	"testing"
	"time"
)

// FileState is what must not change about a file: its type, link target,
// device number, content and modification time.
type FileState struct {
	Mode  os.FileMode
	Link  string
	Rdev  uint64
	Sum   [32]byte
	MTime time.Time
}

// State returns the state of path, or nil if it does not exist.
func State(t testing.TB, path string) *FileState {
	t.Helper()
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	s := &FileState{Mode: fi.Mode(), MTime: fi.ModTime(), Rdev: uint64(fi.Sys().(*syscall.Stat_t).Rdev)}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		s.Link, _ = os.Readlink(path)
	case fi.Mode().IsRegular():
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s.Sum = sha256.Sum256(b)
	}
	return s
}

// Untouched records paths now and returns a check that each is as it was
// (or still absent), byte for byte, mtime included.
func Untouched(t testing.TB, paths ...string) func(what string) {
	t.Helper()
	before := map[string]*FileState{}
	for _, p := range paths {
		before[p] = State(t, p)
	}
	return func(what string) {
		t.Helper()
		for _, p := range paths {
			if after := State(t, p); !reflect.DeepEqual(before[p], after) {
				t.Errorf("%s: %s changed: %+v -> %+v", what, p, before[p], after)
			}
		}
	}
}
