// Package crashfs is a crash file system: a FUSE passthrough (loopback)
// over a backing directory that any process can run on, which keeps every
// write, truncation, creation, rename, unlink and sync of the files
// beneath it as an ordered log, and rebuilds from that log what a disk
// would hold had the power gone at a chosen moment.
//
// The rebuild (Rebuild) is a pure function of the log and a power model:
// it needs neither FUSE nor the backing files, so it is tested with logs
// written by hand. The file system (Mount) only records.
package crashfs

import (
	"encoding/gob"
	"fmt"
	"io"
	"os"
)

// Kind is what a log record records.
type Kind uint8

// Kinds of records.
const (
	// Base is a file as it was when logging started (Barrier): its
	// contents are durable, and so is its directory entry (none when Path
	// is "": a file open but unlinked).
	Base Kind = iota + 1
	// Create is a new file at Path (empty, with the id File).
	Create
	// Write wrote Data at Off; Before holds the bytes it overwrote (short
	// where it wrote past the end) and Size the file's size before.
	Write
	// Truncate set the size to NewSize; Size is the size before and
	// Before the bytes cut off.
	Truncate
	// Sync is an fsync of File, logged when it completed: the file's
	// writes and truncations logged before it began (Covers) are durable.
	// A sync under way when the power went is not in the log.
	Sync
	// DataSync is an fdatasync of File: as Sync for the file's data and
	// size.
	DataSync
	// DirSync is an fsync of the directory Path ("" is the root): the
	// directory entries changed in it before are durable.
	DirSync
	// Unlink removed the entry Path (of File).
	Unlink
	// Rename moved File from Path to NewPath, replacing Replaced (0 for
	// none) there.
	Rename
)

var kindNames = map[Kind]string{Base: "base", Create: "create", Write: "write", Truncate: "truncate",
	Sync: "fsync", DataSync: "fdatasync", DirSync: "dirsync", Unlink: "unlink", Rename: "rename"}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Op is one record of the log. Files have ids of the log's own (from 1),
// stable across renames; paths are relative to the mount, with '/'.
type Op struct {
	Kind     Kind
	File     int
	Path     string
	NewPath  string
	Off      int64
	Data     []byte
	Before   []byte
	Size     int64
	NewSize  int64
	Replaced int
	// Covers, for a sync, is 1 + the number of records logged before it
	// began: what it makes durable (0: every record before it).
	Covers int
}

// Log is an ordered list of records.
type Log struct {
	Ops []Op
}

// Save writes the log to w (gob): a trial's log kept beside its files
// can be rebuilt again.
func (l *Log) Save(w io.Writer) error { return gob.NewEncoder(w).Encode(l) }

// SaveFile writes the log to a new file at path.
func (l *Log) SaveFile(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	err = l.Save(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// LoadFile reads a log SaveFile wrote.
func LoadFile(path string) (*Log, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var l Log
	if err := gob.NewDecoder(f).Decode(&l); err != nil {
		return nil, fmt.Errorf("crash log %s: %w", path, err)
	}
	return &l, nil
}
