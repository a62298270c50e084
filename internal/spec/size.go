package spec

import "math"

// LoadBytes is a lower bound of the bytes the workload's tables take once
// their rows are loaded (gen.Table.MinRowBytes per row), math.MaxInt64
// when it does not fit.
func (w *Workload) LoadBytes() int64 {
	var sum int64
	for _, t := range w.tables {
		per := t.schema.Gen.MinRowBytes()
		if t.rows > 0 && t.rows > (math.MaxInt64-sum)/per {
			return math.MaxInt64
		}
		sum += t.rows * per
	}
	return sum
}
