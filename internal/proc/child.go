package proc

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/litebench/litebench/internal/own"
)

// Every program litebench starts (workers, a server's set-up program such
// as initdb or mariadb-install-db, the servers themselves, dqlite nodes)
// starts here, as the leader of a process group of its own:
//
//   - the group is killed as a whole when its leader exits, when litebench
//     kills the child (failure, cancel, Ctrl-C) and when litebench exits
//     (KillAll);
//   - the leader dies with litebench (PR_SET_PDEATHSIG), and every process
//     of the group carries a token in its environment (EnvGroup) that a
//     record in litebench's state directory names: the next litebench to
//     start (Sweep) kills what a killed litebench left running, and only
//     processes that carry the token or are the recorded leader itself
//     (same pid and start time);
//   - waiting for a child is bounded: its output pipes are closed
//     WaitDelay after it exits, whoever else holds them.

// EnvGroup, in a child's environment, is the token of its process group.
const EnvGroup = "LITEBENCH_GROUP"

// WaitDelay is how long a child's output is read after it has exited.
const WaitDelay = 500 * time.Millisecond

// groupRecord prefixes the names of child groups' records.
const groupRecord = "group-"

// record is what the state directory keeps of a child group.
type record struct {
	Pid   int    `json:"pid"`
	Start uint64 `json:"start"` // clock ticks after boot (/proc/PID/stat)
	Exe   string `json:"exe"`
	Token string `json:"token"`
}

// Child is a running child process, the leader of its process group.
type Child struct {
	Cmd   *exec.Cmd
	token string
	rec   *own.Record
	done  chan struct{}
	err   error

	mu     sync.Mutex
	exited bool // the leader has exited (not yet reaped: its pid is still ours)
}

var (
	liveMu sync.Mutex
	live   = map[*Child]struct{}{}
)

// StartChild starts cmd as the leader of a new process group (keeping a
// Credential cmd.SysProcAttr names) and records the group.
func StartChild(cmd *exec.Cmd) (*Child, error) {
	attr := &syscall.SysProcAttr{}
	if cmd.SysProcAttr != nil {
		attr.Credential = cmd.SysProcAttr.Credential
	}
	attr.Setpgid, attr.Pdeathsig = true, syscall.SIGKILL
	cmd.SysProcAttr = attr
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = WaitDelay
	}
	var rnd [16]byte
	rand.Read(rnd[:]) //nolint:errcheck // never fails
	c := &Child{Cmd: cmd, token: hex.EncodeToString(rnd[:]), done: make(chan struct{})}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(env[:len(env):len(env)], EnvGroup+"="+c.token)

	// The child is started from an OS thread that stays locked until it
	// has exited: the parent-death signal fires when the thread that
	// started the child ends, not only when litebench does.
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			errc <- err
			return
		}
		pid := cmd.Process.Pid
		st, _ := startTime(pid)
		b, _ := json.Marshal(record{Pid: pid, Start: st, Exe: cmd.Path, Token: c.token})
		c.rec, _ = own.NewRecord(groupRecord, b)
		liveMu.Lock()
		live[c] = struct{}{}
		liveMu.Unlock()
		errc <- nil

		// Wait for the leader's exit without reaping it, so that its pid
		// (the group's id) cannot be reused while what is left of the
		// group is killed.
		var info unix.Siginfo
		for unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil) == unix.EINTR {
		}
		c.mu.Lock()
		syscall.Kill(-pid, syscall.SIGKILL)
		c.exited = true
		c.mu.Unlock()
		c.err = cmd.Wait()
		liveMu.Lock()
		delete(live, c)
		liveMu.Unlock()
		c.rec.Drop()
		close(c.done)
	}()
	if err := <-errc; err != nil {
		return nil, err
	}
	return c, nil
}

// Pid is the leader's process id (the group's id).
func (c *Child) Pid() int { return c.Cmd.Process.Pid }

// Done is closed once the leader has exited and been waited for.
func (c *Child) Done() <-chan struct{} { return c.done }

// Err is what Wait returned (once Done is closed).
func (c *Child) Err() error { return c.err }

// Kill kills the child's whole process group.
func (c *Child) Kill() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.exited {
		syscall.Kill(-c.Pid(), syscall.SIGKILL)
	}
}

