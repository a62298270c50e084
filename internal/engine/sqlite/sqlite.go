// Package sqlite is the SQLite engine: a database file (or an in-memory
// database) per run, SQLite's pragmas as settings, its result codes as error
// classes, the file sizes and WAL header as probes, and PRAGMA
// integrity_check as the integrity check. Every SQLite client (mattn,
// modernc, ncruces, zombie) speaks it.
package sqlite

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/own"
	"github.com/litebench/litebench/internal/settings"
)

// Name is the engine's name.
const Name = "sqlite"

// Engine is the SQLite engine.
var Engine engine.Engine = sqliteEngine{}

func init() {
	settings.Register(Name, specs, check)
	engine.Register(Engine)
}

type sqliteEngine struct{}

func (sqliteEngine) Name() string              { return Name }
func (sqliteEngine) Dialect() dialect.Dialect  { return dialect.SQLite }
func (sqliteEngine) Settings() []settings.Spec { return append([]settings.Spec(nil), specs...) }

// Provision names the run's database: a memory name, the file the user
// gave, or a new file in the bench dir. An existing file is replaced only
// if litebench created it, and only when the run does not reuse its data.
// Nothing is created until a client opens the endpoint.
func (sqliteEngine) Provision(_ context.Context, r engine.Request) (engine.Instance, error) {
	in := &instance{s: r.Settings, kind: r.Kind}
	if r.Settings.Bool("in-memory") {
		in.path, in.memory = "litebench-"+r.Name, true
		return in, nil
	}
	in.path = r.Path
	if in.path == "" {
		in.path = filepath.Join(r.Dir, "litebench-"+r.Name+".db")
	}
	if !r.Reuse {
		if err := RemoveDB(in.path, in.kind); err != nil {
			return nil, err
		}
	}
	in.remove = !r.Keep
	return in, nil
}

// RemoveDB deletes a database and its -wal/-shm/-journal files, only if
// litebench made it as kind k (package own's rule); a kind without a stamp
// removes nothing.
func RemoveDB(path string, k own.Kind) error {
	if k.AppID == 0 {
		return fmt.Errorf("refusing to remove %s: no kind of litebench file was named", path)
	}
	return own.Remove(path, k)
}

type instance struct {
	s      settings.Settings
	kind   own.Kind
	path   string
	memory bool
	remove bool
}

func (in *instance) String() string { return in.path }

func (in *instance) Endpoint() engine.Endpoint {
	return options{
		path: in.path, memory: in.memory, sharedCache: in.s.Bool("shared-cache"),
		pragmas: Pragmas(in.s, false),
	}.endpoint()
}

// ReadEndpoint opens the file read-only (immutable when asked), without the
// pragmas that write. An in-memory database exists only in its process and
// is served as it is.
func (in *instance) ReadEndpoint(immutable bool) engine.Endpoint {
	if in.memory {
		return in.Endpoint()
	}
	return options{
		path: in.path, readOnly: true, immutable: immutable, sharedCache: in.s.Bool("shared-cache"),
		pragmas: Pragmas(in.s, true),
	}.endpoint()
}

// Stamp sets PRAGMA application_id, by which litebench knows its files.
// A file already stamped is left as it is: setting the same value again is
// a write transaction, which changes the file's header (its change
// counter), and a kept database that is read should stay byte-identical.
func (in *instance) Stamp(ctx context.Context, db engine.SQL) error {
	if in.memory {
		return nil
	}
	if v, err := db.Strings(ctx, "PRAGMA application_id"); err == nil && len(v) == 1 && v[0] == strconv.Itoa(int(own.BenchAppID)) {
		return nil
	}
	return db.Exec(ctx, fmt.Sprintf("PRAGMA application_id = %d", own.BenchAppID))
}

func (in *instance) Fingerprint(ctx context.Context, db engine.SQL) engine.Fingerprint {
	var fp engine.Fingerprint
	if v, err := db.Strings(ctx, "select sqlite_version()"); err == nil && len(v) > 0 {
		fp.Version = v[0]
	}
	fp.CompileOptions, _ = db.Strings(ctx, "PRAGMA compile_options")
	if jm, err := db.Strings(ctx, "PRAGMA journal_mode"); err == nil && len(jm) > 0 {
		got := strings.ToLower(jm[0])
		fp.InForce = map[string]string{"journal_mode": got}
		if want := journal(in.s); want != "" && got != want && !in.memory {
			fp.Notes = append(fp.Notes, fmt.Sprintf("asked for journal_mode %s, SQLite runs %s", want, got))
		}
	}
	// What the connection runs, whether asked for or the build's default
	// (mattn's build makes synchronous NORMAL in WAL mode, for one).
	for _, name := range []string{"synchronous", "locking_mode", "cache_size", "foreign_keys"} {
		if v, err := db.Strings(ctx, "PRAGMA "+name); err == nil && len(v) > 0 {
			if fp.InForce == nil {
				fp.InForce = map[string]string{}
			}
			fp.InForce[name] = strings.ToLower(v[0])
		}
	}
	// A build without foreign keys answers nothing.
	if got, want := map[string]string{"1": "on", "0": "off"}[fp.InForce["foreign_keys"]], in.s.Get("foreign-keys"); want != "default" && got != want {
		if got == "" {
			got = "none (a build without foreign keys)"
		}
		fp.Notes = append(fp.Notes, fmt.Sprintf("asked for foreign_keys %s, SQLite runs %s", want, got))
	}
	return fp
}

