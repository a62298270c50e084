package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/litebench/litebench/internal/report"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/units"
)

// Table shows audit results, a row per cell and fault: what the trials
// found beside the cell's throughput and SQLite's documented behaviour.
func Table(rs []*results.Result) *report.Table {
	var keys []string
	for _, k := range results.VaryingKeys(rs) {
		if k != "journal" && k != "sync" && k != "placement" {
			keys = append(keys, k)
		}
	}
	params := results.VaryingParams(rs)
	t := &report.Table{Title: "Durability audit: acknowledged transactions lost and corruption, by fault",
		Headers: []string{"target"}}
	t.Headers = append(t.Headers, params...)
	t.Headers = append(t.Headers, keys...)
	t.Headers = append(t.Headers, "journal", "sync", "fault", "trials", "acked", "lost", "max/trial", "window", "corrupt", "unverified", "partial", "in flight kept", "recovery p50", "rows/s", "verdict", "class")
	n := len(t.Headers)
	t.Right = make([]bool, n)
	for i := n - 13; i < n-2; i++ {
		t.Right[i] = true
	}
	var findings Findings
	for _, r := range rs {
		a := r.Audit
		if a == nil {
			continue
		}
		row := []string{r.Target}
		for _, k := range params {
			row = append(row, r.Params[k])
		}
		for _, k := range keys {
			row = append(row, r.Settings[k])
		}
		verdict := findings.Verdict(t, r, r.Target)
		window, recovery := "-", "-"
		if a.LostAckedTotal > 0 {
			window = units.Duration(a.LostWindowMS * 1e3)
		}
		if a.CorruptTrials+a.UnverifiedTrials < a.Trials {
			recovery = units.Duration(a.RecoveryMSP50 * 1e3)
		}
		row = append(row, a.Journal, a.Sync, resultFault(a), strconv.Itoa(a.Trials), strconv.FormatInt(a.Acked, 10),
			strconv.FormatInt(a.LostAckedTotal, 10), strconv.FormatInt(a.LostAckedMax, 10), window,
			strconv.Itoa(a.CorruptTrials), strconv.Itoa(a.UnverifiedTrials), strconv.FormatInt(a.AtomicityViolations, 10), strconv.FormatInt(a.UnackedPresent, 10),
			recovery, report.Num(r.Headline().Value), verdict, a.Class)
		t.Rows = append(t.Rows, row)
		if r.Error != "" {
			t.Notes = append(t.Notes, fmt.Sprintf("%s %s: %s", r.Label, r.Status, r.Error))
		}
		for _, w := range r.Warnings {
			t.Notes = append(t.Notes, fmt.Sprintf("%s warning: %s", r.Label, w))
		}
	}
	t.Notes = append(t.Notes,
		"lost: acknowledged transactions missing (wholly or in part) after recovery; window: how long before the fault the oldest of them was acknowledged",
		"corrupt: trials whose database SQLite found malformed (or not a database) or that failed PRAGMA integrity_check; unverified: trials whose files could not be copied or opened for another reason, counted in no other column; partial: transactions partly present (atomicity violations)",
		"in flight kept: transactions committed but not yet acknowledged at the fault, present (not a loss); rows/s: rows committed per second in the trials",
		"class: "+SurvivesPowerLoss+" > "+MayLoseAcknowledged+" (a power cut may lose the latest commits) > "+SurvivesProcessCrash+" (a power cut may corrupt) > "+MayCorruptClass+" (even a process crash may); the weaker of SQLite's documentation and this measurement")
	return t
}

// Findings numbers the findings of a table.
type Findings struct{ n int }

// Verdict is the verdict cell of audit result r in table t: its status if
// it did not end ok, "FINDING n" with a note in t saying what was found in
// the cell named where, or "as documented".
func (f *Findings) Verdict(t *report.Table, r *results.Result, where string) string {
	a := r.Audit
	switch {
	case r.Status != results.StatusOK:
		return r.Status
	case a.Finding != "":
		f.n++
		t.Notes = append(t.Notes, fmt.Sprintf("FINDING %d (%s, %s): %s", f.n, where, resultFault(a), a.Finding))
		return fmt.Sprintf("FINDING %d", f.n)
	}
	return a.Verdict
}

// jsonLine is an audit result as one flat JSON object: the cell's labels,
// the audit's figures and the throughput.
type jsonLine struct {
	RunID    string            `json:"run_id"`
	SweepID  string            `json:"sweep_id,omitempty"`
	Label    string            `json:"label,omitempty"`
	Workload string            `json:"workload"`
	Target   string            `json:"target"`
	Engine   string            `json:"engine"`
	Client   string            `json:"client"`
	Settings map[string]string `json:"settings"`
	Params   map[string]string `json:"params"`
	*results.Audit
	RowsPerS float64 `json:"rows_per_s"`
	Status   string  `json:"status"`
	Error    string  `json:"error,omitempty"`
	// The trials one by one are in the stored result (litebench show
	// RUN --format json), not in this line.
	TrialResults []results.AuditTrial `json:"trial_results,omitempty"`
}

// WriteJSON writes an audit result as one flat JSON line.
func WriteJSON(w io.Writer, r *results.Result) error {
	l := jsonLine{RunID: r.RunID, SweepID: r.SweepID, Label: r.Label, Workload: r.Workload, Target: r.Target,
		Engine: r.Engine, Client: r.Client, Settings: r.Settings, Params: r.Params, Audit: r.Audit,
		RowsPerS: units.Round3(r.Headline().Value), Status: r.Status, Error: r.Error}
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
