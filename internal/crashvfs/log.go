package crashvfs

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
)

// The crash log is a sequence of records, each one write(2) on a file
// opened O_APPEND:
//
//	u32 payload length | u32 CRC-32 (IEEE) of the payload | payload
//
// A payload is an op byte and its fields, little-endian: u32 and u64
// numbers, and byte strings as a u32 length and the bytes. A record is
// written before the operation it describes is passed through, so that a
// process killed at any moment leaves a log that describes at least what
// reached the files; a record cut short by the kill fails its length or
// checksum and ends the log (the operation it announced never started).
const (
	opOpen         = 1  // inode, name: an existing file, durable as found
	opCreate       = 2  // inode, name: a file this process created
	opForget       = 3  // inode: its creation failed
	opWrite        = 4  // inode, offset, size before, data, bytes it overwrote
	opTrunc        = 5  // inode, new size, size before, bytes it cut off
	opSyncBegin    = 6  // sync id, inode
	opSyncEnd      = 7  // sync id
	opDelete       = 8  // inode, name, name of the hard link that keeps its data
	opDirSyncBegin = 9  // sync id
	opDirSyncEnd   = 10 // sync id
	opBarrier      = 11 // everything before is on disk
)

// record is one decoded log record.
type record struct {
	op           byte
	inode, sid   uint32
	name, keep   string
	off, size    int64 // offset (write) or new size (trunc); size before
	data, before []byte
	index        int // position in the log
}

type enc struct{ b []byte }

func (e *enc) u8(v byte)      { e.b = append(e.b, v) }
func (e *enc) u32(v uint32)   { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *enc) u64(v int64)    { e.b = binary.LittleEndian.AppendUint64(e.b, uint64(v)) }
func (e *enc) bytes(v []byte) { e.u32(uint32(len(v))); e.b = append(e.b, v...) }
func (e *enc) str(v string)   { e.bytes([]byte(v)) }

// begin starts a record in e's buffer (reused), leaving room for the
// frame.
func (e *enc) begin(op byte) {
	e.b = append(e.b[:0], 0, 0, 0, 0, 0, 0, 0, 0)
	e.u8(op)
}

// frame fills in the frame of the record and returns it.
func (e *enc) frame() []byte {
	p := e.b[8:]
	binary.LittleEndian.PutUint32(e.b[0:], uint32(len(p)))
	binary.LittleEndian.PutUint32(e.b[4:], crc32.ChecksumIEEE(p))
	return e.b
}

type dec struct {
	b   []byte
	bad bool
}

func (d *dec) u8() byte {
	if len(d.b) < 1 {
		d.bad = true
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *dec) u32() uint32 {
	if len(d.b) < 4 {
		d.bad = true
		return 0
	}
	v := binary.LittleEndian.Uint32(d.b)
	d.b = d.b[4:]
	return v
}

func (d *dec) u64() int64 {
	if len(d.b) < 8 {
		d.bad = true
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return int64(v)
}

func (d *dec) bytes() []byte {
	n := int(d.u32())
	if d.bad || n > len(d.b) {
		d.bad = true
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *dec) str() string { return string(d.bytes()) }

// errTorn marks the end of a log at a record cut short.
var errTorn = errors.New("torn record")

// readLog decodes the log at path, up to its end or the first record cut
// short.
func readLog(path string) ([]record, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var recs []record
	for len(b) >= 8 {
		n := int(binary.LittleEndian.Uint32(b))
		if n > len(b)-8 || crc32.ChecksumIEEE(b[8:8+n]) != binary.LittleEndian.Uint32(b[4:]) {
			break
		}
		r, err := decode(b[8 : 8+n])
		if err != nil {
			break
		}
		r.index = len(recs)
		recs = append(recs, r)
		b = b[8+n:]
	}
	return recs, nil
}

func decode(p []byte) (record, error) {
	d := &dec{b: p}
	r := record{op: d.u8()}
	switch r.op {
	case opOpen, opCreate:
		r.inode, r.name = d.u32(), d.str()
	case opForget:
		r.inode = d.u32()
	case opWrite:
		r.inode, r.off, r.size = d.u32(), d.u64(), d.u64()
		r.data, r.before = d.bytes(), d.bytes()
	case opTrunc:
		r.inode, r.off, r.size = d.u32(), d.u64(), d.u64()
		r.before = d.bytes()
	case opSyncBegin:
		r.sid, r.inode = d.u32(), d.u32()
	case opSyncEnd, opDirSyncBegin, opDirSyncEnd:
		r.sid = d.u32()
	case opDelete:
		r.inode, r.name, r.keep = d.u32(), d.str(), d.str()
	case opBarrier:
	default:
		return r, errTorn
	}
	if d.bad || len(d.b) != 0 {
		return r, errTorn
	}
	return r, nil
}

// Barrier appends to the crash log of the database at db a record saying
// that everything logged so far is on disk, and makes it so: it syncs the
// database's files and their directory. The durability audit calls it once
// the workload is set up, so that a fault strikes the measured part only.
func Barrier(db string) error {
	for _, suffix := range []string{"", "-journal", "-wal"} {
		if err := syncPath(db + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if err := syncPath(dirOf(db)); err != nil {
		return err
	}
	f, err := os.OpenFile(LogPath(db), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	var e enc
	e.begin(opBarrier)
	_, err = f.Write(e.frame())
	return err
}

func syncPath(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
