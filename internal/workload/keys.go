package workload

import (
	"fmt"

	"github.com/litebench/litebench/internal/gen"
)

// Key distributions of --keys (internal/gen draws them).
const (
	KeysUniform = gen.KeysUniform
	KeysZipfian = gen.KeysZipfian
	KeysLatest  = gen.KeysLatest
)

// CheckKeys validates a --keys value and its theta.
func CheckKeys(kind string, theta float64) error {
	switch kind {
	case KeysUniform, KeysZipfian, KeysLatest:
	default:
		return fmt.Errorf("--keys %q: want uniform, zipfian or latest", kind)
	}
	if !(theta > 0 && theta < 1) {
		return fmt.Errorf("--zipf-theta %v: want a number between 0 and 1 (exclusive; YCSB uses 0.99)", theta)
	}
	return nil
}
