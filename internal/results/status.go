package results

import (
	"fmt"
	"sort"
	"strings"
)

// FailedShareWarn is the share of failed operations past which a run that
// ended ok carries a warning: its figures count only the operations that
// succeeded, and past 1% the failures shape them (a busy writer that gives
// up is not a fast one).
const FailedShareWarn = 0.01

// Judge is the one rule that turns a run's counts into its status, for
// a run whose worker ended without an error (Status ok): a run whose
// operations failed and whose headline counted nothing (no row, request
// or operation succeeded) is failed; one in which more than
// FailedShareWarn of the operations of a kind failed stays ok with a
// warning saying how many of which kind failed, and why. Each kind is
// judged on its own (a transaction's begin that succeeds does not
// excuse its inserts that fail). A run that recorded no failure, or
// ended otherwise, is left as it is.
func (r *Result) Judge() {
	if r.Status != StatusOK {
		return
	}
	var failed int64
	var warn []string
	for _, o := range r.Ops {
		if o.Of != "" {
			continue // a part of an op kind its whole counts
		}
		var n int64
		for _, e := range o.Errors {
			n += e
		}
		failed += n
		if total := o.Count + n; n > 0 && float64(n) > FailedShareWarn*float64(total) {
			warn = append(warn, fmt.Sprintf("%d of %d %s failed (%.1f%%: %s)", n, total, o.Name, 100*float64(n)/float64(total), errorKinds(o.Errors)))
		}
	}
	switch {
	case failed == 0:
	case r.Rows == 0:
		r.Status = StatusFailed
		r.Error = fmt.Sprintf("nothing succeeded: %d operations failed (%s)", failed, errorKinds(r.ErrorTotals()))
	case len(warn) > 0:
		r.Warnings = append(r.Warnings, strings.Join(warn, ", ")+"; the figures count only what succeeded")
	}
}

// StatusText is the run's status as tables show it: "ok (warning)" for a
// run that ended ok with warnings.
func (r *Result) StatusText() string {
	if r.Status == StatusOK && len(r.Warnings) > 0 {
		return "ok (warning)"
	}
	return r.Status
}

func errorKinds(m map[string]int64) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for i, k := range ks {
		ks[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(ks, " ")
}
