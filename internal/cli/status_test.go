package cli

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBusyRunWarns: a run in which many inserts failed busy ends ok with
// a warning, in the table, in show, in the report and in the store.
func TestBusyRunWarns(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "s.db")
	o := run(t, context.Background(), "insert", "--rows", "400", "--workers", "100", "--busy-timeout", "0", "--busy-retry", "none",
		"--store", store, "--dir", dir, "--progress", "0")
	if o.code != 0 || !strings.Contains(o.out, "ok (warning)") || !strings.Contains(o.out, "insert failed (") {
		t.Fatalf("exit %d, want 0 and a warning:\n%s\n%s", o.code, o.out, o.err)
	}
	s := run(t, context.Background(), "show", "--last", "--store", store, "--format", "json")
	ls := jsonLines(t, s.out)
	if len(ls) != 1 {
		t.Fatalf("show: %s %s", s.out, s.err)
	}
	w, _ := ls[0]["warnings"].([]any)
	errs, _ := ls[0]["errors"].(map[string]any)
	if ls[0]["status"] != "ok" || len(w) != 1 || !strings.Contains(w[0].(string), "busy=") || errs["busy"] == nil {
		t.Errorf("stored: status %v, warnings %v, errors %v", ls[0]["status"], ls[0]["warnings"], ls[0]["errors"])
	}
	if s := run(t, context.Background(), "show", "--last", "--store", store); !strings.Contains(s.out, "ok (warning)") || !strings.Contains(s.out, "warning: ") {
		t.Errorf("show's table lacks the warning:\n%s", s.out)
	}
	html := filepath.Join(dir, "r.html")
	if r := run(t, context.Background(), "report", "--store", store, "-o", html); r.code != 0 {
		t.Fatalf("report: exit %d %s", r.code, r.err)
	}
	if b, _ := os.ReadFile(html); !strings.Contains(string(b), "insert failed (") {
		t.Error("the report lacks the warning")
	}
}

// TestDeadURLFails: an HTTP run against a port where nothing listens
// succeeds at nothing: failed, exit 1, stored so.
func TestDeadURLFails(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	dir := t.TempDir()
	store := filepath.Join(dir, "s.db")
	o := run(t, context.Background(), "run", "http", "--url", "http://"+addr+"/", "--duration", "300ms", "--store", store, "--dir", dir, "--progress", "0")
	if o.code != ExitFailed || !strings.Contains(o.out, "nothing succeeded") {
		t.Fatalf("exit %d, want %d and 'nothing succeeded':\n%s\n%s", o.code, ExitFailed, o.out, o.err)
	}
	ls := jsonLines(t, run(t, context.Background(), "show", "--last", "--store", store, "--format", "json").out)
	if len(ls) != 1 || ls[0]["status"] != "failed" || ls[0]["count"].(float64) != 0 {
		t.Errorf("stored: %v", ls)
	}
}

// TestDSNFlagConflict: a --db parameter and a flag that disagree are
// refused before anything is made; the same value twice is fine.
func TestDSNFlagConflict(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "s.db")
	o := run(t, context.Background(), "insert", "--db", filepath.Join(dir, "a.db")+"?_sync=0", "--sync", "full", "--rows", "10", "--store", store, "--dir", dir)
	if o.code != ExitUsage || !strings.Contains(o.err, "_sync=0") || !strings.Contains(o.err, "--sync asks full") || strings.Count(strings.TrimSpace(o.err), "\n") != 0 {
		t.Errorf("exit %d %q; want 2 and one line naming both", o.code, o.err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("a refused run made %v", es)
	}
	o = run(t, context.Background(), "insert", "--db", filepath.Join(dir, "a.db")+"?_journal=WAL&_sync=1", "--journal", "wal", "--sync", "normal",
		"--rows", "10", "--no-store", "--format", "json", "--progress", "0")
	if ls := jsonLines(t, o.out); o.code != 0 || len(ls) != 1 || ls[0]["settings"].(map[string]any)["sync"] != "normal" {
		t.Errorf("equal values: exit %d %s %s", o.code, o.out, o.err)
	}
}

// TestUnwritablePaths: --dir, --store and -o naming a place litebench
// cannot write (under a regular file; a directory even root cannot write
// in) are refused with exit 2 and one line naming the path, before
// anything is made.
func TestUnwritablePaths(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "s.db")
	if o := run(t, context.Background(), "insert", "--rows", "10", "--store", store, "--dir", dir, "--progress", "0"); o.code != 0 {
		t.Fatalf("a run to report: exit %d %s", o.code, o.err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	places := []string{filepath.Join(file, "x")}
	// sysfs refuses a new file to root as to anyone.
	if st, err := os.Stat("/sys"); err == nil && st.IsDir() {
		places = append(places, "/sys")
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o555)
		places = append(places, ro)
	}
	before, _ := os.ReadDir(dir)
	for _, place := range places {
		for _, args := range [][]string{
			{"insert", "--rows", "10", "--dir", place, "--store", filepath.Join(dir, "new.db")},
			{"insert", "--rows", "10", "--store", filepath.Join(place, "s.db"), "--dir", dir},
			{"report", "--store", store, "-o", filepath.Join(place, "r.html")},
		} {
			o := run(t, context.Background(), args...)
			if o.code != ExitUsage || !strings.Contains(o.err, place) || strings.Count(strings.TrimSpace(o.err), "\n") != 0 {
				t.Errorf("%v: exit %d %q; want 2 and one line naming %s", args, o.code, o.err, place)
			}
		}
	}
	if after, _ := os.ReadDir(dir); len(after) != len(before) {
		t.Errorf("refused commands made files: %v, then %v", before, after)
	}
}
