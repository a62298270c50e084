package cli

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Three shards of a sweep, two into one store and one into another merged
// with export and import, make the same runs (ids, cells, order) as the
// sweep run whole, and show prints them as one table.
func TestShardsMakeOneSweep(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	sweep := []string{"insert", "--rows", "500", "--batch", "10,100", "--journal", "delete,wal", "--repeat", "2", "--dir", dir, "--progress", "0"}
	ctx := context.Background()
	if o := run(t, ctx, append(sweep, "--store", a, "--sweep-id", "whole")...); o.code != 0 {
		t.Fatalf("whole: %s", o.err)
	}
	for k, store := range []string{a, a, b} {
		o := run(t, ctx, append(sweep, "--store", store, "--sweep-id", "sh", "--shard", []string{"1/3", "2/3", "3/3"}[k])...)
		if o.code != 0 || !strings.Contains(o.err, "of 3: ") {
			t.Fatalf("shard %d: exit %d %s", k+1, o.code, o.err)
		}
	}
	exp := filepath.Join(dir, "b.jsonl")
	o := run(t, ctx, "export", "--store", b, "--all")
	if o.code != 0 {
		t.Fatal(o.err)
	}
	os.WriteFile(exp, []byte(o.out), 0o644)
	if o := run(t, ctx, "import", "--store", a, exp); o.code != 0 {
		t.Fatalf("import: %s", o.err)
	}
	cols := func(id string) [][]string {
		o := run(t, ctx, "show", "--store", a, "--format", "csv", id)
		if o.code != 0 {
			t.Fatalf("show %s: %s", id, o.err)
		}
		recs, err := csv.NewReader(strings.NewReader(o.out)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		idx := map[string]int{}
		for i, h := range recs[0] {
			idx[h] = i
		}
		var out [][]string
		for _, r := range recs[1:] {
			row := []string{strings.TrimPrefix(r[idx["run_id"]], id)}
			for _, k := range []string{"repeat", "label", "workload", "target", "journal", "batch", "status"} {
				row = append(row, r[idx[k]])
			}
			out = append(out, row)
		}
		return out
	}
	whole, shards := cols("whole"), cols("sh")
	if len(whole) != 8 || !reflect.DeepEqual(whole, shards) {
		t.Errorf("the shards' runs differ from the whole sweep's:\nwhole  %v\nshards %v", whole, shards)
	}
	tableHead := func(id string) string {
		o := run(t, ctx, "show", "--store", a, id)
		return o.out[:strings.Index(o.out, "\n")]
	}
	if hw, hs := tableHead("whole"), tableHead("sh"); hw != hs {
		t.Errorf("table layouts differ: %q vs %q", hw, hs)
	}
	// A sweep id the store holds is refused before anything runs, and
	// --shard needs --sweep-id.
	if o := run(t, ctx, append(sweep, "--store", a, "--sweep-id", "sh", "--shard", "1/3")...); o.code != ExitUsage || !strings.Contains(o.err, "already holds run sh.1") {
		t.Errorf("reused sweep id: exit %d %q", o.code, o.err)
	}
	for _, bad := range [][]string{{"--shard", "1/3"}, {"--shard", "4/3", "--sweep-id", "x"}, {"--shard", "0/3", "--sweep-id", "x"}, {"--sweep-id", "a b"}, {"--shard", "9/9", "--sweep-id", "x"}} {
		if o := run(t, ctx, append(append([]string{}, sweep...), append(bad, "--store", a)...)...); o.code != ExitUsage {
			t.Errorf("%v: exit %d %q", bad, o.code, o.err)
		}
	}
}
