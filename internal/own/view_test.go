package own

import (
	"os"
	"path/filepath"
	"testing"
)

// OpenView reads a database in place with immutable=1 only when nothing
// says WAL; otherwise it makes a private directory with the main file and
// its -wal (never its -shm), and Close removes it.
func TestOpenView(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	page := make([]byte, 512)
	copy(page, "SQLite format 3\x00")
	page[16], page[17] = 2, 0 // page size 512
	page[18], page[19] = 1, 1 // rollback journal
	if err := os.WriteFile(db, page, 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := OpenView(db, &Info{Database: &Database{}})
	if err != nil || v.Path != db || !v.Immutable || v.Close() != nil {
		t.Fatalf("rollback database: %+v %v; want it read in place, immutable", v, err)
	}
	for _, c := range []struct {
		name string
		wal  bool
		sufs []string
	}{
		{"header says WAL", true, nil},
		{"-wal and -shm", false, []string{"-wal", "-shm"}},
		{"-shm alone", false, []string{"-shm"}},
	} {
		for _, suf := range []string{"-wal", "-shm"} {
			os.Remove(db + suf)
		}
		for _, suf := range c.sufs {
			if err := os.WriteFile(db+suf, []byte("companion "+suf), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		v, err := OpenView(db, &Info{Database: &Database{WAL: c.wal}})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if v.Immutable || filepath.Dir(v.Path) == dir {
			t.Errorf("%s: %+v; want a private view", c.name, v)
		}
		if b, err := os.ReadFile(v.Path); err != nil || string(b) != string(page) {
			t.Errorf("%s: the view's main file differs: %v", c.name, err)
		}
		_, walErr := os.Stat(v.Path + "-wal")
		if hasWAL := len(c.sufs) == 2; hasWAL != (walErr == nil) {
			t.Errorf("%s: -wal in the view: %v, want %v", c.name, walErr == nil, hasWAL)
		}
		if _, err := os.Stat(v.Path + "-shm"); err == nil {
			t.Errorf("%s: the view has a -shm copied", c.name)
		}
		priv := filepath.Dir(v.Path)
		if err := v.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(priv); !os.IsNotExist(err) {
			t.Errorf("%s: Close left %s", c.name, priv)
		}
		if b, _ := os.ReadFile(db); string(b) != string(page) {
			t.Errorf("%s: the database changed", c.name)
		}
	}
}
