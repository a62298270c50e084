package crashfs

import (
	"bytes"
	"fmt"
	"testing"
)

// logOf builds a log of hand-made records.
func logOf(ops ...Op) *Log { return &Log{Ops: ops} }

func fill(c byte, n int) []byte { return bytes.Repeat([]byte{c}, n) }

func rebuild(t *testing.T, l *Log, m Model, d Device, seed uint64) *Image {
	t.Helper()
	im, err := Rebuild(l, Power{Model: m, Device: d, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return im
}

// TestTornAtEachSectorBoundary: an unsynced write over three sectors
// (starting mid-sector) is cut at each sector boundary; over many seeds
// every piece is seen kept and dropped, a kept piece holds exactly the
// written bytes, a dropped one the old ones, and no byte outside the
// write changes (powersafe overwrite).
func TestTornAtEachSectorBoundary(t *testing.T) {
	for _, sector := range []int{512, 4096} {
		t.Run(fmt.Sprint(sector), func(t *testing.T) {
			d := Device{SectorSize: sector, PowersafeOverwrite: true, DirSyncNeeded: true, AtomicSector: true}
			old := fill('o', 4*sector)
			off := int64(sector / 2)
			data := fill('n', 2*sector+sector/4)
			l := logOf(Op{Kind: Base, File: 1, Path: "db", Data: old},
				Op{Kind: Write, File: 1, Off: off, Data: data, Before: old[off : off+int64(len(data))], Size: int64(len(old))})
			// pieces: [s/2, s), [s, 2s), [2s, 2s+3s/4)
			bounds := [][2]int{{sector / 2, sector}, {sector, 2 * sector}, {2 * sector, 2*sector + 3*sector/4}}
			seen := map[string]bool{}
			for seed := uint64(0); seed < 64; seed++ {
				im := rebuild(t, l, Torn, d, seed)
				b := im.Files["db"]
				if len(b) != len(old) || im.Stats.Pieces != 3 || im.Stats.Garbled != 0 || im.Stats.Mismatches != 0 {
					t.Fatalf("seed %d: %d bytes, stats %+v", seed, len(b), im.Stats)
				}
				if !bytes.Equal(b[:sector/2], old[:sector/2]) || !bytes.Equal(b[bounds[2][1]:], old[bounds[2][1]:]) {
					t.Fatalf("seed %d: bytes outside the write changed", seed)
				}
				for k, bd := range bounds {
					p := b[bd[0]:bd[1]]
					switch {
					case bytes.Equal(p, fill('n', len(p))):
						seen[fmt.Sprint(k, "kept")] = true
					case bytes.Equal(p, fill('o', len(p))):
						seen[fmt.Sprint(k, "dropped")] = true
					default:
						t.Fatalf("seed %d: piece %d mixes old and new bytes within a sector", seed, k)
					}
				}
			}
			if len(seen) != 6 {
				t.Errorf("over 64 seeds saw %v, want each piece kept and dropped", seen)
			}
		})
	}
}

// TestTornGarbles: without atomic sectors the last piece written may hold
// garbage, within the write with powersafe overwrite, over its whole
// sector without it.
func TestTornGarbles(t *testing.T) {
	old := fill('o', 1024)
	l := logOf(Op{Kind: Base, File: 1, Path: "db", Data: old},
		Op{Kind: Write, File: 1, Off: 100, Data: fill('n', 10), Before: old[100:110], Size: 1024})
	for _, ps := range []bool{true, false} {
		d := Device{SectorSize: 512, PowersafeOverwrite: ps}
		found := false
		for seed := uint64(0); seed < 64 && !found; seed++ {
			im := rebuild(t, l, Torn, d, seed)
			if im.Stats.Garbled == 0 {
				continue
			}
			found = true
			b := im.Files["db"]
			outside := !bytes.Equal(b[:100], old[:100]) || !bytes.Equal(b[110:512], old[110:512])
			if ps && outside {
				t.Errorf("powersafe: a garbled piece changed bytes outside the write")
			}
			if !ps && !outside {
				t.Errorf("no-powersafe: the garbled sector kept every byte outside the write")
			}
			if !bytes.Equal(b[512:], old[512:]) {
				t.Errorf("the next sector changed")
			}
		}
		if !found {
			t.Errorf("powersafe %v: no seed garbled the last piece", ps)
		}
	}
}

// TestLoseUnsyncedAndSync: the disk holds what each file's last sync
// covered: a write before the sync is there, one after is not.
func TestLoseUnsyncedAndSync(t *testing.T) {
	l := logOf(Op{Kind: Base, File: 1, Path: "db", Data: fill('o', 8)},
		Op{Kind: Write, File: 1, Off: 0, Data: []byte("ab"), Before: []byte("oo"), Size: 8},
		Op{Kind: DataSync, File: 1},
		Op{Kind: Write, File: 1, Off: 2, Data: []byte("cd"), Before: []byte("oo"), Size: 8},
		Op{Kind: Truncate, File: 1, NewSize: 4, Size: 8, Before: []byte("oooo")})
	for _, m := range Models {
		im := rebuild(t, l, m, DefaultDevice, 3)
		b := string(im.Files["db"])
		if m == LoseUnsynced && b != "aboooooo" {
			t.Errorf("%s: %q, want aboooooo", m, b)
		}
		if b[:2] != "ab" {
			t.Errorf("%s: %q lost a synced write", m, b)
		}
	}
}

// TestReorder: the sectors dirtied since the last sync land in any order:
// over seeds, a later write's sector is seen without an earlier one's,
// each sector holds its latest contents or its synced ones, and a file's
// growth is one unit.
func TestReorder(t *testing.T) {
	d := Device{SectorSize: 512, PowersafeOverwrite: true, DirSyncNeeded: true, AtomicSector: true}
	l := logOf(Op{Kind: Base, File: 1, Path: "db", Data: fill('o', 1024)},
		Op{Kind: Write, File: 1, Off: 0, Data: fill('a', 512), Before: fill('o', 512), Size: 1024},
		Op{Kind: Write, File: 1, Off: 512, Data: fill('b', 512), Before: fill('o', 512), Size: 1024},
		Op{Kind: Write, File: 1, Off: 0, Data: fill('c', 512), Before: fill('a', 512), Size: 1024},
		Op{Kind: Write, File: 1, Off: 1024, Data: fill('d', 512), Before: nil, Size: 1024})
	laterOnly, grown := false, false
	for seed := uint64(0); seed < 64; seed++ {
		im := rebuild(t, l, Reorder, d, seed)
		b := im.Files["db"]
		s0, s1 := b[:512], b[512:1024]
		if !bytes.Equal(s0, fill('o', 512)) && !bytes.Equal(s0, fill('c', 512)) {
			t.Fatalf("seed %d: sector 0 holds %q..., want its synced or latest contents", seed, s0[:4])
		}
		if !bytes.Equal(s1, fill('o', 512)) && !bytes.Equal(s1, fill('b', 512)) {
			t.Fatalf("seed %d: sector 1 holds %q...", seed, s1[:4])
		}
		if bytes.Equal(s0, fill('c', 512)) && bytes.Equal(s1, fill('o', 512)) {
			laterOnly = true
		}
		switch len(b) {
		case 1536:
			grown = true
		case 1024:
		default:
			t.Fatalf("seed %d: %d bytes", seed, len(b))
		}
		if im.Stats.Pieces != 4 {
			t.Fatalf("seed %d: %d units, want 3 sectors and the growth", seed, im.Stats.Pieces)
		}
	}
	if !laterOnly || !grown {
		t.Errorf("over 64 seeds: later write alone %v, growth %v", laterOnly, grown)
	}
}

// TestDirectoryEntries: a file created, and an unlink, survive a power
// cut only after a directory fsync when the device says so; without one
// lose-unsynced loses them: the created file is gone, the unlinked file is
// back with its synced contents. Without the need, both are durable.
func TestDirectoryEntries(t *testing.T) {
	l := logOf(Op{Kind: Base, File: 1, Path: "db", Data: []byte("data")},
		Op{Kind: Base, File: 2, Path: "db-journal", Data: []byte("jrnl")},
		Op{Kind: Create, File: 3, Path: "db-wal"},
		Op{Kind: Write, File: 3, Off: 0, Data: []byte("wal"), Size: 0},
		Op{Kind: Sync, File: 3},
		Op{Kind: Unlink, File: 2, Path: "db-journal"})
	im := rebuild(t, l, LoseUnsynced, DefaultDevice, 1)
	if _, ok := im.Files["db-wal"]; ok || string(im.Files["db-journal"]) != "jrnl" || len(im.Files) != 2 {
		t.Errorf("no directory fsync: %q, want db and db-journal back, no db-wal", im.Files)
	}
	if len(im.Stats.Resurrected) != 1 || len(im.Stats.Vanished) != 1 {
		t.Errorf("stats %+v", im.Stats)
	}
	synced := logOf(append(append([]Op(nil), l.Ops...), Op{Kind: DirSync, Path: ""})...)
	im = rebuild(t, synced, LoseUnsynced, DefaultDevice, 1)
	if string(im.Files["db-wal"]) != "wal" || len(im.Files) != 2 {
		t.Errorf("after a directory fsync: %q, want db and db-wal", im.Files)
	}
	d := DefaultDevice
	d.DirSyncNeeded = false
	im = rebuild(t, l, LoseUnsynced, d, 1)
	if string(im.Files["db-wal"]) != "wal" || len(im.Files) != 2 {
		t.Errorf("entries durable at once: %q, want db and db-wal", im.Files)
	}
	// A directory fsync of another directory covers nothing here.
	other := logOf(append(append([]Op(nil), l.Ops...), Op{Kind: DirSync, Path: "sub"})...)
	if im = rebuild(t, other, LoseUnsynced, DefaultDevice, 1); len(im.Files["db-journal"]) == 0 {
		t.Errorf("a sync of sub/ made an unlink in the root durable")
	}
}

// TestRenameAtomic: a rename over an existing file is all or nothing:
// over seeds the target holds the old file or the new one, never neither,
// and the source exists exactly when the target is still the old file.
func TestRenameAtomic(t *testing.T) {
	l := logOf(Op{Kind: Base, File: 1, Path: "cfg", Data: []byte("old")},
		Op{Kind: Create, File: 2, Path: "cfg.tmp"},
		Op{Kind: Write, File: 2, Off: 0, Data: []byte("new"), Size: 0},
		Op{Kind: Sync, File: 2},
		Op{Kind: DirSync, Path: ""},
		Op{Kind: Rename, File: 2, Path: "cfg.tmp", NewPath: "cfg", Replaced: 1})
	seen := map[string]bool{}
	for seed := uint64(0); seed < 32; seed++ {
		im := rebuild(t, l, Torn, DefaultDevice, seed)
		cfg, tmp := im.Files["cfg"], im.Files["cfg.tmp"]
		_, hasTmp := im.Files["cfg.tmp"]
		switch {
		case string(cfg) == "new" && !hasTmp:
			seen["renamed"] = true
		case string(cfg) == "old" && string(tmp) == "new":
			seen["not yet"] = true
		default:
			t.Fatalf("seed %d: cfg %q, cfg.tmp %q (present %v): a torn rename", seed, cfg, tmp, hasTmp)
		}
	}
	if len(seen) != 2 {
		t.Errorf("saw %v, want both outcomes", seen)
	}
}

// TestSameSeedSameDisk: the rebuild is a pure function: the same log and
// seed give byte-identical files and the same pattern, also after the
// log is saved and loaded; another seed gives another pattern.
func TestSameSeedSameDisk(t *testing.T) {
	var ops []Op
	ops = append(ops, Op{Kind: Base, File: 1, Path: "db", Data: fill('o', 16384)})
	cur := fill('o', 16384)
	for i := 0; i < 40; i++ {
		off := int64(i*997) % 16000
		data := fill(byte('a'+i%26), 300+i*7)
		end := min(off+int64(len(data)), int64(len(cur)))
		ops = append(ops, Op{Kind: Write, File: 1, Off: off, Data: data, Before: append([]byte(nil), cur[off:end]...), Size: int64(len(cur))})
		cur = apply(cur, ops[len(ops)-1])
		if i%13 == 12 {
			ops = append(ops, Op{Kind: Sync, File: 1})
		}
	}
	l := logOf(ops...)
	path := t.TempDir() + "/log"
	if err := l.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	l2, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range Models {
		a := rebuild(t, l, m, DefaultDevice, 42)
		b := rebuild(t, l2, m, DefaultDevice, 42)
		if !bytes.Equal(a.Files["db"], b.Files["db"]) || a.Pattern != b.Pattern {
			t.Errorf("%s: the same seed rebuilt different files", m)
		}
		if a.Stats.Mismatches != 0 {
			t.Errorf("%s: %d mismatches in a consistent log", m, a.Stats.Mismatches)
		}
		if m != LoseUnsynced && rebuild(t, l, m, DefaultDevice, 43).Pattern == a.Pattern {
			t.Errorf("%s: seeds 42 and 43 took the same decisions", m)
		}
	}
	// Undo, record by record from the end, takes the file back to its
	// base: what each write overwrote is in the log.
	b := append([]byte(nil), cur...)
	for i := len(ops) - 1; i >= 0; i-- {
		b = Undo(b, ops[i])
	}
	if !bytes.Equal(b, fill('o', 16384)) {
		t.Errorf("undoing the log does not give the base back")
	}
	// A record that disagrees with the log before it is counted.
	bad := logOf(append(append([]Op(nil), ops...), Op{Kind: Write, File: 1, Off: 0, Data: []byte("x"), Before: []byte("?"), Size: 16384})...)
	if im := rebuild(t, bad, Torn, DefaultDevice, 1); im.Stats.Mismatches != 1 {
		t.Errorf("%d mismatches, want 1", im.Stats.Mismatches)
	}
}

// TestCut: a crash point cuts the log before the N-th sync of a file (it
// never completes) or after its N-th write (in flight).
func TestCut(t *testing.T) {
	l := logOf(Op{Kind: Base, File: 1, Path: "x.db"},
		Op{Kind: Create, File: 2, Path: "x.db-wal"},
		Op{Kind: Write, File: 2}, Op{Kind: Sync, File: 2},
		Op{Kind: Write, File: 1}, Op{Kind: Sync, File: 1},
		Op{Kind: Write, File: 2}, Op{Kind: Sync, File: 2}, Op{Kind: Write, File: 2})
	for _, c := range []struct {
		point string
		n     int
		ok    bool
	}{{"sync:wal:1", 3, true}, {"sync:wal:2", 7, true}, {"sync:db:1", 5, true}, {"write:wal:3", 9, true}, {"write:db:1", 5, true}, {"sync:wal:3", 9, false}, {"write:journal:1", 9, false}} {
		p, err := ParsePoint(c.point)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := Cut(l, p, "x.db", 1)
		if len(got.Ops) != c.n || ok != c.ok {
			t.Errorf("%s: %d records (%v), want %d (%v)", c.point, len(got.Ops), ok, c.n, c.ok)
		}
	}
	p, _ := ParsePoint("write:wal:*")
	for seed := uint64(0); seed < 8; seed++ {
		got, ok := Cut(l, p, "x.db", seed)
		if n := len(got.Ops); !ok || (n != 3 && n != 7 && n != 9) {
			t.Errorf("write:wal:* seed %d: %d records", seed, n)
		}
	}
	for _, bad := range []string{"sync:wal", "sync:wal:0", "flush:db:1", "sync::1"} {
		if _, err := ParsePoint(bad); err == nil {
			t.Errorf("ParsePoint(%q) accepted", bad)
		}
	}
}

// TestReorderPowersafe: the sector being written when the power went may
// hold garbage, but with powersafe overwrite only in the bytes written
// since the sync: a synced record sharing the sector survives (SQLite's
// WAL frames, 4096+24 bytes, share sectors and rely on it).
func TestReorderPowersafe(t *testing.T) {
	synced := append(fill('s', 300), fill('o', 212)...)
	l := logOf(Op{Kind: Base, File: 1, Path: "wal", Data: synced},
		Op{Kind: Write, File: 1, Off: 300, Data: fill('n', 212), Before: fill('o', 212), Size: 512})
	for _, ps := range []bool{true, false} {
		d := Device{SectorSize: 512, PowersafeOverwrite: ps}
		garbled := false
		for seed := uint64(0); seed < 64; seed++ {
			im := rebuild(t, l, Reorder, d, seed)
			if im.Stats.Garbled == 0 {
				continue
			}
			garbled = true
			kept := bytes.Equal(im.Files["wal"][:300], fill('s', 300))
			if ps != kept {
				t.Errorf("powersafe %v: synced bytes kept %v after garbage", ps, kept)
			}
		}
		if !garbled {
			t.Errorf("powersafe %v: no seed garbled the sector", ps)
		}
	}
}

// TestUnnamedFile: a file the log met open but unlinked has no name on
// the disk: its writes are rebuilt, and no file appears for it.
func TestUnnamedFile(t *testing.T) {
	l := logOf(Op{Kind: Base, File: 1, Path: "db", Data: []byte("d")},
		Op{Kind: Base, File: 2, Data: []byte("x")},
		Op{Kind: Write, File: 2, Off: 0, Data: []byte("y"), Before: []byte("x"), Size: 1},
		Op{Kind: Sync, File: 2})
	im := rebuild(t, l, Torn, DefaultDevice, 1)
	if len(im.Files) != 1 || string(im.Files["db"]) != "d" || im.Stats.Mismatches != 0 {
		t.Errorf("%q, stats %+v: want db alone", im.Files, im.Stats)
	}
}
