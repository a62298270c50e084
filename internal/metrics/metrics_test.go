package metrics

import (
	"sync"
	"testing"
	"time"
)

func TestMergeCombinesWorkers(t *testing.T) {
	ops := Ops{"read", "write"}
	var recs []*Recorder
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		r := NewRecorder(ops)
		recs = append(recs, r)
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 1; i <= 1000; i++ {
				r.Observe(0, time.Duration(i)*time.Microsecond)
			}
			r.Error(1, "busy")
			r.Retry(1)
		}(w)
	}
	wg.Wait()
	m := Merge(ops, recs)
	if len(m) != 2 {
		t.Fatalf("got %d ops", len(m))
	}
	if m[0].Count != 4000 || m[0].Service.TotalCount() != 4000 {
		t.Errorf("read count %d / %d", m[0].Count, m[0].Service.TotalCount())
	}
	d := Summarise(m[0].Service)
	if d.P["p50"] < 495 || d.P["p50"] > 505 {
		t.Errorf("p50 = %v µs, want ~500", d.P["p50"])
	}
	if d.Max < 999 || d.Max > 1001 {
		t.Errorf("max = %v µs", d.Max)
	}
	if m[1].Errors["busy"] != 4 || m[1].Retries != 4 || m[1].Count != 0 {
		t.Errorf("write errors %v retries %d", m[1].Errors, m[1].Retries)
	}
}

func TestObserveNCountsRows(t *testing.T) {
	r := NewRecorder(Ops{"insert"})
	r.ObserveN(0, 100, time.Millisecond)
	m := Merge(Ops{"insert"}, []*Recorder{r})
	if m[0].Count != 100 || m[0].Service.TotalCount() != 1 {
		t.Errorf("count %d samples %d", m[0].Count, m[0].Service.TotalCount())
	}
}

func TestUnusedOpsLeftOut(t *testing.T) {
	m := Merge(Ops{"a", "b"}, []*Recorder{NewRecorder(Ops{"a", "b"})})
	if len(m) != 0 {
		t.Errorf("empty ops reported: %v", m)
	}
}

func BenchmarkObserve(b *testing.B) {
	r := NewRecorder(Ops{"op"})
	r.Observe(0, time.Microsecond)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.Observe(0, time.Duration(i&0xffff)*time.Nanosecond)
	}
}

// Recording into a live recorder (time series on) from several workers at
// once: each worker owns its recorder, so nothing is shared or allocated.
func BenchmarkObserveScheduledLiveParallel(b *testing.B) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		r := NewRecorder(Ops{"read", "write"})
		r.Live()
		r.ObserveScheduled(0, time.Microsecond, time.Microsecond, false)
		i := 0
		for pb.Next() {
			r.ObserveScheduled(i&1, time.Duration(i&0xffff), time.Duration(i&0xfffff), false)
			i++
		}
	})
}

func TestErrorKindsFit(t *testing.T) {
	var o opRec
	if len(ErrorKinds) != len(o.errs) {
		t.Fatalf("ErrorKinds has %d kinds, a recorder counts %d", len(ErrorKinds), len(o.errs))
	}
}
