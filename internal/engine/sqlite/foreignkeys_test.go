package sqlite

import (
	"reflect"
	"testing"

	"github.com/litebench/litebench/internal/settings"
)

// --foreign-keys takes default and on/off in the usual boolean
// spellings, sets the pragma only when asked (the default is the
// build's) and reaches a worker only when asked, so that workers that do
// not know it run the default.
func TestForeignKeysSetting(t *testing.T) {
	m := settings.NewMatrix()
	if err := m.SetList("foreign-keys", "default,off,ON,1,no"); err != nil {
		t.Fatal(err)
	}
	if got := m.Axes; len(got) != 1 || !reflect.DeepEqual(got[0].Values, []string{"default", "off", "on"}) {
		t.Fatalf("--foreign-keys default,off,ON,1,no sweeps %v, want [default off on]", got)
	}
	if err := settings.Default().Set("foreign-keys", "maybe"); err == nil || err.Error() != `--foreign-keys "maybe": want default, on or off` {
		t.Errorf("a bad value: %v", err)
	}
	for _, p := range m.Points() {
		fk := p.Get("foreign-keys")
		asked := fk != "default"
		var want []string
		if asked {
			want = []string{"PRAGMA foreign_keys = " + fk}
		}
		var got []string
		for _, q := range Pragmas(p, false) {
			if q != "PRAGMA busy_timeout = 5000" {
				got = append(got, q)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("foreign-keys %s: pragmas %q, want %q", p.Get("foreign-keys"), got, want)
		}
		if r := Pragmas(p, true); asked && r[len(r)-1] != "PRAGMA foreign_keys = "+fk {
			t.Errorf("readers' pragmas %q lack foreign_keys", r)
		}
		_, sent := p.WorkerMap(Name)["foreign-keys"]
		if sent != asked {
			t.Errorf("foreign-keys %s sent to a worker: %v", p.Get("foreign-keys"), sent)
		}
	}
	if settings.Applies("foreign-keys", "postgres") {
		t.Error("--foreign-keys applies to postgres")
	}
}
