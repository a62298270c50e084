package crashfs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Model is what a power cut does to what no sync covered.
type Model string

// Models.
const (
	// LoseUnsynced: the disk holds exactly what was synced.
	LoseUnsynced Model = "lose-unsynced"
	// Torn: each unsynced write is cut at sector boundaries and each
	// piece is kept or dropped (even odds), in issue order; the last
	// piece written to each file may instead hold garbage unless sector
	// writes are atomic (after SQLite's test6.c). An unsynced truncation
	// happens or not.
	Torn Model = "torn"
	// Reorder: the device's cache writes the sectors dirtied since each
	// file's last sync (their latest contents, over every file) in a
	// seeded random order, and the power goes after a seeded number of
	// them; the sector being written then may hold garbage unless sector
	// writes are atomic. A file's size change is one more such unit.
	Reorder Model = "reorder"
)

// Models lists the models.
var Models = []Model{Torn, LoseUnsynced, Reorder}

// ParseModel checks a model's name.
func ParseModel(s string) (Model, error) {
	for _, m := range Models {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown power model %q (known: torn, lose-unsynced, reorder)", s)
}

// Device is what the simulated disk promises.
type Device struct {
	// SectorSize is the unit of tearing and reordering (512 or 4096).
	SectorSize int
	// AtomicSector: a sector is written whole or not at all, never
	// garbled.
	AtomicSector bool
	// PowersafeOverwrite: a write never changes bytes outside it; without
	// it, a garbled piece garbles its whole sector.
	PowersafeOverwrite bool
	// DirSyncNeeded: a creation, rename or unlink survives only once an
	// fsync of its directory follows; without it, it is durable at once.
	DirSyncNeeded bool
}

// DefaultDevice is a 4096-byte-sector disk without atomic sectors, with
// powersafe overwrite, whose directory entries need a directory fsync:
// what SQLite's unix VFS assumes of a disk.
var DefaultDevice = Device{SectorSize: 4096, PowersafeOverwrite: true, DirSyncNeeded: true}

// ParseDevice reads a device: a comma list of sector=512|4096, atomic,
// powersafe / no-powersafe, dirsync / no-dirsync, over DefaultDevice.
func ParseDevice(s string) (Device, error) {
	d := DefaultDevice
	for _, f := range strings.Split(s, ",") {
		switch f = strings.TrimSpace(f); f {
		case "":
		case "atomic":
			d.AtomicSector = true
		case "powersafe":
			d.PowersafeOverwrite = true
		case "no-powersafe":
			d.PowersafeOverwrite = false
		case "dirsync":
			d.DirSyncNeeded = true
		case "no-dirsync":
			d.DirSyncNeeded = false
		case "sector=512":
			d.SectorSize = 512
		case "sector=4096":
			d.SectorSize = 4096
		default:
			return d, fmt.Errorf("--disk %q: unknown %q; want sector=512 or sector=4096, atomic, powersafe or no-powersafe, dirsync or no-dirsync", s, f)
		}
	}
	return d, nil
}

func (d Device) String() string {
	s := "sector=" + strconv.Itoa(d.SectorSize)
	if d.AtomicSector {
		s += ",atomic"
	}
	if d.PowersafeOverwrite {
		s += ",powersafe"
	} else {
		s += ",no-powersafe"
	}
	if d.DirSyncNeeded {
		s += ",dirsync"
	} else {
		s += ",no-dirsync"
	}
	return s
}

// Power is a power cut: a model on a device, and the seed of its choices.
type Power struct {
	Model  Model
	Device Device
	Seed   uint64
}

// Stats count what the model did.
type Stats struct {
	// Writes unsynced; their Pieces (sectors for Reorder), of which Kept
	// reached the disk, Dropped did not and Garbled hold garbage.
	Writes, Pieces, Kept, Dropped, Garbled int
	// Truncations unsynced (size changes for Reorder), of which TruncKept
	// happened.
	Truncations, TruncKept int
	// DirChanges unsynced (creations, renames, unlinks), of which DirKept
	// are durable.
	DirChanges, DirKept int
	// Resurrected are paths removed or renamed away that are back;
	// Vanished paths that existed at the cut and are gone.
	Resurrected, Vanished []string
	// Mismatches counts writes and truncations whose recorded previous
	// bytes differ from what the log before them implies: 0 for a
	// complete log.
	Mismatches int
}

// Image is what the disk holds after the power cut: each file's contents
// by path.
type Image struct {
	Files map[string][]byte
	Stats Stats
	// Pattern records every decision the model took, in order: the same
	// log and power give the same pattern.
	Pattern string
}

// Digest is a hash of the image's files, names and contents (SHA-256, the
// first 16 hex digits): equal digests, byte-identical disks.
func (im *Image) Digest() string {
	names := make([]string, 0, len(im.Files))
	for n := range im.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(im.Files[n]))
		h.Write(im.Files[n])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

type file struct {
	durable []byte // what the last sync left
	live    []byte // what the process saw
	pending []Op   // writes and truncations since the last sync
	pos     []int  // their positions in the log
}

// Rebuild works out what the disk holds after a power cut at the end of
// log l under p. It is a pure function of its arguments.
func Rebuild(l *Log, p Power) (*Image, error) {
	if _, err := ParseModel(string(p.Model)); err != nil {
		return nil, err
	}
	sector := int64(p.Device.SectorSize)
	if sector <= 0 {
		return nil, fmt.Errorf("sector size %d: want 512 or 4096", sector)
	}
	files := map[int]*file{}
	live := map[string]int{}    // the names as the processes saw them
	durable := map[string]int{} // the names on disk
	var dirOps []Op             // entry changes no directory sync has covered
	var dirPos []int            // their positions in the log
	im := &Image{Files: map[string][]byte{}}
	st := &im.Stats
	get := func(id int) *file {
		f := files[id]
		if f == nil {
			f = &file{}
			files[id] = f
		}
		return f
	}
	var pos int
	entry := func(o Op) {
		if p.Device.DirSyncNeeded {
			dirOps = append(dirOps, o)
			dirPos = append(dirPos, pos)
		} else {
			applyDir(durable, o)
		}
	}
	for i, o := range l.Ops {
		pos = i
		// A sync covers what was logged before it began.
		covered := func(j int) bool { return o.Covers == 0 || j < o.Covers-1 }
		switch o.Kind {
		case Base:
			f := get(o.File)
			f.durable, f.live = clone(o.Data), clone(o.Data)
			if o.Path != "" { // "": a file open without a name (unlinked)
				live[o.Path], durable[o.Path] = o.File, o.File
			}
		case Create:
			get(o.File)
			live[o.Path] = o.File
			entry(o)
		case Write, Truncate:
			f := get(o.File)
			if !matches(f.live, o) {
				st.Mismatches++
			}
			f.live = apply(f.live, o)
			f.pending = append(f.pending, o)
			f.pos = append(f.pos, i)
		case Sync, DataSync:
			f := get(o.File)
			var keep []Op
			var keepPos []int
			for k, w := range f.pending {
				if covered(f.pos[k]) && len(keep) == 0 {
					f.durable = apply(f.durable, w)
				} else {
					keep, keepPos = append(keep, w), append(keepPos, f.pos[k])
				}
			}
			f.pending, f.pos = keep, keepPos
		case DirSync:
			var keep []Op
			var keepPos []int
			for k, d := range dirOps {
				mine := parent(d.Path) == o.Path || (d.Kind == Rename && parent(d.NewPath) == o.Path)
				if mine && covered(dirPos[k]) {
					applyDir(durable, d)
				} else {
					keep, keepPos = append(keep, d), append(keepPos, dirPos[k])
				}
			}
			dirOps, dirPos = keep, keepPos
		case Unlink:
			if live[o.Path] == o.File {
				delete(live, o.Path)
			}
			entry(o)
		case Rename:
			if live[o.Path] == o.File {
				delete(live, o.Path)
			}
			live[o.NewPath] = o.File
			entry(o)
		default:
			return nil, fmt.Errorf("crash log record %d: unknown kind %d", i, o.Kind)
		}
	}

	rng := rand.New(rand.NewPCG(p.Seed, 0x6372617368667321))
	var pat strings.Builder

	// Directory changes reach the disk in order (file systems journal
	// their metadata): a prefix of them is durable.
	final := cloneNames(durable)
	st.DirChanges = len(dirOps)
	n := 0
	if p.Model != LoseUnsynced && len(dirOps) > 0 {
		n = rng.IntN(len(dirOps) + 1)
	}
	for _, o := range dirOps[:n] {
		applyDir(final, o)
	}
	st.DirKept = n
	fmt.Fprintf(&pat, "dir %d/%d;", n, len(dirOps))

	ids := make([]int, 0, len(files))
	for id := range files {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	data := map[int][]byte{}
	switch p.Model {
	case LoseUnsynced:
		for _, id := range ids {
			f := files[id]
			for _, o := range f.pending {
				if o.Kind == Write {
					st.Writes++
					st.Pieces += len(pieces(o, sector))
					st.Dropped += len(pieces(o, sector))
				} else {
					st.Truncations++
				}
			}
			data[id] = f.durable
		}
	case Torn:
		for _, id := range ids {
			data[id] = tear(files[id], id, p.Device, rng, st, &pat)
		}
	case Reorder:
		reorder(files, ids, data, p.Device, rng, st, &pat)
	}

	var names []string
	for k := range live {
		names = append(names, k)
	}
	for k := range final {
		if _, ok := live[k]; !ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		id, ok := final[name]
		if !ok {
			st.Vanished = append(st.Vanished, name)
			continue
		}
		if live[name] != id {
			st.Resurrected = append(st.Resurrected, name)
		}
		im.Files[name] = clone(data[id])
	}
	im.Pattern = pat.String()
	return im, nil
}

// parent is the directory of a path relative to the mount ("" for the
// root).
func parent(p string) string {
	d := path.Dir(p)
	if d == "." || d == "/" {
		return ""
	}
	return d
}

// applyDir makes an entry change durable in names.
func applyDir(names map[string]int, o Op) {
	switch o.Kind {
	case Create:
		names[o.Path] = o.File
	case Unlink:
		if names[o.Path] == o.File {
			delete(names, o.Path)
		}
	case Rename:
		if names[o.Path] == o.File {
			delete(names, o.Path)
		}
		names[o.NewPath] = o.File
	}
}

// matches reports whether o's recorded previous state agrees with b.
func matches(b []byte, o Op) bool {
	if int64(len(b)) != o.Size {
		return false
	}
	var lo int64
	switch o.Kind {
	case Write:
		lo = o.Off
	case Truncate:
		lo = o.NewSize
	}
	if lo > int64(len(b)) {
		return len(o.Before) == 0
	}
	hi := min(lo+int64(len(o.Before)), int64(len(b)))
	return string(b[lo:hi]) == string(o.Before)
}

// apply returns b with o done (b may be reused).
func apply(b []byte, o Op) []byte {
	switch o.Kind {
	case Write:
		b = grow(b, o.Off+int64(len(o.Data)))
		copy(b[o.Off:], o.Data)
	case Truncate:
		b = resize(b, o.NewSize)
	}
	return b
}

// Undo takes b, a file as op o left it, back to what it was before o,
// from the bytes o records. A log's writes and truncations undone in
// reverse order take a file back to its state at any earlier point.
func Undo(b []byte, o Op) []byte {
	switch o.Kind {
	case Write:
		b = grow(b, o.Off+int64(len(o.Before)))
		copy(b[o.Off:], o.Before)
		b = resize(b, o.Size)
	case Truncate:
		b = resize(b, o.Size)
		if o.NewSize < o.Size {
			copy(b[o.NewSize:], o.Before)
		}
	}
	return b
}

type piece struct{ lo, hi int64 }

// pieces cuts a write at sector boundaries.
func pieces(o Op, sector int64) []piece {
	var out []piece
	end := o.Off + int64(len(o.Data))
	for q := o.Off; q < end; {
		r := min((q/sector+1)*sector, end)
		out = append(out, piece{q, r})
		q = r
	}
	return out
}

// garble fills [lo, hi) of b with garbage, or its whole sectors when
// overwrites are not powersafe.
func garble(b []byte, lo, hi int64, d Device, rng *rand.Rand) []byte {
	if !d.PowersafeOverwrite {
		s := int64(d.SectorSize)
		lo = lo / s * s
		hi = min((hi+s-1)/s*s, max(int64(len(b)), hi))
	}
	b = grow(b, hi)
	for k := lo; k < hi; k++ {
		b[k] = byte(rng.Uint32())
	}
	return b
}

// tear applies f's unsynced writes and truncations to its durable
// contents piece by piece, as the torn model decides.
func tear(f *file, id int, d Device, rng *rand.Rand, st *Stats, pat *strings.Builder) []byte {
	b := clone(f.durable)
	last := -1
	for i, o := range f.pending {
		if o.Kind == Write {
			last = i
		}
	}
	fmt.Fprintf(pat, "%d:", id)
	sector := int64(d.SectorSize)
	for i, o := range f.pending {
		switch o.Kind {
		case Truncate:
			st.Truncations++
			if rng.IntN(2) == 0 {
				st.TruncKept++
				b = resize(b, o.NewSize)
				pat.WriteByte('T')
			} else {
				pat.WriteByte('t')
			}
		case Write:
			st.Writes++
			ps := pieces(o, sector)
			for k, pc := range ps {
				st.Pieces++
				choices := 2
				if i == last && k == len(ps)-1 && !d.AtomicSector {
					choices = 3 // the sector being written when the power went
				}
				switch rng.IntN(choices) {
				case 0:
					st.Kept++
					b = grow(b, pc.hi)
					copy(b[pc.lo:pc.hi], o.Data[pc.lo-o.Off:pc.hi-o.Off])
					pat.WriteByte('K')
				case 1:
					st.Dropped++
					pat.WriteByte('d')
				case 2:
					st.Garbled++
					b = garble(b, pc.lo, pc.hi, d, rng)
					pat.WriteByte('G')
				}
			}
		}
		pat.WriteByte(' ')
	}
	pat.WriteByte(';')
	return b
}

// unit is a dirty sector of a file, or its size change (sector -1).
type unit struct {
	id     int
	sector int64
}

// reorder writes the dirty sectors of every file in a seeded order and
// stops after a seeded number of them.
func reorder(files map[int]*file, ids []int, data map[int][]byte, d Device, rng *rand.Rand, st *Stats, pat *strings.Builder) {
	sector := int64(d.SectorSize)
	var units []unit
	for _, id := range ids {
		f := files[id]
		data[id] = clone(f.durable)
		if len(f.pending) == 0 {
			continue
		}
		for _, o := range f.pending {
			if o.Kind == Write {
				st.Writes++
			}
		}
		end := int64(max(len(f.durable), len(f.live)))
		for s := int64(0); s*sector < end; s++ {
			lo, hi := s*sector, min((s+1)*sector, end)
			if string(window(f.durable, lo, hi)) != string(window(f.live, lo, hi)) {
				units = append(units, unit{id, s})
			}
		}
		if len(f.durable) != len(f.live) {
			units = append(units, unit{id, -1})
			st.Truncations++
		}
	}
	st.Pieces = len(units)
	rng.Shuffle(len(units), func(i, j int) { units[i], units[j] = units[j], units[i] })
	n := 0
	if len(units) > 0 {
		n = rng.IntN(len(units) + 1)
	}
	sizes := map[int]int64{}
	for _, id := range ids {
		sizes[id] = int64(len(files[id].durable))
	}
	for i, u := range units {
		f := files[u.id]
		b := data[u.id]
		switch {
		case i < n && u.sector < 0:
			sizes[u.id] = int64(len(f.live))
			st.TruncKept++
			fmt.Fprintf(pat, "%d:S ", u.id)
		case i < n:
			lo, hi := u.sector*sector, min((u.sector+1)*sector, int64(len(f.live)))
			b = grow(b, (u.sector+1)*sector)
			copy(b[lo:], window(f.live, lo, hi))
			if hi < (u.sector+1)*sector {
				for k := hi; k < (u.sector+1)*sector; k++ {
					b[k] = 0
				}
			}
			st.Kept++
			fmt.Fprintf(pat, "%d:%d ", u.id, u.sector)
		case i == n && u.sector >= 0 && !d.AtomicSector && rng.IntN(2) == 0:
			// The sector being written when the power went: with
			// powersafe overwrite only the bytes written since the sync
			// (those that differ) may hold garbage, else the whole sector.
			lo, hi := u.sector*sector, (u.sector+1)*sector
			b = grow(b, hi)
			for k := lo; k < hi; k++ {
				if !d.PowersafeOverwrite || byteAt(f.durable, k) != byteAt(f.live, k) || k >= int64(len(f.durable)) {
					b[k] = byte(rng.Uint32())
				}
			}
			st.Garbled++
			fmt.Fprintf(pat, "%d:%dG ", u.id, u.sector)
		default:
			if u.sector >= 0 {
				st.Dropped++
			}
		}
		data[u.id] = b
	}
	for _, id := range ids {
		data[id] = resize(data[id], sizes[id])
	}
	fmt.Fprintf(pat, "reorder %d/%d;", n, len(units))
}

// byteAt is b[k], or 0 past its end.
func byteAt(b []byte, k int64) byte {
	if k < int64(len(b)) {
		return b[k]
	}
	return 0
}

// window is b[lo:hi] as far as b reaches.
func window(b []byte, lo, hi int64) []byte {
	if lo >= int64(len(b)) {
		return nil
	}
	return b[lo:min(hi, int64(len(b)))]
}

func grow(b []byte, n int64) []byte {
	if int64(len(b)) >= n {
		return b
	}
	return append(b, make([]byte, n-int64(len(b)))...)
}

func resize(b []byte, n int64) []byte {
	if int64(len(b)) >= n {
		return b[:n]
	}
	return grow(b, n)
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }

func cloneNames(m map[string]int) map[string]int {
	c := make(map[string]int, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
