package foreigntest

import "time"

// CommonCases are jobs every worker runs: loads of each schema, prepared
// or not, in a transaction or one per row, multi-row statements, in
// memory; a scan; reads by key distribution, for a duration, on one
// connection shared by two workers or one per call; writes with acks or
// in batches; the mixed workload in open loop; workload files.
var CommonCases = []Case{
	{Name: "insert-users-multirow-immediate", Workload: "insert", Same: true,
		Params:   map[string]string{"rows": "500", "schema": "users"},
		Settings: map[string]string{"batch": "50", "rows-per-stmt": "7", "tx": "immediate"}},
	{Name: "insert-account-autocommit-unprepared", Workload: "insert", Same: true,
		Params:   map[string]string{"rows": "300", "schema": "account"},
		Settings: map[string]string{"batch": "1", "prepared": "false", "sync": "off"}},
	{Name: "insert-foo-one-tx", Workload: "insert", Same: true,
		Params:   map[string]string{"rows": "5000", "schema": "foo"},
		Settings: map[string]string{"batch": "5000", "rows-per-stmt": "3"}},
	{Name: "insert-pages-memory", Workload: "insert", Same: true,
		Params:   map[string]string{"rows": "100", "schema": "pages"},
		Settings: map[string]string{"batch": "10", "in-memory": "true"}},
	{Name: "scan", Workload: "scan", Same: true,
		Params: map[string]string{"rows": "3000"}},
	{Name: "read-zipfian", Workload: "read", Same: true,
		Params: map[string]string{"rows": "1000", "count": "500", "keys": "zipfian"}},
	{Name: "read-duration-intervals", Workload: "read", Interval: 50 * time.Millisecond,
		Params: map[string]string{"rows": "500", "duration": "300ms", "schema": "users"}},
	{Name: "read-pool1-two-workers", Workload: "read",
		Params:   map[string]string{"rows": "500", "count": "300", "workers": "2"},
		Settings: map[string]string{"pool": "1"}},
	{Name: "write-insert-users", Workload: "write", Same: true, Acks: true,
		Params: map[string]string{"rows": "100", "count": "300", "schema": "users"}},
	{Name: "write-update-batch", Workload: "write", Same: true,
		Params:   map[string]string{"rows": "200", "count": "100", "schema": "account", "write-kind": "update"},
		Settings: map[string]string{"batch": "5", "sync": "off"}},
	{Name: "mixed-open-loop", Workload: "mixed", Same: true, Interval: 40 * time.Millisecond,
		Params: map[string]string{"rows": "300", "count": "200", "rate": "2000", "max-inflight": "1", "write-ratio": "30"}},
	{Name: "read-conn-per-op", Workload: "read", Same: true,
		Params:   map[string]string{"rows": "100", "count": "50"},
		Settings: map[string]string{"conn-per-op": "true"}},
	{Name: "program-kv", File: "internal/spec/testdata/program/kv.toml", Same: true, Interval: 30 * time.Millisecond,
		Params:   map[string]string{"keys": "1000", "count": "300"},
		Settings: map[string]string{"journal": "wal"}},
	{Name: "program-pagination", File: "examples/pagination.toml", Same: true,
		Params: map[string]string{"rows": "2000", "depth": "500", "count": "20"}},
}
