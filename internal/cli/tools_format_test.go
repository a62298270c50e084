package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/histcodec"
	"github.com/litebench/litebench/internal/store"
)

// show --format hgrm writes the percentile spectrum of a stored run's
// histogram; parsed back, every line's value is the histogram's value at
// that percentile, and the footer's count is the op's.
func TestShowHgrmParsesBack(t *testing.T) {
	dir := t.TempDir()
	st := filepath.Join(dir, "s.db")
	if o := run(t, context.Background(), "insert", "--rows", "3000", "--batch", "10", "--store", st, "--dir", dir, "--progress", "0"); o.code != 0 {
		t.Fatalf("insert: %s", o.err)
	}
	s, err := store.OpenReadOnly(st)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := s.LastSweep()
	s.Close()
	if err != nil || len(rs) != 1 {
		t.Fatalf("last sweep: %v (%d runs)", err, len(rs))
	}
	r := rs[0]
	o := run(t, context.Background(), "show", "--store", st, "--format", "hgrm", r.RunID)
	if o.code != 0 {
		t.Fatalf("show hgrm: exit %d %s", o.code, o.err)
	}
	h, err := histcodec.Decode(r.Ops[0].Hist)
	if err != nil {
		t.Fatal(err)
	}
	// Read back as a plotter does: a percentile's value is that of the
	// first line at or above it, and the counts only grow.
	type line struct {
		v, p  float64
		count int64
	}
	var got []line
	total := int64(-1)
	sc := bufio.NewScanner(strings.NewReader(o.out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 3 {
			v, err1 := strconv.ParseFloat(f[0], 64)
			p, err2 := strconv.ParseFloat(f[1], 64)
			n, err3 := strconv.ParseInt(f[2], 10, 64)
			if err1 == nil && err2 == nil && err3 == nil {
				if len(got) > 0 && (n < got[len(got)-1].count || p < got[len(got)-1].p || v < got[len(got)-1].v) {
					t.Errorf("line %q goes backwards", sc.Text())
				}
				got = append(got, line{v, p, n})
				continue
			}
		}
		if strings.HasPrefix(sc.Text(), "#[Max") {
			total, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(sc.Text()[strings.LastIndex(sc.Text(), "=")+1:]), "]"), 10, 64)
		}
	}
	lines := len(got)
	// Every stored percentile of the run lies between the lines that
	// bracket it, and each line's count covers its percentile.
	felt := r.Ops[0].Felt()
	for _, k := range []string{"p50", "p90", "p99", "p999"} {
		q, _ := strconv.ParseFloat("0."+strings.TrimPrefix(k, "p"), 64)
		v, ok := felt[k]
		if !ok {
			t.Fatalf("the run has no %s", k)
		}
		want := v / 1000 // µs to ms
		for i, l := range got {
			if l.p >= q {
				lo := 0.0
				if i > 0 {
					lo = got[i-1].v
				}
				if want < lo-0.001 || want > l.v*1.001+0.001 {
					t.Errorf("%s = %v ms lies outside the lines around it: %v .. %v", k, want, lo, l.v)
				}
				break
			}
		}
	}
	for _, l := range got {
		if float64(l.count) < l.p*float64(total)-1 {
			t.Errorf("line %+v: its count does not reach its percentile of %d", l, total)
		}
	}
	if lines > 0 && got[lines-1].count != total {
		t.Errorf("the last line counts %d of %d", got[lines-1].count, total)
	}
	if lines < 20 || total != h.TotalCount() || total != r.Ops[0].Count {
		t.Errorf("%d percentile lines, footer count %d, histogram %d, op count %d:\n%s", lines, total, h.TotalCount(), r.Ops[0].Count, o.out)
	}
	if !strings.HasPrefix(o.out, "       Value     Percentile TotalCount 1/(1-Percentile)\n\n") {
		t.Errorf("the header is not HdrHistogram's:\n%.200s", o.out)
	}
	// Bad input: no such op, hgrm of a sweep of several runs.
	if o := run(t, context.Background(), "show", "--store", st, "--format", "hgrm", "--op", "nosuch", r.RunID); o.code != ExitUsage {
		t.Errorf("--op nosuch: exit %d", o.code)
	}

	// The formats CI tools read: parsed, they hold the run's headline.
	o = run(t, context.Background(), "show", "--store", st, "--format", "bencher", "--last")
	var bmf map[string]map[string]map[string]float64
	if err := json.Unmarshal([]byte(o.out), &bmf); err != nil || len(bmf) != 1 {
		t.Fatalf("bencher: %v\n%s", err, o.out)
	}
	for _, m := range bmf {
		if m["throughput"]["value"] != r.Headline().Value || m["insert-p99-us"]["value"] != r.Ops[0].Felt()["p99"] {
			t.Errorf("bencher figures differ from the run's: %v", m)
		}
	}
	o = run(t, context.Background(), "show", "--store", st, "--format", "github-action-benchmark", "--last")
	var gab []struct {
		Name, Unit string
		Value      float64
	}
	if err := json.Unmarshal([]byte(o.out), &gab); err != nil || len(gab) != 1 || gab[0].Value != r.Headline().Value || gab[0].Unit != r.Headline().Unit {
		t.Errorf("github-action-benchmark: %v %+v", err, gab)
	}
}

