package results

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Validate checks a run read from outside the store (an import): the
// fields every run has, a status from the known set, counts that are not
// negative and numbers that are finite.
func Validate(r *Result) error {
	switch {
	case strings.TrimSpace(r.RunID) == "":
		return errors.New("run_id is empty")
	case strings.TrimSpace(r.Workload) == "":
		return errors.New("workload is empty")
	case strings.TrimSpace(r.Target) == "":
		return errors.New("target is empty")
	case r.StartedAt.IsZero():
		return errors.New("started_at is missing")
	}
	switch r.Status {
	case StatusOK, StatusFailed, StatusInterrupted, StatusLost:
	case StatusRunning:
		return errors.New("status running: the run had not ended when it was exported; export it again once it has")
	default:
		return fmt.Errorf("status %q: want ok, failed, interrupted or lost", r.Status)
	}
	bad := func(name string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("%s is %v: want a finite number, not negative", name, v)
		}
		return nil
	}
	count := func(name string, n int64) error {
		if n < 0 {
			return fmt.Errorf("%s is %d: want 0 or more", name, n)
		}
		return nil
	}
	errs := []error{count("count", r.Rows), count("repeat", int64(r.Repeat)), bad("elapsed_seconds", r.Elapsed)}
	for _, m := range r.Metrics {
		if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
			errs = append(errs, fmt.Errorf("metric %s is %v: want a finite number", m.Name, m.Value))
		}
	}
	for _, o := range r.Ops {
		errs = append(errs, count("ops "+o.Name+" count", o.Count), count("ops "+o.Name+" retries", o.Retries),
			count("ops "+o.Name+" late", o.Late), count("ops "+o.Name+" overrun", o.Overrun))
		for k, n := range o.Errors {
			errs = append(errs, count("ops "+o.Name+" errors "+k, n))
		}
		for k, v := range o.Service {
			errs = append(errs, bad("ops "+o.Name+" service "+k, v))
		}
		for k, v := range o.Response {
			errs = append(errs, bad("ops "+o.Name+" response "+k, v))
		}
	}
	for i, p := range r.Series {
		errs = append(errs, count(fmt.Sprintf("series[%d] rows", i), p.Rows), bad(fmt.Sprintf("series[%d] t", i), p.T))
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
