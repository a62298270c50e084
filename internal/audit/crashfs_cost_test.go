package audit

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/litebench/litebench/internal/cpuuse"
	"github.com/litebench/litebench/internal/crashfs"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/runner"
	"github.com/litebench/litebench/internal/worker"
)

func childCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestCrashFSCost runs a 10,000-row insert in 1,000-row transactions in a
// mattn worker process on the crash file system (logging) and on the
// plain disk, checks that both commit every row and that the mount
// logged the measured part, and prints the wall and CPU time of each
// (`go test -v -run CrashFSCost ./internal/audit`): the CPU time counts
// the worker and this process, which serves the file system.
func TestCrashFSCost(t *testing.T) {
	needFUSE(t)
	for _, journal := range []string{"delete", "wal"} {
		for _, onFS := range []bool{false, true} {
			c := cells(t, "mattn", map[string][]string{"rows": {"10000"}}, map[string]string{"journal": journal, "sync": "full", "batch": "1000"})[0]
			dir := t.TempDir()
			sp := c.Spec
			sp.Settings = c.Settings.Clone()
			sp.Settings.Set("placement", worker.ChildProc)
			sp.Dir, sp.Keep = dir, true
			sp.Progress, sp.Interval, sp.SeriesInterval, sp.WALWarn = nil, 0, 0, 0
			sp.DBPath = filepath.Join(dir, "bench.db")
			var fs *crashfs.FS
			if onFS {
				tr := &trial{dir: dir}
				var err error
				if fs, err = mountTrial(tr); err != nil {
					t.Fatal(err)
				}
				sp.DBPath = tr.db
				sp.Started = func(worker.Worker) {
					if err := fs.Barrier(); err != nil {
						t.Error(err)
					}
				}
			}
			cpu0, child0 := cpuuse.Process(), childCPU()
			r := runner.Run(context.Background(), sp)
			cpu, child := cpuuse.Process()-cpu0, childCPU()-child0
			writes := 0
			if fs != nil {
				fs.Freeze()
				for _, o := range fs.Log().Ops {
					if o.Kind == crashfs.Write {
						writes++
					}
				}
				if err := fs.Unmount(); err != nil {
					t.Fatal(err)
				}
				noMountLeft(t, dir)
			}
			if r.Status != results.StatusOK || r.Rows != 10000 {
				t.Fatalf("%s on fs %v: %s %s, %d rows", journal, onFS, r.Status, r.Error, r.Rows)
			}
			if onFS && writes == 0 {
				t.Errorf("%s: the mount logged no write", journal)
			}
			where := "plain disk"
			if onFS {
				where = fmt.Sprintf("crash file system (%d writes logged)", writes)
			}
			t.Logf("journal=%s sync=full, %s: measured part %.1f ms, CPU %v (worker) + %v (this process)", journal, where, r.Elapsed*1e3, child.Round(time.Millisecond), cpu.Round(time.Millisecond))
		}
	}
}
