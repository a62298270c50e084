package report

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	"litebench/internal/results"
)

// WriteBenchfmt writes rs in the Go benchmark format, so benchstat can
// compare litebench runs: one line per run, named
// Benchmark<Workload>/target=…/<key>=<value> for every varying setting or
// parameter, with the run's rows as the iteration count, ns/op per row, and
// rows/s plus per-op percentiles as extra units.
func WriteBenchfmt(w io.Writer, rs []*results.Result) error {
	var b strings.Builder
	if len(rs) > 0 {
		e := rs[0].Env
		fmt.Fprintf(&b, "goos: %s\ngoarch: %s\npkg: litebench\n", e.OS, e.Arch)
		if e.CPUModel != "" {
			fmt.Fprintf(&b, "cpu: %s\n", e.CPUModel)
		}
		fmt.Fprintf(&b, "sqlite: %s\n", rs[0].SQLite)
	}
	keys := results.VaryingKeys(rs, SettingOrder)
	params := results.VaryingParams(rs)
	for _, r := range rs {
		if r.Status != results.StatusOK || r.Rows == 0 {
			continue
		}
		name := "Benchmark" + title(r.Workload) + "/target=" + nameValue(r.Target)
		for _, p := range params {
			name += "/" + p + "=" + nameValue(r.Params[p])
		}
		for _, k := range keys {
			name += "/" + k + "=" + nameValue(r.Settings[k])
		}
		nsPerRow := r.Elapsed * 1e9 / float64(r.Rows)
		fmt.Fprintf(&b, "%s %d %.1f ns/op %.0f rows/s", name, r.Rows, nsPerRow, r.RowsPerSecond)
		for _, op := range r.Ops {
			if op.Count == 0 {
				continue
			}
			l := op.Felt()
			u := unitName(op.Name)
			fmt.Fprintf(&b, " %.0f %s-p50-ns %.0f %s-p99-ns", l["p50"]*1e3, u, l["p99"]*1e3, u)
		}
		if n := sumErrors(r); n > 0 {
			fmt.Fprintf(&b, " %d errors", n)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func sumErrors(r *results.Result) int64 {
	var n int64
	for _, v := range r.ErrorTotals() {
		n += v
	}
	return n
}

func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// nameValue keeps a value legal inside a benchmark name (no spaces, no '/').
func nameValue(v string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '/' {
			return '_'
		}
		return r
	}, v)
}

func unitName(op string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return '_'
	}, op)
}
