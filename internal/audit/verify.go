package audit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/litebench/litebench/internal/engine/sqlite"
	"github.com/litebench/litebench/internal/plan"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/workload"
)

// layout is how a cell's workload lays its rows out in transactions:
// every write transaction inserts a batch of consecutive rows, tagged by
// the index of its first row (what the worker acknowledges). The audit
// finds each batch by its rows' keys, so a batch partly present is an
// atomicity violation whatever became of the others.
type layout struct {
	schema *workload.Schema
	seed   uint64
	// setup rows [0, setup) are loaded before the measured part.
	setup int64
	// batch is the rows of one transaction.
	batch int64
	// ranges are the row ranges inserted, each cut into batches from its
	// start; for write and mixed the one range is open-ended (end < 0).
	ranges [][2]int64
}

// layoutFor works out a cell's layout, or says why the audit cannot check
// its workload.
func layoutFor(c plan.Cell) (*layout, error) {
	p, s := c.Params, c.Settings
	name := c.Workload.Name()
	if name != "insert" && name != "write" && name != "mixed" {
		return nil, fmt.Errorf("audit: workload %s: the audit checks the rows write transactions insert; audit insert, write or mixed (--write-kind insert)", name)
	}
	sc, ok := workload.Schemas[p["schema"]]
	if !ok {
		return nil, fmt.Errorf("audit: %s: unknown schema %q", name, p["schema"])
	}
	seed, err := strconv.ParseUint(p["seed"], 10, 64)
	if err != nil {
		return nil, fmt.Errorf("audit: --seed %q: want a whole number", p["seed"])
	}
	l := &layout{schema: sc, seed: seed, batch: int64(s.Int("batch"))}
	switch name {
	case "insert":
		rows, err := settings.ParseCount(p["rows"])
		if err != nil {
			return nil, fmt.Errorf("audit: --rows %q: %v", p["rows"], err)
		}
		workers, _ := strconv.ParseInt(p["workers"], 10, 64)
		workers = max(workers, 1)
		// As workload.Load cuts the rows: an equal share per worker, a
		// transaction holding at least one whole statement.
		l.batch = max(l.batch, int64(s.Int("rows-per-stmt")))
		for i := range workers {
			l.ranges = append(l.ranges, [2]int64{rows * i / workers, rows * (i + 1) / workers})
		}
	default: // write, mixed
		if k := p["write-kind"]; k != "insert" {
			return nil, fmt.Errorf("audit: %s --write-kind %s: an update leaves no trace to tell a lost one from a kept one; audit --write-kind insert", name, k)
		}
		if name == "mixed" && p["writers"] == "0" && p["rate"] == "0" {
			return nil, fmt.Errorf("audit: mixed --writers 0 writes nothing; give it writers")
		}
		rows, err := settings.ParseCount(p["rows"])
		if err != nil {
			return nil, fmt.Errorf("audit: --rows %q: %v", p["rows"], err)
		}
		l.setup = rows
		l.ranges = [][2]int64{{rows, -1}}
	}
	return l, nil
}

// ack is one acknowledged transaction: its first row, its rows and when
// the controller heard of it, after the measured part began.
type ack struct {
	first, n int64
	at       time.Duration
}

// check is what the verifier found in one recovered database.
type check struct {
	corrupt string // why it failed to open, read or check ("" when sound)
	// unverified says why the trial could not be verified at all (its
	// files could not be copied or opened for a reason that is not
	// corruption): an error of the trial, never a finding about it.
	unverified string
	recovery   time.Duration
	journal    string // journal_mode and synchronous the workload ran
	sync       string
	// lost acknowledged transactions and when the oldest was acknowledged.
	lost       int64
	oldestLost time.Duration
	atomicity  int64
	unacked    int64
}

// Verifier is the target that verifies every trial, whatever the cell's
// target and language: litebench's own SQLite, linked in this process
// (SQLite compiled to WebAssembly, the one the crash VFS runs under). A
// worker of another language cannot be opened here, and one verifier for
// every cell makes their trials comparable.
const Verifier = "ncruces-direct"

// verifierVersion is the SQLite version the verifier links, for notes.
func verifierVersion() string {
	t, err := target.Get(Verifier)
	if err != nil {
		return "?"
	}
	v, _ := t.Version()
	return v
}

