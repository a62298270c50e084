package crashfs

import (
	"fmt"
	"math/rand/v2"
	"path"
	"strconv"
	"strings"
)

// Point is a crash point counted in operations: the power goes during
// the N-th sync (fsync or fdatasync) or write of a named file. A Point
// with N 0 ("*") picks one of those the log holds, by seed.
type Point struct {
	// Kind is Sync or Write.
	Kind Kind
	// File is "db", "wal", "journal" (the database's main file, WAL,
	// rollback journal) or a file's base name.
	File string
	// N counts from 1; 0 is any (seeded).
	N int
}

// ParsePoint reads "sync:wal:17" or "write:db:*".
func ParsePoint(s string) (Point, error) {
	bad := fmt.Errorf("--fault-at %q: want a window such as 100ms-1s, sync:FILE:N or write:FILE:N (FILE db, wal, journal or a file name; N a count from 1 or *)", s)
	parts := strings.Split(s, ":")
	if len(parts) != 3 || parts[1] == "" {
		return Point{}, bad
	}
	var p Point
	switch parts[0] {
	case "sync":
		p.Kind = Sync
	case "write":
		p.Kind = Write
	default:
		return Point{}, bad
	}
	p.File = parts[1]
	if parts[2] != "*" {
		n, err := strconv.Atoi(parts[2])
		if err != nil || n < 1 {
			return Point{}, bad
		}
		p.N = n
	}
	return p, nil
}

// IsPoint reports whether s reads as a crash point rather than a window.
func IsPoint(s string) bool {
	return strings.HasPrefix(s, "sync:") || strings.HasPrefix(s, "write:")
}

func (p Point) String() string {
	k := "sync"
	if p.Kind == Write {
		k = "write"
	}
	n := "*"
	if p.N > 0 {
		n = strconv.Itoa(p.N)
	}
	return k + ":" + p.File + ":" + n
}

// Names reports whether the file at rel (a path under the mount) is the
// point's file, for a database whose base name is db.
func (p Point) Names(rel, db string) bool {
	base := path.Base(rel)
	switch p.File {
	case "db":
		return base == db
	case "wal":
		return base == db+"-wal"
	case "journal":
		return base == db+"-journal"
	}
	return base == p.File
}

// Matches reports whether o counts toward p, given the path of its file.
func (p Point) Matches(o Op, rel, db string) bool {
	switch p.Kind {
	case Sync:
		if o.Kind != Sync && o.Kind != DataSync {
			return false
		}
	case Write:
		if o.Kind != Write {
			return false
		}
	}
	return p.Names(rel, db)
}

// Cut returns the log as it stood when the power went at p, for a
// database whose base name is db: up to the N-th matching write (which
// is in flight: the model decides what of it lands), or up to, not
// including, the N-th matching sync (which never completes). With N 0
// the match is picked by seed among those in the log. ok is false when
// the log holds fewer matches: the log is returned whole.
func Cut(l *Log, p Point, db string, seed uint64) (out *Log, ok bool) {
	paths := map[int]string{}
	var at []int
	for i, o := range l.Ops {
		switch o.Kind {
		case Base, Create:
			paths[o.File] = o.Path
		case Rename:
			paths[o.File] = o.NewPath
		}
		if p.Matches(o, paths[o.File], db) {
			at = append(at, i)
		}
	}
	n := p.N
	if n == 0 && len(at) > 0 {
		n = 1 + rand.New(rand.NewPCG(seed, 0x706f696e74)).IntN(len(at))
	}
	if n == 0 || n > len(at) {
		return l, false
	}
	end := at[n-1]
	if p.Kind == Write {
		end++
	}
	return &Log{Ops: l.Ops[:end:end]}, true
}
