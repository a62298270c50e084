package plan

import (
	"strings"
	"testing"
)

// A plan of more than MaxRuns runs is refused before any cell is built,
// naming the limit and the largest --repeat that fits.
func TestCheckSize(t *testing.T) {
	for _, c := range []struct {
		repeat, targets, params, settings int
		want                              string
	}{
		{MaxRuns, 1, 1, 1, ""},
		{MaxRuns / 4, 2, 2, 1, ""},
		{100000000, 1, 1, 1, "--repeat 100000000: 1 cell(s) × 100000000 is more than the limit of 10000 runs per sweep; use --repeat 10000 or less"},
		{MaxRuns/4 + 1, 2, 1, 2, "use --repeat 2500 or less"},
		{1 << 62, 3, 1, 1, "use --repeat 3333 or less"},
		{1, 1000, 1000, 1000, "the sweep has 1000 targets × 1000 parameter values × 1000 settings, more than the limit of 10000 runs per sweep"},
	} {
		err := checkSize(c.repeat, c.targets, c.params, c.settings)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: error %v, want %q", c, err, c.want)
		}
	}
}
