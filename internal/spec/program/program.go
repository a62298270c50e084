// Package program is the form a resolved workload is compiled to for the
// workers that run it (docs/workload-program.md): plain data, with no
// dependency on the file syntax it was compiled from. internal/spec
// compiles workload files, scripts and built-ins to it and runs it.
package program

import (
	"encoding/json"
	"fmt"
)

// A Program is a resolved workload (one sweep cell of a workload file or
// of pgbench scripts) compiled into plain data for a worker written in
// another language: everything the parser, templates, resolver and
// dialect decide is done; what is left is what a worker does at run time.
// docs/workload-program.md specifies every member and its semantics.
type Program struct {
	Version int    `json:"version"`
	Name    string `json:"name"`
	// Seed is the run's seed, a decimal string (it may pass 2^53).
	Seed   string  `json:"seed"`
	Tables []Table `json:"tables"`
	// Init is SQL run once at set-up after the tables are loaded.
	Init []string `json:"init,omitempty"`
	// Vars are the worker's variables, by slot; Value is the value every
	// worker starts with (a literal expression), absent when unset.
	Vars []Var `json:"vars"`
	// ClientID is the slot of :client_id; Scale the slot of :scale when
	// the worker derives it (rows of pgbench_branches, else 1), or -1.
	ClientID int `json:"client_id"`
	Scale    int `json:"scale"`
	// Statements are the SQL statements steps run, rendered for the
	// engine with positional parameters.
	Statements   []Stmt `json:"statements"`
	Transactions []Txn  `json:"transactions"`
	// Ops are the result names: the transactions (index = transaction),
	// then the statements with results of their own; Of[k] names the
	// transaction op k is a part of ("" for a transaction).
	Ops    []string `json:"ops"`
	Of     []string `json:"of"`
	Load   *Load    `json:"load,omitempty"`
	Insert *Insert  `json:"insert,omitempty"`
	Checks []Check  `json:"checks,omitempty"`
}

// Version is the version of the program's format.
const Version = 1

// Cap is the capability a worker announces in hello when it runs
// programs.
const Cap = "program"

// Refused is the refusal of a workload file for a target whose worker
// does not run programs.
func Refused(target string) error {
	return fmt.Errorf("%s cannot run workload files or scripts: its worker does not run workload programs (no %q capability; docs/workload-program.md); run the file on another target", target, Cap)
}

// Table is a table of the run, in creation order.
type Table struct {
	Name string `json:"name"`
	// Rows are loaded at set-up: row i of every column's generator under
	// the program's seed.
	Rows   int64    `json:"rows"`
	Create []string `json:"create"`
	// Columns in order: the first is the key.
	Columns []Column `json:"columns"`
	// Update are the indexes of the columns an update rewrites.
	Update []int `json:"update"`
}

// Column is a column and its generator, as testdata/vectors.json
// of internal/gen writes them: kind and args (docs/data-generation.md §3).
type Column struct {
	Name string          `json:"name"`
	Kind string          `json:"kind"`
	Type string          `json:"type"` // int or text
	Args json.RawMessage `json:"args"`
}

// Var is a variable slot.
type Var struct {
	Name  string `json:"name"`
	Value *Expr  `json:"value,omitempty"`
}

// Stmt is an SQL statement of the steps.
type Stmt struct {
	SQL string `json:"sql"`
	// Binds are the variable slot of each positional parameter.
	Binds []int `json:"binds"`
	// Into are the slots the first row's columns go to (\gset, into).
	Into []int `json:"into,omitempty"`
	// Read: a query (SELECT, VALUES, EXPLAIN), run on the read pool
	// outside a transaction.
	Read bool   `json:"read,omitempty"`
	At   string `json:"at"`
}

// Txn is a transaction: an op kind, its steps.
type Txn struct {
	Name  string `json:"name"`
	Steps []Step `json:"steps"`
}

