package cli

import (
	"context"
	"os"
	"strings"
	"testing"
)

// Counts and sizes read one way on every command line.
func TestCountsAndSizesOnTheCommandLine(t *testing.T) {
	for _, c := range []struct {
		args     []string
		group    string
		key      string
		want     []string
		stderrOK string
	}{
		{[]string{"--rows", "1.5k"}, "params", "rows", []string{"1.5k"}, ""},
		{[]string{"--rows", "2_000", "--batch", "1.5k"}, "settings", "batch", []string{"1500"}, ""},
		{[]string{"--cache-size", "-64MB"}, "settings", "cache-size", []string{"-62500"}, "PRAGMA cache_size = -62500"},
		{[]string{"--cache-size", "64MiB,2000"}, "settings", "cache-size", []string{"-65536", "2000"}, "PRAGMA cache_size = -65536"},
		{[]string{"--cache-size", "-2000"}, "settings", "cache-size", []string{"-2000"}, ""},
		{[]string{"--mmap-size", "1MB"}, "settings", "mmap-size", []string{"1000000"}, ""},
		{[]string{"--page-size", "8KiB"}, "settings", "page-size", []string{"8192"}, ""},
		{[]string{"--repeat", "2"}, "settings", "batch", []string{"1000", "1000"}, ""},
	} {
		o, got, ok := insertValues(t, c.group, c.key, c.args...)
		if !ok {
			continue
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%v: %s per run = %v, want %v", c.args, c.key, got, c.want)
		}
		if !strings.Contains(o.err, c.stderrOK) {
			t.Errorf("%v: stderr does not say %q:\n%s", c.args, c.stderrOK, o.err)
		}
	}
	o, runs := insertRuns(t, "--rows", "1.5k")
	if o.code != ExitOK || len(runs) != 1 || runs[0]["rows"].(float64) != 1500 {
		t.Errorf("--rows 1.5k: exit %d, %v", o.code, runs)
	}
}

// Values out of a setting's or parameter's range are refused in one line,
// with exit 2 and nothing created.
func TestOutOfRangeValuesRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"insert", "--cache-size", "10GB"}, `--cache-size "10GB": more than 4.0GiB`},
		{[]string{"insert", "--cache-size", "0"}, `--cache-size "0"`},
		{[]string{"insert", "--cache-size", "64m"}, "64MiB"},
		{[]string{"insert", "--mmap-size", "1g"}, `--mmap-size "1g"`},
		{[]string{"insert", "--page-size", "4KB"}, "power of two"},
		{[]string{"insert", "--rows", "0"}, `--rows "0"`},
		{[]string{"insert", "--rows", "1.5"}, `--rows "1.5"`},
		{[]string{"paginate", "--rows", "0"}, `--rows "0"`},
		{[]string{"insert", "--batch", "0"}, `--batch "0": must be at least 1`},
		{[]string{"read", "--rate", "1e-300"}, "--rate 1e-300: less than one operation in --duration"},
		{[]string{"read", "--rate", "1e-300", "--count", "10"}, "--rate 1e-300: 10 operations would take more than 24h0m0s"},
		{[]string{"read", "--rate", "-5"}, `--rate "-5"`},
		{[]string{"read", "--duration", "-1s"}, `--duration "-1s"`},
		{[]string{"read", "--warmup", "-1s"}, `--warmup "-1s"`},
		{[]string{"insert", "--progress", "-1s"}, "--progress -1s"},
		{[]string{"insert", "--repeat", "0"}, "--repeat 0"},
		{[]string{"insert", "--memory", "1g"}, `--memory "1g"`},
		{[]string{"insert", "--wal-warn", "64m"}, `--wal-warn "64m"`},
	} {
		args := append(c.args, "--dir", dir, "--store", dir+"/s.db")
		o := run(t, context.Background(), args...)
		if o.code != ExitUsage || !strings.Contains(o.err, c.want) || strings.Count(strings.TrimSpace(o.err), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line containing %q", c.args, o.code, o.err, c.want)
		}
	}
	if left := ls(t, dir); len(left) != 0 {
		t.Errorf("refused commands left %v", left)
	}
}

func ls(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
