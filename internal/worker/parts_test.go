package worker

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/litebench/litebench/internal/workload"
)

// Each part of a transaction (its statements' own results) names its
// transaction in the final ops, also when an op listed before it saw
// nothing (a transaction of weight 0): parts are found by name, not by
// their place among the ops that were recorded.
func TestPartsNameTheirTransaction(t *testing.T) {
	b, err := os.ReadFile("../spec/testdata/program/weighted.toml")
	if err != nil {
		t.Fatal(err)
	}
	j := &Job{RunID: "parts", Workload: "x", Target: "mattn", Path: filepath.Join(t.TempDir(), "p.db"),
		Spec:     &workload.Definition{Kind: "file", Sources: []workload.DefSource{{Name: "weighted.toml", Text: string(b)}}},
		Params:   map[string]string{"count": "300"},
		Settings: map[string]string{"journal": "wal"}}
	ctx := context.Background()
	l := NewLocal()
	defer l.Close()
	if _, err := l.Setup(ctx, j); err != nil {
		t.Fatal(err)
	}
	fin, err := l.Run(ctx, func(Event) {})
	if err != nil || fin.Status != "ok" {
		t.Fatalf("%v %s %s", err, fin.Status, fin.Error)
	}
	parts := 0
	for _, o := range fin.FinalOps {
		txn, _, ok := strings.Cut(o.Name, ":")
		if !ok {
			if o.Of != "" {
				t.Errorf("%s is a transaction, yet of %q", o.Name, o.Of)
			}
			continue
		}
		parts++
		if o.Of != txn {
			t.Errorf("part %s: of %q, want %q", o.Name, o.Of, txn)
		}
	}
	if parts == 0 {
		t.Fatalf("no parts among %d final ops", len(fin.FinalOps))
	}
}
