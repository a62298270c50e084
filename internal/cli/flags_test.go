package cli

import (
	"context"
	"strings"
	"testing"
)

// insertRuns runs a small insert with extra flags and returns each
// run's params and settings from its JSON line.
func insertRuns(t *testing.T, extra ...string) (o outcome, runs []map[string]any) {
	t.Helper()
	args := append([]string{"insert", "--rows", "20", "--no-store", "--progress", "0", "--series", "0", "--format", "json"}, extra...)
	o = run(t, context.Background(), args...)
	if o.code != ExitOK {
		return o, nil
	}
	return o, jsonLines(t, o.out)
}

// insertValues runs insertRuns and returns each run's value of key in
// group; ok is false (and the test failed) when the command failed.
func insertValues(t *testing.T, group, key string, args ...string) (o outcome, vals []string, ok bool) {
	t.Helper()
	o, runs := insertRuns(t, args...)
	if o.code != ExitOK {
		t.Errorf("%v: exit %d: %s", args, o.code, o.err)
		return o, nil, false
	}
	for _, r := range runs {
		vals = append(vals, field(r, group, key))
	}
	return o, vals, true
}

func field(j map[string]any, group, key string) string {
	m, _ := j[group].(map[string]any)
	s, _ := m[key].(string)
	return s
}

func TestBooleanAndListFlagForms(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string // prepared, per run
	}{
		{[]string{"--prepared"}, []string{"true"}},
		{[]string{"--prepared=false"}, []string{"false"}},
		{[]string{"--prepared", "false"}, []string{"false"}},
		{[]string{"--prepared", "true,false"}, []string{"true", "false"}},
		{[]string{"--prepared=true,false"}, []string{"true", "false"}},
		{[]string{"-prepared", "false"}, []string{"false"}},
	} {
		_, got, ok := insertValues(t, "settings", "prepared", c.args...)
		if ok && strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%v: prepared per run = %v, want %v", c.args, got, c.want)
		}
	}
}

func TestBooleanParameterForms(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--vacuum"}, "true"},
		{[]string{"--vacuum", "false"}, "false"},
		{[]string{"--vacuum=false"}, "false"},
		{[]string{"--vacuum", "--keep=false"}, "true"},
	} {
		o, runs := insertRuns(t, c.args...)
		if o.code != ExitOK || len(runs) != 1 {
			t.Errorf("%v: exit %d, %d runs: %s", c.args, o.code, len(runs), o.err)
			continue
		}
		if got := field(runs[0], "params", "vacuum"); got != c.want {
			t.Errorf("%v: vacuum = %q, want %q", c.args, got, c.want)
		}
	}
}

// A word after a boolean flag that is not true or false stays a positional
// argument.
func TestBooleanFlagLeavesPositionalArgument(t *testing.T) {
	for _, args := range [][]string{
		{"pragma", "--shared-cache", "busy_timeout"},
		{"pragma", "--shared-cache", "false", "busy_timeout"},
		{"pragma", "--shared-cache=true", "busy_timeout"},
	} {
		o := run(t, context.Background(), args...)
		if o.code != ExitOK || !strings.Contains(o.out, "busy_timeout") || !strings.Contains(o.out, "5000") {
			t.Errorf("%v: exit %d, out %q, err %q", args, o.code, o.out, o.err)
		}
	}
}

func TestFlagErrorsNameTheFlagAsTyped(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"insert", "--duraton", "1s"}, "unknown flag --duraton"},
		{[]string{"insert", "--prepare"}, "did you mean --prepared"},
		{[]string{"insert", "-repeat", "x"}, `-repeat "x": want a whole number`},
		{[]string{"insert", "--repeat=x"}, `--repeat "x": want a whole number`},
		{[]string{"insert", "--progress", "soon"}, `--progress "soon": want a duration`},
		{[]string{"insert", "--db"}, "--db needs a value"},
		{[]string{"runs", "--limit", "many"}, `--limit "many"`},
		{[]string{"insert", "--prepared", "maybe"}, `unexpected argument "maybe"`},
		{[]string{"insert", "--prepared=maybe"}, `--prepared "maybe": want true or false`},
	} {
		o := run(t, context.Background(), c.args...)
		if o.code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", c.args, o.code, ExitUsage)
		}
		if !strings.Contains(o.err, c.want) || strings.Count(strings.TrimSpace(o.err), "\n") != 0 {
			t.Errorf("%v: stderr %q, want one line containing %q", c.args, o.err, c.want)
		}
	}
}

func TestFlagsAfterPositionalsAndDoubleDash(t *testing.T) {
	o := run(t, context.Background(), "list", "settings", "--help")
	if o.code != ExitOK || !strings.Contains(o.out, "NAME") {
		t.Errorf("list settings --help: exit %d, %q", o.code, o.out)
	}
	o = run(t, context.Background(), "list", "--", "--settings")
	if o.code != ExitUsage || !strings.Contains(o.err, `unknown list "--settings"`) {
		t.Errorf("list -- --settings: exit %d, %q", o.code, o.err)
	}
}
