package crashfs

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"

	"github.com/litebench/litebench/internal/own"
)

// FSName is the source and subtype of every crash file system's mount
// ("fuse.litebench-crashfs" in /proc/mounts): SweepStale unmounts only
// mounts of that name.
const FSName = "litebench-crashfs"

// FS is a mounted crash file system. Until Barrier it passes operations
// through unrecorded; from Barrier until Freeze it records them; after
// Freeze it passes them through again, unrecorded: the power has gone.
type FS struct {
	Backing, Mountpoint string
	server              *fuse.Server

	mu      sync.Mutex
	logging bool
	log     Log
	// bytes held by the log; past MaxLogBytes it stops and says so
	bytes    int64
	overflow bool
	nextID   int
	byIno    map[uint64]int
	byPath   map[string]int

	// a crash point: fire is called once, when it is reached
	point Point
	db    string
	seen  int
	fire  func()
}

// Available reports why this machine cannot mount a crash file system
// (nil when it can): it needs /dev/fuse and either root, for mount(2),
// or fusermount3 / fusermount.
func Available() error {
	f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("crash file system: /dev/fuse: %w (load the fuse module, or give the container the device)", err)
	}
	f.Close()
	if os.Geteuid() == 0 {
		return nil
	}
	for _, p := range []string{"fusermount3", "fusermount"} {
		if _, err := execLookPath(p); err == nil {
			return nil
		}
	}
	return errors.New("crash file system: not root and no fusermount3 on PATH (install fuse3)")
}

// MaxLogBytes bounds the bytes the log holds in memory (each write's data
// and what it overwrote): past it the log stops and Overflowed says so.
var MaxLogBytes int64 = 1 << 30

// Overflowed reports whether the log passed MaxLogBytes and stopped.
func (f *FS) Overflowed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.overflow
}

// add appends o to the log (f.mu held).
func (f *FS) add(o Op) {
	f.bytes += int64(len(o.Data) + len(o.Before))
	if f.bytes > MaxLogBytes {
		f.logging, f.overflow = false, true
		return
	}
	f.log.Ops = append(f.log.Ops, o)
}

// Mount mounts a crash file system at mountpoint (an empty directory)
// over backing.
func Mount(backing, mountpoint string) (*FS, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(backing, &st); err != nil {
		return nil, err
	}
	f := &FS{Backing: backing, Mountpoint: mountpoint, byIno: map[uint64]int{}, byPath: map[string]int{}}
	root := &gofs.LoopbackRoot{Path: backing, Dev: uint64(st.Dev)}
	root.NewNode = func(r *gofs.LoopbackRoot, _ *gofs.Inode, _ string, _ *syscall.Stat_t) gofs.InodeEmbedder {
		return &node{LoopbackNode: gofs.LoopbackNode{RootData: r}, fs: f}
	}
	rn := root.NewNode(root, nil, "", &st)
	root.RootNode = rn
	opts := &gofs.Options{MountOptions: fuse.MountOptions{
		FsName: FSName, Name: FSName,
		DirectMount:   os.Geteuid() == 0,
		DisableXAttrs: true,
		// Locks stay in the kernel (all processes use this mount), and
		// writes go through at once: no writeback cache.
		EnableLocks: false,
	}}
	srv, err := gofs.Mount(mountpoint, rn, opts)
	if err != nil {
		return nil, fmt.Errorf("crash file system at %s: %w", mountpoint, err)
	}
	f.server = srv
	return f, nil
}

// Unmount unmounts the file system, detaching it lazily if it is still
// busy.
func (f *FS) Unmount() error {
	if f.server == nil {
		return nil
	}
	err := f.server.Unmount()
	if err != nil {
		if derr := unix.Unmount(f.Mountpoint, unix.MNT_DETACH); derr == nil {
			err = nil
		}
	}
	f.server = nil
	return err
}

