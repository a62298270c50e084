// Package crashvfs is a SQLite VFS, written in Go on ncruces' vfs package,
// that simulates what a power cut leaves on disk. It passes every
// operation through to the real files (SQLite runs exactly as it would
// without it) and, before each write, truncation, sync and delete of a
// database's main file, rollback journal or WAL, appends a record of it to
// a crash log beside the database. After the process is killed, Crash
// reads the log and works out, per the chosen model, what a disk would
// hold had the power gone at that moment: writes covered by a sync stay,
// writes not covered are lost or torn. docs/durability-audit.md describes
// the model.
package crashvfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/ncruces/go-sqlite3/vfs"
)

// Name is the VFS's name (a URI's vfs= parameter).
const Name = "litebench-crash"

// SectorSize is the sector the model tears writes at, and what the VFS
// tells SQLite: the same as the os VFS's.
const SectorSize = 4096

// LogPath is the crash log of the database at db.
func LogPath(db string) string { return db + "-crashlog" }

// keepSuffix names the hard link that keeps a deleted file's data until
// its deletion is durable.
const keepSuffix = "-crashkeep-"

// kept are the device characteristics the model keeps true: it never
// changes bytes outside a write (powersafe overwrite), and the others
// say nothing about durability. Atomic, sequential, safe-append and
// batch-atomic writes are not promised: the model tears any unsynced
// write at sector granularity and drops pieces out of order.
const kept = vfs.IOCAP_POWERSAFE_OVERWRITE | vfs.IOCAP_SUBPAGE_READ | vfs.IOCAP_UNDELETABLE_WHEN_OPEN

func init() { vfs.Register(Name, crashVFS{inner: vfs.Find("os").(vfs.VFSFilename)}) }

// Registered reports whether the VFS is registered in this process.
func Registered() bool { return vfs.Find(Name) != nil }

type crashVFS struct{ inner vfs.VFSFilename }

// logged are the files whose operations the log records.
const logged = vfs.OPEN_MAIN_DB | vfs.OPEN_MAIN_JOURNAL | vfs.OPEN_WAL

func (c crashVFS) Open(name string, flags vfs.OpenFlag) (vfs.File, vfs.OpenFlag, error) {
	return c.inner.Open(name, flags)
}

func (c crashVFS) Access(name string, flags vfs.AccessFlag) (bool, error) {
	return c.inner.Access(name, flags)
}

func (c crashVFS) FullPathname(name string) (string, error) { return c.inner.FullPathname(name) }

func (c crashVFS) OpenFilename(name *vfs.Filename, flags vfs.OpenFlag) (vfs.File, vfs.OpenFlag, error) {
	if name == nil || name.String() == "" || flags&logged == 0 {
		return c.inner.OpenFilename(name, flags)
	}
	path := name.String()
	lg, err := logFor(name.Database())
	if err != nil {
		return nil, flags, err
	}
	lg.mu.Lock()
	defer lg.mu.Unlock()
	base := filepath.Base(path)
	ino, known := lg.bound[base]
	created := false
	if !known {
		ino = lg.nextInode
		lg.nextInode++
		op := byte(opOpen)
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) && flags&vfs.OPEN_CREATE != 0 {
			op, created = opCreate, true
		}
		lg.e.begin(op)
		lg.e.u32(ino)
		lg.e.str(base)
		if err := lg.write(); err != nil {
			return nil, flags, err
		}
	}
	f, out, err := c.inner.OpenFilename(name, flags)
	if err != nil {
		if !known {
			lg.e.begin(opForget)
			lg.e.u32(ino)
			lg.write()
		}
		return nil, out, err
	}
	lg.bound[base] = ino
	return &file{File: f, lg: lg, ino: ino, created: created}, out, nil
}

