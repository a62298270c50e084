package crashfs

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/litebench/litebench/internal/own"
)

// TestSweepStale: a crash file system left mounted in a marked directory
// whose process is gone is unmounted; one in a directory whose process
// runs (this one) and one outside marked directories are left.
func TestSweepStale(t *testing.T) {
	needFUSE(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	// A dead run's directory: its lock file is held by nobody.
	dead := filepath.Join(tmp, "litebench-dead")
	if err := os.Mkdir(dead, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dead, own.DirLockName), []byte("litebench pid 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	live, err := own.NewDir()
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close(false)
	plain := filepath.Join(tmp, "users")
	if err := os.Mkdir(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	mnt := func(dir string) (*FS, string) {
		back, m := filepath.Join(dir, "disk"), filepath.Join(dir, "mnt")
		os.Mkdir(back, 0o755)
		os.Mkdir(m, 0o755)
		f, err := Mount(back, m)
		if err != nil {
			t.Fatal(err)
		}
		return f, m
	}
	fd, mDead := mnt(dead)
	fl, mLive := mnt(live.Path)
	fp, mPlain := mnt(plain)
	defer fl.Unmount()
	defer fp.Unmount()
	got := SweepStale()
	if !slices.Equal(got, []string{mDead}) {
		t.Errorf("swept %v, want only %s", got, mDead)
	}
	ms, _ := Mounted()
	if slices.Contains(ms, mDead) || !slices.Contains(ms, mLive) || !slices.Contains(ms, mPlain) {
		t.Errorf("mounted after the sweep: %v", ms)
	}
	fd.server = nil // already gone
}
