package cli

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// rowsBetween counts the bench rows with lo <= ID < hi.
func rowsBetween(t *testing.T, path string, lo, hi int64) int64 {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow("SELECT count(*) FROM bench WHERE ID >= ? AND ID < ?", lo, hi).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func num(v any) int64 { f, _ := v.(float64); return int64(f) }

// Two worker processes write one WAL database at once, as seed 000's two
// 'sqlite3perf concurrent' did: each inserts in its own range of rows, and
// the result holds each one's figures and their sum, stored and printed.
func TestWriteProcessesOneDatabase(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "two.db")
	store := filepath.Join(dir, "store.db")
	// No busy timeout and two writers per process: writers collide, and
	// each process counts its busy errors (one may even have no write
	// succeed; some write always does).
	o := run(t, context.Background(), "write", "--processes", "2", "--db", db, "--journal", "wal", "--busy-timeout", "0",
		"--workers", "2", "--rows", "100", "--count", "400", "--store", store, "--progress", "0", "--format", "json")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	ls := jsonLines(t, o.out)
	if len(ls) != 1 {
		t.Fatalf("%d results", len(ls))
	}
	j := ls[0]
	if j["status"] != "ok" {
		t.Fatalf("status %v: %v", j["status"], j["error"])
	}
	ps, _ := j["processes"].([]any)
	if len(ps) != 2 {
		t.Fatalf("processes: %v", j["processes"])
	}
	var count, busy, maxElapsed float64
	var inDB int64
	for k, x := range ps {
		p := x.(map[string]any)
		from, to := num(p["insert_from"]), num(p["insert_to"])
		wantFrom := int64(k) * 1_000_000_000
		if k == 0 {
			wantFrom = 100 // right after the rows loaded
		}
		if num(p["index"]) != int64(k) || from != wantFrom || to != int64(k+1)*1_000_000_000 || (p["attached"] == true) != (k > 0) {
			t.Errorf("process %d: index %v, range %d to %d, attached %v", k, p["index"], from, to, p["attached"])
		}
		c := num(p["count"])
		// Each process's inserts are in its range, and its range holds
		// what it reports writing, and nothing else.
		got := rowsBetween(t, db, from, to)
		if got != c || num(p["rows_in_range"]) != c {
			t.Errorf("process %d: count %d, rows_in_range %v, %d rows in its range of the table", k, c, p["rows_in_range"], got)
		}
		// Its inserts took rows from the start of its range on (a failed
		// insert leaves its row unwritten).
		claimed := int64(0)
		for _, y := range p["metrics"].([]any) {
			if m := y.(map[string]any); m["name"] == "rows_inserted" {
				claimed = num(m["value"])
			}
		}
		if got := rowsBetween(t, db, from, from+claimed); got != c {
			t.Errorf("process %d: %d of its %d rows are past the %d it claimed", k, c-got, c, claimed)
		}
		inDB += got
		// Its busy errors are its ops' busy errors.
		var opsBusy int64
		for _, y := range p["ops"].([]any) {
			op := y.(map[string]any)
			if e, ok := op["errors"].(map[string]any); ok {
				opsBusy += num(e["busy"])
			}
		}
		errs, _ := p["errors"].(map[string]any)
		if num(errs["busy"]) != opsBusy {
			t.Errorf("process %d: busy %v, its ops' %d", k, errs["busy"], opsBusy)
		}
		if num(p["wal_max_bytes"]) < num(p["wal_start_bytes"]) || num(p["wal_max_bytes"]) == 0 {
			t.Errorf("process %d: WAL %v at start, %v at most", k, p["wal_start_bytes"], p["wal_max_bytes"])
		}
		count += p["count"].(float64)
		busy += float64(opsBusy)
		maxElapsed = math.Max(maxElapsed, p["elapsed_seconds"].(float64))
	}
	if j["count"].(float64) != count || count == 0 {
		t.Errorf("count %v, processes' sum %v", j["count"], count)
	}
	// The processes' busy errors add up (how many there are depends on
	// how their transactions met, which the machine decides).
	if errs, _ := j["errors"].(map[string]any); float64(num(errs["busy"])) != busy {
		t.Errorf("busy errors %v, processes' sum %v", errs["busy"], busy)
	}
	if head, _, _ := metric(j, "throughput"); math.Abs(head-count/maxElapsed) > 1e-6*head {
		t.Errorf("throughput %v, want the count %v over the longest process's %vs", head, count, maxElapsed)
	}
	if n, _ := countRows(t, db, "bench"); n != 100+int64(count) || inDB != int64(count) {
		t.Errorf("%d rows in the table, %d in the processes' ranges; want 100 loaded + %v written", n, inDB, count)
	}
	if !strings.Contains(fmt.Sprint(j["command"]), "--processes 2") {
		t.Errorf("command %v lacks --processes 2", j["command"])
	}

	// The stored run keeps both the parts and the sum: the table shows a
	// row per process and the sum.
	o = run(t, context.Background(), "show", "--last", "--store", store)
	if o.code != 0 {
		t.Fatalf("show: %d %s", o.code, o.err)
	}
	var rows []string
	for _, l := range strings.Split(o.out, "\n") {
		f := strings.Fields(l)
		if len(f) > 5 && f[0] == j["run_id"] {
			rows = append(rows, f[1]+" "+f[4])
		}
	}
	want := []string{
		fmt.Sprintf("0 %d", num(ps[0].(map[string]any)["count"])),
		fmt.Sprintf("1 %d", num(ps[1].(map[string]any)["count"])),
		fmt.Sprintf("sum %d", int64(count)),
	}
	if strings.Join(rows, ", ") != strings.Join(want, ", ") {
		t.Errorf("processes table rows %q, want %q:\n%s", rows, want, o.out)
	}
}