// Step is one step; Kind says which members are set.
type Step struct {
	// Kind: set, sleep, sql, begin, commit, rollback, table, native.
	Kind string `json:"kind"`
	At   string `json:"at"`
	// Part is the op index of the step's own result, -1 for none.
	Part int `json:"part"`
	// set: Var := Expr; sleep: Expr × UnitNS nanoseconds.
	Var    int   `json:"var,omitempty"`
	Expr   *Expr `json:"expr,omitempty"`
	UnitNS int64 `json:"unit_ns,omitempty"`
	// sql: the statement's index.
	Stmt int `json:"stmt,omitempty"`
	// begin: the transaction only reads (runs on the read pool).
	Read bool `json:"read,omitempty"`
	// table, native: the operation.
	Op *Op `json:"op,omitempty"`
}

// Op is a table operation (read, insert, update, upsert) or a
// native one (scan_verify, paginate_offset, paginate_keyset).
type Op struct {
	Op    string `json:"op"`
	Table int    `json:"table"`
	SQL   string `json:"sql"`
	// Keys picks rows (uniform, zipfian, latest) with Theta.
	Keys  string  `json:"keys,omitempty"`
	Theta float64 `json:"theta,omitempty"`
	// Batch is how many rows a write writes (one transaction when more
	// than one).
	Batch int `json:"batch,omitempty"`
	// Bind, for a statement of the file's: each parameter's column index
	// in the row, -1 for the row's key.
	Bind []int `json:"bind,omitempty"`
	// Depth and Page of a paginate operation.
	Depth int64 `json:"depth,omitempty"`
	Page  int64 `json:"page,omitempty"`
}

// Load is the load model of a workload of transactions.
type Load struct {
	DurationNS int64   `json:"duration_ns"`
	Count      int64   `json:"count"`
	WarmupNS   int64   `json:"warmup_ns"`
	Rate       float64 `json:"rate"`
	Arrivals   string  `json:"arrivals"`
	// MaxInflight bounds the open loop's executors.
	MaxInflight int `json:"max_inflight"`
	// Roles is the closed loop: one worker per entry, running that
	// transaction, or -1 to choose each operation by the mix.
	Roles []int `json:"roles"`
	// Mix is the weights in their order.
	Mix []Weight `json:"mix"`
}

// Weight is a transaction's weight.
type Weight struct {
	Txn    int     `json:"txn"`
	Weight float64 `json:"weight"`
}

// Insert is a workload that measures loading a table.
type Insert struct {
	Table   int   `json:"table"`
	Rows    int64 `json:"rows"`
	Workers int   `json:"workers"`
	Vacuum  bool  `json:"vacuum"`
}

// Check is an invariant read after the run.
type Check struct {
	Name string `json:"name"`
	SQL  string `json:"sql"`
	// Expect: eq, cmp (Cmp names the comparison), unchanged, empty.
	Expect string `json:"expect"`
	Cmp    string `json:"cmp,omitempty"`
	Want   string `json:"want,omitempty"`
	At     string `json:"at"`
}

// Expr is an expression: Op says which members are set.
//
//	int (V, decimal string), float (F), bool (B), null, text (S)
//	var (Slot, Name)
//	unary (Fn: - ~ not; A[0]), binary (Fn; A[0], A[1]),
//	is (Fn: null, true, false; Not; A[0]), case (A: when, then, …; Else)
//	call (Fn; A; Table, Dist, Theta for key() and rows())
type Expr struct {
	Op    string  `json:"op"`
	V     string  `json:"v,omitempty"`
	F     float64 `json:"f,omitempty"`
	B     bool    `json:"b,omitempty"`
	S     string  `json:"s,omitempty"`
	Slot  int     `json:"slot,omitempty"`
	Name  string  `json:"name,omitempty"`
	Fn    string  `json:"fn,omitempty"`
	Not   bool    `json:"not,omitempty"`
	A     []*Expr `json:"a,omitempty"`
	Else  *Expr   `json:"else,omitempty"`
	Table int     `json:"table,omitempty"`
	Dist  string  `json:"dist,omitempty"`
	Theta float64 `json:"theta,omitempty"`
	At    string  `json:"at,omitempty"`
}
