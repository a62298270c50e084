package all_test

import (
	"slices"
	"testing"

	"github.com/litebench/litebench/internal/settings"
	_ "github.com/litebench/litebench/internal/target/all"
)

// Help pages and a result's label order list the settings in the order
// the engines registered them: with every target linked, the engines'
// blocks come in this order, then the application side's.
func TestSettingsOrderOfEngines(t *testing.T) {
	var engines []string
	for _, sp := range settings.Specs {
		if e := sp.Engine; e != "" && (len(engines) == 0 || engines[len(engines)-1] != e) {
			engines = append(engines, e)
		}
	}
	if want := []string{"mariadb", "postgres", "sqlite", "dqlite"}; !slices.Equal(engines, want) {
		t.Errorf("engines' settings in the order %v, want %v", engines, want)
	}
}
