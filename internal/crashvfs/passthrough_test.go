package crashvfs_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/litebench/litebench/internal/crashvfs"
	_ "github.com/litebench/litebench/internal/target/all"
	"github.com/litebench/litebench/internal/worker"
)

// insert runs an insert job in this process, through the VFS called vfs
// ("" for none), and returns its final event.
func insert(t *testing.T, journal, sync, vfs string) (worker.Event, string) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "p.db")
	j := &worker.Job{RunID: "passthrough", Workload: "insert", Target: "ncruces-direct", Path: db, Digest: true, VFS: vfs,
		Params:   map[string]string{"rows": "20000", "seed": "3"},
		Settings: map[string]string{"journal": journal, "sync": sync, "batch": "200"}}
	w := worker.NewLocal()
	defer w.Close()
	setup, err := w.Setup(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	fin, err := w.Run(context.Background(), func(worker.Event) {})
	if err != nil || fin.Status != "ok" {
		t.Fatalf("%v %s %s", err, fin.Status, fin.Error)
	}
	if setup.Digest == "" || fin.Digest == "" {
		t.Fatal("no digest")
	}
	return fin, db
}

// TestPassThrough: through the crash VFS, SQLite does what it does
// without it: the same workload leaves the same rows (content digest),
// and the VFS did see the writes (its log holds them). Its overhead is
// reported as rows/s with and without it.
func TestPassThrough(t *testing.T) {
	for _, c := range []struct{ journal, sync string }{{"wal", "normal"}, {"delete", "full"}} {
		plain, pdb := insert(t, c.journal, c.sync, "")
		crash, cdb := insert(t, c.journal, c.sync, crashvfs.Name)
		if plain.Digest != crash.Digest {
			t.Errorf("%s/%s: digest %s without the VFS, %s through it", c.journal, c.sync, plain.Digest, crash.Digest)
		}
		if _, err := os.Stat(crashvfs.LogPath(pdb)); !os.IsNotExist(err) {
			t.Errorf("a crash log without the VFS: %v", err)
		}
		st, err := os.Stat(crashvfs.LogPath(cdb))
		if err != nil || st.Size() < 20000*20 {
			t.Fatalf("the VFS logged too little: %v %v", st, err)
		}
		rate := func(e worker.Event) float64 { return float64(e.Done) / e.ElapsedS }
		t.Logf("journal_mode=%s synchronous=%s: %.0f rows/s without the crash VFS, %.0f rows/s through it (%.0f%%), log %d KB",
			c.journal, c.sync, rate(plain), rate(crash), 100*rate(crash)/rate(plain), st.Size()>>10)
	}
}

// TestVFSRefused: a target that cannot use a Go VFS refuses the job.
func TestVFSRefused(t *testing.T) {
	j := &worker.Job{RunID: "refused", Workload: "insert", Target: "mattn", Path: filepath.Join(t.TempDir(), "r.db"), VFS: crashvfs.Name,
		Params: map[string]string{"rows": "10"}}
	w := worker.NewLocal()
	defer w.Close()
	if _, err := w.Setup(context.Background(), j); err == nil {
		t.Fatal("mattn opened a database through a Go VFS")
	}
}
