package own

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWritableDir: each reason a directory cannot take litebench's files
// is named, and the probe of a writable one leaves nothing behind.
func TestWritableDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, c := range []struct{ dir, want string }{
		{filepath.Join(dir, "missing"), "does not exist"},
		{file, "is not a directory"},
		{filepath.Join(file, "x"), "is not a directory"},
	} {
		if err := WritableDir(c.dir); err == nil || !strings.Contains(err.Error(), c.dir+" "+c.want) {
			t.Errorf("%s: %v, want %q", c.dir, err, c.want)
		}
	}
	if st, err := os.Stat("/sys"); err == nil && st.IsDir() {
		if err := WritableDir("/sys"); err == nil || !strings.Contains(err.Error(), "is not writable") {
			t.Errorf("/sys: %v, want not writable", err)
		}
	}
	if err := WritableDir(dir); err != nil {
		t.Fatal(err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("the probe left %v", es)
	}
}
