// Package report renders results. Renderers are pure functions of results:
// they know nothing of targets, workloads or the runner.
package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/units"
)

// Formats lists the output formats.
var Formats = []string{"table", "markdown", "csv", "json", "benchfmt", "github-action-benchmark", "bencher"}

// CheckFormat validates a --format value.
func CheckFormat(f string) error {
	for _, x := range Formats {
		if f == x {
			return nil
		}
	}
	return fmt.Errorf("--format %q: want one of %s", f, strings.Join(Formats, ", "))
}

// Table is a titled grid of cells; Right marks numeric columns.
type Table struct {
	Title   string
	Headers []string
	Right   []bool
	Rows    [][]string
	Notes   []string
	// Common are columns dropped because every row had the same value
	// ("target=mattn"), said once above the table.
	Common []string
	// Width, above zero, is the widest the text table may be (see Fit);
	// zero fits it to the terminal it is written to, if any.
	Width int
	// blocks are the parts a table too wide even when narrowed is printed
	// in, one under the other (see Fit).
	blocks []*Table
}

// Render writes t as text (narrowed to the terminal's width, see Fit),
// markdown or csv.
func (t *Table) Render(w io.Writer, format string) error {
	switch format {
	case "markdown":
		return t.markdown(w)
	case "csv":
		return t.csv(w)
	}
	width := t.Width
	if width == 0 {
		width = TermWidth(w)
	}
	return t.Fit(width).text(w)
}

func (t *Table) widths() []int {
	wd := make([]int, len(t.Headers))
	for i, h := range t.Headers {
		for _, l := range strings.Split(h, "\n") {
			wd[i] = max(wd[i], utf8.RuneCountInString(l))
		}
	}
	for _, r := range t.Rows {
		for i, c := range r {
			if n := utf8.RuneCountInString(c); i < len(wd) && n > wd[i] {
				wd[i] = n
			}
		}
	}
	return wd
}

func pad(s string, w int, right bool) string {
	n := w - utf8.RuneCountInString(s)
	if n <= 0 {
		return s
	}
	if right {
		return strings.Repeat(" ", n) + s
	}
	return s + strings.Repeat(" ", n)
}

func (t *Table) right(i int) bool { return i < len(t.Right) && t.Right[i] }

