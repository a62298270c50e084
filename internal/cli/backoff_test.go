package cli

import (
	"context"
	"testing"
)

// A contended insert (four writers, rollback journal, no busy timeout):
// --busy-retry until spins, retrying at once; --busy-retry backoff waits
// before each retry and so retries an order of magnitude less often for
// the same rows. Counts are compared, not times.
func TestBusyRetryBackoffRetriesLess(t *testing.T) {
	retries := map[string]float64{}
	for _, r := range []string{"until", "backoff"} {
		o := run(t, context.Background(), "insert", "--workers", "4", "--busy-timeout", "0", "--busy-retry", r, "--rows", "300", "--batch", "1",
			"--journal", "delete", "--no-store", "--progress", "0", "--format", "json", "--dir", t.TempDir())
		if o.code != 0 {
			t.Fatalf("--busy-retry %s: exit %d: %s", r, o.code, o.err)
		}
		j := jsonLines(t, o.out)[0]
		if j["status"] != "ok" || j["count"] != float64(300) {
			t.Fatalf("--busy-retry %s: %v rows, status %v: %v", r, j["count"], j["status"], j["error"])
		}
		retries[r], _ = j["retries"].(float64)
	}
	if retries["until"] < 100 || retries["backoff"]*10 > retries["until"] {
		t.Errorf("retries: spin %v, backoff %v; want the spin at least 100 and ten times the backoff's", retries["until"], retries["backoff"])
	}
	o := run(t, context.Background(), "insert", "--busy-retry", "backoff:1ms", "--no-store")
	if o.code != ExitUsage {
		t.Errorf("--busy-retry backoff:1ms: exit %d, want 2: %s", o.code, o.err)
	}
}