// Signal sends sig to the leader alone.
func (c *Child) Signal(sig os.Signal) error { return c.Cmd.Process.Signal(sig) }

// Wait waits until the child has exited, killing its group when ctx ends
// first, and returns what Wait returned.
func (c *Child) Wait(ctx context.Context) error {
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		c.Kill()
		<-c.done
		return ctx.Err()
	}
}

// Run starts cmd as a child and waits for it (see Wait).
func Run(ctx context.Context, cmd *exec.Cmd) error {
	c, err := StartChild(cmd)
	if err != nil {
		return err
	}
	return c.Wait(ctx)
}

// KillAll kills the group of every child still running and waits (briefly)
// for them: litebench calls it before it exits.
func KillAll() {
	liveMu.Lock()
	cs := make([]*Child, 0, len(live))
	for c := range live {
		cs = append(cs, c)
	}
	liveMu.Unlock()
	for _, c := range cs {
		c.Kill()
	}
	deadline := time.After(2 * time.Second)
	for _, c := range cs {
		select {
		case <-c.done:
		case <-deadline:
			return
		}
	}
}

// Sweep undoes what litebench processes that were killed left behind:
// their child groups' processes are killed (those that are still what was
// recorded), then their temp directories removed (own.CleanStale). It
// returns how many processes it killed.
func Sweep() int {
	if os.Getenv(EnvGroup) != "" {
		return 0 // a child of a litebench that runs: its parent sweeps
	}
	n := 0
	own.Stale(groupRecord, func(data []byte) bool {
		var r record
		if json.Unmarshal(data, &r) != nil || r.Pid <= 0 {
			return true
		}
		n += killRecorded(r)
		return true
	})
	own.CleanStale()
	return n
}

// killRecorded kills the recorded leader if it still runs (same start
// time and program) with its group, and every process that carries the
// group's token, until none is left.
func killRecorded(r record) int {
	n := 0
	if st, ok := startTime(r.Pid); ok && st == r.Start && exeIs(r.Pid, r.Exe) {
		if syscall.Kill(-r.Pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	want := []byte(EnvGroup + "=" + r.Token)
	for range 5 {
		found := 0
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == os.Getpid() {
				continue
			}
			// The pidfd pins the process: what is checked is what is
			// killed, even if its pid is reused meanwhile.
			fd, err := unix.PidfdOpen(pid, 0)
			if err != nil {
				continue
			}
			if Running(pid) && carries(pid, want) && unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0) == nil {
				found++
			}
			unix.Close(fd)
		}
		if found == 0 {
			break
		}
		n += found
		time.Sleep(20 * time.Millisecond)
	}
	return n
}

// carries reports whether the process's environment holds kv.
func carries(pid int, kv []byte) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		return false
	}
	for _, v := range bytes.Split(b, []byte{0}) {
		if bytes.Equal(v, kv) {
			return true
		}
	}
	return false
}

// exeIs reports whether the process runs the program at path (by its
// command line's first word, as it was started).
func exeIs(pid int, path string) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return false
	}
	argv0, _, _ := bytes.Cut(b, []byte{0})
	return string(argv0) == path || filepath.Base(string(argv0)) == filepath.Base(path)
}

// stat returns the fields of /proc/PID/stat after the command name
// (field 3, the state, first).
func stat(pid int) ([]string, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, false
	}
	return strings.Fields(string(b[i+1:])), true
}

// startTime is the process's start time in clock ticks after boot.
func startTime(pid int) (uint64, bool) {
	f, ok := stat(pid)
	if !ok || len(f) < 20 {
		return 0, false
	}
	v, err := strconv.ParseUint(f[19], 10, 64)
	return v, err == nil
}

// Running reports whether the process exists and is not a zombie.
func Running(pid int) bool {
	f, ok := stat(pid)
	return ok && len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// Group lists the running (not zombie) processes of process group pgid.
func Group(pgid int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f, ok := stat(pid); ok && len(f) > 2 && f[0] != "Z" && f[0] != "X" && f[2] == strconv.Itoa(pgid) {
			out = append(out, pid)
		}
	}
	return out
}
