package workload

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/litebench/litebench/internal/metrics"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/units"
)

func init() {
	Register(&Spec{
		Name:    "scan",
		Summary: "read every bench row, re-hash rand and compare with hash (sqlite3perf bench)",
		Params: []Param{
			{"rows", "1000000", "rows to load before scanning (loading is not measured); a kept --db is scanned with the rows it holds unless --reload", true},
			{"seed", "1", "data seed", false},
		},
		New: newScan,
	})
	Register(&Spec{
		Name:    "paginate",
		Summary: "OFFSET vs keyset pagination at several depths (sqlite3perf pagination)",
		Params: []Param{
			{"rows", "1000000", "rows to load before paginating (loading is not measured); a kept --db is read with the rows it holds unless --reload", true},
			{"depths", "1000,100000,900000", "comma list of page depths (rows skipped)", false},
			{"page", "5", "rows per page (LIMIT)", false},
			{"count", "20", "queries per depth and method", false},
			{"seed", "1", "data seed", false},
		},
		New: newPaginate,
	})
}

// ensureBench makes sure the bench table holds exactly rows [0, rows). A
// table that already does (a kept --db) is reused; loading is not measured.
func ensureBench(ctx context.Context, env *Env, rows int64, seed uint64) error {
	sc := Schemas["bench"]
	db := env.Session.DB()
	var n int64
	var exists int64
	err := db.Query(ctx, env.Session.Dialect().TableExists(sc.Table), nil, func(r target.Row) error {
		return r.Scan(&exists)
	})
	if err != nil {
		return err
	}
	if exists == 1 {
		err := db.Query(ctx, "SELECT count(*) FROM "+sc.Table, nil, func(r target.Row) error { return r.Scan(&n) })
		if err != nil {
			return err
		}
		if n == rows {
			env.Notes = append(env.Notes, fmt.Sprintf("reused the %d bench rows already in the database", n))
			return nil
		}
		env.Notes = append(env.Notes, fmt.Sprintf("the %s table held %d rows, not %d: it was dropped and loaded again", sc.Table, n, rows))
		if err := db.Exec(ctx, "DROP TABLE "+sc.Table, nil); err != nil {
			return err
		}
	}
	if err := CreateSchema(ctx, env.Session, sc); err != nil {
		return err
	}
	return Preload(ctx, env, sc, seed, rows)
}

// Preload inserts rows [0, rows) of sc as setup: the session's set-up
// policy (prepared, retried until done), recorded nowhere, not measured.
func Preload(ctx context.Context, env *Env, sc *Schema, seed uint64, rows int64) error {
	if rows == 0 {
		return nil
	}
	load := &Env{Session: env.Session, Instance: env.Instance, Settings: env.Settings}
	return Load(ctx, load, env.Session.Setup(), LoadSpec{Schema: sc, Seed: seed, From: 0, To: rows, Workers: 1, Batch: 10000,
		RowsPerStmt: min(100, env.Session.Dialect().MaxParams()/len(sc.Columns))})
}

type scanW struct {
	params map[string]string
	rows   int64
	seed   uint64
}

func newScan(p map[string]string, s settings.Settings) (Workload, error) {
	rows, err := pInt(p, "rows", 1)
	if err != nil {
		return nil, err
	}
	seed, err := pSeed(p)
	if err != nil {
		return nil, err
	}
	return &scanW{params: p, rows: rows, seed: seed}, nil
}

func (w *scanW) Name() string              { return "scan" }
func (w *scanW) Ops() metrics.Ops          { return metrics.Ops{"scan"} }
func (w *scanW) Params() map[string]string { return w.params }
func (w *scanW) Total() int64              { return w.rows }

// ReusesData: a kept database that already holds the rows is scanned as is.
func (w *scanW) ReusesData() bool { return true }

func (w *scanW) Setup(ctx context.Context, env *Env) error {
	return ensureBench(ctx, env, w.rows, w.seed)
}

// ErrMismatch is wrapped by scan's verification failures.
var ErrMismatch = errors.New("hash mismatch")