// Barrier starts the log: every file beneath the mount is recorded as it
// is (durable, with its directory entry), and every operation from now on
// is recorded.
func (f *FS) Barrier() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log, f.bytes, f.overflow = Log{}, 0, false
	f.byIno, f.byPath = map[uint64]int{}, map[string]int{}
	err := filepath.WalkDir(f.Backing, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			return err
		}
		rel, _ := filepath.Rel(f.Backing, p)
		rel = filepath.ToSlash(rel)
		id := f.newID(st.Ino, rel)
		f.add(Op{Kind: Base, File: id, Path: rel, Data: b})
		return nil
	})
	if err != nil {
		return fmt.Errorf("crash file system: %w", err)
	}
	if f.overflow {
		return fmt.Errorf("crash file system: the files set up hold more than the log's %d MiB", MaxLogBytes>>20)
	}
	f.logging = true
	return nil
}

// Freeze stops the log: the power has gone.
func (f *FS) Freeze() {
	f.mu.Lock()
	f.logging = false
	f.mu.Unlock()
}

// Log returns the log recorded (call after Freeze).
func (f *FS) Log() *Log {
	f.mu.Lock()
	defer f.mu.Unlock()
	return &Log{Ops: f.log.Ops[:len(f.log.Ops):len(f.log.Ops)]}
}

// SetCrashPoint arranges for fire to be called, once, when p is reached
// (for the database whose base name is db): the log is frozen first, so
// it ends as Cut would cut it. A point with N 0 is not supported live.
func (f *FS) SetCrashPoint(p Point, db string, fire func()) {
	f.mu.Lock()
	f.point, f.db, f.fire, f.seen = p, db, fire, 0
	f.mu.Unlock()
}

// reached counts o toward the crash point (f.mu held) and reports whether
// it is the one.
func (f *FS) reached(o Op) bool {
	if f.fire == nil || !f.point.Matches(o, f.pathOf(o.File), f.db) {
		return false
	}
	f.seen++
	return f.seen == f.point.N
}

// strike freezes the log and calls fire (f.mu held).
func (f *FS) strike() {
	f.logging = false
	fire := f.fire
	f.fire = nil
	go fire()
}

func (f *FS) newID(ino uint64, rel string) int {
	f.nextID++
	f.byIno[ino] = f.nextID
	if rel != "" {
		f.byPath[rel] = f.nextID
	}
	return f.nextID
}

// idOf is the id of the file with backing inode ino (f.mu held). A file
// the log has not seen (opened through a name made outside the mount) is
// recorded as it is now.
func (f *FS) idOf(ino uint64, fd int) int {
	if id, ok := f.byIno[ino]; ok {
		return id
	}
	id := f.newID(ino, "")
	var st unix.Stat_t
	var b []byte
	if unix.Fstat(fd, &st) == nil {
		b = make([]byte, st.Size)
		n, _ := unix.Pread(fd, b, 0)
		b = b[:max(n, 0)]
	}
	f.add(Op{Kind: Base, File: id, Path: f.pathOf(id), Data: b})
	return id
}

func (f *FS) pathOf(id int) string {
	for p, i := range f.byPath {
		if i == id {
			return p
		}
	}
	return ""
}

// node is a loopback node that records what changes names and sizes.
type node struct {
	gofs.LoopbackNode
	fs *FS
}

func (n *node) rel(name string) string {
	p := n.EmbeddedInode().Path(nil)
	if p == "" || p == "." {
		return name
	}
	if name == "" {
		return p
	}
	return path.Join(p, name)
}

func (n *node) backing(rel string) string {
	return filepath.Join(n.fs.Backing, filepath.FromSlash(rel))
}

// readAt reads up to n bytes at off of fd, and returns them and the size.
func readAt(fd int, off, n int64) ([]byte, int64) {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return nil, 0
	}
	if off >= st.Size {
		return nil, st.Size
	}
	b := make([]byte, min(n, st.Size-off))
	k, _ := unix.Pread(fd, b, off)
	return b[:max(k, 0)], st.Size
}

func fdOf(fh gofs.FileHandle) (int, bool) {
	lf, ok := fh.(*gofs.LoopbackFile)
	if !ok {
		return 0, false
	}
	return lf.PassthroughFd()
}

