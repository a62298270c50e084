package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/limits"
	"github.com/litebench/litebench/internal/own"
	"github.com/litebench/litebench/internal/runner"
	"github.com/litebench/litebench/internal/serve"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/workload"
)

func cmdServe(ctx context.Context, args []string, out, errw io.Writer) error {
	var b strings.Builder
	b.WriteString(`NAME
    litebench serve - serve one page row over HTTP for an external load tool

SYNOPSIS
    litebench serve [--strategy S] [--server fasthttp|net/http] [--target T]
                    [--addr HOST:PORT] [setting flags]

DESCRIPTION
    Creates a pages table (--rows pages of --body-size bytes, deterministic
    from --seed) in a new bench database and serves GET /?id=N (default 1)
    with the page's body, by one of the strategies of the experiment
    "Making SQLite faster in Go" (Turriate, 2020):

`)
	for _, s := range serve.Strategies {
		fmt.Fprintf(&b, "      %-10s %s", s, wrapAt(serve.Describe[s], 17, 17))
	}
	b.WriteString(`
    Load it with any tool, e.g. 'hey -z 5s -c 50 http://127.0.0.1:8080/' or
    'wrk -d 5s -c 50 http://127.0.0.1:8080/'. Ctrl-C stops the server and
    removes the bench database (unless --keep); the exit status is 130.
    'litebench run http' runs the server and a built-in load generator in
    one command. Setting flags take one value each (a server is one
    configuration); with --target, --strategy direct needs zombie or
    ncruces-direct.
`)
	page := helpPage{text: b.String(), group: "SERVER FLAGS", examples: []string{
		"litebench serve --strategy stmt-pool --journal wal",
		"litebench serve --server net/http --addr 127.0.0.1:0 --strategy plain",
		"litebench serve --strategy direct --target zombie --handles 20",
	}, seeAlso: []string{"run http", "list suites"}}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var c common
	c.register(fs)
	strategy := fs.String("strategy", "stmt-pool", "one of the strategies above")
	server := fs.String("server", serve.DefaultServer, "HTTP server: fasthttp (as the published experiment) or net/http; both answer alike")
	addr := fs.String("addr", "127.0.0.1:8080", "listen address (port 0 picks a free port); loopback unless you name another host, and litebench warns when the server is reachable from the network")
	handles := fs.Int("handles", 5, "handles of conn-pool, stmt-pool and direct")
	rowsS := fs.String("rows", "100", "pages in the table")
	bodyS := fs.String("body-size", "5400", "bytes of each page body")
	immutable := fs.Bool("immutable", false, "open the serving handles with immutable=1")
	seed := fs.Uint64("seed", 1, "data seed: the same seed gives the same pages")
	idle := fs.Duration("idle-timeout", serve.DefaultIdleTimeout, "close keep-alive connections idle this long; only GET and HEAD are answered")
	if err := parse(fs, args, out, page.help(fs)); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("serve: unexpected argument %q", fs.Arg(0))
	}
	if *handles < 1 {
		return usagef("--handles %d: want at least 1", *handles)
	}
	if *idle <= 0 {
		return usagef("--idle-timeout %s: want a positive duration", *idle)
	}
	rows, err := settings.ParseCount(*rowsS)
	if err != nil || rows < 1 {
		return usagef("--rows %q: want a positive whole number", *rowsS)
	}
	body, err := settings.ParseCount(*bodyS)
	if err != nil || body < 1 {
		return usagef("--body-size %q: want a positive number of bytes", *bodyS)
	}
	if _, _, err := net.SplitHostPort(*addr); err != nil {
		return usagef("--addr %q: want HOST:PORT, e.g. 127.0.0.1:8080", *addr)
	}
	m, dbPath, err := c.matrix()
	if err != nil {
		return err
	}
	if m.Size() != 1 {
		return usagef("serve: settings take one value each (a server is one configuration)")
	}
	s := m.Points()[0]
	ts, err := c.targetList()
	if err != nil {
		return err
	}
	if len(ts) != 1 {
		return usagef("serve: --target takes one target")
	}
	t := ts[0]
	if err := serve.Check(*strategy, t, s.Bool("in-memory")); err != nil {
		return usageError{err.Error()}
	}
	if err := serve.CheckServer(*server); err != nil {
		return usageError{err.Error()}
	}
	if c.attach {
		return usagef("serve: --attach: serve creates and sets up its own database, so it cannot attach to one in use; drop --attach")
	}
	c.noStore = true
	if err := c.checkPaths(dbPath); err != nil {
		return err
	}
	if err := c.checkServeDemand(*strategy, *handles, s); err != nil {
		return err
	}
	if err := c.applyLimits(ctx); err != nil {
		return err
	}
	// Bind first: a busy port is reported before anything is created.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return usagef("--addr %s: %v; pick another port", *addr, err)
	}
	defer ln.Close()
	warnExposure(errw, ln.Addr())

	own.CleanStale()
	tmp, err := own.NewDir()
	if err != nil {
		return err
	}
	defer tmp.Close(c.dir == "" && c.keep)
	dir := c.dir
	if dir == "" {
		dir = tmp.Path
	}
	path := dbPath
	if path == "" {
		path = filepath.Join(dir, "litebench-serve.db")
	}
	lock, err := own.LockDB(path, false)
	if err != nil {
		return usagef("--db: %v", err)
	}
	defer lock.Release()
	if err := runner.RemoveDB(path); err != nil {
		return usagef("--db: %v", err)
	}
	if !c.keep {
		defer func() {
			if err := lock.Remove(workload.BenchDB); err != nil {
				fmt.Fprintf(errw, "left in place: %v\n", err)
			}
		}()
	}
	// The path is claimed: the engine only names and opens it.
	inst, err := t.Engine().Provision(ctx, engine.Request{Settings: s, Path: path, Name: "serve", Reuse: true, Keep: true})
	if err != nil {
		return usageError{err.Error()}
	}
	policy := target.PolicyOf(s)
	sess, err := target.Open(ctx, t, inst.Endpoint(), policy)
	if err != nil {
		return fmt.Errorf("open %s: %w", inst, err)
	}
	defer sess.Close()
	if err := inst.Stamp(ctx, target.SQL(sess.DB())); err != nil {
		return err
	}
	if err := workload.SetupPages(ctx, sess, rows, int(body), *seed, *immutable); err != nil {
		return interruptedOr(ctx, fmt.Errorf("creating pages: %w", err))
	}
	lock.Share()
	// The control's file: a new name, never one that exists.
	f, err := os.CreateTemp(dir, "litebench-page-*.html")
	if err != nil {
		return err
	}
	file := f.Name()
	defer os.Remove(file)
	_, err = f.WriteString(workload.Text(*seed, 0, int(body)))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	srv, err := serve.New(ctx, serve.Config{Strategy: *strategy, Target: t, Endpoint: inst.ReadEndpoint(*immutable), Pool: policy.PoolOptions, Handles: *handles, File: file})
	if err != nil {
		return interruptedOr(ctx, err)
	}
	defer srv.Close()
	hs, err := serve.NewHTTP(*server, srv, *idle)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "serving %s with %s (%s, %d pages of %d bytes) on http://%s/ ; Ctrl-C stops\n", *strategy, *server, t.Name(), rows, body, ln.Addr())
	if f, ok := out.(interface{ Sync() error }); ok {
		f.Sync()
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
		// Requests take microseconds: what is still open after a moment
		// is an idle or stalled client.
		hs.Shutdown(300 * time.Millisecond)
		fmt.Fprintln(errw, "stopped")
		return stoppedError("interrupted; the server stopped")
	case err := <-errc:
		return err
	}
}

// warnExposure warns when the server can be reached from other machines.
func warnExposure(errw io.Writer, addr net.Addr) {
	if e := serve.Exposure(addr); e != "" {
		_, port, _ := net.SplitHostPort(addr.String())
		fmt.Fprintf(errw, "warning: listening on %s, %s: anyone who can reach this machine can load the server and read its pages; --addr 127.0.0.1:%s serves this machine only\n", addr, e, port)
	}
}

// checkServeDemand refuses --handles that cannot be opened within the
// open-file limit or the memory.
func (c *common) checkServeDemand(strategy string, handles int, s settings.Settings) error {
	return c.fits(limits.Demand{Flags: fmt.Sprintf("--handles %d", handles), InMemory: s.Bool("in-memory"),
		Conns: 1 + serve.Conns(strategy, handles, s.Int("pool"), 1)})
}

// interruptedOr is errStopped when ctx was cancelled, else err.
func interruptedOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return errStopped
	}
	return err
}
