package spec

import (
	"errors"
	"fmt"
	"strings"

	"github.com/litebench/litebench/internal/dialect"
	"github.com/litebench/litebench/internal/gen"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/workload"
)

// Table operations are YCSB's vocabulary over a table of the file: read a
// row by key, insert new rows, update or upsert existing ones. Their SQL
// is the engine's dialect's (or a [statement] whose :names are the
// table's columns), their keys follow a distribution over the rows that
// exist, and their values are the table's generators': an inserted or
// upserted row i is row i under the seed, an updated row i gets the
// update columns of row i under seed + 1.
const (
	opRead = iota
	opInsert
	opUpdate
	opUpsert
)

type tableOp struct {
	kind  int
	t     *tableRun
	dist  string
	zipf  *gen.Zipf
	batch int
	// explicit begins a transaction around a single-row write too.
	explicit bool
	// custom is a [statement] to run instead of the dialect's; bind maps
	// each of its :names onto a row's column (-1: the row's key under the
	// seed).
	custom *Stmt
	bind   []int
	updIdx []int
	prep   *target.Statement
	idx    int
}

func (w *Workload) tableOp(st *Step, t *Txn) (*tableOp, error) {
	kind, err := st.op.eval(w.params)
	if err != nil {
		return nil, err
	}
	if err := checkOp(kind, st.op.pos); err != nil {
		return nil, err
	}
	name, err := st.fields["table"].eval(w.params)
	if err != nil {
		return nil, err
	}
	tr, ok := w.byName[name]
	if !ok {
		return nil, errorf(st.fields["table"].pos, "op %s: no table %q among this run's tables", kind, name)
	}
	op := &tableOp{t: tr, dist: gen.KeysUniform, batch: 1}
	for k, o := range opNames {
		if o == kind {
			op.kind = k
		}
	}
	if op.kind != opRead {
		op.batch = w.set.Int("batch")
		op.explicit = ExplicitTx(w.set.Get("tx"))
	}
	theta := 0.99
	if x := st.fields["keys"]; x != nil {
		if op.dist, err = x.eval(w.params); err != nil {
			return nil, err
		}
	}
	if x := st.fields["theta"]; x != nil {
		if theta, err = x.number(w.params, "theta"); err != nil {
			return nil, err
		}
	}
	if err := workload.CheckKeys(op.dist, theta); err != nil {
		return nil, err
	}
	if op.dist != gen.KeysUniform {
		op.zipf = tr.zipf(theta)
	}
	sc := tr.schema
	for _, c := range sc.UpdateCols {
		for k, n := range sc.Columns {
			if n == c {
				op.updIdx = append(op.updIdx, k)
			}
		}
	}
	if x := st.fields["statement"]; x != nil {
		op.custom = w.f.stmts[x.s]
		for _, p := range op.custom.params {
			k := indexOf(tr.t, p.name)
			switch {
			case k < 0:
				return nil, errorf(op.custom.at(p.off), "statement %s binds :%s, which is not a column of %s", op.custom.Name, p.name, name)
			case k == 0 && op.kind != opInsert && op.kind != opUpsert:
				k = -1
			case op.kind == opRead:
				return nil, errorf(op.custom.at(p.off), "statement %s reads by key: bind only :%s", op.custom.Name, sc.KeyCol)
			}
			op.bind = append(op.bind, k)
		}
	}
	return op, nil
}

// sql is the statement the operation runs.
func (op *tableOp) sql(d dialect.Dialect) string {
	if op.custom != nil {
		return render(op.custom.SQL, op.custom.params, d)
	}
	sc := op.t.schema
	switch op.kind {
	case opRead:
		return d.Select(sc.Table, sc.Columns, sc.KeyCol)
	case opUpdate:
		return d.Update(sc.Table, sc.UpdateCols, sc.KeyCol)
	case opUpsert:
		return d.Upsert(sc.Table, sc.Columns, sc.KeyCol, sc.UpdateCols)
	}
	return d.Insert(sc.Table, sc.Columns, 1)
}

// topState is one executor's state of a table operation: its arena, row
// and scan buffers.
type topState struct {
	op    *tableOp
	arena workload.Arena
	row   []any
	dest  []any
	found bool
	sink  func(target.Row) error
	idx   []int64
}

func newTopState(op *tableOp, w *Workload) *topState {
	sc := op.t.schema
	s := &topState{op: op, row: make([]any, len(sc.Columns)), dest: scanDest(sc, w.seed), idx: make([]int64, op.batch)}
	s.sink = s.scan
	return s
}