func (n *node) wrap(fh gofs.FileHandle) gofs.FileHandle {
	fd, ok := fdOf(fh)
	if !ok {
		return fh
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return fh
	}
	return &handle{inner: fh.(*gofs.LoopbackFile), fd: fd, ino: st.Ino, fs: n.fs, node: n}
}

// truncateLogged records a truncation of the file at fd to size (f.mu
// held, logging on).
func (f *FS) truncateLogged(fd int, ino uint64, size int64) {
	cut, old := readAt(fd, size, 1<<62)
	id := f.idOf(ino, fd)
	f.add(Op{Kind: Truncate, File: id, NewSize: size, Size: old, Before: cut})
}

func (n *node) Create(ctx context.Context, name string, flags uint32, mode uint32, out *fuse.EntryOut) (*gofs.Inode, gofs.FileHandle, uint32, syscall.Errno) {
	f := n.fs
	f.mu.Lock()
	defer f.mu.Unlock()
	rel := n.rel(name)
	var before unix.Stat_t
	existed := unix.Lstat(n.backing(rel), &before) == nil
	var trunc *os.File
	if existed && f.logging && flags&syscall.O_TRUNC != 0 {
		trunc, _ = os.Open(n.backing(rel))
	}
	if trunc != nil {
		f.truncateLogged(int(trunc.Fd()), before.Ino, 0)
		trunc.Close()
	}
	ch, fh, ff, errno := n.LoopbackNode.Create(ctx, name, flags, mode, out)
	if errno != 0 {
		return ch, fh, ff, errno
	}
	h := n.wrap(fh)
	if hh, ok := h.(*handle); ok && f.logging && !existed {
		id := f.newID(hh.ino, rel)
		f.add(Op{Kind: Create, File: id, Path: rel})
	}
	return ch, h, ff, 0
}

func (n *node) Open(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	f := n.fs
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.logging && flags&syscall.O_TRUNC != 0 {
		if t, err := os.Open(n.backing(n.rel(""))); err == nil {
			var st unix.Stat_t
			if unix.Fstat(int(t.Fd()), &st) == nil {
				f.truncateLogged(int(t.Fd()), st.Ino, 0)
			}
			t.Close()
		}
	}
	fh, ff, errno := n.LoopbackNode.Open(ctx, flags)
	if errno != 0 {
		return fh, ff, errno
	}
	return n.wrap(fh), ff, 0
}

func (n *node) Setattr(ctx context.Context, fh gofs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if h, ok := fh.(*handle); ok {
		fh = h.inner
	}
	f := n.fs
	f.mu.Lock()
	defer f.mu.Unlock()
	if sz, ok := in.GetSize(); ok && f.logging {
		if t, err := os.Open(n.backing(n.rel(""))); err == nil {
			var st unix.Stat_t
			if unix.Fstat(int(t.Fd()), &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
				f.truncateLogged(int(t.Fd()), st.Ino, int64(sz))
			}
			t.Close()
		}
	}
	return n.LoopbackNode.Setattr(ctx, fh, in, out)
}

func (n *node) Unlink(ctx context.Context, name string) syscall.Errno {
	f := n.fs
	f.mu.Lock()
	defer f.mu.Unlock()
	rel := n.rel(name)
	var st unix.Stat_t
	found := unix.Lstat(n.backing(rel), &st) == nil
	if errno := n.LoopbackNode.Unlink(ctx, name); errno != 0 {
		return errno
	}
	if f.logging && found && st.Mode&unix.S_IFMT == unix.S_IFREG {
		if id, ok := f.byIno[st.Ino]; ok {
			f.add(Op{Kind: Unlink, File: id, Path: rel})
		}
	}
	delete(f.byPath, rel)
	return 0
}