// Delete keeps the file's data under a hard link until its deletion is
// durable (a directory sync), so that a power cut before then can bring
// it back.
func (c crashVFS) Delete(name string, syncDir bool) error {
	lg := findLog(name)
	if lg == nil {
		return c.inner.Delete(name, syncDir)
	}
	lg.mu.Lock()
	defer lg.mu.Unlock()
	base := filepath.Base(name)
	ino, ok := lg.bound[base]
	if !ok {
		return c.inner.Delete(name, syncDir)
	}
	keep := base + keepSuffix + strconv.FormatUint(uint64(ino), 10)
	if err := os.Link(name, filepath.Join(lg.dir, keep)); err != nil {
		return c.inner.Delete(name, syncDir)
	}
	lg.e.begin(opDelete)
	lg.e.u32(ino)
	lg.e.str(base)
	lg.e.str(keep)
	if err := lg.write(); err != nil {
		return err
	}
	delete(lg.bound, base)
	lg.keeps = append(lg.keeps, keep)
	var sid uint32
	if syncDir {
		var err error
		if sid, err = lg.syncBegin(opDirSyncBegin, 0); err != nil {
			return err
		}
	}
	if err := c.inner.Delete(name, syncDir); err != nil {
		return err
	}
	if syncDir {
		return lg.dirSynced(sid)
	}
	return nil
}

// dbLog is the crash log of one database, shared by every connection of
// the process. Its mutex orders the records with the operations they
// describe.
type dbLog struct {
	mu        sync.Mutex
	f         *os.File
	dir       string
	e         enc
	nextInode uint32
	nextSync  uint32
	// bound maps the names of the database's files to their inodes.
	bound map[string]uint32
	// keeps are hard links of deleted files, removed once a directory
	// sync has made their deletion durable.
	keeps []string
}

var (
	logsMu sync.Mutex
	logs   = map[string]*dbLog{}
)

