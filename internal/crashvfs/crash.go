package crashvfs

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Model is what a power cut does to what no sync covered.
type Model string

// Models.
const (
	// LoseUnsynced drops every write, truncation and directory change
	// that no sync covered: the disk holds exactly what was synced.
	LoseUnsynced Model = "lose-unsynced"
	// Torn keeps, drops or garbles each unsynced sector-sized piece of a
	// write independently, following SQLite's crash test (test6.c):
	// every piece is kept or dropped, and the last piece written to each
	// file may instead hold garbage; an unsynced truncation happens or
	// not; a prefix of the unsynced directory changes is durable.
	Torn Model = "torn"
)

// Models lists the models, the default first.
var Models = []Model{Torn, LoseUnsynced}

// ParseModel checks a model's name.
func ParseModel(s string) (Model, error) {
	for _, m := range Models {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown power model %q (known: torn, lose-unsynced)", s)
}

// Image is what the disk holds after the power cut: the content of each of
// the database's files, by base name. Files the log knew that do not
// survive are absent.
type Image struct {
	Files map[string][]byte
	Stats Stats
	// Pattern records every decision the model took, in order: the same
	// log, model and seed give the same pattern.
	Pattern string
}

// Stats count what the model did.
type Stats struct {
	// Writes is the number of unsynced writes; Pieces their sector-sized
	// pieces, of which Kept were written, Dropped lost and Garbled
	// filled with garbage.
	Writes, Pieces, Kept, Dropped, Garbled int
	// Truncations unsynced, of which TruncKept happened.
	Truncations, TruncKept int
	// DirChanges unsynced (file creations and deletions), of which
	// DirKept are durable.
	DirChanges, DirKept int
	// Resurrected names deleted files that are back; Vanished names files
	// that existed at the cut and are gone.
	Resurrected, Vanished []string
}

type inode struct {
	id      uint32
	name    string
	pending []record // writes and truncations no sync has covered
	deleted bool
	keep    string
}

// Crash works out what a disk would hold had the power gone when the
// process writing the database at db was killed, from the files as they
// are and the crash log, under model m with the given seed. It changes
// nothing on disk.
func Crash(db string, m Model, seed uint64) (*Image, error) {
	if _, err := ParseModel(string(m)); err != nil {
		return nil, err
	}
	recs, err := readLog(LogPath(db))
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(db)
	inodes := map[uint32]*inode{}
	bound := map[string]uint32{}   // names as the process left them
	durable := map[string]uint32{} // names as the last directory sync left them
	var dirOps []record            // creations and deletions no directory sync has covered
	begins := map[uint32]record{}
	for _, r := range recs {
		switch r.op {
		case opOpen, opCreate:
			inodes[r.inode] = &inode{id: r.inode, name: r.name}
			bound[r.name] = r.inode
			if r.op == opOpen {
				durable[r.name] = r.inode
			} else {
				dirOps = append(dirOps, r)
			}
		case opForget:
			if in := inodes[r.inode]; in != nil {
				if bound[in.name] == r.inode {
					delete(bound, in.name)
				}
				delete(inodes, r.inode)
			}
			dirOps = without(dirOps, func(o record) bool { return o.op == opCreate && o.inode == r.inode })
		case opWrite, opTrunc:
			if in := inodes[r.inode]; in != nil {
				in.pending = append(in.pending, r)
			}
		case opSyncBegin, opDirSyncBegin:
			begins[r.sid] = r
		case opSyncEnd:
			b, ok := begins[r.sid]
			if in := inodes[b.inode]; ok && in != nil {
				in.pending = without(in.pending, func(o record) bool { return o.index < b.index })
			}
		case opDirSyncEnd:
			b, ok := begins[r.sid]
			if !ok {
				break
			}
			var keep []record
			for _, o := range dirOps {
				if o.index < b.index {
					applyDir(durable, o)
				} else {
					keep = append(keep, o)
				}
			}
			dirOps = keep
		case opDelete:
			if in := inodes[r.inode]; in != nil {
				in.deleted, in.keep = true, r.keep
			}
			if bound[r.name] == r.inode {
				delete(bound, r.name)
			}
			dirOps = append(dirOps, r)
		case opBarrier:
			for _, in := range inodes {
				in.pending = nil
			}
			durable = clone(bound)
			dirOps = nil
		}
	}

	rng := rand.New(rand.NewPCG(seed, 0x6c697465626e6368))
	var pat strings.Builder
	im := &Image{Files: map[string][]byte{}}
	st := &im.Stats

	// Directory changes reach the disk in order (a file system journals
	// its metadata): a prefix of them is durable.
	final := clone(durable)
	st.DirChanges = len(dirOps)
	n := 0
	if m == Torn && len(dirOps) > 0 {
		n = rng.IntN(len(dirOps) + 1)
	}
	for _, o := range dirOps[:n] {
		applyDir(final, o)
	}
	st.DirKept = n
	fmt.Fprintf(&pat, "dir %d/%d;", n, len(dirOps))

	names := map[string]bool{}
	for _, mp := range []map[string]uint32{bound, durable, final} {
		for k := range mp {
			names[k] = true
		}
	}
	for _, name := range sortedNames(names) {
		id, ok := final[name]
		if !ok {
			if _, was := bound[name]; was {
				st.Vanished = append(st.Vanished, name)
			}
			continue
		}
		in := inodes[id]
		if in == nil {
			continue
		}
		if in.deleted {
			st.Resurrected = append(st.Resurrected, name)
		}
		src := filepath.Join(dir, in.name)
		if in.deleted {
			src = filepath.Join(dir, in.keep)
		}
		b, err := os.ReadFile(src)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		b = undo(b, in.pending)
		if m == Torn {
			b = tear(b, in, rng, st, &pat)
		}
		im.Files[name] = b
	}
	im.Pattern = pat.String()
	return im, nil
}

// applyDir makes a creation or deletion durable in names.
func applyDir(names map[string]uint32, o record) {
	switch o.op {
	case opCreate:
		names[o.name] = o.inode
	case opDelete:
		if names[o.name] == o.inode {
			delete(names, o.name)
		}
	}
}

// undo takes b, a file as its last logged operation left it, back to
// what its last sync covered, undoing ops in reverse order.
func undo(b []byte, ops []record) []byte {
	for i := len(ops) - 1; i >= 0; i-- {
		o := ops[i]
		switch o.op {
		case opWrite:
			b = grow(b, o.off+int64(len(o.before)))
			copy(b[o.off:], o.before)
			b = resize(b, o.size)
		case opTrunc:
			b = resize(b, o.size)
			if o.off < o.size {
				copy(b[o.off:], o.before)
			}
		}
	}
	return b
}

// tear applies the unsynced ops of in to b, its synced content, piece by
// piece as the torn model decides.
func tear(b []byte, in *inode, rng *rand.Rand, st *Stats, pat *strings.Builder) []byte {
	last := -1
	for i, o := range in.pending {
		if o.op == opWrite {
			last = i
		}
	}
	fmt.Fprintf(pat, "%s:", in.name)
	for i, o := range in.pending {
		switch o.op {
		case opTrunc:
			st.Truncations++
			if rng.IntN(2) == 0 {
				st.TruncKept++
				b = resize(b, o.off)
				pat.WriteByte('T')
			} else {
				pat.WriteByte('t')
			}
		case opWrite:
			st.Writes++
			end := o.off + int64(len(o.data))
			for p := o.off; p < end; {
				q := min((p/SectorSize+1)*SectorSize, end)
				st.Pieces++
				choices := 2
				if i == last && q == end {
					choices = 3 // the last piece written may be torn
				}
				switch rng.IntN(choices) {
				case 0:
					st.Kept++
					b = grow(b, q)
					copy(b[p:q], o.data[p-o.off:q-o.off])
					pat.WriteByte('K')
				case 1:
					st.Dropped++
					pat.WriteByte('d')
				case 2:
					st.Garbled++
					b = grow(b, q)
					for k := p; k < q; k++ {
						b[k] = byte(rng.Uint32())
					}
					pat.WriteByte('G')
				}
				p = q
			}
		}
		pat.WriteByte(' ')
	}
	pat.WriteByte(';')
	return b
}

// grow extends b with zeros to at least n bytes.
func grow(b []byte, n int64) []byte {
	if int64(len(b)) >= n {
		return b
	}
	return append(b, make([]byte, n-int64(len(b)))...)
}

// resize makes b exactly n bytes, cutting or extending with zeros.
func resize(b []byte, n int64) []byte {
	if int64(len(b)) >= n {
		return b[:n]
	}
	return grow(b, n)
}

func without(rs []record, drop func(record) bool) []record {
	out := rs[:0]
	for _, r := range rs {
		if !drop(r) {
			out = append(out, r)
		}
	}
	return out
}

func clone(m map[string]uint32) map[string]uint32 {
	c := make(map[string]uint32, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func sortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// WriteTo writes the image's files into dir, which holds none of them.
func (im *Image) WriteTo(dir string) error {
	for _, name := range sortedNames(keys(im.Files)) {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		_, err = f.Write(im.Files[name])
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func keys(m map[string][]byte) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

func dirOf(p string) string { return filepath.Dir(p) }
