package audit

import (
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/litebench/litebench/internal/crashfs"
	"github.com/litebench/litebench/internal/crashvfs"
	"github.com/litebench/litebench/internal/plan"
	"github.com/litebench/litebench/internal/target"
)

// How a power-loss trial records what reaches the disk.
const (
	// ViaFS runs the worker on a crash file system (any target).
	ViaFS = "fs"
	// ViaVFS opens the database through the crash VFS (Go VFS targets).
	ViaVFS = "vfs"
)

// PointLimit bounds a trial struck at a crash point (--fault-at
// sync:FILE:N): one the workload has not reached by then is struck at
// that moment.
const PointLimit = 5 * time.Second

// ParseModel checks a power model's name: the crash VFS's models, and
// reorder, which only the crash file system rebuilds.
func ParseModel(s string) (crashvfs.Model, error) {
	if m, err := crashfs.ParseModel(s); err == nil {
		return crashvfs.Model(m), nil
	}
	return "", fmt.Errorf("unknown power model %q (known: torn, lose-unsynced, reorder)", s)
}

// viaFS reports whether a power-loss trial of cell c runs on the crash
// file system: asked for, or the target cannot use the crash VFS.
func viaFS(cfg Config, c plan.Cell) bool {
	return cfg.PowerVia == ViaFS || (cfg.PowerVia == "" && !target.SupportsVFS(c.Target))
}

// checkPower refuses a power-loss audit of cell c that cannot run.
func checkPower(cfg Config, c plan.Cell) error {
	switch cfg.PowerVia {
	case "", ViaFS, ViaVFS:
	default:
		return fmt.Errorf("--power-via %q: want fs or vfs", cfg.PowerVia)
	}
	if !viaFS(cfg, c) {
		if !target.SupportsVFS(c.Target) {
			return fmt.Errorf("audit: --power-via vfs needs a target that opens the database through a Go VFS, which %s cannot; use --power-via fs", c.Target.Name())
		}
		if slices.Contains(cfg.Models, crashvfs.Model(crashfs.Reorder)) {
			return fmt.Errorf("audit: --power-model reorder needs the crash file system; use --power-via fs")
		}
		if cfg.Point != nil {
			return fmt.Errorf("audit: --fault-at %s needs the crash file system; use --power-via fs", cfg.Point)
		}
		return nil
	}
	if err := crashfs.Available(); err != nil {
		return fmt.Errorf("audit: --fault power-loss on %s: %v", c.Target.Name(), err)
	}
	if cfg.Point != nil && cfg.Point.N == 0 {
		return fmt.Errorf("audit: --fault-at %s: the audit strikes at a given count (sync:wal:17); '*' is for rebuilding a kept log", cfg.Point)
	}
	if s := cfg.Device.SectorSize; s != 0 && s != 512 && s != 4096 {
		return fmt.Errorf("audit: --disk sector=%d: want 512 or 4096", s)
	}
	return nil
}

// mountTrial mounts a crash file system for trial t: the backing
// directory t.dir/disk, mounted at t.dir/mnt, where the database lies.
func mountTrial(t *trial) (*crashfs.FS, error) {
	back, mnt := filepath.Join(t.dir, "disk"), filepath.Join(t.dir, "mnt")
	for _, d := range []string{back, mnt} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return nil, err
		}
	}
	fs, err := crashfs.Mount(back, mnt)
	if err != nil {
		return nil, err
	}
	t.db = filepath.Join(mnt, "bench.db")
	return fs, nil
}

// unmountTrial freezes the log (if the fault has not), keeps it in the
// trial and unmounts. With keep, the log is also written beside the
// trial's files.
func unmountTrial(fs *crashfs.FS, t *trial, keep bool) error {
	fs.Freeze()
	t.fsLog = fs.Log()
	err := fs.Unmount()
	if err == nil && fs.Overflowed() {
		err = fmt.Errorf("the log passed %d MiB of writes before the fault and stopped; strike earlier (--fault-at) or write less", crashfs.MaxLogBytes>>20)
	}
	if keep && err == nil {
		err = t.fsLog.SaveFile(filepath.Join(t.dir, "crashfs.log"))
	}
	return err
}

// powerCutFS writes what the disk holds after the power cut under model
// m, rebuilt from the crash file system's log, into a directory of its
// own, and returns the database there and a summary of what the model
// did.
func powerCutFS(t *trial, m crashvfs.Model) (string, string, error) {
	im, err := crashfs.Rebuild(t.fsLog, crashfs.Power{Model: crashfs.Model(m), Device: t.device, Seed: t.seed})
	if err != nil {
		return "", "", err
	}
	dir := filepath.Join(t.dir, string(m))
	if err := WriteImage(im, dir); err != nil {
		return "", "", err
	}
	st := im.Stats
	h := fnv.New32a()
	io.WriteString(h, im.Pattern)
	pat := fmt.Sprintf("crash file system, %s: writes %d: pieces kept %d, dropped %d, garbled %d; truncations %d/%d; directory changes %d/%d",
		t.device, st.Writes, st.Kept, st.Dropped, st.Garbled, st.TruncKept, st.Truncations, st.DirKept, st.DirChanges)
	if len(st.Resurrected) > 0 {
		pat += "; back: " + strings.Join(st.Resurrected, ",")
	}
	if len(st.Vanished) > 0 {
		pat += "; gone: " + strings.Join(st.Vanished, ",")
	}
	if st.Mismatches > 0 {
		pat += fmt.Sprintf("; %d records disagree with the log before them", st.Mismatches)
	}
	return filepath.Join(dir, filepath.Base(t.db)), fmt.Sprintf("%s; disk %s #%08x", pat, im.Digest(), h.Sum32()), nil
}

// WriteImage writes a rebuilt disk into dir, a new directory.
func WriteImage(im *crashfs.Image, dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(im.Files))
	for n := range im.Files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, im.Files[n], 0o644); err != nil {
			return err
		}
	}
	return nil
}
