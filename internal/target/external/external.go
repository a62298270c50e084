// Package external registers the targets whose clients run in worker
// processes of their own, built from the repository's workers/ directory:
// drivers in other languages (Python, Rust, Java, Node) and Go drivers that
// cannot link into one binary with mattn. Each speaks the worker protocol
// (docs/worker-protocol.md). A worker whose sources are present but not
// built is listed as not loaded, with the command that builds it.
package external

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/engine/dqlite"
	"github.com/litebench/litebench/internal/engine/sqlite"
	"github.com/litebench/litebench/internal/proc"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/worker"
)

// Worker describes one external target.
type Worker struct {
	Name string // target name: "python-sqlite3"
	Lang string // "python"
	// Dir is the worker's directory under workers/.
	Dir string
	// Built is a file (relative to Dir) that exists once the worker is
	// built; Build is the command that builds it (relative to the
	// repository).
	Built, Build string
	// Args is the command line relative to the repository root; a first
	// word with no slash is a program on PATH (java, node).
	Args []string
	// Driver names the driver, as list targets shows it.
	Driver string
	// Missing, when set, says why this checkout has no such worker.
	Missing string
	// Engine is the engine the worker's client speaks ("" for SQLite).
	Engine string
	// Prereq, when set, says what to install before the worker can be
	// built (nil when it is installed).
	Prereq func() error
}

// Workers are the external targets litebench knows.
var Workers = []Worker{
	{Name: "python-sqlite3", Lang: "python", Dir: "python", Built: ".venv/bin/python", Build: "workers/python/setup.sh",
		Args: []string{"workers/python/litebench-worker", "--client", "sqlite3"}, Driver: "sqlite3 (standard library)"},
	{Name: "python-apsw", Lang: "python", Dir: "python", Built: ".venv/bin/python", Build: "workers/python/setup.sh",
		Args: []string{"workers/python/litebench-worker", "--client", "apsw"}, Driver: "apsw"},
	{Name: "rust-rusqlite", Lang: "rust", Dir: "rust", Built: "target/release/litebench-worker-rust", Build: "workers/rust/build.sh",
		Args: []string{"workers/rust/target/release/litebench-worker-rust"}, Driver: "rusqlite (bundled SQLite)"},
	{Name: "java-sqlite-jdbc", Lang: "java", Dir: "java", Built: "target/litebench-worker.jar", Build: "workers/java/build.sh",
		Args: []string{"java", "-jar", "workers/java/target/litebench-worker.jar"}, Driver: "xerial sqlite-jdbc + HikariCP"},
	{Name: "node-better-sqlite3", Lang: "node", Dir: "node", Built: "node_modules/better-sqlite3", Build: "workers/node/build.sh",
		Args: []string{"node", "workers/node/worker.js"}, Driver: "better-sqlite3"},
	{Name: "go-crawshaw", Lang: "go", Dir: "go-crawshaw", Built: "litebench-worker-crawshaw", Build: "workers/go-crawshaw/build.sh",
		Args: []string{"workers/go-crawshaw/litebench-worker-crawshaw"}, Driver: "crawshaw.io/sqlite"},
	{Name: "go-sqlite-lite", Lang: "go", Dir: "go-sqlite-lite", Built: "litebench-worker-sqlite-lite", Build: "workers/go-sqlite-lite/build.sh",
		Args: []string{"workers/go-sqlite-lite/litebench-worker-sqlite-lite"}, Driver: "github.com/bvinc/go-sqlite-lite"},
	{Name: "dqlite", Lang: "go", Dir: "go-dqlite", Built: "litebench-worker-dqlite", Build: "workers/go-dqlite/build.sh",
		Args: []string{"workers/go-dqlite/litebench-worker-dqlite"}, Driver: "github.com/canonical/go-dqlite",
		Engine: dqlite.Name, Prereq: dqlitePackages},
}

