package workload

import (
	"strings"

	"github.com/litebench/litebench/internal/own"
)

// benchTables are the tables and indexes litebench's workloads create
// (the names in their schemas' definitions). A bench database that holds
// anything else holds someone's work: it is neither reused nor removed. A
// fixed list, rather than one recorded in each database, stays right
// whenever a run is killed, and writes nothing into the database being
// measured.
var benchTables = func() map[string]bool {
	m := map[string]bool{}
	for _, sc := range Schemas {
		m[strings.ToLower(sc.DDL.Name)] = true
		for _, ix := range sc.DDL.Indexes {
			m[strings.ToLower(ix.Name)] = true
		}
	}
	return m
}()

// BenchDB is the kind of file a bench database is.
var BenchDB = own.Bench(func(name string) bool { return benchTables[strings.ToLower(name)] })

// Tabled is a workload that creates tables of its own (a workload file's),
// besides the schemas' tables: their names and their indexes'.
type Tabled interface {
	Tables() []string
}

// DBKind is the kind of a bench database a run of w uses: one that holds
// litebench's tables and w's own.
func DBKind(w Workload) own.Kind {
	t, ok := w.(Tabled)
	if !ok {
		return BenchDB
	}
	extra := map[string]bool{}
	for _, n := range t.Tables() {
		extra[strings.ToLower(n)] = true
	}
	return own.Bench(func(name string) bool {
		n := strings.ToLower(name)
		return benchTables[n] || extra[n]
	})
}
