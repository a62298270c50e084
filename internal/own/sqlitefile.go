package own

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf16"
)

// This file reads what a SQLite database holds without SQLite: the header
// and the schema table, as of the last committed transaction (the main
// file overlaid by the committed frames of its -wal). Reading this way
// takes no lock, creates no -shm or -wal, and cannot block on a busy
// database.

var sqliteMagic = []byte("SQLite format 3\x00")

// errMalformed is wrapped by errors about files that start like a SQLite
// database but cannot be read as one.
var errMalformed = errors.New("malformed")

// Object is one row of a database's schema table.
type Object struct {
	Type string // table, index, view or trigger
	Name string
}

// Database is what ReadDatabase found in a SQLite file.
type Database struct {
	AppID    int32
	PageSize int
	// WAL is true when the header says the database is in WAL mode.
	WAL bool
	// WALFrames counts the committed frames read from the -wal file.
	WALFrames int
	Objects   []Object
}

// view reads committed pages of a database.
type view struct {
	main     *os.File
	mainSize int64
	pageSize int
	usable   int
	wal      *os.File
	walPage  map[uint32]int64 // page number → offset of its newest committed copy in the WAL
	salt     [8]byte          // the WAL header's salts, which each of its frames repeats
	frames   int
	enc      uint32
}