// EnvRoot names the repository (the directory holding workers/) when
// litebench runs from elsewhere.
const EnvRoot = "LITEBENCH_ROOT"

func init() {
	root := Root()
	for _, w := range Workers {
		if root == "" {
			// An installed binary away from a checkout: the workers are
			// built from the repository's workers/ directory.
			target.RegisterUnavailable(target.Unavailable{Name: w.Name, Engine: w.engine(), API: "worker protocol", Module: w.Driver,
				Reason: "its worker is built from a litebench checkout (workers/" + w.Dir + "): run the litebench built there after 'make workers', or set " + EnvRoot + "=CHECKOUT"})
			continue
		}
		if _, err := os.Stat(filepath.Join(root, "workers", w.Dir)); err != nil {
			if w.Missing != "" {
				target.RegisterUnavailable(target.Unavailable{Name: w.Name, Engine: w.engine(), API: "worker protocol", Module: w.Driver, Reason: w.Missing})
			}
			continue // this checkout has no such worker
		}
		c := &client{w: w, root: root}
		if err := c.ready(); err != nil {
			target.RegisterUnavailable(target.Unavailable{Name: w.Name, Engine: w.engine(), API: "worker protocol", Module: w.Driver, Reason: err.Error()})
			continue
		}
		target.Register(c)
	}
}

// Root is the litebench tree whose workers/ this litebench runs, "" when
// there is none. Only trusted places count, never the working directory
// (a downloaded repository's workers/ must not run because litebench was
// started inside it):
//
//   - $LITEBENCH_ROOT;
//   - beside the executable: its directory or the one above (a checkout
//     built with 'make build', bin/litebench), holding workers/ and go.mod,
//     or an installed tree, EXE_DIR/../share/litebench holding workers/;
//   - the checkout this litebench was compiled from (the source directory
//     the compiler recorded, as 'go run ./cmd/litebench' and 'go test'
//     leave their binaries in temp directories), holding workers/ and the
//     go.mod of litebench's module.
func Root() string {
	if r := os.Getenv(EnvRoot); r != "" {
		return r
	}
	if exe, err := os.Executable(); err == nil {
		if e, err := filepath.EvalSymlinks(exe); err == nil {
			exe = e
		}
		d := filepath.Dir(exe)
		for _, c := range []string{d, filepath.Dir(d)} {
			if isDir(filepath.Join(c, "workers")) && isModule(c) {
				return c
			}
		}
		if c := filepath.Join(filepath.Dir(d), "share", "litebench"); isDir(filepath.Join(c, "workers")) {
			return c
		}
	}
	return sourceRoot()
}

// sourceRoot is the checkout this package was compiled from, or "" (a
// binary built with -trimpath, or whose checkout is gone).
func sourceRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	// file is CHECKOUT/internal/target/external/external.go. A module
	// cache's copy (MODULE@VERSION, from 'go install …@version') is
	// read-only: its workers cannot be built there.
	c := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(file))))
	if strings.Contains(filepath.Base(c), "@") {
		return ""
	}
	if isDir(filepath.Join(c, "workers")) && isModule(c) {
		return c
	}
	return ""
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// isModule reports whether dir holds litebench's go.mod.
func isModule(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	first, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(first) == "module "+module
}

// module is litebench's module path.
const module = "github.com/litebench/litebench"

type client struct {
	w    Worker
	root string
	once sync.Once
	ver  string
	// driverVer is the driver version the worker names in hello; caps
	// its capabilities.
	driverVer string
	caps      []string
	err       error
}

// engine is the engine the worker's client speaks.
func (w Worker) engine() string {
	if w.Engine != "" {
		return w.Engine
	}
	return sqlite.Name
}

func (c *client) ready() error {
	if c.w.Prereq != nil {
		if err := c.w.Prereq(); err != nil {
			return err
		}
	}
	if _, err := os.Stat(filepath.Join(c.root, "workers", c.w.Dir, c.w.Built)); err != nil {
		return fmt.Errorf("not built: run %s", c.w.Build)
	}
	if p := c.w.Args[0]; !strings.Contains(p, "/") {
		if _, err := exec.LookPath(p); err != nil {
			return fmt.Errorf("%s is not installed (it runs the %s worker)", p, c.w.Lang)
		}
	}
	return nil
}

