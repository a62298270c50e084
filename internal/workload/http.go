package workload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/litebench/litebench/internal/loadgen"
	"github.com/litebench/litebench/internal/metrics"
	"github.com/litebench/litebench/internal/serve"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/units"
)

var httpOps = metrics.Ops{"request"}

func init() {
	Register(&Spec{
		Name:    "http",
		Summary: "Making SQLite faster in Go: an HTTP server returns one page row by each --strategy, loaded over loopback by a built-in client",
		Params: []Param{
			{"strategy", "stmt-pool", "plain, prepared, conn-pool, stmt-pool, direct, file (the control)", true},
			{"concurrency", "50", "closed loop: concurrent client connections (as hey -c)", true},
			{"handles", "5", "N of conn-pool, stmt-pool and direct (Making SQLite faster in Go used 5, then 20)", true},
			{"rows", "100", "pages in the table", true},
			{"body-size", "5400", "bytes of each page body", true},
			{"immutable", "false", "open the serving handles with immutable=1 (read-only, no locking)", true},
			{"direct-target", "zombie", "target of --strategy direct when --target is a database/sql driver", false},
			{"duration", "5s", "length of the measured part (ignored when --count is set)", true},
			{"count", "0", "measured requests in total, instead of --duration", true},
			{"warmup", "0s", "run this long first, unrecorded", false},
			{"rate", "0", "open loop: requests per second (0 = closed loop)", true},
			{"arrivals", "uniform", "open-loop spacing: uniform or poisson", true},
			{"max-inflight", "200", "open loop: most requests in flight at once", true},
			{"url", "", "load this already running server (e.g. 'litebench serve') instead of starting one; bodies must be --body-size bytes", false},
			{"seed", "1", "data seed", false},
		},
		New: newHTTP,
	})
}

type httpW struct {
	params       map[string]string
	strategy     string
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

func newHTTP(p map[string]string, s settings.Settings) (Workload, error) {
	w := &httpW{params: p, strategy: p["strategy"], directTarget: p["direct-target"], url: p["url"]}
	if w.url != "" && !strings.HasPrefix(w.url, "http://") {
		return nil, fmt.Errorf("--url %q: want http://HOST:PORT/", w.url)
	}
	// The target is checked when the run's target is known (TargetFor).
	if err := serve.Check(w.strategy, nil, s.Bool("in-memory")); err != nil {
		return nil, err
	}
	n, err := pInt(p, "concurrency", 1)
	if err != nil {
		return nil, err
	}
	w.concurrency = int(n)
	if n, err = pInt(p, "handles", 1); err != nil {
		return nil, err
	}
	w.handles = int(n)
	if w.rows, err = pInt(p, "rows", 1); err != nil {
		return nil, err
	}
	if n, err = pInt(p, "body-size", 1); err != nil {
		return nil, err
	}
	w.bodySize = int(n)
	if w.immutable, err = strconv.ParseBool(p["immutable"]); err != nil {
		return nil, fmt.Errorf("--immutable %q: want true or false", p["immutable"])
	}
	if w.seed, err = pSeed(p); err != nil {
		return nil, err
	}
	if w.cfg, err = LoadConfig(p, httpOps, w.seed); err != nil {
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
func (w *httpW) Setup(ctx context.Context, env *Env) error {
	if err := SetupPages(ctx, env.Session, w.rows, w.bodySize, w.seed, w.immutable); err != nil {
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
	_, err = f.WriteString(Text(w.seed, 0, w.bodySize))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// SetupPages creates the pages schema with rows bodies of bodySize bytes
// (the schema's rows, with their bodies at that size). For immutable
// readers everything is checkpointed into the main file first: an
// immutable open does not look at the WAL.
func SetupPages(ctx context.Context, sess *target.Session, rows int64, bodySize int, seed uint64, immutable bool) error {
	if err := setupPages(ctx, sess.Setup(), rows, bodySize, seed); err != nil {
		return err
	}
	if q := sess.Dialect().Checkpoint(); immutable && q != "" {
		return sess.DB().Exec(ctx, q, nil)
	}
	return nil
}

func setupPages(ctx context.Context, sess *target.Session, rows int64, bodySize int, seed uint64) error {
	sc := Schemas["pages"]
	if err := CreateSchema(ctx, sess, sc); err != nil {
		return err
	}
	st, err := sess.Prepare(ctx, sess.Dialect().Insert(sc.Table, sc.Columns, 1), target.Write)
	if err != nil {
		return err
	}
	defer st.Close()
	w := sess.Writer()
	if err := w.Begin(ctx); err != nil {
		return err
	}
	var a target.Args
	for i := int64(0); i < rows; i++ {
		a.Reset()
		a.Int(i + 1)
		a.Text(Text(seed, i, bodySize))
		err := ctx.Err() // direct-API transactions do not watch ctx
		if err == nil {
			err = w.Exec(ctx, st, &a)
		}
		if err != nil {
			w.Rollback()
			return err
		}
	}
	return w.Commit()
}

func (w *httpW) Run(ctx context.Context, env *Env) error {
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
		hs := serve.HTTPServer(srv, 0)
		go hs.Serve(ln) //nolint:errcheck // ends with Close below
		defer hs.Close()
		url = "http://" + ln.Addr().String() + "/"
	} else {
		env.Notes = append(env.Notes, "loaded an external server at "+url+"; --strategy and the settings describe this run's own database only")
	}
	tr := &http.Transport{MaxIdleConns: 0, MaxIdleConnsPerHost: max(w.concurrency, w.cfg.MaxInflight), DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}

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
	cfg.NewExecutor = func(int) (loadgen.Executor, error) {
		// One request per executor, reused: the client never changes it.
		// It carries the run's context, so that an interrupt also ends
		// the requests in flight.
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		return &httpExec{client: client, req: req, want: int64(w.bodySize), buf: make([]byte, 32<<10)}, nil
	}
	_, err := RunLoad(ctx, env, cfg)
	env.Figure("body_size", units.ByteSize, units.None, float64(w.bodySize))
	return err
}

var errMismatch = errors.New("unexpected response")

type httpExec struct {
	client *http.Client
	req    *http.Request
	want   int64
	buf    []byte
}

// Do fetches the page and checks the status and the body's length. An
// interrupt ends the request in flight too (the request's context); a
// stalled server is bounded by the client's timeout.
func (e *httpExec) Do(_ context.Context, _ int) (int, error) {
	resp, err := e.client.Do(e.req)
	if err != nil {
		return 0, err
	}
	var n int64
	for {
		k, rerr := resp.Body.Read(e.buf)
		n += int64(k)
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			resp.Body.Close()
			return 0, rerr
		}
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || n != e.want {
		return 0, fmt.Errorf("%w: status %d, %d body bytes (want 200, %d)", errMismatch, resp.StatusCode, n, e.want)
	}
	return 0, nil
}
