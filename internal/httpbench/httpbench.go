// Package httpbench is the http workload: an HTTP server (package serve)
// returns one page row by each --strategy, loaded over loopback by the
// built-in client (package httpclient); it reproduces "Making SQLite faster
// in Go" (Turriate 2020). It registers with package workload like the
// other native workloads; the pages table and its rows are workload's.
package httpbench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/litebench/litebench/internal/cpuuse"
	"github.com/litebench/litebench/internal/httpclient"
	"github.com/litebench/litebench/internal/limits"
	"github.com/litebench/litebench/internal/loadgen"
	"github.com/litebench/litebench/internal/metrics"
	"github.com/litebench/litebench/internal/serve"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/units"
	"github.com/litebench/litebench/internal/workload"
)

var httpOps = metrics.Ops{"request"}

func init() {
	workload.Register(&workload.Spec{
		Name:    "http",
		Summary: "an HTTP server returns one page row by each --strategy, loaded over loopback by a built-in client (reproduces \"Making SQLite faster in Go\", Turriate 2020)",
		Command: []string{"run", "http"},
		Params: []workload.Param{
			{Name: "strategy", Default: "stmt-pool", Help: "plain, prepared, conn-pool, stmt-pool, direct, file (the control)", Sweep: true},
			{Name: "server", Default: serve.DefaultServer, Help: "HTTP server: " + strings.Join(serve.Servers, " or ") + " (the published experiment used fasthttp, through fiber)", Sweep: true},
			{Name: "concurrency", Default: "50", Help: "closed loop: concurrent client connections (as wrk -c and hey -c)", Sweep: true},
			{Name: "client", Default: "events", Help: "closed loop: 'events' drives the connections from event loops, as wrk's threads do (Linux; elsewhere goroutines); 'goroutines' gives each connection a goroutine, as hey does", Sweep: true},
			{Name: "loops", Default: "1", Help: "--client events: event loops (as wrk -t); one drives about 100k requests/s on a core of this machine: raise it when client_cpu nears 1", Sweep: true},
			{Name: "handles", Default: "5", Help: "N of conn-pool, stmt-pool and direct (the published experiment used 5, then 20)", Sweep: true},
			{Name: "rows", Default: "100", Help: "pages in the table", Sweep: true},
			{Name: "body-size", Default: "5400", Help: "bytes of each page body", Sweep: true},
			{Name: "immutable", Default: "false", Help: "open the serving handles with immutable=1 (read-only, no locking)", Sweep: true},
			{Name: "direct-target", Default: "zombie", Help: "target of --strategy direct when --target is a database/sql driver", Sweep: false},
			{Name: "duration", Default: "5s", Help: "length of the measured part (ignored when --count is set)", Sweep: true},
			{Name: "count", Default: "0", Help: "measured requests in total, instead of --duration", Sweep: true},
			{Name: "warmup", Default: "0s", Help: "run this long first, unrecorded", Sweep: false},
			{Name: "rate", Default: "0", Help: "open loop: requests per second (0 = closed loop)", Sweep: true},
			{Name: "arrivals", Default: "uniform", Help: "open-loop spacing: uniform or poisson", Sweep: true},
			{Name: "max-inflight", Default: "200", Help: "open loop: most requests in flight at once", Sweep: true},
			{Name: "url", Default: "", Help: "load this already running server (e.g. 'litebench serve') instead of starting one; bodies must be --body-size bytes", Sweep: false},
			{Name: "seed", Default: "1", Help: "data seed", Sweep: false},
		},
		New: newHTTP,
	})
}

type httpW struct {
	params       map[string]string
	strategy     string
	server       string
	client       string
	loops        int
	concurrency  int
	handles      int
	rows         int64
	bodySize     int
	immutable    bool
	directTarget string
	url          string
	seed         uint64
	cfg          loadgen.Config
	file         string
}

func newHTTP(p map[string]string, s settings.Settings) (workload.Workload, error) {
	w := &httpW{params: p, strategy: p["strategy"], server: p["server"], directTarget: p["direct-target"], url: p["url"]}
	if w.url != "" {
		if _, err := httpclient.Parse(w.url); err != nil {
			return nil, fmt.Errorf("--url %w", err)
		}
	}
	if err := serve.CheckServer(w.server); err != nil {
		return nil, err
	}
	switch w.client = p["client"]; w.client {
	case "events", "goroutines":
	default:
		return nil, fmt.Errorf("--client %q: want events or goroutines", w.client)
	}
	loops, err := workload.IntParam(p, "loops", 1)
	if err != nil {
		return nil, err
	}
	w.loops = int(loops)
	// The target is checked when the run's target is known (TargetFor).
	if err := serve.Check(w.strategy, nil, s.Bool("in-memory")); err != nil {
		return nil, err
	}
	n, err := workload.IntParam(p, "concurrency", 1)
	if err != nil {
		return nil, err
	}
	w.concurrency = int(n)
	if n, err = workload.IntParam(p, "handles", 1); err != nil {
		return nil, err
	}
	w.handles = int(n)
	if w.rows, err = workload.IntParam(p, "rows", 1); err != nil {
		return nil, err
	}
	if n, err = workload.IntParam(p, "body-size", 1); err != nil {
		return nil, err
	}
	w.bodySize = int(n)
	if w.immutable, err = strconv.ParseBool(p["immutable"]); err != nil {
		return nil, fmt.Errorf("--immutable %q: want true or false", p["immutable"])
	}
	if w.seed, err = workload.SeedParam(p); err != nil {
		return nil, err
	}
	if w.cfg, err = workload.LoadConfig(p, httpOps, w.seed); err != nil {
		return nil, err
	}
	c := &w.cfg
	c.Choose = func(uint64) int { return 0 }
	for i := 0; i < w.concurrency; i++ {
		c.Roles = append(c.Roles, 0)
	}
	return w, nil
}