// Probe reads the sizes of the database, -wal and -shm files and the WAL
// header's checkpoint sequence number (bumped each time a checkpoint
// completes and the WAL starts over from its beginning).
func (in *instance) Probe() (engine.Probe, bool) {
	if in.memory {
		return engine.Probe{}, false
	}
	return StatFiles(in.path), true
}

// StatFiles probes the database at path.
func StatFiles(path string) engine.Probe {
	var p engine.Probe
	size := func(f string) int64 {
		if st, err := os.Stat(f); err == nil {
			return st.Size()
		}
		return 0
	}
	p.DB, p.WAL, p.SHM = size(path), size(path+"-wal"), size(path+"-shm")
	if p.WAL >= 32 {
		if f, err := os.Open(path + "-wal"); err == nil {
			var h [32]byte
			if _, err := io.ReadFull(f, h[:]); err == nil {
				p.WALSeq = int64(binary.BigEndian.Uint32(h[12:16]))
			}
			f.Close()
		}
	}
	return p
}

// ErrCorrupt is wrapped by integrity check failures.
var ErrCorrupt = errors.New("integrity check failed")

// Check runs PRAGMA integrity_check.
func (in *instance) Check(ctx context.Context, db engine.SQL) error {
	rows, err := db.Strings(ctx, "PRAGMA integrity_check")
	if err != nil {
		return fmt.Errorf("%s: %w: %v", in.path, ErrCorrupt, err)
	}
	if len(rows) == 1 && rows[0] == "ok" {
		return nil
	}
	if len(rows) > 3 {
		rows = append(rows[:3], fmt.Sprintf("and %d more", len(rows)-3))
	}
	return fmt.Errorf("%s: %w: %s", in.path, ErrCorrupt, strings.Join(rows, "; "))
}

func (in *instance) Destroy() error {
	if !in.remove {
		return nil
	}
	return RemoveDB(in.path, in.kind)
}

// ReadOnly is the endpoint of an existing database file opened read-only,
// with no pragmas: it changes nothing (for inspecting a file). Immutable
// also tells SQLite the file cannot change, so that it creates no -shm or
// -wal beside it.
func ReadOnly(path string, immutable bool) engine.Endpoint {
	return options{path: path, readOnly: true, immutable: immutable}.endpoint()
}

// Existing is the endpoint of an existing database file opened
// read-write with no pragmas, so that SQLite's own recovery (a hot
// journal rolled back, a WAL replayed) runs on it as it would for any
// application (the durability audit's verifier, on a copy).
func Existing(path string) engine.Endpoint {
	return options{path: path}.endpoint()
}

// options are how a SQLite database is opened.
type options struct {
	path        string   // database file, or the name of an in-memory database
	memory      bool     // in-memory database named by path
	readOnly    bool     // open read-only
	immutable   bool     // open with immutable=1 (implies read-only)
	sharedCache bool     // cache=shared
	pragmas     []string // run, in order, on every new connection
}

func (o options) endpoint() engine.Endpoint {
	ep := engine.Endpoint{Engine: Name, DSN: o.uri(), ReadOnly: o.readOnly || o.immutable, InMemory: o.memory, Init: o.pragmas}
	if !o.memory {
		ep.File = o.path
	}
	return ep
}

// uri renders the SQLite URI filename.
func (o options) uri() string {
	q := ""
	add := func(kv string) {
		if q == "" {
			q = "?" + kv
		} else {
			q += "&" + kv
		}
	}
	if o.memory {
		add("mode=memory")
	} else if o.immutable {
		add("immutable=1")
		add("mode=ro")
	} else if o.readOnly {
		add("mode=ro")
	}
	if o.sharedCache || o.memory {
		// An in-memory database is private to its connection unless the
		// cache is shared; a pool needs every connection to see it.
		add("cache=shared")
	}
	return "file:" + escapePath(o.path) + q
}

func escapePath(p string) string {
	// '?' and '#' end the path part of a URI; '%' starts an escape.
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '?', '#', '%':
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// WithParam appends a query parameter to a URI filename.
func WithParam(uri, kv string) string {
	if strings.Contains(uri, "?") {
		return uri + "&" + kv
	}
	return uri + "?" + kv
}

// SQLite primary result codes that name an error class.
const (
	codeBusy       = 5
	codeLocked     = 6
	codeInterrupt  = 9
	codeCantOpen   = 14
	codeConstraint = 19
)

// Classify maps a SQLite result code (primary or extended) to its class;
// 0 (not a SQLite error) is engine.None.
func Classify(code int) engine.ErrClass {
	if code == 0 {
		return engine.None
	}
	switch code & 0xff {
	case codeBusy:
		return engine.Busy
	case codeLocked:
		return engine.Locked
	case codeConstraint:
		return engine.Constraint
	case codeCantOpen:
		return engine.Conn
	case codeInterrupt:
		return engine.Interrupted
	}
	return engine.Other
}

// Memory is the endpoint of a private in-memory database called name (for
// a client to answer questions about itself).
func Memory(name string) engine.Endpoint {
	return options{path: name, memory: true}.endpoint()
}
