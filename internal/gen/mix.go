// Package gen is litebench's deterministic data: every value a run
// generates (row columns, the keys reads and updates pick, the choice
// between a read and a write, open-loop arrival times) is a pure function of
// a 64-bit seed and an index, built on one mixer, splitmix64's. The same
// seed gives the same values whatever the worker count, order or batch size,
// on any machine and in any language: docs/data-generation.md specifies
// every generator bit for bit, and testdata/vectors.json holds the first
// values of each for two seeds (`go test ./internal/gen -update` rewrites
// it from this package, which is the reference).
//
// All integer arithmetic here is on uint64 or int64 and wraps modulo 2^64.
// Floating point is IEEE-754 binary64 with round-to-nearest-even, with no
// fused multiply-add: a product that is added to something is rounded first
// (the explicit float64 conversions below forbid the compiler to fuse).
package gen

// splitmix64's constants.
const (
	// Gamma is the golden-ratio increment of splitmix64's state.
	Gamma uint64 = 0x9E3779B97F4A7C15
	mul1  uint64 = 0xBF58476D1CE4E5B9
	mul2  uint64 = 0x94D049BB133111EB
)

// Streams: constants XORed into a seed so that generators that draw for the
// same index do not draw the same numbers.
const (
	StreamUUIDLow = 0xA5A5A5A5 // the second half of a UUID
	StreamWords   = 0x5bd1e995 // the words of Text
	StreamKeys    = 0x6b6579   // "key": the key generator of a worker
	StreamOps     = 0x726174   // "rat": the op chooser
	StreamScatter = 0x7a697066 // "zipf": where hot zipfian ranks land, with seed 0
)

// Mix is splitmix64's finaliser: it maps a 64-bit value to a well-mixed
// 64-bit value (a bijection).
func Mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * mul1
	z = (z ^ (z >> 27)) * mul2
	return z ^ (z >> 31)
}

// SplitMix64 is the first output of splitmix64 started in state x.
func SplitMix64(x uint64) uint64 { return Mix(x + Gamma) }

// SplitMix is splitmix64 as a sequence: each Next adds Gamma to the state
// and returns its mix.
type SplitMix struct{ State uint64 }

// Next returns the sequence's next value.
func (s *SplitMix) Next() uint64 {
	s.State += Gamma
	return Mix(s.State)
}

// Draw is value index of stream stream under seed: the random number every
// per-row generator starts from. It depends on nothing else, so any row can
// be generated alone, in any order.
func Draw(seed, stream, index uint64) uint64 {
	return Mix((seed^stream)*Gamma + index*mul1 + mul2)
}

// Unit maps a 64-bit value to a float64 in [0, 1): its top 53 bits over
// 2^53 (exact).
func Unit(x uint64) float64 { return float64(x>>11) / (1 << 53) }