func (t *Table) text(w io.Writer) error {
	var b strings.Builder
	if t.Title != "" {
		b.WriteString(t.Title + "\n")
	}
	if len(t.Common) > 0 {
		w := t.lineWidth()
		if t.Width > 0 {
			w = min(w, t.Width)
		}
		b.WriteString(commonLines(t.Common, w))
	}
	if t.blocks == nil {
		t.grid(&b)
	}
	for k, bl := range t.blocks {
		if k > 0 {
			b.WriteString("\n")
		}
		bl.grid(&b)
	}
	for _, n := range t.Notes {
		b.WriteString("  " + n + "\n")
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// grid writes t's headers and rows, aligned.
func (t *Table) grid(b *strings.Builder) {
	wd := t.widths()
	var l strings.Builder
	line := func(cells []string) {
		l.Reset()
		for i := range t.Headers {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			if i > 0 {
				l.WriteString("  ")
			}
			l.WriteString(pad(c, wd[i], t.right(i)))
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
	// Headers split by Fit take two lines, aligned at the bottom.
	lines := 1
	for _, h := range t.Headers {
		lines = max(lines, strings.Count(h, "\n")+1)
	}
	for k := 0; k < lines; k++ {
		cells := make([]string, len(t.Headers))
		for i, h := range t.Headers {
			hl := strings.Split(h, "\n")
			if j := k - (lines - len(hl)); j >= 0 {
				cells[i] = hl[j]
			}
		}
		line(cells)
	}
	sep := make([]string, len(t.Headers))
	for i := range sep {
		sep[i] = strings.Repeat("-", wd[i])
	}
	line(sep)
	for _, r := range t.Rows {
		line(r)
	}
}

// commonLines names the columns every row shared, in lines no wider than
// the table (or 40 characters).
func commonLines(items []string, width int) string {
	width = max(width, 40)
	var b strings.Builder
	line := "every row:"
	for k, it := range items {
		if k < len(items)-1 {
			it += ","
		}
		if n := utf8.RuneCountInString(it); n > width-2 {
			it = string([]rune(it)[:width-3]) + "…"
		}
		if utf8.RuneCountInString(line)+1+utf8.RuneCountInString(it) > width {
			b.WriteString(line + "\n")
			line = " "
		}
		line += " " + it
	}
	b.WriteString(line + "\n")
	return b.String()
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func (t *Table) markdown(w io.Writer) error {
	var b strings.Builder
	if t.Title != "" {
		b.WriteString("### " + t.Title + "\n\n")
	}
	row := func(cells []string) {
		b.WriteString("|")
		for i := range t.Headers {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			b.WriteString(" " + mdEscape(c) + " |")
		}
		b.WriteString("\n")
	}
	row(t.Headers)
	b.WriteString("|")
	for i := range t.Headers {
		if t.right(i) {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		row(r)
	}
	for _, n := range t.Notes {
		b.WriteString("\n> " + n + "\n")
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func (t *Table) csv(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Headers); err != nil {
		return err
	}
	for _, r := range t.Rows {
		if err := cw.Write(r); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Num is units.Num, for the tables' callers.
func Num(f float64) string { return units.Num(f) }

// Bytes is units.Bytes, for the tables' callers.
func Bytes(n int64) string { return units.Bytes(n) }

// MainOp is the op a result's summary columns describe: the first op with
// successful operations.
func MainOp(r *results.Result) *results.Op {
	for i := range r.Ops {
		if r.Ops[i].Count > 0 {
			return &r.Ops[i]
		}
	}
	if len(r.Ops) > 0 {
		return &r.Ops[0]
	}
	return nil
}

// ErrorCell renders error counts like "busy=3 locked=1", or "0".
func ErrorCell(m map[string]int64) string {
	var parts []string
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
		}
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, " ")
}

// rated are the figures of merit of rs besides the headline (metrics
// with a direction), in order of first appearance: the summary's extra
// columns.
func rated(rs []*results.Result) []results.Metric {
	var out []results.Metric
	seen := map[string]bool{}
	for _, r := range rs {
		for _, m := range r.Metrics[min(1, len(r.Metrics)):] {
			if m.Better != units.None && !seen[m.Name] {
				seen[m.Name] = true
				out = append(out, m)
			}
		}
	}
	return out
}

// metricHeader names a metric's column: "first row µs".
func metricHeader(m results.Metric) string {
	return strings.TrimSpace(strings.ReplaceAll(m.Name, "_", " ") + " " + m.Unit)
}

// headlineUnit is the unit of every run's headline, or "" when they differ.
func headlineUnit(rs []*results.Result) string {
	u := ""
	for i, r := range rs {
		if h := r.Headline().Unit; i == 0 {
			u = h
		} else if h != u {
			return ""
		}
	}
	return u
}

// HeadlineName names the headline column of rs: the unit every run's
// headline shares, or "throughput" when they differ.
func HeadlineName(rs []*results.Result) string {
	if u := headlineUnit(rs); u != "" {
		return u
	}
	return results.Throughput
}

// headlineCell renders r's headline in a column named by HeadlineName:
// with its unit when the column mixes units.
func headlineCell(r *results.Result, mixed bool) string {
	h := r.Headline()
	if mixed {
		return units.Format(h.Value, h.Unit)
	}
	return Num(h.Value)
}

// Summary builds the one-row-per-run table: identifying columns (target,
// and every setting or parameter that varies), then the figures.
func Summary(rs []*results.Result) *Table {
	t := &Table{}
	keys := results.VaryingKeys(rs)
	params := results.VaryingParams(rs)
	t.Headers = append(t.Headers, "workload", "target")
	t.Right = append(t.Right, false, false)
	t.identHeaders(params, keys)
	unit := headlineUnit(rs)
	count, rate := units.Count(unit), unit
	if unit == "" {
		count, rate = "count", results.Throughput
	}
	t.Headers = append(t.Headers, "status", count, "seconds", rate, "op", "p50 µs", "p99 µs", "max µs", "errors", "retries")
	t.Right = append(t.Right, false, true, true, true, false, true, true, true, false, true)
	extras := rated(rs)
	for _, m := range extras {
		t.Headers, t.Right = append(t.Headers, metricHeader(m)), append(t.Right, true)
	}
	for _, r := range rs {
		row := []string{r.Workload, r.Target}
		row = identValues(row, r, params, keys)
		op := MainOp(r)
		opName, p50, p99, max := "-", "-", "-", "-"
		if op != nil && op.Count > 0 {
			l := op.Felt()
			opName, p50, p99, max = op.Name, Num(l["p50"]), Num(l["p99"]), Num(l["max"])
		}
		row = append(row, r.StatusText(), strconv.FormatInt(r.Rows, 10), Num(r.Elapsed), headlineCell(r, unit == ""),
			opName, p50, p99, max, ErrorCell(r.ErrorTotals()), strconv.FormatInt(r.RetryTotal(), 10))
		for _, m := range extras {
			if v, ok := r.Metric(m.Name); ok {
				row = append(row, Num(v))
			} else {
				row = append(row, "-")
			}
		}
		t.Rows = append(t.Rows, row)
		for _, n := range r.Notes {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: %s", r.RunID, n))
		}
		if r.Error != "" {
			t.Notes = append(t.Notes, fmt.Sprintf("%s failed: %s", r.RunID, r.Error))
		}
		for _, w := range r.Warnings {
			t.Notes = append(t.Notes, fmt.Sprintf("%s warning: %s", r.RunID, w))
		}
	}
	return t
}

// identHeaders adds the columns that identify a run: the parameters and
// settings that vary.
func (t *Table) identHeaders(params, keys []string) {
	for _, p := range params {
		t.Headers, t.Right = append(t.Headers, p), append(t.Right, true)
	}
	for _, k := range keys {
		t.Headers, t.Right = append(t.Headers, k), append(t.Right, false)
	}
}

// identValues appends r's values of identHeaders' columns to row.
func identValues(row []string, r *results.Result, params, keys []string) []string {
	for _, p := range params {
		row = append(row, r.Params[p])
	}
	for _, k := range keys {
		row = append(row, r.Settings[k])
	}
	return row
}

// countsOps reports whether every run's headline counts the operations it
// recorded (a rate of operations or requests, not of rows): their table
// shows the rate of each op kind.
func countsOps(rs []*results.Result) bool {
	for _, r := range rs {
		if u := r.Headline().Unit; !units.IsRate(u) || u == units.RowsPerSecond {
			return false
		}
	}
	return len(rs) > 0
}

// controlKey identifies the control runs of r (or, for a control run, the
// runs it is the control of) by the labels its control matches on.
func controlKey(r *results.Result) string {
	k := r.Workload + "|" + r.Control.Key + "=" + r.Control.Value
	for _, m := range r.Control.Match {
		v, _ := r.Get(m)
		k += "|" + m + "=" + v
	}
	return k
}

// controlRates are the headlines of the control runs among rs, by
// controlKey.
func controlRates(rs []*results.Result) map[string]float64 {
	out := map[string]float64{}
	for _, r := range rs {
		if r.Control == nil || r.Elapsed <= 0 {
			continue
		}
		if v, _ := r.Get(r.Control.Key); v == r.Control.Value {
			out[controlKey(r)] = r.Headline().Value
		}
	}
	return out
}

// LoadSummary is the one-row-per-run table of runs whose headline counts
// their operations: the rate of each op kind and their total, in the shape
// of go-sqlite-bench's output, with latency beside it: response time under a
// target rate, service time in closed loop.
func LoadSummary(rs []*results.Result) *Table {
	t := &Table{}
	keys := results.VaryingKeys(rs)
	params := results.VaryingParams(rs)
	t.Headers = append(t.Headers, "workload", "target")
	t.Right = append(t.Right, false, false)
	t.identHeaders(params, keys)
	var names []string
	seen := map[string]bool{}
	open := false
	for _, r := range rs {
		for _, o := range r.Ops {
			if !seen[o.Name] && o.Of == "" { // statements: in Operations
				seen[o.Name] = true
				names = append(names, o.Name)
			}
		}
		if _, ok := r.Metric(results.WantedRate); ok {
			open = true
		}
	}
	t.Headers = append(t.Headers, "status", "seconds")
	t.Right = append(t.Right, false, true)
	if open {
		t.Headers = append(t.Headers, "wanted/s", "achieved/s", "late")
		t.Right = append(t.Right, true, true, true)
	}
	for _, n := range names {
		t.Headers = append(t.Headers, n+"/s")
		t.Right = append(t.Right, true)
	}
	if len(names) > 1 {
		t.Headers, t.Right = append(t.Headers, "total/s"), append(t.Right, true)
	}
	for _, n := range names {
		t.Headers = append(t.Headers, n+" p50 µs", n+" p99 µs")
		t.Right = append(t.Right, true, true)
	}
	// Runs of a workload with a control get their ratio to it.
	control := controlRates(rs)
	if len(control) > 0 {
		name := ""
		for _, r := range rs {
			if r.Control != nil {
				name = r.Control.Value
				break
			}
		}
		t.Headers, t.Right = append(t.Headers, "vs "+name), append(t.Right, true)
	}
	t.Headers = append(t.Headers, "errors", "retries", "max WAL")
	t.Right = append(t.Right, false, true, true)
	for _, r := range rs {
		row := []string{r.Workload, r.Target}
		row = identValues(row, r, params, keys)
		row = append(row, r.StatusText(), Num(r.Elapsed))
		var total float64
		var late int64
		for _, o := range r.Ops {
			if o.Of == "" {
				total += float64(o.Count)
				late += o.Late
			}
		}
		if r.Elapsed > 0 {
			total /= r.Elapsed
		}
		if open {
			if v, ok := r.Metric(results.WantedRate); ok {
				row = append(row, Num(v), Num(total), strconv.FormatInt(late, 10))
			} else {
				row = append(row, "-", "-", "-")
			}
		}
		for _, n := range names {
			v := "0"
			if o := r.Op(n); o != nil && r.Elapsed > 0 {
				v = Num(float64(o.Count) / r.Elapsed)
			}
			row = append(row, v)
		}
		if len(names) > 1 {
			row = append(row, Num(total))
		}
		for _, n := range names {
			o := r.Op(n)
			if o == nil || o.Count == 0 {
				row = append(row, "-", "-")
				continue
			}
			l := o.Felt()
			row = append(row, Num(l["p50"]), Num(l["p99"]))
		}
		if len(control) > 0 {
			cell := "-"
			if r.Control != nil && r.Elapsed > 0 {
				if f := control[controlKey(r)]; f > 0 {
					cell = fmt.Sprintf("%.0f%%", 100*r.Headline().Value/f)
				}
			}
			row = append(row, cell)
		}
		row = append(row, ErrorCell(r.ErrorTotals()), strconv.FormatInt(r.RetryTotal(), 10), MaxWAL(r))
		t.Rows = append(t.Rows, row)
		for _, n := range r.Notes {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: %s", r.RunID, n))
		}
		if r.Error != "" {
			t.Notes = append(t.Notes, fmt.Sprintf("%s failed: %s", r.RunID, r.Error))
		}
		for _, w := range r.Warnings {
			t.Notes = append(t.Notes, fmt.Sprintf("%s warning: %s", r.RunID, w))
		}
	}
	return t
}

// MaxWAL is the largest WAL a run saw (time series, or the end of the
// run), formatted, or "-" when it had none.
func MaxWAL(r *results.Result) string {
	var m int64
	for _, p := range r.Series {
		m = max(m, p.WALBytes)
	}
	for _, p := range r.Processes {
		m = max(m, p.WALMax)
	}
	if v, ok := r.Metric(results.WALSize); ok {
		m = max(m, int64(v))
	}
	if m == 0 {
		return "-"
	}
	return units.Bytes(m)
}

// Operations builds the one-row-per-(run, op kind) latency table.
func Operations(rs []*results.Result) *Table {
	keys := results.VaryingKeys(rs)
	params := results.VaryingParams(rs)
	t := &Table{Title: "Latency per operation (µs; service time, or response time under a target rate)"}
	t.Headers = append(t.Headers, "target")
	t.Right = append(t.Right, false)
	t.identHeaders(params, keys)
	t.Headers = append(t.Headers, "op", "count", "mean", "p50", "p90", "p99", "p99.9", "max", "errors", "retries")
	t.Right = append(t.Right, false, true, true, true, true, true, true, true, false, true)
	for _, r := range rs {
		for _, op := range r.Ops {
			row := []string{r.Target}
			row = identValues(row, r, params, keys)
			l := op.Felt()
			count := strconv.FormatInt(op.Count, 10)
			if n := int64(l["count"]); n > 0 && n < op.Count && multiRow(r, op.Name) {
				// One latency per statement of several rows: the count is
				// the statements'.
				count = strconv.FormatInt(n, 10) + " stmts"
				t.Notes = append(t.Notes, fmt.Sprintf("%s %s: count is statements, one latency each; they wrote %d rows", r.RunID, op.Name, op.Count))
			}
			row = append(row, op.Name, count, Num(l["mean"]), Num(l["p50"]), Num(l["p90"]),
				Num(l["p99"]), Num(l["p999"]), Num(l["max"]), ErrorCell(op.Errors), strconv.FormatInt(op.Retries, 10))
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// multiRow reports whether op's latencies are of statements of several
// rows: its run counts rows, inserts several per statement, and op is the
// op kind the rows are counted in.
func multiRow(r *results.Result, op string) bool {
	m := MainOp(r)
	rps, _ := strconv.Atoi(r.Settings["rows-per-stmt"])
	return r.Headline().Unit == units.RowsPerSecond && rps > 1 && m != nil && m.Name == op
}

// Write renders rs in format: tables (summary, then per-op latency when it
// adds information), raw CSV rows, JSON lines, or Go benchmark format.
func Write(w io.Writer, rs []*results.Result, format string) error {
	switch format {
	case "json":
		for _, r := range rs {
			if err := WriteJSON(w, r); err != nil {
				return err
			}
		}
		return nil
	case "benchfmt":
		return WriteBenchfmt(w, rs)
	case "github-action-benchmark":
		return WriteGitHubActionBenchmark(w, rs)
	case "bencher":
		return WriteBencher(w, rs)
	case "csv":
		return WriteCSV(w, rs)
	}
	if Paired(rs) && !Repeated(rs) {
		return Pairs(rs).Render(w, format)
	}
	sum := Summary(rs)
	if countsOps(rs) {
		sum = LoadSummary(rs)
	}
	if Repeated(rs) {
		sum = RepeatTable(rs)
	}
	if ms := results.Machines(rs); len(ms) > 1 {
		sum.Notes = append(sum.Notes, fmt.Sprintf("These runs come from %d machines (%s): figures from different machines are not comparable.", len(ms), strings.Join(ms, "; ")))
	}
	if err := sum.Render(w, format); err != nil {
		return err
	}
	if t := Processes(rs); t != nil {
		if err := t.Render(w, format); err != nil {
			return err
		}
	}
	multi := false
	for _, r := range rs {
		n := 0
		for _, o := range r.Ops {
			if o.Count > 0 {
				n++
			}
		}
		if n > 1 {
			multi = true
		}
	}
	if multi && !Repeated(rs) {
		return Operations(rs).Render(w, format)
	}
	return nil
}

// WriteJSON writes r as one JSON line.
func WriteJSON(w io.Writer, r *results.Result) error {
	b, err := results.MarshalJSONLine(r)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
