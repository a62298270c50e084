package limits

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// The environment of a confined child: the parent's state directory (where
// the child leaves notes), the cgroup and its limit.
const (
	envDir   = "LITEBENCH_CONFINED_DIR"
	envGroup = "LITEBENCH_CONFINED_CGROUP"
	envBytes = "LITEBENCH_CONFINED_BYTES"
)

// syncFD is the child's end of the pipe on which the parent says that the
// child is in its cgroup.
const syncFD = 3

var groupSeq atomic.Int64

// Child reports whether this process was started by RunConfined.
func Child() bool { return os.Getenv(envDir) != "" }

// StateDir is the directory where a confined child leaves notes for its
// parent; "" outside a confined child.
func StateDir() string { return os.Getenv(envDir) }

// AcceptChild is called by a confined child before it does any work: it
// waits until the parent has moved it into the cgroup, and records the
// limit for the environment fingerprint. The Go heap is held below the
// limit (GOMEMLIMIT, unless set) so that garbage does not count as need.
func AcceptChild() error {
	f := os.NewFile(syncFD, "confine-sync")
	var b [1]byte
	_, err := io.ReadFull(f, b[:])
	f.Close()
	if err != nil || b[0] != 'g' {
		return fmt.Errorf("--memory: this process was not moved into its cgroup (%v)", err)
	}
	n, _ := strconv.ParseInt(os.Getenv(envBytes), 10, 64)
	current.MemoryBytes, current.Cgroup = n, os.Getenv(envGroup)
	if os.Getenv("GOMEMLIMIT") == "" && n > 0 {
		debug.SetMemoryLimit(n / 10 * 9)
	}
	return nil
}

// ChildSpec describes a confined child.
type ChildSpec struct {
	// Bytes is the memory limit.
	Bytes int64
	// Args are the arguments of this program for the child.
	Args []string
	// Stdout and Stderr receive the child's output.
	Stdout, Stderr io.Writer
	// KeepTemp leaves the child's temporary files where it puts them;
	// otherwise they go into Outcome.Dir (TMPDIR), which the caller
	// removes whatever happens to the child.
	KeepTemp bool
	// Grace is how long the child may take to stop after an interrupt
	// before it is killed (default 10s).
	Grace time.Duration
}

// Outcome says how a confined child ended.
type Outcome struct {
	// Code is the child's exit status when it exited.
	Code int
	// Signal is the signal that killed it (0 if it exited).
	Signal syscall.Signal
	// OOM is set when the kernel's out-of-memory killer ended it at the
	// cgroup's limit.
	OOM bool
	// Peak is the most memory the cgroup held (0 if unknown).
	Peak int64
	// Killed is set when the child did not stop within Grace of an
	// interrupt and was killed.
	Killed bool
	// Dir is the state directory: the child's notes, and its temporary
	// files unless KeepTemp. The caller removes it.
	Dir string
}

// CanConfine reports whether RunConfined can work here: nil in a confined
// child, else whether a memory cgroup can be created.
func CanConfine() error {
	if Child() {
		return nil
	}
	dir, _, err := newGroup()
	if err != nil {
		return err
	}
	return os.Remove(dir)
}

