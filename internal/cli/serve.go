package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"litebench/internal/engine"
	"litebench/internal/serve"
	"litebench/internal/settings"
	"litebench/internal/target"
	"litebench/internal/workload"
)

func cmdServe(ctx context.Context, args []string, out, errw io.Writer) error {
	var b strings.Builder
	b.WriteString(`NAME
    litebench serve - serve one page row over HTTP for an external load tool

SYNOPSIS
    litebench serve [--strategy S] [--target T] [--addr HOST:PORT] [setting flags]

DESCRIPTION
    Creates a pages table (--rows pages of --body-size bytes, deterministic
    from --seed) in a new bench database and serves GET /?id=N (default 1)
    with the page's body, by one of seed 003's strategies:

`)
	for _, s := range serve.Strategies {
		fmt.Fprintf(&b, "      %-10s %s\n", s, serve.Describe[s])
	}
	b.WriteString(`
    Load it with any tool, e.g. 'hey -z 5s -c 50 http://127.0.0.1:8080/' or
    'wrk -d 5s -c 50 http://127.0.0.1:8080/'. Ctrl-C stops the server and
    removes the bench database (unless --keep). 'litebench run http' runs
    the server and a built-in load generator in one command.

FLAGS
    --strategy S       one of the strategies above (default stmt-pool)
    --addr HOST:PORT   listen address (default 127.0.0.1:8080; port 0 picks
                       a free port). Loopback unless you name another host.
    --handles N        handles of conn-pool, stmt-pool, direct (default 5)
    --rows N           pages (default 100)
    --body-size B      bytes per page (default 5400)
    --immutable        open the serving handles with immutable=1
    --target T         target (default mattn; direct needs zombie or
                       ncruces-direct)
    --dir DIR, --keep  where the bench database goes, and keep it
    setting flags      as for 'litebench insert' (one value each)
`)
	help := simpleHelp(b.String())
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var c common
	c.register(fs)
	strategy := fs.String("strategy", "stmt-pool", "strategy")
	addr := fs.String("addr", "127.0.0.1:8080", "listen address")
	handles := fs.Int("handles", 5, "pool handles")
	rowsS := fs.String("rows", "100", "pages")
	bodyS := fs.String("body-size", "5400", "body bytes")
	immutable := fs.Bool("immutable", false, "immutable=1")
	seed := fs.Uint64("seed", 1, "data seed")
	if err := parse(fs, args, out, help); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("serve: unexpected argument %q", fs.Arg(0))
	}
	if *handles < 1 {
		return usagef("--handles %d: want at least 1", *handles)
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
	c.noStore = true
	if err := c.checkPaths(dbPath); err != nil {
		return err
	}
	if err := c.applyLimits(); err != nil {
		return err
	}
	// Bind first: a busy port is reported before anything is created.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return usagef("--addr %s: %v; pick another port", *addr, err)
	}
	defer ln.Close()

	dir := c.dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "litebench-serve-"); err != nil {
			return err
		}
		if !c.keep {
			defer os.RemoveAll(dir)
		}
	}
	inst, err := t.Engine().Provision(ctx, engine.Request{Settings: s, Path: dbPath, Dir: dir, Name: "serve", Keep: c.keep})
	if err != nil {
		return usageError{err.Error()}
	}
	defer inst.Destroy()
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
		return fmt.Errorf("creating pages: %w", err)
	}
	file := filepath.Join(dir, "litebench-page.html")
	if err := os.WriteFile(file, []byte(workload.Text(*seed, 0, int(body))), 0o644); err != nil {
		return err
	}
	defer os.Remove(file)
	srv, err := serve.New(ctx, serve.Config{Strategy: *strategy, Target: t, Endpoint: inst.ReadEndpoint(*immutable), Pool: policy.PoolOptions, Handles: *handles, File: file})
	if err != nil {
		return err
	}
	defer srv.Close()
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(out, "serving %s (%s, %d pages of %d bytes) on http://%s/ ; Ctrl-C stops\n", *strategy, t.Name(), rows, body, ln.Addr())
	if f, ok := out.(interface{ Sync() error }); ok {
		f.Sync()
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx) //nolint:errcheck
		fmt.Fprintln(errw, "stopped")
		return nil
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}
