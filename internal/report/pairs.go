package report

import (
	"fmt"
	"strings"

	"github.com/litebench/litebench/internal/results"
)

// Paired reports whether every run of rs measures two ways of doing the
// same thing at several points: op kinds named METHOD@POINT, two methods,
// both at every point (OFFSET against keyset pagination at each depth).
// Their throughput mixes the points and means nothing; Pairs shows them.
func Paired(rs []*results.Result) bool {
	for _, r := range rs {
		if _, _, ok := pairsOf(r); !ok {
			return false
		}
	}
	return len(rs) > 0
}

// pairsOf splits r's op kinds into its two methods and its points, in
// order.
func pairsOf(r *results.Result) (methods [2]string, points []string, ok bool) {
	if len(r.Ops) == 0 || len(r.Ops)%2 != 0 {
		return methods, nil, false
	}
	for i := 0; i < len(r.Ops); i += 2 {
		a, pa, okA := strings.Cut(r.Ops[i].Name, "@")
		b, pb, okB := strings.Cut(r.Ops[i+1].Name, "@")
		if !okA || !okB || pa != pb || a == b || (i > 0 && (a != methods[0] || b != methods[1])) {
			return methods, nil, false
		}
		methods = [2]string{a, b}
		points = append(points, pa)
	}
	return methods, points, true
}

// SamePages names the figure that counts, per point, the pages both
// methods returned alike: SamePages@POINT.
const SamePages = "same_pages"

// Pairs builds the side-by-side table of paired runs: per run and point,
// each method's median latency, their ratio, and whether both returned the
// same rows.
func Pairs(rs []*results.Result) *Table {
	keys := results.VaryingKeys(rs)
	params := results.VaryingParams(rs)
	methods, _, _ := pairsOf(rs[0])
	t := &Table{Title: fmt.Sprintf("%s against %s, median latency per query (µs)", methods[0], methods[1])}
	t.Headers = append(t.Headers, "target")
	t.Right = append(t.Right, false)
	t.identHeaders(params, keys)
	t.Headers = append(t.Headers, "status", "depth", methods[0]+" p50", methods[1]+" p50", methods[0]+"/"+methods[1], "same rows", "errors")
	t.Right = append(t.Right, false, true, true, true, true, false, false)
	for _, r := range rs {
		_, points, _ := pairsOf(r)
		for i, pt := range points {
			a, b := r.Ops[2*i], r.Ops[2*i+1]
			row := identValues([]string{r.Target}, r, params, keys)
			ratio := "-"
			la, lb := a.Felt()["p50"], b.Felt()["p50"]
			if a.Count > 0 && b.Count > 0 && lb > 0 {
				ratio = fmt.Sprintf("×%s", Num(la/lb))
			}
			same := "-"
			if n, ok := r.Metric(SamePages + "@" + pt); ok {
				same = fmt.Sprintf("yes (%d pages)", int64(n))
			} else if r.Status == results.StatusFailed && strings.Contains(r.Error, "differ") {
				same = "NO"
			}
			errs := map[string]int64{}
			for _, o := range []results.Op{a, b} {
				for k, n := range o.Errors {
					errs[k] += n
				}
			}
			row = append(row, r.Status, pt, latCell(a, la), latCell(b, lb), ratio, same, ErrorCell(errs))
			t.Rows = append(t.Rows, row)
		}
		for _, n := range r.Notes {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: %s", r.RunID, n))
		}
		if r.Error != "" {
			t.Notes = append(t.Notes, fmt.Sprintf("%s failed: %s", r.RunID, r.Error))
		}
	}
	t.Notes = append(t.Notes, "same rows: every page of both methods digested (every column of every row) and compared")
	return t
}

func latCell(o results.Op, p50 float64) string {
	if o.Count == 0 {
		return "-"
	}
	return Num(p50)
}
