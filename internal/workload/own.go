package workload

import (
	"strings"

	"litebench/internal/own"
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