// scan reads a row of the operation. The dialect's read is by primary
// key: its one row ends the query (target.Stop), without a step to find
// that there is no second. A [statement]'s rows are all read.
func (s *topState) scan(r target.Row) error {
	s.found = true
	if err := r.Scan(s.dest...); err != nil {
		return err
	}
	if s.op.custom == nil {
		return target.Stop
	}
	return nil
}

// scanDest builds scan destinations matching the schema's column types:
// integers, and byte buffers that every read refills in place.
func scanDest(sc *workload.Schema, seed uint64) []any {
	dest := make([]any, len(sc.Columns))
	for i := range dest {
		if sc.Gen.IsText(i) {
			b := make([]byte, 0, 64)
			dest[i] = &b
		} else {
			dest[i] = new(int64)
		}
	}
	return dest
}

func (e *executor) tableStep(st *stepRun) (int, error) {
	s := e.tops[st.top.idx]
	if st.top.kind == opRead {
		return 0, e.tableRead(s)
	}
	return e.tableWrite(s)
}

func (e *executor) tableRead(s *topState) error {
	op := s.op
	sc := op.t.schema
	i := nextKey(&e.x, op.dist, op.zipf, op.t.claims.visible.Load())
	e.args.Reset()
	if sc.IntKey() {
		// An integer key goes into the arguments as it is, not boxed
		// into the arena to be unboxed again.
		e.args.Int(sc.KeyInt(op.t.seed, i))
	} else {
		s.arena.Reset()
		e.args.Add(sc.Key(op.t.seed, i, &s.arena))
	}
	s.found = false
	if err := op.prep.Query(e.ctx, &e.args, s.sink); err != nil {
		return err
	}
	if !s.found {
		return fmt.Errorf("%w: %s %s = %v", errMissing, sc.Table, sc.KeyCol, sc.Key(op.t.seed, i, nil))
	}
	return nil
}

// tableWrite runs one write operation: batch rows in one transaction (or
// one autocommit statement), retried per --busy-retry.
func (e *executor) tableWrite(s *topState) (int, error) {
	op := s.op
	c := op.t.claims
	// Rows this operation writes are chosen once, so a retry writes the
	// same rows.
	idx := s.idx
	if op.kind == opInsert {
		first := c.claim(e.slot, len(idx))
		defer c.release(e.slot)
		for k := range idx {
			idx[k] = first + int64(k)
		}
	} else {
		span := c.visible.Load()
		if op.kind == opUpsert {
			span += span / 10 // some upserts insert
		}
		for k := range idx {
			idx[k] = nextKey(&e.x, op.dist, op.zipf, span)
		}
	}
	for retries := 0; ; retries++ {
		err := e.writeOnce(s, idx)
		if err == nil {
			if e.ack != nil {
				e.ack(idx[0], int64(len(idx)))
			}
			return retries, nil
		}
		if !e.sess.Again(err, retries) {
			return retries, err
		}
	}
}

func (e *executor) writeOnce(s *topState, idx []int64) error {
	if len(idx) == 1 && (!s.op.explicit || e.cur != nil) {
		return e.execWrite(s, idx[0])
	}
	if err := e.writer.Begin(e.ctx); err != nil {
		return err
	}
	for _, i := range idx {
		if err := e.execWrite(s, i); err != nil {
			e.writer.Rollback()
			return err
		}
	}
	return e.writer.Commit()
}

// execWrite writes row i: its values (for an update, those of row i under
// another seed, keyed by row i's key).
func (e *executor) execWrite(s *topState, i int64) error {
	op := s.op
	sc := op.t.schema
	seed := op.t.seed
	s.arena.Reset()
	e.args.Reset()
	if op.kind == opUpdate {
		sc.Row(seed+1, i, s.row, &s.arena)
	} else {
		sc.Row(seed, i, s.row, &s.arena)
	}
	switch {
	case op.custom != nil:
		for _, k := range op.bind {
			if k < 0 {
				e.args.Add(sc.Key(seed, i, &s.arena))
			} else {
				e.args.Add(s.row[k])
			}
		}
	case op.kind == opUpdate:
		for _, k := range op.updIdx {
			e.args.Add(s.row[k])
		}
		e.args.Add(sc.Key(seed, i, &s.arena))
	default:
		for _, v := range s.row {
			e.args.Add(v)
		}
	}
	return e.writer.Exec(e.ctx, op.prep, &e.args)
}

