package cli

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/litebench/litebench/internal/engine/postgres"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/store"
)

// A results store on PostgreSQL: the commands work on it unchanged, runs
// move between it and a SQLite store, litebench touches nothing in the
// database but its own schema, and a schema of that name it did not make
// is refused.
func TestPostgresStore(t *testing.T) {
	requireEngine(t, postgres.Name)
	ctx := context.Background()
	srv, err := postgres.Start(ctx, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	admin, err := sql.Open("pgx", srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for _, q := range []string{"CREATE DATABASE team", "CREATE DATABASE other"} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	dsn := strings.Replace(srv.URL(), "/postgres?", "/team?", 1)
	team, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer team.Close()
	for _, q := range []string{"CREATE TABLE runs (run_id text, mine text)", "INSERT INTO runs VALUES ('x', 'the user''s')"} {
		if _, err := team.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	if o := run(t, ctx, "insert", "--rows", "300", "--batch", "10,100", "--repeat", "2", "--store", dsn, "--dir", dir, "--progress", "0", "--sweep-id", "pg"); o.code != 0 {
		t.Fatalf("insert into the PostgreSQL store: %s", o.err)
	}
	o := run(t, ctx, "runs", "--store", dsn)
	if o.code != 0 || strings.Count(o.out, "pg.") != 4 {
		t.Fatalf("runs: exit %d\n%s%s", o.code, o.out, o.err)
	}
	for _, args := range [][]string{{"show", "pg"}, {"show", "--last", "--format", "json"}, {"compare", "--where", "batch=10", "--vs", "batch=100", "--all"},
		{"report", "pg", "-o", filepath.Join(dir, "r.html")}} {
		if o := run(t, ctx, append(args, "--store", dsn)...); o.code != 0 {
			t.Errorf("%v on the PostgreSQL store: exit %d %s", args, o.code, o.err)
		}
	}
	// Export to a file store and back into another database's store:
	// the same runs.
	o = run(t, ctx, "export", "--all", "--store", dsn)
	exp := filepath.Join(dir, "runs.jsonl")
	os.WriteFile(exp, []byte(o.out), 0o644)
	file := filepath.Join(dir, "file.db")
	if o := run(t, ctx, "import", "--store", file, exp); o.code != 0 {
		t.Fatalf("import into a file store: %s", o.err)
	}
	if o := run(t, ctx, "import", "--store", dsn, exp); o.code != ExitUsage || !strings.Contains(o.err, "already") {
		t.Errorf("importing runs the store holds: exit %d %q", o.code, o.err)
	}
	o2 := run(t, ctx, "export", "--all", "--store", file)
	if o2.out != o.out {
		t.Error("runs exported from the PostgreSQL store and from the file store they were imported into differ")
	}
	// The user's table of the same name is untouched; only litebench's
	// schema was added.
	var mine string
	if err := team.QueryRow("SELECT mine FROM public.runs WHERE run_id = 'x'").Scan(&mine); err != nil || mine != "the user's" {
		t.Errorf("the user's table: %q %v", mine, err)
	}
	var schemas string
	team.QueryRow("SELECT string_agg(nspname, ',' ORDER BY nspname) FROM pg_namespace WHERE nspname NOT LIKE 'pg_%' AND nspname <> 'information_schema'").Scan(&schemas)
	if schemas != "litebench_results,public" {
		t.Errorf("schemas in the database: %s", schemas)
	}
	// tune stores its search there too, and resumes from it.
	args := tuneArgs(dir, "--budget", "12", "--audit-trials", "0")
	for i, a := range args {
		if a == "--store" {
			args[i+1] = dsn
		}
	}
	o = run(t, ctx, args...)
	m := sweepRE.FindStringSubmatch(o.err)
	if o.code != 0 || m == nil || !strings.Contains(o.out, "recommended: ") {
		t.Fatalf("tune on the PostgreSQL store: exit %d\n%s\n%s", o.code, o.out, o.err)
	}
	o = run(t, ctx, append(args, "--resume", m[1])...)
	if n := runsRE.FindStringSubmatch(o.out); o.code != 0 || n == nil || n[1] != n[2] || n[1] == "0" {
		t.Errorf("tune --resume on the PostgreSQL store reran stored runs: exit %d %v\n%s%s", o.code, n, o.out, o.err)
	}
	// A schema of that name litebench did not make is refused, and left.
	otherDSN := strings.Replace(srv.URL(), "/postgres?", "/other?", 1)
	other, _ := sql.Open("pgx", otherDSN)
	defer other.Close()
	if _, err := other.Exec("CREATE SCHEMA " + store.PGSchema + "; CREATE TABLE " + store.PGSchema + ".t(x int)"); err != nil {
		t.Fatal(err)
	}
	if o := run(t, ctx, "insert", "--rows", "100", "--store", otherDSN, "--dir", dir, "--progress", "0"); o.code == 0 || !strings.Contains(o.err, "did not make") {
		t.Errorf("a foreign schema of the store's name: exit %d %q", o.code, o.err)
	}
	var n int
	other.QueryRow("SELECT count(*) FROM information_schema.tables WHERE table_schema = $1", store.PGSchema).Scan(&n)
	if n != 1 {
		t.Errorf("the foreign schema holds %d tables, want its 1", n)
	}
}

// Eight processes write to one PostgreSQL store at once and some are
// killed (SIGKILL) at random moments: no run is lost or doubled. Every
// process that ended has its run ok; a killed one's run, if it began,
// reads as lost (not running); run ids are unique.
func TestPostgresStoreConcurrentKills(t *testing.T) {
	requireEngine(t, postgres.Name)
	ctx := context.Background()
	srv, err := postgres.Start(ctx, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dsn := srv.URL()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 7))
	trials := 20
	if testing.Short() {
		trials = 3
	}
	lost, killed := 0, 0
	for trial := 0; trial < trials; trial++ {
		type proc struct {
			sweep  string
			killed bool
			code   int
		}
		procs := make([]*proc, 8)
		done := make(chan struct{}, 8)
		for i := range procs {
			p := &proc{sweep: fmt.Sprintf("t%dp%d", trial, i)}
			procs[i] = p
			cmd := litebench(nil, "insert", "--rows", "2000", "--batch", "10", "--store", dsn, "--dir", dir, "--progress", "0", "--sweep-id", p.sweep)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			kill := i%2 == 0
			delay := time.Duration(rng.IntN(1500)) * time.Millisecond
			go func() {
				defer func() { done <- struct{}{} }()
				if kill {
					time.AfterFunc(delay, func() { cmd.Process.Signal(syscall.SIGKILL) })
				}
				err := cmd.Wait()
				if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					p.killed = true
				} else if err != nil {
					p.code = cmd.ProcessState.ExitCode()
				}
			}()
		}
		for range procs {
			<-done
		}
		s, err := store.OpenReadOnly(dsn)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range procs {
			rs, err := s.Get(p.sweep)
			switch {
			case p.killed:
				killed++
				for _, r := range rs {
					if r.Status == results.StatusLost {
						lost++
					}
					if r.Status != results.StatusLost && r.Status != results.StatusOK {
						t.Errorf("trial %d: killed %s's run %s reads %s", trial, p.sweep, r.RunID, r.Status)
					}
				}
			case p.code != 0:
				t.Errorf("trial %d: %s exited %d", trial, p.sweep, p.code)
			case err != nil || len(rs) != 1 || rs[0].Status != results.StatusOK:
				t.Errorf("trial %d: %s ended but its run is %v (%v)", trial, p.sweep, rs, err)
			}
		}
		s.Close()
	}
	t.Logf("%d processes killed, %d runs read as lost", killed, lost)
	if !testing.Short() && lost == 0 {
		t.Error("no killed run was seen as lost: the kills all came too early or too late to test anything")
	}
}