func (w *httpW) Name() string              { return "http" }
func (w *httpW) Unit() string              { return "request" }
func (w *httpW) Ops() metrics.Ops          { return httpOps }
func (w *httpW) Params() map[string]string { return w.params }
func (w *httpW) Total() int64              { return w.cfg.Count }

// Control: every strategy is compared with serving the file under the same
// load.
func (w *httpW) Control() (key, value string, match []string) {
	return "strategy", "file", []string{"concurrency", "rate"}
}

// TargetFor names the target this run must use instead of the one asked
// for: --strategy direct on a database/sql target uses --direct-target.
func (w *httpW) TargetFor(t target.Target) string {
	if w.strategy == "direct" && t.API() != "direct" {
		return w.directTarget
	}
	return ""
}

// Setup creates and fills the pages table and writes page 1's body to a
// file for the control.
func (w *httpW) Setup(ctx context.Context, env *workload.Env) error {
	if err := workload.SetupPages(ctx, env.Session, w.rows, w.bodySize, w.seed, w.immutable); err != nil {
		return err
	}
	dir := os.TempDir()
	if f := env.Instance.Endpoint().File; f != "" {
		dir = filepath.Dir(f)
	}
	f, err := os.CreateTemp(dir, "litebench-page-*.html")
	if err != nil {
		return err
	}
	w.file = f.Name()
	_, err = f.WriteString(workload.Text(w.seed, 0, w.bodySize))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (w *httpW) Run(ctx context.Context, env *workload.Env) error {
	defer os.Remove(w.file)
	url := w.url
	if url == "" {
		srv, err := serve.New(ctx, serve.Config{Strategy: w.strategy, Target: env.Session.Target(),
			Endpoint: env.Instance.ReadEndpoint(w.immutable), Pool: env.Session.Policy().PoolOptions, Handles: w.handles, File: w.file})
		if err != nil {
			return err
		}
		defer srv.Close()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		hs, err := serve.NewHTTP(w.server, srv, 0)
		if err != nil {
			ln.Close()
			return err
		}
		go func() {
			pprof.SetGoroutineLabels(cpuuse.Label(ctx, "server")) // and its connections
			hs.Serve(ln)                                          //nolint:errcheck // ends with Close below
		}()
		defer hs.Close()
		url = "http://" + ln.Addr().String() + "/"
	} else {
		env.Notes = append(env.Notes, "loaded an external server at "+url+"; --strategy, --server and the settings describe this run's own database only")
	}
	tg, err := httpclient.Parse(url)
	if err != nil {
		return err
	}
	cfg := w.cfg
	if cfg.Rate > 0 {
		cfg.Roles = nil
	}
	cfg.Classify = func(err error) string {
		if errors.Is(err, errMismatch) {
			return "mismatch"
		}
		return "other"
	}
	want := int64(w.bodySize)
	cfg.NewExecutor = func(int) (loadgen.Executor, error) {
		// One connection per executor. The client carries the run's
		// context, so that an interrupt also ends the requests in flight.
		return &httpExec{c: httpclient.New(ctx, tg), want: want}, nil
	}
	switch {
	case w.client != "events":
		if w.loops != 1 {
			env.Notes = append(env.Notes, fmt.Sprintf("--loops %d applies to --client events: each connection had a goroutine", w.loops))
		}
	case cfg.Rate > 0:
		env.Notes = append(env.Notes, "--client events applies to a closed loop: this open loop gives each request in flight a goroutine")
	case !httpclient.HasLoop:
		env.Notes = append(env.Notes, "--client events needs Linux's epoll: each connection had a goroutine")
	default:
		cfg.Loops = w.loops
		cfg.NewMultiplexer = func(ctx context.Context, _, n int) (loadgen.Multiplexer, error) {
			l, err := httpclient.NewLoop(ctx, tg, n)
			if err != nil {
				return nil, err
			}
			return newHTTPLoop(l, want), nil
		}
	}
	// The client's CPU is measured over the measured part: the whole
	// process's when the server is elsewhere, else its sampled share.
	var meter atomic.Pointer[cpuuse.Meter]
	cfg.OnMeasure = func(time.Time) { meter.Store(cpuuse.Start(w.url == "")) }
	pprof.SetGoroutineLabels(cpuuse.Label(ctx, "client")) // and the load generator's goroutines
	_, err = workload.RunLoad(ctx, env, cfg)
	pprof.SetGoroutineLabels(ctx)
	if m := meter.Load(); m != nil {
		reportCPU(env, m.Stop(), w.url == "")
	}
	env.Figure("body_size", units.ByteSize, units.None, float64(w.bodySize))
	return err
}

// Demand is what a run holds at once: a connection (and socket) per
// client, with the server's end of each and its handles when the server
// runs in this process.
func (w *httpW) Demand(s settings.Settings) (d limits.Demand) {
	c := w.cfg
	clients := w.concurrency
	flags := fmt.Sprintf("--concurrency %d", clients)
	if c.Rate > 0 {
		clients = c.MaxInflight
		flags = fmt.Sprintf("--max-inflight %d", clients)
		d = workload.ExecutorDemand(flags, clients, 1, true, c.Warmup > 0)
	} else {
		d = workload.ExecutorDemand(flags, clients, 1, false, c.Warmup > 0)
	}
	d.Sockets = clients
	d.Bytes = int64(clients) * 32 << 10 // each client's read buffer
	if w.url == "" {
		// The server runs in this process: its end of every
		// connection, its handles, and the control's open files.
		d.Sockets *= 2
		d.Goroutines += clients
		d.Conns = 1 + serve.Conns(w.strategy, w.handles, s.Int("pool"), clients)
		if w.strategy == "file" {
			d.Files = clients
		}
		if serve.Pooled(w.strategy) {
			d.Flags = fmt.Sprintf("--handles %d %s", w.handles, flags)
		}
	}
	return d
}

// ClientWarnShare is the share of the machine's cores above which the
// load generator's CPU use earns a warning: past it, the client may be
// what limits the rate.
const ClientWarnShare = 0.4

// reportCPU adds the CPU figures of a run, in cores: the process's, and
// the client's and the server's (sampled shares of the process's when the
// server ran in it), with a warning when the client used more than
// ClientWarnShare of the machine's cores.
func reportCPU(env *workload.Env, u cpuuse.Use, inProcess bool) {
	cores := u.Cores()
	// The same measure as RunLoad's, over the meter's interval, so that
	// the shares add up to it.
	env.SetFigure(workload.ProcessCPU, units.Cores, units.None, cores)
	client, sampled := cores, !inProcess
	if inProcess {
		if client, sampled = u.SideCores("client"); sampled {
			server, _ := u.SideCores("server")
			env.Figure("server_cpu", units.Cores, units.None, server)
		}
	}
	if !sampled {
		why := "no samples"
		if u.SampleErr != nil {
			why = u.SampleErr.Error()
		}
		env.Notes = append(env.Notes, "the client's CPU was not measured ("+why+"); process_cpu counts the client and the server together")
		return
	}
	env.Figure("client_cpu", units.Cores, units.None, client)
	if n := runtime.NumCPU(); client > ClientWarnShare*float64(n) {
		env.Notes = append(env.Notes, fmt.Sprintf("warning: the load generator used %.2f of the machine's %d cores (%.0f%%): it may limit the rate more than the server does; load the server from another machine or with fewer --concurrency", client, n, 100*client/float64(n)))
	}
}

var errMismatch = errors.New("unexpected response")

type httpExec struct {
	c    *httpclient.Client
	want int64
}

// Do fetches the page and checks the status and the body's length. An
// interrupt ends the request in flight too; a stalled server is bounded
// by the client's timeout.
func (e *httpExec) Do(context.Context, int) (int, error) {
	status, n, err := e.c.Get()
	return 0, checkPage(status, n, err, e.want)
}

// checkPage is a request's error: the client's, or a response other than
// a 200 with a body of want bytes.
func checkPage(status int, n int64, err error, want int64) error {
	if err != nil && !errors.Is(err, httpclient.ErrStatus) {
		return err
	}
	if status != 200 || n != want {
		return fmt.Errorf("%w: status %d, %d body bytes (want 200, %d)", errMismatch, status, n, want)
	}
	return nil
}

// httpLoop runs an event loop's connections: each slot is a connection
// with one request at a time.
type httpLoop struct {
	l    *httpclient.Loop
	want int64
	each func(loadgen.Ended) // the current Wait's
	fn   func(httpclient.Result)
}

func newHTTPLoop(l *httpclient.Loop, want int64) *httpLoop {
	h := &httpLoop{l: l, want: want}
	h.fn = func(r httpclient.Result) {
		h.each(loadgen.Ended{Slot: r.Conn, Err: checkPage(r.Status, r.N, r.Err, h.want)})
	}
	return h
}

func (h *httpLoop) Start(slot, _ int) error { return h.l.Start(slot) }

func (h *httpLoop) Wait(each func(loadgen.Ended)) error {
	h.each = each
	return h.l.Wait(h.fn)
}

func (h *httpLoop) Close() { h.l.Close() }

func (e *httpExec) Close() { e.c.Close() }
