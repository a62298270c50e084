package foreigntest

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Compare checks a worker's conversation against the reference's: the
// same content after set-up (and after the run when the job says so), the
// same journal mode, connections, figures, operations done and notes, the
// same schema, and for a deterministic job the same counts per op and acks.
func Compare(t *testing.T, w Worker, c Case, ref, got *Talk) {
	t.Helper()
	who := w.Target
	if got.Setup.Digest == "" || got.Setup.Digest != ref.Setup.Digest {
		t.Errorf("%s: digest after set-up %q, litebench worker %q", who, got.Setup.Digest, ref.Setup.Digest)
	}
	if got.Setup.JournalMode != ref.Setup.JournalMode {
		t.Errorf("%s: journal mode %q, litebench worker %q", who, got.Setup.JournalMode, ref.Setup.JournalMode)
	}
	// Connections: one per worker that overlaps another, plus the
	// set-up's; conn-per-op opens one per call.
	if !c.RacyConns && c.Settings["conn-per-op"] != "true" && !slices.Contains(w.OwnConns, c.Name) && got.Final.Conns != ref.Final.Conns {
		t.Errorf("%s: %d connections opened, litebench worker %d", who, got.Final.Conns, ref.Final.Conns)
	}
	// The amount of work is fixed (rows or a count, not a duration), but
	// for what may fail by timing.
	fixed := (c.Workload == "insert" || c.Workload == "scan" || c.Params["count"] != "") && !c.MayFail
	keys := []string{"table_rows_before", "wanted_rate"}
	if c.Same || c.Digest || fixed && c.Workload != "mixed" { // readers and writers share a mixed count
		keys = append(keys, "table_rows_after")
	}
	if c.Same || c.Digest {
		keys = append(keys, "rows_inserted")
	}
	gm, rm := Metrics(got.Final), Metrics(ref.Final)
	for _, k := range keys {
		g, gok := gm[k]
		r, rok := rm[k]
		if g != r || gok != rok {
			t.Errorf("%s: metric %s = %v (%v), litebench worker %v (%v)", who, k, g, gok, r, rok)
		}
	}
	// The same figures; only the scheduling lag and, when the workers race,
	// whether any row was inserted depend on the run's timing. process_cpu
	// is measured from outside for a worker that does not report it.
	racy := map[string]bool{"sched_lag_p99": true, "rows_inserted": !c.Same && !c.Digest, "process_cpu": true}
	for _, name := range w.OwnMetrics {
		racy[name] = true
	}
	for _, pair := range [][2]map[string]float64{{gm, rm}, {rm, gm}} {
		for name := range pair[0] {
			if _, ok := pair[1][name]; !ok && !racy[name] {
				t.Errorf("%s: metric %s reported by one worker only: %v, litebench worker %v", who, name, gm, rm)
			}
		}
	}
	if fixed && got.Final.Done != ref.Final.Done {
		t.Errorf("%s: done %d, litebench worker %d", who, got.Final.Done, ref.Final.Done)
	}
	if c.File != "" && !reflect.DeepEqual(got.Final.Notes, ref.Final.Notes) {
		t.Errorf("%s: notes %q, litebench worker %q", who, got.Final.Notes, ref.Final.Notes)
	}
	if c.Acks && ackedRows(got) != ackedRows(ref) {
		t.Errorf("%s: acknowledged %d rows, litebench worker %d", who, ackedRows(got), ackedRows(ref))
	}
	if !w.OwnDDL && filepath.IsAbs(got.Job.Path) && filepath.IsAbs(ref.Job.Path) {
		if a, b := schemaOf(t, got.Job.Path), schemaOf(t, ref.Job.Path); a != b {
			t.Errorf("%s: schema:\n%s\nlitebench worker's:\n%s", who, a, b)
		}
	}
	if !c.Same && !c.Digest {
		return
	}
	if got.Final.Digest == "" || got.Final.Digest != ref.Final.Digest {
		t.Errorf("%s: digest after the run %q, litebench worker %q", who, got.Final.Digest, ref.Final.Digest)
	}
	if !c.Same {
		return
	}
	if a, b := OpCounts(got.Final.FinalOps), OpCounts(ref.Final.FinalOps); !reflect.DeepEqual(a, b) {
		t.Errorf("%s: op counts %v, litebench worker %v", who, a, b)
	}
	if !reflect.DeepEqual(got.Acks, ref.Acks) {
		t.Errorf("%s: acks differ from the litebench worker's:\n%v\n%v", who, got.Acks, ref.Acks)
	}
}

func ackedRows(tk *Talk) int64 {
	var n int64
	for _, a := range tk.Acks {
		for _, r := range a.Rows {
			n += r
		}
	}
	return n
}

// schemaOf is a database's schema and application id, as text.
func schemaOf(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	var id int64
	if err := db.QueryRow("PRAGMA application_id").Scan(&id); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "application_id %#x\n", id)
	rows, err := db.Query("SELECT type, name, coalesce(sql, '') FROM sqlite_master ORDER BY name")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var typ, name, q string
		if err := rows.Scan(&typ, &name, &q); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s: %s\n", typ, name, q)
	}
	return b.String()
}
