package crashvfs

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ncruces/go-sqlite3/vfs"
)

// script writes a crash log by hand and does to the files what each
// record says, as the VFS would.
type script struct {
	t   *testing.T
	dir string
	db  string
	lg  *os.File
	e   enc
}

func newScript(t *testing.T) *script {
	dir := t.TempDir()
	db := filepath.Join(dir, "d.db")
	lg, err := os.Create(LogPath(db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	return &script{t: t, dir: dir, db: db, lg: lg}
}

func (s *script) rec(op byte, fields func(e *enc)) {
	s.e.begin(op)
	if fields != nil {
		fields(&s.e)
	}
	if _, err := s.lg.Write(s.e.frame()); err != nil {
		s.t.Fatal(err)
	}
}

func (s *script) path(name string) string { return filepath.Join(s.dir, name) }

func (s *script) read(name string) []byte {
	b, err := os.ReadFile(s.path(name))
	if err != nil && !os.IsNotExist(err) {
		s.t.Fatal(err)
	}
	return b
}

// open logs an existing (or, with create, a new) file.
func (s *script) open(ino uint32, name string, create bool, content []byte) {
	op := byte(opOpen)
	if create {
		op = opCreate
	}
	s.rec(op, func(e *enc) { e.u32(ino); e.str(name) })
	if err := os.WriteFile(s.path(name), content, 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// write logs and does a write.
func (s *script) write(ino uint32, name string, off int64, data []byte) {
	old := s.read(name)
	var before []byte
	if off < int64(len(old)) {
		before = old[off:min(int64(len(old)), off+int64(len(data)))]
	}
	s.rec(opWrite, func(e *enc) { e.u32(ino); e.u64(off); e.u64(int64(len(old))); e.bytes(data); e.bytes(before) })
	f, err := os.OpenFile(s.path(name), os.O_WRONLY, 0)
	if err != nil {
		s.t.Fatal(err)
	}
	f.WriteAt(data, off)
	f.Close()
}

func (s *script) sync(sid, ino uint32) {
	s.rec(opSyncBegin, func(e *enc) { e.u32(sid); e.u32(ino) })
	s.rec(opSyncEnd, func(e *enc) { e.u32(sid) })
}

func (s *script) dirSync(sid uint32) {
	s.rec(opDirSyncBegin, func(e *enc) { e.u32(sid) })
	s.rec(opDirSyncEnd, func(e *enc) { e.u32(sid) })
}

func (s *script) crash(m Model, seed uint64) *Image {
	im, err := Crash(s.db, m, seed)
	if err != nil {
		s.t.Fatal(err)
	}
	return im
}

func fill(c byte, n int) []byte { return bytes.Repeat([]byte{c}, n) }

// TestUnsyncedWrites: lose-unsynced gives back exactly what the last sync
// covered; torn keeps, drops or (last piece only) garbles each piece of an
// unsynced write at sector boundaries, and never touches a byte no
// unsynced write covered: the powersafe-overwrite promise the VFS makes.
func TestUnsyncedWrites(t *testing.T) {
	s := newScript(t)
	s.open(1, "d.db", false, fill('a', 3*SectorSize))
	s.rec(opBarrier, nil)
	s.write(1, "d.db", 100, fill('b', 5000))
	s.sync(1, 1)
	synced := s.read("d.db")
	s.write(1, "d.db", 8000, fill('c', 6000)) // past the end: 14000 bytes
	s.write(1, "d.db", 20, fill('d', 10))

	if got := s.crash(LoseUnsynced, 1).Files["d.db"]; !bytes.Equal(got, synced) {
		t.Fatalf("lose-unsynced: %d bytes, not the synced %d", len(got), len(synced))
	}
	seen := map[byte]bool{}
	for seed := uint64(0); seed < 200; seed++ {
		im := s.crash(Torn, seed)
		got := im.Files["d.db"]
		if len(got) < len(synced) || len(got) > 14000 {
			t.Fatalf("seed %d: %d bytes", seed, len(got))
		}
		for i := range max(len(got), len(synced)) {
			in := (i >= 8000 && i < 14000) || (i >= 20 && i < 30)
			var g, w byte
			if i < len(got) {
				g = got[i]
			}
			if i < len(synced) {
				w = synced[i]
			}
			if !in && g != w {
				t.Fatalf("seed %d: byte %d outside every unsynced write changed (%q, was %q)", seed, i, g, w)
			}
		}
		// Pieces: [8000,8192) [8192,12288) [12288,14000) and [20,30),
		// the last written; each wholly kept or dropped, or garbage.
		for _, p := range [][3]int{{8000, 8192, 'c'}, {8192, 12288, 'c'}, {12288, 14000, 'c'}, {20, 30, 'd'}} {
			if p[0] >= len(got) {
				seen['-'] = true
				continue
			}
			piece, old := got[p[0]:min(p[1], len(got))], synced[min(p[0], len(synced)):min(p[1], len(synced))]
			switch {
			case bytes.Equal(piece, fill(byte(p[2]), len(piece))):
				seen['k'] = true
			case bytes.Equal(piece, old) || (len(old) == 0 && bytes.Equal(piece, make([]byte, len(piece)))):
				seen['d'] = true
			case p[2] == 'd':
				seen['g'] = true
			default:
				t.Fatalf("seed %d: piece %v torn inside: %q", seed, p, piece[:8])
			}
		}
		if im.Stats.Garbled > 0 && !bytes.Contains([]byte(im.Pattern), []byte("G")) {
			t.Errorf("pattern %q does not show the garbage", im.Pattern)
		}
	}
	for _, k := range []byte("kdg") {
		if !seen[k] {
			t.Errorf("torn never gave %q over 200 seeds: %v", k, seen)
		}
	}
}

// TestDirectoryChanges: a created file's entry is durable once it is
// synced; a deleted file comes back with its synced content until a
// directory sync makes the deletion durable.
func TestDirectoryChanges(t *testing.T) {
	s := newScript(t)
	s.open(1, "d.db", false, fill('a', 4096))
	s.rec(opBarrier, nil)
	s.open(2, "d.db-journal", true, nil)
	s.write(2, "d.db-journal", 0, fill('j', 1000))
	s.rec(opSyncBegin, func(e *enc) { e.u32(1); e.u32(2) })
	s.rec(opDirSyncBegin, func(e *enc) { e.u32(2) })
	s.rec(opSyncEnd, func(e *enc) { e.u32(1) })
	s.rec(opDirSyncEnd, func(e *enc) { e.u32(2) })
	// Deleted as SQLite's commit deletes its journal: kept under a link.
	keep := "d.db-journal" + keepSuffix + "2"
	if err := os.Link(s.path("d.db-journal"), s.path(keep)); err != nil {
		t.Fatal(err)
	}
	s.rec(opDelete, func(e *enc) { e.u32(2); e.str("d.db-journal"); e.str(keep) })
	os.Remove(s.path("d.db-journal"))
	// A WAL created and written, never synced.
	s.open(3, "d.db-wal", true, nil)
	s.write(3, "d.db-wal", 0, fill('w', 500))

	im := s.crash(LoseUnsynced, 1)
	if !bytes.Equal(im.Files["d.db-journal"], fill('j', 1000)) || !slices.Equal(im.Stats.Resurrected, []string{"d.db-journal"}) {
		t.Errorf("the deleted journal is not back: %v", im.Stats)
	}
	if _, ok := im.Files["d.db-wal"]; ok || !slices.Equal(im.Stats.Vanished, []string{"d.db-wal"}) {
		t.Errorf("an unsynced new file survived: %v", im.Stats)
	}
	back := 0
	for seed := range uint64(50) {
		if _, ok := s.crash(Torn, seed).Files["d.db-journal"]; ok {
			back++
		}
	}
	if back == 0 || back == 50 {
		t.Errorf("torn: the journal came back in %d of 50 crashes, want a prefix of the directory changes", back)
	}

	s.dirSync(4)
	if _, ok := s.crash(LoseUnsynced, 1).Files["d.db-journal"]; ok {
		t.Error("the journal came back after a directory sync")
	}

	out := t.TempDir()
	if err := im.WriteTo(out); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "d.db")); !bytes.Equal(b, fill('a', 4096)) {
		t.Error("WriteTo: d.db differs")
	}
}

// TestTornLogTail: a record cut short by the kill ends the log; what came
// before counts.
func TestTornLogTail(t *testing.T) {
	s := newScript(t)
	s.open(1, "d.db", false, fill('a', 100))
	s.rec(opBarrier, nil)
	s.write(1, "d.db", 0, fill('b', 10))
	s.e.begin(opWrite)
	s.e.u32(1)
	s.e.u64(50)
	fr := s.e.frame()
	s.lg.Write(fr[:len(fr)-3])
	recs, err := readLog(LogPath(s.db))
	if err != nil || len(recs) != 3 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	if got := s.crash(LoseUnsynced, 1).Files["d.db"]; !bytes.Equal(got, fill('a', 100)) {
		t.Errorf("got %q", got)
	}
}

// fakeFile claims every device characteristic.
type fakeFile struct{ vfs.File }

func (fakeFile) DeviceCharacteristics() vfs.DeviceCharacteristic { return ^vfs.DeviceCharacteristic(0) }
func (fakeFile) SectorSize() int                                 { return 512 }

// TestPromises: the VFS promises SQLite no atomic, sequential or
// safe-append writes, whatever the file system does: the torn model
// breaks them all. It keeps powersafe overwrite, which the model keeps.
func TestPromises(t *testing.T) {
	f := &file{File: fakeFile{}}
	dc := f.DeviceCharacteristics()
	for _, bad := range []vfs.DeviceCharacteristic{vfs.IOCAP_ATOMIC, vfs.IOCAP_ATOMIC512, vfs.IOCAP_ATOMIC4K, vfs.IOCAP_ATOMIC64K,
		vfs.IOCAP_SAFE_APPEND, vfs.IOCAP_SEQUENTIAL, vfs.IOCAP_BATCH_ATOMIC, vfs.IOCAP_IMMUTABLE} {
		if dc&bad != 0 {
			t.Errorf("promises %#x", bad)
		}
	}
	if dc&vfs.IOCAP_POWERSAFE_OVERWRITE == 0 || f.SectorSize() != SectorSize {
		t.Errorf("characteristics %#x, sector %d", dc, f.SectorSize())
	}
}
