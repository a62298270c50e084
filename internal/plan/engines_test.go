package plan

import (
	"errors"
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/engine/dqlite"
	"github.com/litebench/litebench/internal/target"
	_ "github.com/litebench/litebench/internal/target/postgres"
)

// In a sweep over engines, a setting applies to its engine's cells only:
// it neither labels nor repeats the others; a setting no target runs is
// refused.
func TestSettingsPerEngine(t *testing.T) {
	sp := spec(t, "insert")
	p, err := Build(Request{Workload: sp, Settings: matrix(t, sp, map[string]string{"journal": "delete,wal", "sync": "off,full"}), Targets: targets(t, "alpha,postgres")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range p.Cells {
		got = append(got, c.Label)
		if c.Target.Name() == "postgres" && c.Settings.Get("journal") != "default" {
			t.Errorf("%s: journal %s on a PostgreSQL cell", c.Label, c.Settings.Get("journal"))
		}
		if pg := c.Target.Name() == "postgres"; pg != (len(c.Notes) == 1 && strings.Contains(strings.Join(c.Notes, ""), "--journal")) {
			t.Errorf("%s: notes %q (a PostgreSQL cell says it runs without --journal, a SQLite cell says nothing)", c.Label, c.Notes)
		}
	}
	want := []string{
		"insert alpha journal=delete sync=off", "insert alpha journal=delete sync=full", "insert alpha journal=wal sync=off", "insert alpha journal=wal sync=full",
		"insert postgres sync=off", "insert postgres sync=full",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("labels %q, want %q", got, want)
	}
	for _, c := range []struct {
		given   map[string]string
		targets string
		want    string
	}{
		{map[string]string{"journal": "wal"}, "postgres", "--journal applies to sqlite only"},
		{map[string]string{"pg-shared-buffers": "1GB"}, "alpha", "--pg-shared-buffers applies to postgres only"},
		{map[string]string{"tx": "immediate"}, "postgres", "--tx does not apply to postgres: BEGIN IMMEDIATE and EXCLUSIVE are SQLite's"},
	} {
		_, err := Build(Request{Workload: sp, Settings: matrix(t, sp, c.given), Targets: targets(t, c.targets)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v on %s: %v, want %q", c.given, c.targets, err, c.want)
		}
	}
	if _, err := Build(Request{Workload: sp, Settings: matrix(t, sp, map[string]string{"pg-shared-buffers": "1GB"}), Targets: targets(t, "alpha,postgres")}); err != nil {
		t.Errorf("--pg-shared-buffers with a postgres target: %v", err)
	}
}

// dqliteTarget is a planning-only target on dqlite's engine, whose wire
// protocol takes at most 255 parameters per statement.
type dqliteTarget struct{ fakeTarget }

func (dqliteTarget) Engine() string { return dqlite.Name }

func init() { target.Register(dqliteTarget{fakeTarget{"delta", "database/sql"}}) }

// --rows-per-stmt is checked against each cell's engine: what SQLite
// takes may be past another engine's parameter limit, and the error names
// the largest that fits there.
func TestRowsPerStmtPerEngine(t *testing.T) {
	sp := spec(t, "insert")
	given := map[string]string{"rows-per-stmt": "100"}
	if _, err := Build(Request{Workload: sp, Settings: matrix(t, sp, given), Targets: targets(t, "alpha")}); err != nil {
		t.Fatalf("100 rows per statement on SQLite: %v", err)
	}
	_, err := Build(Request{Workload: sp, Settings: matrix(t, sp, given), Targets: targets(t, "alpha,delta")})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "--target delta: ") || !strings.Contains(err.Error(), "past dqlite's limit of 255; use --rows-per-stmt 85 or less") {
		t.Errorf("100 rows per statement on dqlite: %v, want an input error naming the limit and 85", err)
	}
	given["rows-per-stmt"] = "85"
	if _, err := Build(Request{Workload: sp, Settings: matrix(t, sp, given), Targets: targets(t, "alpha,delta")}); err != nil {
		t.Errorf("85 rows per statement on dqlite: %v", err)
	}
}