// verify copies the database at path with its -wal and -journal files
// into a directory of its own beside it (the crashed files stay as the
// fault left them), opens the copy with the verifier (a fresh
// connection: SQLite's recovery, a hot journal rolled back or the WAL
// replayed, happens on the copy), times the recovery (open and first
// query), checks its integrity and looks for every acknowledged
// transaction. inForce are the settings the workload ran with, as its
// worker reported them; gone says the fault may remove the database file
// (a power cut before its directory entry was synced).
func verify(ctx context.Context, path string, l *layout, acks []ack, inForce map[string]string, gone bool) check {
	var ck check
	vt, err := target.Get(Verifier)
	if err != nil {
		ck.unverified = "the verifier: " + err.Error()
		return ck
	}
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) && gone {
		ck.corrupt = "the database file is gone"
		return ck
	}
	copyPath, err := copyDB(path)
	if err != nil {
		ck.unverified = "copying the crashed files: " + err.Error()
		return ck
	}
	// judge files a SQLite error as corruption when SQLite says the file
	// is malformed or not a database, and as the trial's error otherwise.
	judge := func(what string, err error) check {
		if errors.Is(err, sqlite3.CORRUPT) || errors.Is(err, sqlite3.NOTADB) {
			ck.corrupt = what + err.Error()
		} else {
			ck.unverified = what + err.Error()
		}
		return ck
	}
	t0 := time.Now()
	db, err := vt.Open(ctx, sqlite.Existing(copyPath), target.PoolOptions{MaxOpen: 1})
	if err != nil {
		return judge("open: ", err)
	}
	defer db.Close()
	sql := target.SQL(db)
	if _, err := sql.Strings(ctx, "SELECT count(*) FROM sqlite_master"); err != nil {
		return judge("first query: ", err)
	}
	ck.recovery = time.Since(t0)
	ck.journal, ck.sync = strings.ToLower(inForce["journal_mode"]), SyncName(inForce["synchronous"])
	if ck.journal == "" {
		// A WAL database says so in its header; a rollback journal's
		// mode is the connection's and reads back as delete.
		if v, err := sql.Strings(ctx, "PRAGMA journal_mode"); err == nil && len(v) == 1 && strings.EqualFold(v[0], "wal") {
			ck.journal = "wal"
		}
	}
	rows, err := sql.Strings(ctx, "PRAGMA integrity_check")
	switch {
	case err != nil:
		return judge("integrity_check: ", err)
	case len(rows) != 1 || rows[0] != "ok":
		if len(rows) > 3 {
			rows = append(rows[:3], fmt.Sprintf("and %d more", len(rows)-3))
		}
		ck.corrupt = "integrity check failed: " + strings.Join(rows, "; ")
		return ck
	}
	present, err := l.keys(ctx, db)
	if err != nil && !strings.Contains(err.Error(), "no such table") {
		return judge("reading the rows: ", err)
	}
	// No table: every row is missing, which count reports.
	l.count(&ck, present, acks)
	return ck
}

// copyDB copies the database at path and its -wal and -journal files
// (those that exist) into the directory "verify" beside it and returns
// the copy's path. The -shm, a cache of the WAL's index, is left: the
// verifier rebuilds it from the WAL, as after a reboot.
func copyDB(path string) (string, error) {
	dir := filepath.Join(filepath.Dir(path), "verify")
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", err
	}
	dst := filepath.Join(dir, filepath.Base(path))
	for i, suffix := range []string{"", "-wal", "-journal"} {
		err := copyFile(path+suffix, dst+suffix)
		if i > 0 && errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
	}
	return dst, nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if fi, err := in.Stat(); err != nil {
		return err
	} else if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", src)
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("%s: %w", src, err)
	}
	return out.Close()
}

// keySet holds the keys present in the table.
type keySet struct {
	ints map[int64]bool
	strs map[string]bool
	buf  []byte
}

func (k *keySet) has(l *layout, i int64) bool {
	if k.ints != nil {
		return k.ints[l.schema.KeyInt(l.seed, i)]
	}
	k.buf = l.schema.AppendKey(k.buf[:0], l.seed, i)
	return k.strs[string(k.buf)]
}

func (k *keySet) len() int {
	if k.ints != nil {
		return len(k.ints)
	}
	return len(k.strs)
}

// keys reads every key of the workload's table.
func (l *layout) keys(ctx context.Context, db target.DB) (*keySet, error) {
	ks := &keySet{}
	if l.schema.IntKey() {
		ks.ints = map[int64]bool{}
	} else {
		ks.strs = map[string]bool{}
	}
	q := "SELECT " + l.schema.KeyCol + " FROM " + l.schema.Table
	if l.schema.IntKey() {
		var v int64
		return ks, db.Query(ctx, q, nil, func(r target.Row) error {
			if err := r.Scan(&v); err != nil {
				return err
			}
			ks.ints[v] = true
			return nil
		})
	}
	var v string
	return ks, db.Query(ctx, q, nil, func(r target.Row) error {
		if err := r.Scan(&v); err != nil {
			return err
		}
		ks.strs[v] = true
		return nil
	})
}

// errUnexplained: rows the layout cannot place.
var errUnexplained = errors.New("rows no transaction of the workload wrote")

// count finds every acknowledged transaction and the unacknowledged ones
// present, and checks that each is whole.
func (l *layout) count(ck *check, present *keySet, acks []ack) {
	// whole reports how many of the n rows from first are present.
	seen := func(first, n int64) int64 {
		var k int64
		for i := first; i < first+n; i++ {
			if present.has(l, i) {
				k++
			}
		}
		return k
	}
	accounted := seen(0, l.setup)
	if accounted < l.setup {
		// Loaded and synced before the measured part: never at risk.
		ck.corrupt = fmt.Sprintf("%d of the %d rows loaded before the fault are missing", l.setup-accounted, l.setup)
	}
	acked := map[int64]bool{}
	for _, a := range acks {
		acked[a.first] = true
		k := seen(a.first, a.n)
		accounted += k
		if k < a.n {
			if ck.lost == 0 || a.at < ck.oldestLost {
				ck.oldestLost = a.at
			}
			ck.lost++
			if k > 0 {
				ck.atomicity++
			}
		}
	}
	// The transactions never acknowledged: every batch of the layout not
	// acknowledged, as far as rows remain to account for (an open-ended
	// range stops after a run of absent batches longer than any number
	// of transactions in flight).
	total := int64(present.len())
	for _, r := range l.ranges {
		absent := 0
	batches:
		for start := r[0]; (r[1] < 0 || start < r[1]) && accounted < total; start += l.batch {
			n := l.batch
			if r[1] >= 0 {
				n = min(n, r[1]-start)
			}
			if acked[start] {
				continue
			}
			k := seen(start, n)
			accounted += k
			switch {
			case k == n:
				ck.unacked++
				absent = 0
			case k > 0:
				ck.atomicity++
				absent = 0
			default:
				if absent++; r[1] < 0 && absent > 4096 {
					break batches
				}
			}
		}
	}
	if accounted < total && ck.corrupt == "" {
		ck.corrupt = fmt.Sprintf("%d %s", total-accounted, errUnexplained)
	}
}