// RunConfined runs this program again with cs.Args as a child process in a
// new memory cgroup limited to cs.Bytes, and waits for it. This process
// stays outside the cgroup: when the child runs out of memory the kernel
// kills the child, and this process can say so and clean up. Cancelling
// ctx interrupts the child (SIGINT); one that has not ended Grace later is
// killed. The cgroup is removed before RunConfined returns.
func RunConfined(ctx context.Context, cs ChildSpec) (o Outcome, err error) {
	if cs.Bytes < 16<<20 {
		return o, fmt.Errorf("--memory %d: want at least 16MB", cs.Bytes)
	}
	exe, err := os.Executable()
	if err != nil {
		return o, fmt.Errorf("--memory: cannot find litebench's own executable to run it confined: %v", err)
	}
	group, limitFile, err := newGroup()
	if err != nil {
		return o, fmt.Errorf("--memory: cannot apply a memory limit on this machine (%v); run without --memory, or as a user who may create cgroups", err)
	}
	defer removeGroup(group)
	if err := os.WriteFile(filepath.Join(group, limitFile), []byte(strconv.FormatInt(cs.Bytes, 10)), 0o644); err != nil {
		return o, fmt.Errorf("--memory: setting %s: %v", limitFile, err)
	}
	if o.Dir, err = os.MkdirTemp("", ".litebench-confined-"); err != nil {
		return o, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(o.Dir)
			o.Dir = ""
		}
	}()
	env := append(os.Environ(), envDir+"="+o.Dir, envGroup+"="+group, envBytes+"="+strconv.FormatInt(cs.Bytes, 10))
	if !cs.KeepTemp {
		tmp := filepath.Join(o.Dir, "tmp")
		if err := os.Mkdir(tmp, 0o700); err != nil {
			return o, err
		}
		env = append(env, "TMPDIR="+tmp)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return o, err
	}
	defer pw.Close()
	cmd := exec.Command(exe, cs.Args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, cs.Stdout, cs.Stderr
	cmd.ExtraFiles = []*os.File{pr} // fd 3: syncFD
	err = cmd.Start()
	pr.Close()
	if err != nil {
		return o, fmt.Errorf("--memory: starting the confined process: %v", err)
	}
	// The child waits on the pipe until it is in the cgroup, so that all it
	// allocates counts against the limit.
	if err := os.WriteFile(filepath.Join(group, "cgroup.procs"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return o, fmt.Errorf("--memory: moving the confined process into %s: %v", group, err)
	}
	pw.Write([]byte{'g'}) //nolint:errcheck // a child that has gone says so by its exit
	pw.Close()

	grace := cs.Grace
	if grace <= 0 {
		grace = 10 * time.Second
	}
	done := make(chan struct{})
	var killed atomic.Bool
	go func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		cmd.Process.Signal(os.Interrupt) //nolint:errcheck // it may have ended
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			killed.Store(true)
			cmd.Process.Kill() //nolint:errcheck
		}
	}()
	werr := cmd.Wait()
	close(done)
	o.Killed = killed.Load()
	if cmd.ProcessState == nil {
		return o, werr
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		o.Signal = ws.Signal()
	} else {
		o.Code = cmd.ProcessState.ExitCode()
	}
	o.OOM, o.Peak = oomKilled(group, limitFile)
	o.OOM = o.OOM && o.Signal == syscall.SIGKILL && !o.Killed
	return o, nil
}

// oomKilled reads the cgroup's out-of-memory kill count and peak use:
// cgroup v2's memory.events and memory.peak, or v1's memory.oom_control
// (memory.failcnt on kernels before 4.13) and memory.max_usage_in_bytes.
func oomKilled(group, limitFile string) (bool, int64) {
	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(group, name))
		return string(b)
	}
	field := func(text, key string) (int64, bool) {
		for _, line := range strings.Split(text, "\n") {
			if k, v, ok := strings.Cut(line, " "); ok && k == key {
				n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				return n, err == nil
			}
		}
		return 0, false
	}
	number := func(name string) int64 {
		n, _ := strconv.ParseInt(strings.TrimSpace(read(name)), 10, 64)
		return n
	}
	if limitFile == "memory.max" {
		n, _ := field(read("memory.events"), "oom_kill")
		return n > 0, number("memory.peak")
	}
	peak := number("memory.max_usage_in_bytes")
	if n, ok := field(read("memory.oom_control"), "oom_kill"); ok {
		return n > 0, peak
	}
	return number("memory.failcnt") > 0, peak
}

// removeGroup removes a cgroup whose processes have ended; the kernel may
// take a moment to let go of the last one.
func removeGroup(dir string) {
	for i := 0; i < 50; i++ {
		err := os.Remove(dir)
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
