package workload

import (
	"regexp"
	"strings"

	"litebench/internal/own"
)

// benchTables are the tables and indexes litebench's workloads create
// (the names in their schemas' CREATE statements). A bench database that
// holds anything else holds someone's work: it is neither reused nor
// removed. A fixed list, rather than one recorded in each database, stays
// right whenever a run is killed, and writes nothing into the database
// being measured.
var benchTables = func() map[string]bool {
	re := regexp.MustCompile(`(?i)^\s*CREATE\s+(?:UNIQUE\s+)?(?:TABLE|INDEX)\s+(?:IF\s+NOT\s+EXISTS\s+)?["\x60\[]?(\w+)`)
	m := map[string]bool{}
	for _, sc := range Schemas {
		for _, q := range sc.Create {
			if g := re.FindStringSubmatch(q); g != nil {
				m[strings.ToLower(g[1])] = true
			}
		}
	}
	return m
}()

// BenchDB is the kind of file a bench database is.
var BenchDB = own.Bench(func(name string) bool { return benchTables[strings.ToLower(name)] })
