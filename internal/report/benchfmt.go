package report

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/litebench/litebench/internal/results"
)

// WriteBenchfmt writes rs in the Go benchmark format, so benchstat can
// compare litebench runs: one line per run, named
// Benchmark<Workload>/target=…/<key>=<value> for every varying setting or
// parameter, with what the headline counts (rows, operations, requests) as
// the iteration count, ns/op per one of them, the headline in its own unit
// and per-op percentiles as extra units. Configuration lines (machine, and
// the engine's version under the engine's name, e.g. "sqlite: 3.51.0")
// describe the results after them: one is written again whenever its value
// changes, so each result has its own.
func WriteBenchfmt(w io.Writer, rs []*results.Result) error {
	var b strings.Builder
	keys := results.VaryingKeys(rs)
	params := results.VaryingParams(rs)
	last := map[string]string{}
	config := func(k, v string) {
		if v != "" && last[k] != v {
			fmt.Fprintf(&b, "%s: %s\n", k, v)
			last[k] = v
		}
	}
	for _, r := range rs {
		if r.Status != results.StatusOK || r.Rows == 0 {
			continue
		}
		config("goos", r.Env.OS)
		config("goarch", r.Env.Arch)
		config("pkg", "litebench")
		config("cpu", r.Env.CPUModel)
		engine := r.Engine
		if engine == "" {
			engine = "engine"
		}
		config(engine, r.EngineVersion)
		name := "Benchmark" + title(r.Workload) + "/target=" + nameValue(r.Target)
		for _, p := range params {
			name += "/" + p + "=" + nameValue(r.Params[p])
		}
		for _, k := range keys {
			name += "/" + k + "=" + nameValue(r.Settings[k])
		}
		h := r.Headline()
		nsPer := r.Elapsed * 1e9 / float64(r.Rows)
		fmt.Fprintf(&b, "%s %d %.1f ns/op", name, r.Rows, nsPer)
		if h.Unit != "" {
			fmt.Fprintf(&b, " %.0f %s", h.Value, h.Unit)
		}
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
