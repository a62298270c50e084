package cli

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

// oneRun runs a command with --format json and returns its only run.
func oneRun(t *testing.T, args ...string) (map[string]any, outcome) {
	t.Helper()
	o := run(t, context.Background(), append(args, "--format", "json", "--no-store", "--progress", "0", "--series", "0", "--dir", t.TempDir())...)
	if o.code != 0 {
		t.Fatalf("%v: exit %d: %s", args, o.code, o.err)
	}
	js := jsonLines(t, o.out)
	if len(js) != 1 {
		t.Fatalf("%v: want one run, got %d", args, len(js))
	}
	return js[0], o
}

// opCount is how many times op kind name ran in a JSON run, statements
// for insert (its latency samples; -1 when absent).
func opCount(j map[string]any, name string) int64 {
	ops, _ := j["ops"].([]any)
	for _, x := range ops {
		o := x.(map[string]any)
		if o["name"] == name {
			svc, _ := o["service"].(map[string]any)
			n, _ := svc["count"].(float64)
			return int64(n)
		}
	}
	return -1
}

func notesOf(j map[string]any) string {
	var b strings.Builder
	ns, _ := j["notes"].([]any)
	for _, n := range ns {
		b.WriteString(n.(string) + "\n")
	}
	return b.String()
}

func settingOf(j map[string]any, key string) string {
	s, _ := j["settings"].(map[string]any)
	v, _ := s[key].(string)
	return v
}

// sqlite3perf's generate -b N is N rows per INSERT and one INSERT per
// transaction: --rows-per-stmt alone makes --batch follow it, and says so.
func TestRowsPerStmtAloneIsOneStatementPerTransaction(t *testing.T) {
	j, o := oneRun(t, "insert", "--rows", "200", "--rows-per-stmt", "10")
	if b := settingOf(j, "batch"); b != "10" {
		t.Errorf("batch = %q, want 10 (one 10-row INSERT per transaction)", b)
	}
	if n := opCount(j, "insert"); n != 20 {
		t.Errorf("insert statements = %d, want 20", n)
	}
	if n := opCount(j, "commit"); n > 0 {
		t.Errorf("commits = %d, want none: each statement is its own transaction", n)
	}
	if !strings.Contains(notesOf(j), "--batch follows --rows-per-stmt") || !strings.Contains(o.err, "note: --batch follows") {
		t.Errorf("the coupling is not said in the notes and beside the run:\nnotes: %s\nstderr: %s", notesOf(j), o.err)
	}
	if !strings.Contains(j["command"].(string), "--batch=10") {
		t.Errorf("the run's command does not repeat --batch: %s", j["command"])
	}

	// Both given: as given, several statements per transaction.
	j, _ = oneRun(t, "insert", "--rows", "200", "--rows-per-stmt", "10", "--batch", "100")
	if n, c := opCount(j, "insert"), opCount(j, "commit"); n != 20 || c != 2 {
		t.Errorf("--batch 100 --rows-per-stmt 10: %d statements in %d transactions, want 20 in 2", n, c)
	}
	if strings.Contains(notesOf(j), "follows") {
		t.Errorf("an explicit --batch was overridden: %s", notesOf(j))
	}

	// A batch smaller than a statement is flagged.
	j, _ = oneRun(t, "insert", "--rows", "100", "--rows-per-stmt", "10", "--batch", "5")
	if !strings.Contains(notesOf(j), "--batch 5 is less than --rows-per-stmt 10") {
		t.Errorf("--batch 5 < --rows-per-stmt 10 not flagged: %q", notesOf(j))
	}

	// Swept: each cell's batch follows its own rows per statement.
	o = run(t, context.Background(), "insert", "--rows", "100", "--rows-per-stmt", "10,50", "--format", "json", "--no-store", "--progress", "0", "--dir", t.TempDir())
	js := jsonLines(t, o.out)
	if o.code != 0 || len(js) != 2 || settingOf(js[0], "batch") != "10" || settingOf(js[1], "batch") != "50" {
		t.Fatalf("swept rows-per-stmt: exit %d, %d runs: %s", o.code, len(js), o.err)
	}
}

// A BEGIN mode given with one row per transaction runs every operation in
// an explicit transaction of that mode, as the rusqlite inserts benchmark's explicit
// transactions; it is never dropped in silence.
func TestTxModeWithBatchOneBeginsEveryOperation(t *testing.T) {
	j, _ := oneRun(t, "insert", "--rows", "50", "--batch", "1", "--tx", "immediate")
	if b, c := opCount(j, "begin"), opCount(j, "commit"); b != 50 || c != 50 {
		t.Errorf("--tx immediate --batch 1: %d BEGINs and %d COMMITs for 50 rows, want 50 each", b, c)
	}
	if !strings.Contains(notesOf(j), "BEGIN IMMEDIATE") {
		t.Errorf("no note of the explicit transactions: %q", notesOf(j))
	}
	j, _ = oneRun(t, "insert", "--rows", "50", "--batch", "1")
	if b := opCount(j, "begin"); b > 0 {
		t.Errorf("--batch 1 without a BEGIN mode: %d BEGINs, want autocommit", b)
	}

	j, _ = oneRun(t, "write", "--rows", "100", "--count", "30", "--tx", "immediate")
	if !strings.Contains(notesOf(j), "every write runs in its own BEGIN IMMEDIATE") {
		t.Errorf("write --tx immediate: no note of explicit transactions: %q", notesOf(j))
	}
}

