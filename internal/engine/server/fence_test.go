package server

import (
	"os"
	"os/exec"
	"testing"
)

func TestRefused(t *testing.T) {
	for _, c := range []struct {
		q     string
		mysql bool
		want  bool
	}{
		{"DROP DATABASE other", false, true},
		{"  drop\n database other;", true, true},
		{"SELECT 1; CREATE DATABASE x", false, true},
		{"CREATE ROLE x", false, true},
		{"ALTER USER x PASSWORD 'y'", false, true},
		{"GRANT ALL ON t TO PUBLIC", false, true},
		{"REVOKE SELECT ON t FROM x", false, true},
		{"SET ROLE postgres", false, true},
		{"RESET ROLE", false, true},
		{"SET SESSION AUTHORIZATION postgres", false, true},
		{"DO $$ BEGIN EXECUTE 'SET ROLE x'; END $$", false, true},
		{"COPY t TO '/tmp/x'", false, true},
		{"COPY t FROM PROGRAM 'id'", false, true},
		{"ALTER SYSTEM SET fsync = off", false, true},
		{"USE other", true, true},
		{"SELECT * FROM t INTO OUTFILE '/tmp/x'", true, true},
		{"LOAD DATA INFILE '/etc/passwd' INTO TABLE t", true, true},
		{"DROP SCHEMA other", true, true},
		// Statements within the run's database.
		{"CREATE SCHEMA s", false, false},
		{"UPDATE users SET role = 'admin', password = 'x'", false, false},
		{"SELECT * FROM t USE INDEX (i)", true, false},
		{"COPY t TO STDOUT", false, false},
		{"CREATE TABLE t (id int) -- DROP DATABASE x", false, false},
		{"INSERT INTO t VALUES (:id)", true, false},
	} {
		if got := Refused(c.q, c.mysql) != ""; got != c.want {
			t.Errorf("Refused(%q, mysql %v) = %q, want refused %v", c.q, c.mysql, Refused(c.q, c.mysql), c.want)
		}
	}
}

func TestOwnerStamp(t *testing.T) {
	me := Self()
	if me.Pid != os.Getpid() || me.Start == 0 || me.Host == "" {
		t.Fatalf("Self = %+v", me)
	}
	s := stamp("bench database", "r.1")
	o, ok := ParseOwner(s)
	if !ok || o != me || o.Gone() {
		t.Errorf("ParseOwner(%q) = %+v %v, gone %v; want this process, running", s, o, ok, o.Gone())
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		o    Owner
		gone bool
	}{
		{Owner{me.Host, me.Boot, cmd.Process.Pid, 1}, true},   // ended
		{Owner{me.Host, me.Boot, me.Pid, me.Start + 1}, true}, // the pid reused
		{Owner{me.Host, "another-boot", me.Pid, me.Start}, true},
		{Owner{"another-host", me.Boot, cmd.Process.Pid, 1}, false}, // cannot tell
	} {
		if g := c.o.Gone(); g != c.gone {
			t.Errorf("%s: gone %v, want %v", c.o, g, c.gone)
		}
	}
	for _, s := range []string{keptStamp("bench database", "r.1"), "litebench bench database of run r.1; litebench drops it when the run ends", "made by hand; " + me.String()} {
		if _, ok := ParseOwner(s); ok {
			t.Errorf("ParseOwner(%q): an owner, want none", s)
		}
	}
}