// Native operations: what a file cannot say in SQL and steps.
type nativeOp struct {
	name        string
	t           *tableRun
	depth, page int64
	sql         string
	prep        *target.Statement
	rand, hash  int
}

func (w *Workload) nativeOp(st *Step) (*nativeOp, error) {
	op := &nativeOp{name: st.text}
	name, err := st.fields["table"].eval(w.params)
	if err != nil {
		return nil, err
	}
	t, ok := w.byName[name]
	if !ok {
		return nil, errorf(st.fields["table"].pos, "native %s: no table %q among this run's tables", op.name, name)
	}
	op.t = t
	sc := t.schema
	switch op.name {
	case "scan_verify":
		op.rand, op.hash = indexOf(t.t, "rand"), indexOf(t.t, "hash")
		if op.rand < 0 || op.hash < 0 {
			return nil, errorf(st.pos, "scan_verify checks hash = sha256(rand): table %s needs columns rand and hash", name)
		}
	default:
		if !sc.IntKey() {
			return nil, errorf(st.pos, "%s needs an integer key; %s's key %s is text", op.name, name, sc.KeyCol)
		}
		if op.depth, err = st.fields["depth"].count(w.params, "depth", 0); err != nil {
			return nil, err
		}
		if op.page, err = st.fields["page"].count(w.params, "page", 1); err != nil {
			return nil, err
		}
		if op.depth+op.page > t.rows {
			return nil, errorf(st.fields["depth"].pos, "%s: depth %d plus a page of %d passes the %d rows of %s", op.name, op.depth, op.page, t.rows, name)
		}
	}
	return op, nil
}

func (op *nativeOp) render(d dialect.Dialect) string {
	sc := op.t.schema
	cols := strings.Join(sc.Columns, ", ")
	switch op.name {
	case "scan_verify":
		return "SELECT " + sc.KeyCol + ", rand, hash FROM " + sc.Table
	case "paginate_offset":
		return "SELECT " + cols + " FROM " + sc.Table + " ORDER BY " + sc.KeyCol + " LIMIT " + d.Param(1) + " OFFSET " + d.Param(2)
	}
	return "SELECT " + cols + " FROM " + sc.Table + " WHERE " + sc.KeyCol + " > " + d.Param(1) + " ORDER BY " + sc.KeyCol + " LIMIT " + d.Param(2)
}

// errMismatch is a row that fails verification.
var errMismatch = errors.New("hash mismatch")

func (e *executor) native(op *nativeOp) error {
	sc := op.t.schema
	seed := op.t.seed
	switch op.name {
	case "scan_verify":
		var key, rand, hash string
		n := int64(0)
		err := op.prep.Query(e.ctx, nil, func(r target.Row) error {
			if err := r.Scan(&key, &rand, &hash); err != nil {
				return err
			}
			if !workload.CheckBench(rand, hash) {
				return fmt.Errorf("%s %s %s: %w: stored hash %s is not the SHA-256 of rand %s", sc.Table, sc.KeyCol, key, errMismatch, hash, rand)
			}
			n++
			return nil
		})
		if err == nil && n < op.t.claims.visible.Load() {
			err = fmt.Errorf("scan_verify read %d rows of %s, want at least %d", n, sc.Table, op.t.claims.visible.Load())
		}
		return err
	}
	e.args.Reset()
	if op.name == "paginate_offset" {
		e.args.Int(op.page)
		e.args.Int(op.depth)
	} else {
		e.args.Int(sc.KeyInt(seed, op.depth-1))
		e.args.Int(op.page)
	}
	var first, got int64 = -1, 0
	dest := e.nativeDest(op)
	err := op.prep.Query(e.ctx, &e.args, func(r target.Row) error {
		if err := r.Scan(dest...); err != nil {
			return err
		}
		if first < 0 {
			first = *dest[0].(*int64)
		}
		got++
		return nil
	})
	if err != nil {
		return err
	}
	if want := sc.KeyInt(seed, op.depth); first != want || got != op.page {
		return fmt.Errorf("%s: the page starts at %s %d with %d rows, want %d with %d", op.name, sc.KeyCol, first, got, want, op.page)
	}
	return nil
}

// nativeDest is scan space for a native operation's rows.
func (e *executor) nativeDest(op *nativeOp) []any {
	if e.natDest == nil {
		e.natDest = map[*nativeOp][]any{}
	}
	d, ok := e.natDest[op]
	if !ok {
		d = scanDest(op.t.schema, op.t.seed)
		e.natDest[op] = d
	}
	return d
}