// show --format hlog writes the interval log of a run made with
// --series-histograms: every line's histogram decodes, the intervals
// follow one another, and their counts add up to the op's.
func TestShowHlog(t *testing.T) {
	dir := t.TempDir()
	st := filepath.Join(dir, "s.db")
	if o := run(t, context.Background(), "read", "--rows", "1000", "--duration", "2500ms", "--series", "500ms", "--series-histograms",
		"--store", st, "--dir", dir, "--progress", "0"); o.code != 0 {
		t.Fatalf("read: %s", o.err)
	}
	s, err := store.OpenReadOnly(st)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := s.LastSweep()
	s.Close()
	if err != nil || len(rs) != 1 {
		t.Fatalf("last sweep: %v", err)
	}
	r := rs[0]
	o := run(t, context.Background(), "show", "--store", st, "--format", "hlog", r.RunID)
	if o.code != 0 {
		t.Fatalf("show hlog: exit %d %s", o.code, o.err)
	}
	if !strings.HasPrefix(o.out, "#[Histogram log format version 1.3]\n#[StartTime: ") ||
		!strings.Contains(o.out, "\n\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n") {
		t.Fatalf("not HdrHistogram's log header:\n%.300s", o.out)
	}
	var total int64
	next, lines := 0.0, 0
	for _, l := range strings.Split(strings.TrimSpace(o.out), "\n") {
		if strings.HasPrefix(l, "#") || strings.HasPrefix(l, "\"") {
			continue
		}
		f := strings.Split(l, ",")
		if len(f) != 4 {
			t.Fatalf("line %q", l)
		}
		at, _ := strconv.ParseFloat(f[0], 64)
		span, _ := strconv.ParseFloat(f[1], 64)
		max, _ := strconv.ParseFloat(f[2], 64)
		if d := at - next; d > 0.002 || d < -0.002 || span <= 0 {
			t.Errorf("line %q does not follow the interval before (%.3f)", l, next)
		}
		next = at + span
		h, err := histcodec.Decode(f[3])
		if err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if d := max - float64(h.Max())/1e6; d > 0.001 || d < -0.001 {
			t.Errorf("line %q: max %v, the histogram's %v ms", l, max, float64(h.Max())/1e6)
		}
		total += h.TotalCount()
		lines++
	}
	op := r.Op("read")
	if lines < 4 || op == nil || total != op.Count {
		t.Errorf("%d intervals holding %d reads; the run counted %v", lines, total, op)
	}
	// Without --series-histograms there is nothing to write: one line.
	if o := run(t, context.Background(), "read", "--rows", "100", "--count", "100", "--store", st, "--dir", dir, "--progress", "0"); o.code != 0 {
		t.Fatal(o.err)
	}
	o = run(t, context.Background(), "show", "--store", st, "--format", "hlog", "--last")
	if o.code != ExitUsage || !strings.Contains(o.err, "--series-histograms") {
		t.Errorf("hlog of a run without interval histograms: exit %d %q", o.code, o.err)
	}
}
