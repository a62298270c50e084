package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// lockedBuffer is a bytes.Buffer safe for a writer and a reader at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// --metrics-addr serves OpenMetrics while a run goes on: scraped during a
// read run and parsed with Prometheus' own text parser, the families are
// there, labelled by run and op, and the operation counter grows.
func TestLiveMetricsScrapedDuringRun(t *testing.T) {
	dir := t.TempDir()
	var out, errw lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(context.Background(), []string{"read", "--rows", "2000", "--duration", "4s", "--dir", dir,
			"--no-store", "--progress", "0", "--metrics-addr", "127.0.0.1:0"}, &out, &errw)
	}()
	addrRe := regexp.MustCompile(`live metrics: (http://\S+/metrics)`)
	var url string
	var counts []float64
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) && len(counts) < 2 {
		time.Sleep(300 * time.Millisecond)
		if url == "" {
			m := addrRe.FindStringSubmatch(errw.String())
			if m == nil {
				continue
			}
			url = m[1]
		}
		fams := scrape(t, url)
		if fams == nil {
			continue
		}
		ops := fams["litebench_operations_total"]
		if ops == nil || len(ops.Metric) == 0 {
			continue
		}
		labels := map[string]string{}
		for _, l := range ops.Metric[0].Label {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["op"] != "read" || labels["workload"] != "read" || labels["run_id"] == "" || labels["target"] == "" {
			t.Fatalf("operation counter's labels: %v", labels)
		}
		v := ops.Metric[0].GetCounter().GetValue()
		if v > 0 && (len(counts) == 0 || v > counts[len(counts)-1]) {
			counts = append(counts, v)
		}
		lat := fams["litebench_latency_seconds"]
		if lat == nil || lat.Metric[0].GetHistogram().GetSampleCount() == 0 {
			t.Fatalf("no latency histogram beside %v operations", v)
		}
		h := lat.Metric[0].GetHistogram()
		if last := h.Bucket[len(h.Bucket)-1]; last.GetCumulativeCount() > h.GetSampleCount() {
			t.Errorf("a bucket counts more than the histogram: %v > %v", last.GetCumulativeCount(), h.GetSampleCount())
		}
		for _, name := range []string{"litebench_errors_total", "litebench_run_running", "litebench_db_bytes"} {
			if fams[name] == nil {
				t.Errorf("family %s missing", name)
			}
		}
	}
	if len(counts) < 2 {
		t.Fatalf("the operation counter was not seen to grow (%v); stderr:\n%s", counts, errw.String())
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errw.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the run did not end")
	}
	// Once the command ends, nothing listens there any more.
	if _, err := http.Get(url); err == nil {
		t.Error("the metrics endpoint outlived the command")
	}
	if o := run(t, context.Background(), "read", "--metrics-addr", "nonsense", "--no-store"); o.code != ExitUsage || !strings.Contains(o.err, "--metrics-addr") {
		t.Errorf("--metrics-addr nonsense: exit %d %q", o.code, o.err)
	}
}

func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	resp, err := http.Get(url)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("the endpoint's text does not parse: %v\n%s", err, body)
	}
	return fams
}