// What --processes and an attached write cannot do is refused before
// anything is created.
func TestProcessesRefusals(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "none.db")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"insert", "--processes", "2"}, "which every process would insert alike"},
		{[]string{"scan", "--processes", "2"}, "scan runs in one process only"},
		{[]string{"write", "--processes", "0"}, "--processes 0: want 1 to 64"},
		{[]string{"write", "--processes", "2", "--in-memory"}, "--in-memory"},
		{[]string{"write", "--from", "10", "--rows", "100"}, "--from 10: below the 100 rows"},
		{[]string{"write", "--attach", "--from", "100000000"}, "--attach needs --db"},
	} {
		o := run(t, context.Background(), append(c.args, "--db", db, "--no-store", "--progress", "0")...)
		if c.want == "--attach needs --db" {
			o = run(t, context.Background(), append(c.args, "--no-store", "--progress", "0")...)
		}
		if o.code != ExitUsage || !strings.Contains(o.err, c.want) || strings.Count(strings.TrimSpace(o.err), "\n") != 0 {
			t.Errorf("%v: exit %d %q, want 2 and one line with %q", c.args, o.code, o.err, c.want)
		}
	}
	if _, err := os.Lstat(db); err == nil {
		t.Error("a refused command created the database")
	}
}

// An attached command writes beside the litebench process that owns the
// database, in a range of rows of its own (--from), and never creates,
// resets or removes the file.
func TestAttachedWriteBesideOwner(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "owned.db")
	owner := background(t, nil, "ETA", "mixed", "--db", db, "--rows", "200", "--duration", "60s", "--journal", "wal",
		"--no-store", "--progress", "100ms")
	fi, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	const from = 100_000_000
	o := runWithin(t, "write", "--attach", "--from", fmt.Sprint(from), "--db", db, "--rows", "200", "--count", "300",
		"--busy-timeout", "10000", "--no-store", "--progress", "0", "--format", "json")
	if o.code != 0 {
		t.Fatalf("attached write: exit %d: %s", o.code, o.err)
	}
	j := jsonLines(t, o.out)[0]
	if j["status"] != "ok" || !strings.Contains(fmt.Sprint(j["notes"]), fmt.Sprintf("inserts from row %d", from)) {
		t.Errorf("attached write: status %v (%v), notes %v", j["status"], j["error"], j["notes"])
	}
	if c, _ := j["count"].(float64); c != 300 {
		t.Errorf("attached write count %v, want 300", c)
	}
	if n, _, _ := metric(j, "rows_in_range"); n != 300 {
		t.Errorf("rows_in_range %v, want 300", n)
	}
	if !strings.Contains(fmt.Sprint(j["command"]), "--attach --from 100000000") {
		t.Errorf("command %v", j["command"])
	}
	if now, err := os.Stat(db); err != nil || !os.SameFile(fi, now) {
		t.Fatalf("the owner's database was replaced: %v", err)
	}
	owner.Process.Signal(syscall.SIGKILL)
	owner.Wait()
	if n := rowsBetween(t, db, from, from+300); n != 300 {
		t.Errorf("%d rows in the attached range, want 300", n)
	}
	if n := rowsBetween(t, db, from+300, math.MaxInt64); n != 0 {
		t.Errorf("%d rows past the attached range", n)
	}
	if n := rowsBetween(t, db, 0, 200); n != 200 {
		t.Errorf("%d of the owner's 200 loaded rows", n)
	}
}