// readDatabase reads the header and schema of the regular file f (path is
// its name, for the -wal beside it).
func readDatabase(path string, f *os.File, size int64) (db *Database, err error) {
	defer func() {
		// A corrupt file must never crash the caller: every bound is
		// checked, and this catches what a check missed.
		if r := recover(); r != nil {
			db, err = nil, fmt.Errorf("%w: %v", errMalformed, r)
		}
	}()
	var hdr [100]byte
	if n, _ := f.ReadAt(hdr[:], 0); n < len(hdr) || !bytes.Equal(hdr[:16], sqliteMagic) {
		return nil, errNotSQLite
	}
	ps := int(binary.BigEndian.Uint16(hdr[16:18]))
	if ps == 1 {
		ps = 65536
	}
	if ps < 512 || ps > 65536 || ps&(ps-1) != 0 || int(hdr[20]) > ps-480 {
		return nil, fmt.Errorf("%w: page size %d", errMalformed, ps)
	}
	v := &view{main: f, mainSize: size, pageSize: ps, usable: ps - int(hdr[20])}
	if w, err := openRegular(path + "-wal"); err == nil {
		defer w.Close()
		if err := v.readWAL(w); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	p1, err := v.page(1)
	if err != nil {
		return nil, err
	}
	v.enc = binary.BigEndian.Uint32(p1[56:60])
	db = &Database{
		AppID:     int32(binary.BigEndian.Uint32(p1[68:72])),
		PageSize:  ps,
		WAL:       p1[18] == 2 || p1[19] == 2,
		WALFrames: v.frames,
	}
	db.Objects, err = v.schema()
	return db, err
}

var errNotSQLite = errors.New("not a SQLite database")

// errChanged is a WAL frame overwritten while the file was read: another
// process is writing the database.
var errChanged = errors.New("the WAL changed while it was read")

// page returns page n as last committed.
func (v *view) page(n uint32) ([]byte, error) {
	b := make([]byte, v.pageSize)
	if off, ok := v.walPage[n]; ok {
		// The frame with its header: a process writing the database may
		// have restarted the WAL over it since it was indexed.
		fr := make([]byte, 24+v.pageSize)
		if _, err := v.wal.ReadAt(fr, off-24); err != nil {
			return nil, fmt.Errorf("%w: WAL frame of page %d: %v", errMalformed, n, err)
		}
		if binary.BigEndian.Uint32(fr[0:4]) != n || !bytes.Equal(fr[8:16], v.salt[:]) {
			return nil, fmt.Errorf("%w: %w", errMalformed, errChanged)
		}
		copy(b, fr[24:])
		return b, nil
	}
	off := int64(n-1) * int64(v.pageSize)
	if n == 0 || off+int64(v.pageSize) > v.mainSize {
		return nil, fmt.Errorf("%w: page %d is past the end of the file", errMalformed, n)
	}
	if _, err := v.main.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b, nil
}

// readWAL indexes the committed frames of a WAL file: frames whose salts
// match the header and whose running checksum holds, up to the last commit
// frame, as SQLite's recovery does. An invalid header means an empty WAL.
func (v *view) readWAL(w *os.File) error {
	st, err := w.Stat()
	if err != nil {
		return err
	}
	var hdr [32]byte
	if n, _ := w.ReadAt(hdr[:], 0); n < len(hdr) {
		return nil
	}
	magic := binary.BigEndian.Uint32(hdr[0:4])
	if magic&^1 != 0x377f0682 || binary.BigEndian.Uint32(hdr[4:8]) != 3007000 {
		return nil
	}
	big := magic&1 == 1
	s0, s1 := walChecksum(hdr[:24], 0, 0, big)
	if s0 != binary.BigEndian.Uint32(hdr[24:28]) || s1 != binary.BigEndian.Uint32(hdr[28:32]) {
		return nil
	}
	if int(binary.BigEndian.Uint32(hdr[8:12])) != v.pageSize {
		return fmt.Errorf("%w: the -wal's page size differs from the database's", errMalformed)
	}
	v.wal, v.walPage = w, map[uint32]int64{}
	copy(v.salt[:], hdr[16:24])
	pending := map[uint32]int64{}
	frame := make([]byte, 24+v.pageSize)
	for off := int64(32); off+int64(len(frame)) <= st.Size(); off += int64(len(frame)) {
		if _, err := w.ReadAt(frame, off); err != nil {
			break
		}
		if !bytes.Equal(frame[8:16], hdr[16:24]) {
			break
		}
		s0, s1 = walChecksum(frame[:8], s0, s1, big)
		s0, s1 = walChecksum(frame[24:], s0, s1, big)
		if s0 != binary.BigEndian.Uint32(frame[16:20]) || s1 != binary.BigEndian.Uint32(frame[20:24]) {
			break
		}
		pg := binary.BigEndian.Uint32(frame[0:4])
		if pg == 0 {
			break
		}
		pending[pg] = off + 24
		v.frames++
		if binary.BigEndian.Uint32(frame[4:8]) != 0 { // a commit frame
			for p, o := range pending {
				v.walPage[p] = o
			}
			clear(pending)
		}
	}
	v.frames -= len(pending)
	return nil
}

func walChecksum(b []byte, s0, s1 uint32, big bool) (uint32, uint32) {
	order := binary.ByteOrder(binary.LittleEndian)
	if big {
		order = binary.BigEndian
	}
	for i := 0; i+8 <= len(b); i += 8 {
		s0 += order.Uint32(b[i:]) + s1
		s1 += order.Uint32(b[i+4:]) + s0
	}
	return s0, s1
}

// schema walks the schema table's b-tree (rooted at page 1) and returns
// the type and name of every row.
func (v *view) schema() ([]Object, error) {
	var out []Object
	seen := map[uint32]bool{}
	var walk func(n uint32, depth int) error
	walk = func(n uint32, depth int) error {
		if seen[n] || depth > 32 {
			return fmt.Errorf("%w: schema b-tree loops", errMalformed)
		}
		seen[n] = true
		b, err := v.page(n)
		if err != nil {
			return err
		}
		h := 0
		if n == 1 {
			h = 100
		}
		cells := int(binary.BigEndian.Uint16(b[h+3 : h+5]))
		switch b[h] {
		case 0x0d: // table leaf
			for i := 0; i < cells; i++ {
				off := int(binary.BigEndian.Uint16(b[h+8+2*i:]))
				o, err := v.leafCell(b, off)
				if err != nil {
					return err
				}
				out = append(out, o)
			}
			return nil
		case 0x05: // table interior
			for i := 0; i < cells; i++ {
				off := int(binary.BigEndian.Uint16(b[h+12+2*i:]))
				if off+4 > len(b) {
					return fmt.Errorf("%w: cell past the page", errMalformed)
				}
				if err := walk(binary.BigEndian.Uint32(b[off:]), depth+1); err != nil {
					return err
				}
			}
			return walk(binary.BigEndian.Uint32(b[h+8:]), depth+1)
		}
		return fmt.Errorf("%w: page %d is not a table b-tree page", errMalformed, n)
	}
	err := walk(1, 0)
	return out, err
}

// leafCell decodes the type and name columns of a schema-table row.
func (v *view) leafCell(b []byte, off int) (Object, error) {
	size, n := varint(b[off:])
	off += n
	_, n = varint(b[off:]) // rowid
	off += n
	if size > 1<<24 {
		return Object{}, fmt.Errorf("%w: schema row of %d bytes", errMalformed, size)
	}
	p := int(size)
	u := v.usable
	local := p
	if x := u - 35; p > x {
		m := (u-12)*32/255 - 23
		local = m + (p-m)%(u-4)
		if local > x {
			local = m
		}
	}
	if off+local > len(b) {
		return Object{}, fmt.Errorf("%w: cell past the page", errMalformed)
	}
	payload := append([]byte(nil), b[off:off+local]...)
	if local < p {
		next := binary.BigEndian.Uint32(b[off+local:])
		for hops := 0; len(payload) < p; hops++ {
			if next == 0 || hops > 1<<16 {
				return Object{}, fmt.Errorf("%w: overflow chain", errMalformed)
			}
			ov, err := v.page(next)
			if err != nil {
				return Object{}, err
			}
			next = binary.BigEndian.Uint32(ov[:4])
			payload = append(payload, ov[4:min(u, 4+p-len(payload))]...)
		}
	}
	cols, err := record(payload, 2)
	if err != nil {
		return Object{}, err
	}
	return Object{Type: v.text(cols[0]), Name: v.text(cols[1])}, nil
}

func (v *view) text(b []byte) string {
	if v.enc != 2 && v.enc != 3 {
		return string(b)
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		if v.enc == 2 {
			u[i] = binary.LittleEndian.Uint16(b[2*i:])
		} else {
			u[i] = binary.BigEndian.Uint16(b[2*i:])
		}
	}
	return string(utf16.Decode(u))
}

// record returns the first n columns of a record as raw bytes (text and
// blob contents; other types as nil).
func record(p []byte, n int) ([][]byte, error) {
	hlen, k := varint(p)
	if hlen > uint64(len(p)) || int(hlen) < k {
		return nil, fmt.Errorf("%w: record header", errMalformed)
	}
	hdr, body := p[k:hlen], p[hlen:]
	var cols [][]byte
	for len(cols) < n {
		if len(hdr) == 0 {
			return nil, fmt.Errorf("%w: schema row has %d columns", errMalformed, len(cols))
		}
		t, k := varint(hdr)
		hdr = hdr[k:]
		var size int
		switch {
		case t >= 12:
			size = int((t - 12) / 2)
		case t >= 1 && t <= 4:
			size = int(t)
		case t == 5:
			size = 6
		case t == 6 || t == 7:
			size = 8
		}
		if size > len(body) {
			return nil, fmt.Errorf("%w: record body", errMalformed)
		}
		var c []byte
		if t >= 12 {
			c = body[:size]
		}
		cols = append(cols, c)
		body = body[size:]
	}
	return cols, nil
}

// varint decodes SQLite's big-endian variable-length integer.
func varint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < 9; i++ {
		if i >= len(b) {
			return v, max(i, 1)
		}
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return v, 9
}