func (c *client) Name() string   { return c.w.Name }
func (c *client) Engine() string { return c.w.engine() }
func (c *client) API() string    { return "worker protocol" }
func (c *client) Module() string { return c.w.Driver }

// ClientVersion is the driver's version as the worker's hello gave it
// ("" before Version has run, or when the worker does not say).
func (c *client) ClientVersion() string {
	c.Version()
	return c.driverVer
}
func (c *client) Lang() string                   { return c.w.Lang }
func (c *client) Placement() target.Placement    { return target.Placement("process:" + c.w.Lang) }
func (c *client) Classify(error) engine.ErrClass { return engine.None }

func (c *client) Open(context.Context, engine.Endpoint, target.PoolOptions) (target.DB, error) {
	return nil, fmt.Errorf("%s runs in a worker process of its own, not in litebench", c.w.Name)
}

// Command is the worker's command line, with the repository's paths made
// absolute.
func (c *client) Command() ([]string, error) {
	if err := c.ready(); err != nil {
		return nil, err
	}
	args := append([]string(nil), c.w.Args...)
	for i, a := range args {
		if strings.HasPrefix(a, "workers/") {
			args[i] = filepath.Join(c.root, a)
		}
	}
	return args, nil
}

// BindEngine gives the dqlite engine the worker binary as the program of
// its nodes (the binary's node mode); other engines are the registry's.
func (c *client) BindEngine(e engine.Engine) engine.Engine {
	if c.w.Engine == dqlite.Name {
		return dqlite.WithNodes(c.Command)
	}
	return e
}

// Caps are the capabilities the worker announces in hello.
func (c *client) Caps() ([]string, error) {
	_, err := c.Version()
	return c.caps, err
}

// Version is the SQLite version the worker's driver runs, from its hello
// (asked once).
func (c *client) Version() (string, error) {
	c.once.Do(func() {
		args, err := c.Command()
		if err != nil {
			c.err = err
			return
		}
		p, err := worker.StartCommand(args[0], args[1:]...)
		if err != nil {
			c.err = err
			return
		}
		defer p.Close()
		ctx, cancel := context.WithTimeout(proc.Context(), 30*time.Second)
		defer cancel()
		// A probe has nothing to wind down: a cancel (Ctrl-C) or the
		// timeout kills the worker at once.
		stop := context.AfterFunc(ctx, func() { p.Kill() })
		defer stop()
		h, err := p.Hello(ctx)
		if err != nil {
			c.err = err
			return
		}
		c.ver, c.driverVer, c.caps = h.EngineVersion, h.DriverVersion, h.Caps
		if c.ver == "" {
			// Not every worker says it in hello: set up a one-row
			// in-memory job and read what setup_done reports.
			job := &worker.Job{RunID: "version", Workload: "insert", Target: c.w.Name, Path: "litebench-version",
				Params: map[string]string{"rows": "1"}, Settings: map[string]string{"in-memory": "true"}}
			ev, err := p.Setup(ctx, job)
			if err != nil {
				c.err = err
				return
			}
			c.ver = ev.EngineVersion
		}
		if c.ver == "" {
			c.err = errors.New("the worker names no SQLite version")
		}
	})
	return c.ver, c.err
}

// dqlitePackages checks for Debian's dqlite packages: libdqlite's header
// and go-dqlite's source, which the dqlite worker builds with.
func dqlitePackages() error {
	for _, f := range []string{"/usr/include/dqlite.h", "/usr/share/gocode/src/github.com/canonical/go-dqlite/go.mod"} {
		if _, err := os.Stat(f); err != nil {
			return errors.New(dqlite.Missing)
		}
	}
	return nil
}