// Settings that have no effect in a run are flagged in its notes.
func TestInertSettingsAreFlagged(t *testing.T) {
	j, _ := oneRun(t, "read", "--rows", "100", "--count", "50", "--batch", "100", "--tx", "immediate", "--busy-retry", "5", "--write-mutex")
	notes := notesOf(j)
	for _, want := range []string{"--batch 100 has no effect", "--tx immediate has no effect", "--busy-retry 5", "--write-mutex has no effect"} {
		if !strings.Contains(notes, want) {
			t.Errorf("read: %q not flagged; notes:\n%s", want, notes)
		}
	}
	j, _ = oneRun(t, "write", "--rows", "100", "--count", "30", "--rows-per-stmt", "10")
	if n := notesOf(j); !strings.Contains(n, "--rows-per-stmt 10 has no effect") || strings.Contains(n, "follows") {
		t.Errorf("write --rows-per-stmt: notes %q", n)
	}
	if b := settingOf(j, "batch"); b != "1" {
		t.Errorf("write --rows-per-stmt changed write's batch to %q", b)
	}
	j, _ = oneRun(t, "insert", "--rows", "100", "--workers", "2", "--busy-retry", "until")
	if n := notesOf(j); strings.Contains(n, "busy-retry") {
		t.Errorf("--busy-retry with two workers flagged: %q", n)
	}
}

// A seed-style --db with mode=memory is the file the seeds' driver opened
// (it drops SQLite's URI parameters from a plain name), with a note beside
// the run; a file: URI is the real in-memory database.
func TestSeedDSNModeMemoryIsAFileAsTheSeedsDriverOpens(t *testing.T) {
	dir := t.TempDir()
	db := dir + "/a.db"
	j, o := oneRun(t, "insert", "--rows", "100", "--db", db+"?_sync=0&mode=memory", "--keep")
	if m, s := settingOf(j, "in-memory"), settingOf(j, "sync"); m != "false" || s != "off" {
		t.Errorf("in-memory=%s sync=%s, want a file database with sync off", m, s)
	}
	if n, _ := countRows(t, db, "bench"); n != 100 {
		t.Errorf("%s holds %d rows, want 100", db, n)
	}
	for _, w := range []string{"mode=memory ignored", "--in-memory"} {
		if !strings.Contains(notesOf(j), w) || !strings.Contains(o.err, w) {
			t.Errorf("%q not in the run's notes or beside the run:\nnotes: %s\nstderr: %s", w, notesOf(j), o.err)
		}
	}
	j, _ = oneRun(t, "insert", "--rows", "100", "--db", "file:"+dir+"/b.db?mode=memory")
	if m := settingOf(j, "in-memory"); m != "true" || strings.Contains(notesOf(j), "ignored") {
		t.Errorf("file: URI with mode=memory: in-memory=%s, notes %q", m, notesOf(j))
	}
}

// runs names what each run changed from its workload's own defaults (a
// write with --batch 1000 is not "defaults"), and counts in the run's unit.
func TestRunsShowsWhatEachRunChanged(t *testing.T) {
	store := t.TempDir() + "/s.db"
	ctx := context.Background()
	for _, args := range [][]string{
		{"write", "--rows", "100", "--count", "20", "--batch", "1000"},
		{"write", "--rows", "100", "--count", "20"},
		{"insert", "--rows", "100"},
	} {
		if o := run(t, ctx, append(args, "--store", store, "--progress", "0", "--dir", t.TempDir())...); o.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, o.code, o.err)
		}
	}
	o := run(t, ctx, "runs", "--store", store)
	lines := strings.Split(o.out, "\n")
	if o.code != 0 || len(lines) < 5 {
		t.Fatalf("runs: exit %d:\n%s%s", o.code, o.out, o.err)
	}
	// Newest first: insert, write, write --batch 1000.
	for i, want := range []struct{ count, differs string }{
		{"100 rows", "--rows 100"}, {"20 ops", "--count 20"}, {"20 ops", "--count 20 --batch=1000"},
	} {
		l := lines[2+i]
		if !strings.Contains(l, want.count) || !strings.HasSuffix(strings.TrimSpace(l), want.differs) {
			t.Errorf("runs line %d: want count %q and %q at the end:\n%s", i+1, want.count, want.differs, l)
		}
	}
}