func (n *node) Rename(ctx context.Context, name string, newParent gofs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	f := n.fs
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.logging && flags&unix.RENAME_EXCHANGE != 0 {
		return syscall.EINVAL // not recorded: refused while the log runs
	}
	from := n.rel(name)
	to := newName
	if p := newParent.EmbeddedInode().Path(nil); p != "" && p != "." {
		to = path.Join(p, newName)
	}
	var st, old unix.Stat_t
	found := unix.Lstat(n.backing(from), &st) == nil
	replaced := unix.Lstat(n.backing(to), &old) == nil
	if errno := n.LoopbackNode.Rename(ctx, name, newParent, newName, flags); errno != 0 {
		return errno
	}
	if f.logging && found && st.Mode&unix.S_IFMT == unix.S_IFREG {
		o := Op{Kind: Rename, File: f.byIno[st.Ino], Path: from, NewPath: to}
		if replaced {
			o.Replaced = f.byIno[old.Ino]
		}
		if o.File != 0 {
			f.add(o)
		}
	}
	if id, ok := f.byPath[from]; ok {
		delete(f.byPath, from)
		f.byPath[to] = id
	}
	return 0
}

func (n *node) OpendirHandle(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	fh, ff, errno := n.LoopbackNode.OpendirHandle(ctx, flags)
	if errno != 0 {
		return fh, ff, errno
	}
	return &dirHandle{DirStream: fh.(gofs.DirStream), node: n}, ff, 0
}

// dirHandle records a directory's fsync.
type dirHandle struct {
	gofs.DirStream
	node *node
}

func (d *dirHandle) Fsyncdir(ctx context.Context, flags uint32) syscall.Errno {
	f := d.node.fs
	f.mu.Lock()
	o := Op{Kind: DirSync, Path: d.node.rel(""), Covers: len(f.log.Ops) + 1}
	f.mu.Unlock()
	var errno syscall.Errno
	if s, ok := d.DirStream.(gofs.FileFsyncdirer); ok {
		errno = s.Fsyncdir(ctx, flags)
	}
	f.mu.Lock()
	if errno == 0 && f.logging {
		f.add(o)
	}
	f.mu.Unlock()
	return errno
}

func (d *dirHandle) Releasedir(ctx context.Context, flags uint32) {
	if r, ok := d.DirStream.(gofs.FileReleasedirer); ok {
		r.Releasedir(ctx, flags)
	}
}

func (d *dirHandle) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	if s, ok := d.DirStream.(gofs.FileSeekdirer); ok {
		return s.Seekdir(ctx, off)
	}
	return syscall.ENOTSUP
}

func (d *dirHandle) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	if r, ok := d.DirStream.(gofs.FileReaddirenter); ok {
		return r.Readdirent(ctx)
	}
	if !d.DirStream.HasNext() {
		return nil, 0
	}
	e, errno := d.DirStream.Next()
	return &e, errno
}

// handle is an open file whose writes, truncations and syncs are
// recorded. It offers no passthrough: every write comes here.
type handle struct {
	inner *gofs.LoopbackFile
	fd    int
	ino   uint64
	fs    *FS
	node  *node
}

func (h *handle) Read(ctx context.Context, buf []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	return h.inner.Read(ctx, buf, off)
}

func (h *handle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	f := h.fs
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.logging {
		before, size := readAt(h.fd, off, int64(len(data)))
		id := f.idOf(h.ino, h.fd)
		o := Op{Kind: Write, File: id, Off: off, Data: append([]byte(nil), data...), Before: before, Size: size}
		f.add(o)
		if f.reached(o) {
			// The power goes during this write: it never completes.
			f.strike()
			f.mu.Unlock()
			awaitKill(ctx)
			f.mu.Lock()
			return 0, syscall.EIO
		}
	}
	n, err := unix.Pwrite(h.fd, data, off)
	if err != nil {
		return 0, gofs.ToErrno(err)
	}
	return uint32(n), 0
}

func (h *handle) Writev(ctx context.Context, data [][]byte, off int64) (uint32, syscall.Errno) {
	var b []byte
	for _, d := range data {
		b = append(b, d...)
	}
	return h.Write(ctx, b, off)
}