// Ctrl-C stops every process of a run of several: the command ends as
// interrupted, and the stored run keeps each process's part.
func TestProcessesInterrupted(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store.db")
	cmd := background(t, nil, "ETA", "mixed", "--processes", "2", "--db", filepath.Join(dir, "i.db"), "--journal", "wal",
		"--rows", "1000", "--duration", "60s", "--store", store, "--progress", "100ms")
	if code, _ := interrupt(t, cmd); code != ExitInterrupted {
		t.Fatalf("exit %d after SIGINT, want %d", code, ExitInterrupted)
	}
	o := run(t, context.Background(), "show", "--last", "--store", store, "--format", "json")
	if o.code != 0 {
		t.Fatalf("show: %d %s", o.code, o.err)
	}
	j := jsonLines(t, o.out)[0]
	ps, _ := j["processes"].([]any)
	if j["status"] != "interrupted" || len(ps) != 2 {
		t.Fatalf("status %v, %d processes", j["status"], len(ps))
	}
	var sum float64
	for _, x := range ps {
		p := x.(map[string]any)
		if p["status"] != "interrupted" {
			t.Errorf("process %v: status %v", p["index"], p["status"])
		}
		sum += p["count"].(float64)
	}
	if j["count"].(float64) != sum {
		t.Errorf("count %v, processes' sum %v", j["count"], sum)
	}
}

// Reads and writes in two processes at once (seed 000's two
// 'concurrent'): with a busy timeout every process writes (the open
// loop's mix of reads and writes follows the seed), each into its own
// range, and the table holds what they report writing.
func TestMixedProcessesEachWrite(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "mixed.db")
	o := run(t, context.Background(), "mixed", "--processes", "2", "--db", db, "--journal", "wal", "--busy-timeout", "10000",
		"--rate", "3000", "--write-ratio", "50", "--rows", "100", "--count", "300", "--no-store", "--progress", "0", "--format", "json")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.err)
	}
	j := jsonLines(t, o.out)[0]
	ps, _ := j["processes"].([]any)
	if j["status"] != "ok" || len(ps) != 2 {
		t.Fatalf("status %v (%v), processes %v", j["status"], j["error"], len(ps))
	}
	var written, count int64
	for k, x := range ps {
		p := x.(map[string]any)
		var writes, reads int64
		for _, y := range p["ops"].([]any) {
			op := y.(map[string]any)
			switch op["name"] {
			case "write":
				writes = num(op["count"])
			case "read":
				reads = num(op["count"])
			}
		}
		from, to := num(p["insert_from"]), num(p["insert_to"])
		if writes == 0 || writes+reads != num(p["count"]) || num(p["rows_in_range"]) != writes || rowsBetween(t, db, from, to) != writes {
			t.Errorf("process %d: %d writes, %d reads, count %v, rows_in_range %v, %d rows in its range",
				k, writes, reads, p["count"], p["rows_in_range"], rowsBetween(t, db, from, to))
		}
		written += writes
		count += num(p["count"])
	}
	if n, _ := countRows(t, db, "bench"); n != 100+written || num(j["count"]) != count {
		t.Errorf("%d rows, want 100 + %d written; count %v, processes' %d", n, written, j["count"], count)
	}
	if j["params"].(map[string]any)["processes"] != "2" || j["placement"] != "process" {
		t.Errorf("params %v, placement %v", j["params"], j["placement"])
	}
}