// Progress lines print integers as integers and the last interval's rate,
// p99 and errors; --quiet prints none, nor the lines as runs start and end.
func TestProgressLinesAndQuiet(t *testing.T) {
	ctx := context.Background()
	o := run(t, ctx, "insert", "--rows", "20000", "--batch", "10", "--no-store", "--progress", "1ms", "--dir", t.TempDir())
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	line := regexp.MustCompile(`^\[1/1\] insert mattn  \d+/20000 rows \(\d+\.\d\d%\) \d+\.\ds: \d+ rows/s(, p99( \w+ [0-9.]+[nµm]?s)+)?, \d+ errors \(last \d+\.\ds\); ETA \d+s`)
	for _, l := range strings.Split(o.err, "\n") {
		if strings.Contains(l, "% ") && !line.MatchString(l) {
			t.Errorf("progress line not as documented: %q", l)
		}
	}
	if !strings.Contains(o.err, "ok: 20000 rows in ") {
		t.Errorf("the end line does not count whole rows:\n%s", o.err)
	}
	o = run(t, ctx, "insert", "--rows", "20000", "--batch", "10", "--no-store", "--progress", "1ms", "--quiet", "--dir", t.TempDir(), "--busy-retry", "3")
	if o.code != 0 || strings.Contains(o.err, "rows/s") || strings.Contains(o.err, "...") {
		t.Errorf("--quiet: exit %d, stderr:\n%s", o.code, o.err)
	}
	if !strings.Contains(o.err, "note: --busy-retry 3") {
		t.Errorf("--quiet dropped the notes beside the run:\n%s", o.err)
	}
}

// The latency table counts an insert's statements, said as such, when
// statements hold several rows.
func TestInsertLatencyCountsStatements(t *testing.T) {
	o := run(t, context.Background(), "insert", "--rows", "200", "--rows-per-stmt", "10", "--batch", "100", "--no-store", "--progress", "0", "--dir", t.TempDir())
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	if !strings.Contains(o.out, "20 stmts") || !strings.Contains(o.out, "insert: count is statements, one latency each; they wrote 200 rows") {
		t.Errorf("latency table does not count statements:\n%s", o.out)
	}
}

// show of a suite's sweep prints the suite's own tables, as it printed
// them.
func TestShowSuitePrintsItsTables(t *testing.T) {
	store := t.TempDir() + "/s.db"
	ctx := context.Background()
	o := run(t, ctx, "suite", "quick", "--scale", "0.002", "--report", "none", "--progress", "0", "--store", store, "--dir", t.TempDir())
	if o.code != 0 {
		t.Fatalf("suite: exit %d: %s", o.code, o.err)
	}
	m := regexp.MustCompile(`as sweep (\S+) in`).FindStringSubmatch(o.err)
	if m == nil {
		t.Fatalf("no sweep id in:\n%s", o.err)
	}
	s := run(t, ctx, "show", m[1], "--store", store)
	if s.code != 0 || s.out != o.out {
		t.Errorf("show %s differs from the suite's output:\n--- suite ---\n%s--- show ---\n%s", m[1], o.out, s.out)
	}
	if !strings.Contains(s.out, "ladder") || !strings.Contains(s.out, "full scan") {
		t.Errorf("show of the suite lacks its tables:\n%s", s.out)
	}
}

// paginate shows OFFSET and keyset side by side per depth, with their
// ratio and a check that both returned the same rows; no rows/s.
func TestPaginateSideBySide(t *testing.T) {
	o := run(t, context.Background(), "paginate", "--rows", "3000", "--depths", "10,2500", "--count", "4", "--no-store", "--progress", "0", "--dir", t.TempDir())
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	row := regexp.MustCompile(`(?m)^mattn\s+ok\s+(10|2500)\s+[0-9.]+\s+[0-9.]+\s+×[0-9.]+\s+yes \(4 pages\)\s+0$`)
	if n := len(row.FindAllString(o.out, -1)); n != 2 || strings.Contains(o.out, "rows/s") || !strings.Contains(o.out, "offset/keyset") {
		t.Errorf("want one row per depth with both p50s, ratio and same rows, and no rows/s; %d rows in:\n%s", n, o.out)
	}
}

// The ladder shows what each step's connection runs, read back: on mattn,
// whose build already runs synchronous NORMAL, the sync step says so; and
// its single-run speed-ups say they are single runs.
func TestLadderShowsWhatEachStepSet(t *testing.T) {
	o := run(t, context.Background(), "suite", "quick", "--scale", "0.002", "--report", "none", "--quiet", "--no-store", "--dir", t.TempDir())
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	var sync string
	for _, l := range strings.Split(o.out, "\n") {
		if strings.Contains(l, "+ synchronous=NORMAL") {
			sync = l
		}
	}
	if !strings.Contains(sync, "synchronous=NORMAL (already NORMAL: this build's default)") || !strings.Contains(sync, "(1 run") {
		t.Errorf("sync step does not say NORMAL was already in force, or that its ratio is one run:\n%s", o.out)
	}
	if !strings.Contains(o.out, "journal_mode=DELETE") || !strings.Contains(o.out, "±25%") {
		t.Errorf("ladder lacks the read-back journal mode or the noise warning:\n%s", o.out)
	}
}
