package crashfs

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// needFUSE skips a test on a machine that cannot mount a crash file
// system, unless LITEBENCH_REQUIRE_FUSE=1 (as in CI) makes that a
// failure.
func needFUSE(t *testing.T) {
	t.Helper()
	if err := Available(); err != nil {
		if os.Getenv("LITEBENCH_REQUIRE_FUSE") == "1" {
			t.Fatalf("%v (LITEBENCH_REQUIRE_FUSE=1)", err)
		}
		t.Skip(err)
	}
}

// mount mounts a crash file system in a test directory and unmounts it
// when the test ends, checking that no mount is left.
func mount(t *testing.T) *FS {
	t.Helper()
	needFUSE(t)
	dir := t.TempDir()
	back, mnt := filepath.Join(dir, "disk"), filepath.Join(dir, "mnt")
	for _, d := range []string{back, mnt} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Mount(back, mnt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Unmount(); err != nil {
			t.Error(err)
		}
		ms, _ := Mounted()
		if slices.Contains(ms, mnt) {
			t.Errorf("%s still mounted", mnt)
		}
	})
	return f
}

// TestMountLogs writes, truncates, syncs, renames and unlinks through the
// mount and checks the log it keeps, record by record, and that the
// rebuild of the whole log with everything synced gives the files as they
// are.
func TestMountLogs(t *testing.T) {
	f := mount(t)
	m := f.Mountpoint
	if err := os.WriteFile(filepath.Join(m, "old"), []byte("before"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.Barrier(); err != nil {
		t.Fatal(err)
	}
	a, err := os.OpenFile(filepath.Join(m, "a"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.WriteAt([]byte("hello world"), 0); err != nil {
		t.Fatal(err)
	}
	if err := a.Sync(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.WriteAt([]byte("HELLO"), 0); err != nil {
		t.Fatal(err)
	}
	if err := a.Truncate(8); err != nil {
		t.Fatal(err)
	}
	a.Close()
	d, err := os.Open(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if err := os.Rename(filepath.Join(m, "a"), filepath.Join(m, "b")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(m, "old")); err != nil {
		t.Fatal(err)
	}
	f.Freeze()
	// After the freeze nothing is recorded.
	if err := os.WriteFile(filepath.Join(m, "late"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := f.Log()
	var kinds []string
	for _, o := range l.Ops {
		kinds = append(kinds, o.Kind.String()+" "+o.Path+o.NewPath)
	}
	want := []string{"base old", "create a", "write ", "fsync ", "write ", "truncate ", "dirsync ", "rename ab", "unlink old"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("log:\n%q\nwant\n%q", kinds, want)
	}
	w := l.Ops[4]
	if string(w.Data) != "HELLO" || string(w.Before) != "hello" || w.Size != 11 {
		t.Errorf("second write recorded %q over %q (size %d), want HELLO over hello (11)", w.Data, w.Before, w.Size)
	}
	tr := l.Ops[5]
	if tr.NewSize != 8 || tr.Size != 11 || string(tr.Before) != "rld" {
		t.Errorf("truncate recorded %d from %d cutting %q, want 8 from 11 cutting rld", tr.NewSize, tr.Size, tr.Before)
	}
	// Everything synced: the rebuild is the files as they are.
	all := &Log{Ops: append(append([]Op(nil), l.Ops...), Op{Kind: Sync, File: l.Ops[1].File}, Op{Kind: DirSync})}
	im, err := Rebuild(all, Power{Model: Torn, Device: DefaultDevice, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if im.Stats.Mismatches != 0 {
		t.Errorf("%d mismatches", im.Stats.Mismatches)
	}
	got, _ := os.ReadFile(filepath.Join(m, "b"))
	if len(im.Files) != 1 || !bytes.Equal(im.Files["b"], got) || string(got) != "HELLO wo" {
		t.Errorf("rebuild %q, file b %q", im.Files, got)
	}
	// Under lose-unsynced: a's creation was covered by the directory
	// sync, so a is there with what its fsync covered; the rename and
	// the unlink came after it and are lost, so old is back.
	im, err = Rebuild(l, Power{Model: LoseUnsynced, Device: DefaultDevice, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if string(im.Files["a"]) != "hello world" || string(im.Files["old"]) != "before" || len(im.Files) != 2 {
		t.Errorf("lose-unsynced: %q, want a (hello world) and old back", im.Files)
	}
}

// TestLogBound: past MaxLogBytes the log stops and says so, rather than
// hold every byte written in memory.
func TestLogBound(t *testing.T) {
	f := mount(t)
	defer func(n int64) { MaxLogBytes = n }(MaxLogBytes)
	MaxLogBytes = 64 << 10
	if err := f.Barrier(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(f.Mountpoint, "big")
	if err := os.WriteFile(p, make([]byte, 32<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	if f.Overflowed() {
		t.Fatal("overflowed at 32 KiB of 64")
	}
	if err := os.WriteFile(p, make([]byte, 64<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	if !f.Overflowed() {
		t.Fatal("not overflowed past 64 KiB")
	}
	n := len(f.Log().Ops)
	os.WriteFile(p, []byte("more"), 0o644)
	if len(f.Log().Ops) != n {
		t.Error("the log grew after it stopped")
	}
}
