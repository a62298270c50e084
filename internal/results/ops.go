package results

import "litebench/internal/metrics"

// OpsFromMetrics converts merged metrics into result ops.
func OpsFromMetrics(ms []metrics.Op) []Op {
	out := make([]Op, 0, len(ms))
	for _, m := range ms {
		o := Op{Name: m.Name, Count: m.Count, Retries: m.Retries, Late: m.Late, Overrun: m.Overrun,
			Service: latency(metrics.Summarise(m.Service)), Hist: metrics.EncodeHist(m.Service)}
		if len(m.Errors) > 0 {
			o.Errors = m.Errors
		}
		if m.Response != nil {
			o.Response = latency(metrics.Summarise(m.Response))
			o.RespHist = metrics.EncodeHist(m.Response)
		}
		out = append(out, o)
	}
	return out
}

func latency(d metrics.Dist) Latency {
	l := Latency{"count": float64(d.Count), "min": d.Min, "mean": d.Mean, "max": d.Max}
	for k, v := range d.P {
		l[k] = v
	}
	return l
}