func (h *handle) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	f := h.fs
	f.mu.Lock()
	if f.logging {
		k := Sync
		if flags&1 != 0 { // FUSE_FSYNC_FDATASYNC
			k = DataSync
		}
		o := Op{Kind: k, File: f.idOf(h.ino, h.fd), Covers: len(f.log.Ops) + 1}
		if f.reached(o) {
			// The power goes during this sync: it never completes.
			f.strike()
			f.mu.Unlock()
			awaitKill(ctx)
			return syscall.EIO
		}
		f.mu.Unlock()
		errno := h.inner.Fsync(ctx, flags)
		f.mu.Lock()
		if errno == 0 && f.logging {
			f.add(o)
		}
		f.mu.Unlock()
		return errno
	}
	f.mu.Unlock()
	return h.inner.Fsync(ctx, flags)
}

func (h *handle) Allocate(ctx context.Context, off uint64, size uint64, mode uint32) syscall.Errno {
	f := h.fs
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.logging && mode == 0 {
		var st unix.Stat_t
		if unix.Fstat(h.fd, &st) == nil && int64(off+size) > st.Size {
			id := f.idOf(h.ino, h.fd)
			f.add(Op{Kind: Truncate, File: id, NewSize: int64(off + size), Size: st.Size})
		}
	}
	return h.inner.Allocate(ctx, off, size, mode)
}

func (h *handle) Release(ctx context.Context) syscall.Errno { return h.inner.Release(ctx) }
func (h *handle) Flush(ctx context.Context) syscall.Errno   { return h.inner.Flush(ctx) }
func (h *handle) Getattr(ctx context.Context, a *fuse.AttrOut) syscall.Errno {
	return h.inner.Getattr(ctx, a)
}
func (h *handle) Lseek(ctx context.Context, off uint64, whence uint32) (uint64, syscall.Errno) {
	return h.inner.Lseek(ctx, off, whence)
}

// awaitKill holds a request struck by a crash point until the kernel
// gives it up (its process is killed) or, at most, two seconds: the
// process must not see it complete.
func awaitKill(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(2 * time.Second):
	}
}

// Mounted lists the crash file systems mounted on this machine, from
// /proc/self/mountinfo.
func Mounted() ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options ... - fstype source
		fields := strings.Fields(sc.Text())
		dash := -1
		for i, x := range fields {
			if x == "-" {
				dash = i
				break
			}
		}
		if dash < 0 || dash+1 >= len(fields) || len(fields) < 5 {
			continue
		}
		if fields[dash+1] == "fuse."+FSName {
			out = append(out, unescape(fields[4]))
		}
	}
	return out, sc.Err()
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// SweepStale unmounts crash file systems left behind by litebench
// processes that are gone (killed before they could unmount): only
// mounts of this file system's name that lie in a directory litebench
// marked under the temp dir (see own.NewDir) whose process has ended. It
// returns the mount points it unmounted.
func SweepStale() []string {
	mps, err := Mounted()
	if err != nil {
		return nil
	}
	tmp := os.TempDir()
	var out []string
	for _, mp := range mps {
		rel, err := filepath.Rel(tmp, mp)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		top := strings.Split(filepath.ToSlash(rel), "/")[0]
		if !strings.HasPrefix(top, "litebench-") || top == rel {
			continue
		}
		if !gone(filepath.Join(tmp, top, own.DirLockName)) {
			continue
		}
		// Forcing a FUSE unmount aborts its connection, which frees the
		// threads of the dead process stuck on a request to itself (a
		// file under the mount closed as it died): then it can go.
		if unix.Unmount(mp, unix.MNT_FORCE) == nil || unix.Unmount(mp, unix.MNT_DETACH) == nil {
			out = append(out, mp)
		}
	}
	return out
}

// gone reports whether the process that marked a directory with the
// lock file at lockPath has ended: its lock is free, or the process it
// names has exited though a thread of it still holds the lock (stuck on
// a request to its own file system, which only an unmount frees).
func gone(lockPath string) bool {
	if !own.Alive(lockPath) {
		return true
	}
	b, err := os.ReadFile(lockPath)
	if err != nil {
		return false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(string(b), "litebench pid ")))
	if err != nil || pid <= 0 {
		return false
	}
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	// pid (comm) state ...: the state follows the last ')'.
	i := strings.LastIndexByte(string(st), ')')
	return i >= 0 && i+2 < len(st) && st[i+2] == 'Z'
}