func (w *scanW) Run(ctx context.Context, env *Env) error {
	rec := env.NewRecorder(w.Ops())
	start := time.Now()
	var returned, first time.Time
	qctx, release := target.WithQueryReturned(ctx, func() { returned = time.Now() })
	defer release()
	var (
		n          int64
		id         int64
		rand, hash string
	)
	err := env.Session.DB().Query(qctx, "SELECT ID, rand, hash FROM bench", nil, func(r target.Row) error {
		if n == 0 {
			first = time.Now()
		}
		if err := r.Scan(&id, &rand, &hash); err != nil {
			return err
		}
		if !CheckBench(rand, hash) {
			return fmt.Errorf("row ID %d: %w: stored hash %s is not the SHA-256 of rand %s", id, ErrMismatch, hash, rand)
		}
		n++
		if n&0xffff == 0 {
			env.Done.Add(0x10000)
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	end := time.Now()
	env.Done.Store(n)
	if err != nil {
		return err
	}
	rec.ObserveN(0, n, end.Sub(start))
	if !returned.IsZero() {
		env.Figure("query_returned", units.Microseconds, units.Lower, float64(returned.Sub(start).Nanoseconds())/1e3)
	}
	if !first.IsZero() {
		env.Figure("first_row", units.Microseconds, units.Lower, float64(first.Sub(start).Nanoseconds())/1e3)
	}
	if n > 0 {
		env.Figure("per_row", units.Microseconds, units.Lower, float64(end.Sub(start).Nanoseconds())/1e3/float64(n))
	}
	if n != w.rows && !env.Attached {
		return fmt.Errorf("scan read %d rows, want %d", n, w.rows)
	}
	return nil
}

type paginateW struct {
	params map[string]string
	rows   int64
	depths []int64
	page   int64
	count  int64
	seed   uint64
	ops    metrics.Ops
}

func newPaginate(p map[string]string, s settings.Settings) (Workload, error) {
	w := &paginateW{params: p}
	var err error
	if w.rows, err = pInt(p, "rows", 1); err != nil {
		return nil, err
	}
	if w.page, err = pInt(p, "page", 1); err != nil {
		return nil, err
	}
	if w.count, err = pInt(p, "count", 1); err != nil {
		return nil, err
	}
	if w.seed, err = pSeed(p); err != nil {
		return nil, err
	}
	for _, d := range strings.Split(p["depths"], ",") {
		n, err := settings.ParseCount(strings.TrimSpace(d))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("--depths %q: %q is not a whole number", p["depths"], d)
		}
		if n+w.page > w.rows {
			return nil, fmt.Errorf("--depths %q: depth %d plus a page of %d passes the %d rows loaded; raise --rows or lower the depth", p["depths"], n, w.page, w.rows)
		}
		w.depths = append(w.depths, n)
	}
	sort.Slice(w.depths, func(i, j int) bool { return w.depths[i] < w.depths[j] })
	for _, d := range w.depths {
		ds := strconv.FormatInt(d, 10)
		w.ops = append(w.ops, "offset@"+ds, "keyset@"+ds)
	}
	return w, nil
}

func (w *paginateW) Name() string              { return "paginate" }
func (w *paginateW) Ops() metrics.Ops          { return w.ops }
func (w *paginateW) Params() map[string]string { return w.params }
func (w *paginateW) Total() int64              { return int64(len(w.ops)) * w.count * w.page }

// ReusesData: a kept database that already holds the rows is reused.
func (w *paginateW) ReusesData() bool { return true }

func (w *paginateW) Setup(ctx context.Context, env *Env) error {
	return ensureBench(ctx, env, w.rows, w.seed)
}

func (w *paginateW) Run(ctx context.Context, env *Env) error {
	rec := env.NewRecorder(w.ops)
	d := env.Session.Dialect()
	// The two ways to a page at a depth: OFFSET, and a keyset (the rows
	// after the last key seen).
	offStmt, err := env.Session.Prepare(ctx, "SELECT ID, rand, hash FROM bench ORDER BY ID LIMIT "+d.Param(1)+" OFFSET "+d.Param(2), target.Read)
	if err != nil {
		return err
	}
	defer offStmt.Close()
	keyStmt, err := env.Session.Prepare(ctx, "SELECT ID, rand, hash FROM bench WHERE ID > "+d.Param(1)+" ORDER BY ID LIMIT "+d.Param(2), target.Read)
	if err != nil {
		return err
	}
	defer keyStmt.Close()
	var args target.Args
	var id int64
	var rand, hash string
	var page []pageRow
	for di, depth := range w.depths {
		// Interleave the two methods so machine drift hits both alike.
		// Each page is digested: both methods must return the same rows.
		var digests [2]uint64
		same := 0
		for k := int64(0); k < w.count; k++ {
			for m := 0; m < 2; m++ {
				var first, got int64 = -1, 0
				page = page[:0]
				fn := func(r target.Row) error {
					if err := r.Scan(&id, &rand, &hash); err != nil {
						return err
					}
					if first < 0 {
						first = id
					}
					got++
					page = append(page, pageRow{id, rand, hash})
					return nil
				}
				args.Reset()
				st := offStmt
				if m == 0 {
					args.Int(w.page)
					args.Int(depth)
				} else {
					st = keyStmt
					args.Int(depth - 1)
					args.Int(w.page)
				}
				t := time.Now()
				err := st.Query(ctx, &args, fn)
				el := time.Since(t)
				op := 2*di + m
				if err != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					return fmt.Errorf("%s: %w", w.ops[op], err)
				}
				if first != depth || got != w.page {
					return fmt.Errorf("%s: page starts at ID %d with %d rows, want ID %d with %d", w.ops[op], first, got, depth, w.page)
				}
				rec.Observe(op, el)
				env.Done.Add(got)
				digests[m] = digestPage(page) // after the clock stopped
			}
			if digests[0] != digests[1] {
				return fmt.Errorf("depth %d: OFFSET and keyset pages differ (digests %016x and %016x)", depth, digests[0], digests[1])
			}
			same++
		}
		env.Figure(SamePagesFigure+"@"+strconv.FormatInt(depth, 10), "pages", units.None, float64(same))
	}
	return nil
}

type pageRow struct {
	id         int64
	rand, hash string
}

// digestPage is an FNV-1a digest of a page's rows, every column.
func digestPage(page []pageRow) uint64 {
	h := fnv.New64a()
	for _, r := range page {
		fmt.Fprintf(h, "%d|%s|%s\n", r.id, r.rand, r.hash)
	}
	return h.Sum64()
}

// SamePagesFigure names paginate's figures of pages both methods returned
// alike (digests of every row compared), one per depth: same_pages@DEPTH
// (report.SamePages reads them).
const SamePagesFigure = "same_pages"