// logFor opens (once per process) the crash log of the database at db.
func logFor(db string) (*dbLog, error) {
	logsMu.Lock()
	defer logsMu.Unlock()
	if lg := logs[db]; lg != nil {
		return lg, nil
	}
	f, err := os.OpenFile(LogPath(db), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	lg := &dbLog{f: f, dir: filepath.Dir(db), bound: map[string]uint32{}, nextInode: 1, nextSync: 1}
	logs[db] = lg
	return lg, nil
}

// findLog returns the log of the database a file belongs to (its main
// file, -journal or -wal), or nil.
func findLog(name string) *dbLog {
	logsMu.Lock()
	defer logsMu.Unlock()
	for _, s := range []string{"", "-journal", "-wal"} {
		if n := len(name) - len(s); n > 0 && name[n:] == s {
			if lg := logs[name[:n]]; lg != nil {
				return lg
			}
		}
	}
	return nil
}

// write appends the record in lg.e with one write(2).
func (lg *dbLog) write() error { _, err := lg.f.Write(lg.e.frame()); return err }

// syncBegin logs the start of a sync (of inode ino, or of the directory)
// and returns its id. Called with lg.mu held.
func (lg *dbLog) syncBegin(op byte, ino uint32) (uint32, error) {
	sid := lg.nextSync
	lg.nextSync++
	lg.e.begin(op)
	lg.e.u32(sid)
	if op == opSyncBegin {
		lg.e.u32(ino)
	}
	return sid, lg.write()
}

// dirSynced logs the end of directory sync sid and drops the hard links
// whose deletion it made durable. Called with lg.mu held.
func (lg *dbLog) dirSynced(sid uint32) error {
	lg.e.begin(opDirSyncEnd)
	lg.e.u32(sid)
	if err := lg.write(); err != nil {
		return err
	}
	for _, k := range lg.keeps {
		os.Remove(filepath.Join(lg.dir, k))
	}
	lg.keeps = lg.keeps[:0]
	return nil
}

// file is one open database, journal or WAL file.
type file struct {
	vfs.File
	lg  *dbLog
	ino uint32
	// created: this handle created the file; its directory entry becomes
	// durable with its first sync (SQLite's unix VFS syncs the directory
	// then, for a new journal; a journalling file system commits the
	// entry with the file).
	created bool
}

func (f *file) WriteAt(p []byte, off int64) (int, error) {
	lg := f.lg
	lg.mu.Lock()
	defer lg.mu.Unlock()
	size, err := f.File.Size()
	if err != nil {
		return 0, err
	}
	var before []byte
	if off < size {
		before = make([]byte, min(int64(len(p)), size-off))
		if _, err := f.File.ReadAt(before, off); err != nil {
			return 0, err
		}
	}
	lg.e.begin(opWrite)
	lg.e.u32(f.ino)
	lg.e.u64(off)
	lg.e.u64(size)
	lg.e.bytes(p)
	lg.e.bytes(before)
	if err := lg.write(); err != nil {
		return 0, err
	}
	return f.File.WriteAt(p, off)
}

func (f *file) Truncate(size int64) error {
	lg := f.lg
	lg.mu.Lock()
	defer lg.mu.Unlock()
	if err := f.logResize(size); err != nil {
		return err
	}
	return f.File.Truncate(size)
}

// logResize logs a change of the file's size to size. Called with lg.mu
// held.
func (f *file) logResize(size int64) error {
	old, err := f.File.Size()
	if err != nil {
		return err
	}
	var tail []byte
	if size < old {
		tail = make([]byte, old-size)
		if _, err := f.File.ReadAt(tail, size); err != nil {
			return err
		}
	}
	lg := f.lg
	lg.e.begin(opTrunc)
	lg.e.u32(f.ino)
	lg.e.u64(size)
	lg.e.u64(old)
	lg.e.bytes(tail)
	return lg.write()
}

// Sync logs its start, syncs and logs its end: the writes logged before
// the start are durable once the end is logged. The mutex is not held
// while the file syncs, so other connections go on as they would.
func (f *file) Sync(flags vfs.SyncFlag) error {
	lg := f.lg
	lg.mu.Lock()
	sid, err := lg.syncBegin(opSyncBegin, f.ino)
	var dsid uint32
	if err == nil && f.created {
		dsid, err = lg.syncBegin(opDirSyncBegin, 0)
	}
	lg.mu.Unlock()
	if err != nil {
		return err
	}
	if err := f.File.Sync(flags); err != nil {
		return err
	}
	lg.mu.Lock()
	defer lg.mu.Unlock()
	lg.e.begin(opSyncEnd)
	lg.e.u32(sid)
	if err := lg.write(); err != nil {
		return err
	}
	if f.created {
		f.created = false
		return lg.dirSynced(dsid)
	}
	return nil
}

func (f *file) SectorSize() int { return SectorSize }

func (f *file) DeviceCharacteristics() vfs.DeviceCharacteristic {
	return f.File.DeviceCharacteristics() & kept
}

// Unwrap returns the os VFS's file.
func (f *file) Unwrap() vfs.File { return f.File }

// The optional interfaces of the os VFS's files, passed through; the size
// hint grows the file, so it is logged like a truncation.

func (f *file) SizeHint(size int64) error {
	h, ok := f.File.(vfs.FileSizeHint)
	if !ok {
		return nil
	}
	lg := f.lg
	lg.mu.Lock()
	defer lg.mu.Unlock()
	if old, err := f.File.Size(); err == nil && size > old {
		if err := f.logResize(size); err != nil {
			return err
		}
	}
	return h.SizeHint(size)
}

func (f *file) SharedMemory() vfs.SharedMemory {
	if s, ok := f.File.(vfs.FileSharedMemory); ok {
		return s.SharedMemory()
	}
	return nil
}

func (f *file) MemoryMapper() vfs.MemoryMapper {
	if s, ok := f.File.(vfs.FileMemoryMapper); ok {
		return s.MemoryMapper()
	}
	return nil
}

func (f *file) LockState() vfs.LockLevel {
	if s, ok := f.File.(vfs.FileLockState); ok {
		return s.LockState()
	}
	return vfs.LOCK_EXCLUSIVE + 1
}

func (f *file) HasMoved() (bool, error) {
	if s, ok := f.File.(vfs.FileHasMoved); ok {
		return s.HasMoved()
	}
	return false, nil
}

func (f *file) PersistWAL() bool {
	if s, ok := f.File.(vfs.FilePersistWAL); ok {
		return s.PersistWAL()
	}
	return false
}

func (f *file) SetPersistWAL(keep bool) {
	if s, ok := f.File.(vfs.FilePersistWAL); ok {
		s.SetPersistWAL(keep)
	}
}

func (f *file) PowersafeOverwrite() bool {
	if s, ok := f.File.(vfs.FilePowersafeOverwrite); ok {
		return s.PowersafeOverwrite()
	}
	return false
}

func (f *file) SetPowersafeOverwrite(psow bool) {
	if s, ok := f.File.(vfs.FilePowersafeOverwrite); ok {
		s.SetPowersafeOverwrite(psow)
	}
}
