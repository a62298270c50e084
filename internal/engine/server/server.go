// Package server starts and stops the database servers litebench manages
// for a sweep (PostgreSQL, MariaDB): each in a marked directory of its own
// under the temp dir, listening on a free loopback port, run by an
// unprivileged user when litebench runs as root, killed with litebench if
// litebench dies, and removed when it stops.
package server

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/litebench/litebench/internal/own"
	"github.com/litebench/litebench/internal/proc"
)

// Missing is the error of a server program that is not installed: it
// names the Debian package that installs it.
type Missing struct {
	Program, Package string
}

func (m *Missing) Error() string {
	return fmt.Sprintf("%s is not installed; install Debian's %s package (apt-get install %s) or point --dsn at a server", m.Program, m.Package, m.Package)
}

// Find returns the first of names found on PATH or in dirs.
func Find(names []string, dirs ...string) (string, bool) {
	for _, n := range names {
		for _, d := range dirs {
			p := filepath.Join(d, n)
			if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
				return p, true
			}
		}
		if p, err := exec.LookPath(n); err == nil {
			return p, true
		}
	}
	return "", false
}

// User is who runs a server: this process's user, or an unprivileged one
// when this process runs as root (servers refuse root).
type User struct {
	Uid, Gid int
	Name     string
	cred     *syscall.Credential
}

// RunAs returns the user servers run as: the current one, or nobody when
// the current one is root.
func RunAs() (User, error) {
	if os.Geteuid() != 0 {
		u := User{Uid: os.Geteuid(), Gid: os.Getegid()}
		if cu, err := user.Current(); err == nil {
			u.Name = cu.Username
		}
		return u, nil
	}
	nu, err := user.Lookup("nobody")
	if err != nil {
		return User{}, fmt.Errorf("running as root, a server must run as an unprivileged user, and there is no user nobody: %v", err)
	}
	uid, _ := strconv.Atoi(nu.Uid)
	gid, _ := strconv.Atoi(nu.Gid)
	return User{Uid: uid, Gid: gid, Name: nu.Username, cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}}, nil
}

// Dir is a managed server's directory: a marked litebench directory that
// the server's user may enter, with Data (the server's, owned by that
// user), Run, Tmp (the server's temp dir, so that the temp files of a
// server killed with litebench go with the directory) and Log inside.
type Dir struct {
	*own.Dir
	Data, Run, Tmp, Log string
}

// NewDir makes a server's directory for u.
func NewDir(u User) (*Dir, error) {
	d, err := own.NewDir()
	if err != nil {
		return nil, err
	}
	sd := &Dir{Dir: d, Data: filepath.Join(d.Path, "data"), Run: filepath.Join(d.Path, "run"), Tmp: filepath.Join(d.Path, "tmp"), Log: filepath.Join(d.Path, "server.log")}
	err = os.Chmod(d.Path, 0o711)
	for _, p := range []string{sd.Data, sd.Run, sd.Tmp} {
		if err == nil {
			err = os.Mkdir(p, 0o700)
		}
		if err == nil && u.cred != nil {
			err = os.Chown(p, u.Uid, u.Gid)
		}
	}
	if err == nil {
		var f *os.File
		if f, err = os.OpenFile(sd.Log, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o644); err == nil {
			f.Close()
			if u.cred != nil {
				err = os.Chown(sd.Log, u.Uid, u.Gid)
			}
		}
	}
	if err != nil {
		d.Close(false)
		return nil, fmt.Errorf("server directory: %w", err)
	}
	return sd, nil
}

// FreePort returns a TCP port on 127.0.0.1 that nothing listens on now.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Command is a program run as u, with d's Tmp as its temp dir and its
// output appended to log; it is started by package proc, in a process
// group of its own.
func Command(u User, d *Dir, log string, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANG=C", "TMPDIR="+d.Tmp)
	if u.cred != nil {
		cmd.Env = append(cmd.Env, "HOME=/", "USER="+u.Name)
	}
	if log != "" {
		if f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0); err == nil {
			cmd.Stdout, cmd.Stderr = f, f
		}
	}
	return cmd
}

// Run runs a set-up program (initdb, mariadb-install-db) to its end; its
// output goes into the error when it fails.
func Run(ctx context.Context, u User, d *Dir, name string, args ...string) error {
	cmd := Command(u, d, "", name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := proc.Run(ctx, cmd)
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("%s: %v: %s", filepath.Base(name), err, tail(out.String()))
	}
	return err
}

// Proc is a running server.
type Proc struct {
	c   *proc.Child
	log string
}

// Start starts a server program as u, its output in d's log.
func Start(u User, d *Dir, name string, args ...string) (*Proc, error) {
	c, err := proc.StartChild(Command(u, d, d.Log, name, args...))
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", filepath.Base(name), err)
	}
	return &Proc{c: c, log: d.Log}, nil
}

// Pid is the server's process id.
func (p *Proc) Pid() int { return p.c.Pid() }

// Exited is closed once the server has exited.
func (p *Proc) Exited() <-chan struct{} { return p.c.Done() }

// WaitReady calls ping until it succeeds, the server exits, ctx ends or
// limit passes.
func (p *Proc) WaitReady(ctx context.Context, limit time.Duration, ping func(context.Context) error) error {
	deadline := time.Now().Add(limit)
	var last error
	for {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		last = ping(pctx)
		cancel()
		if last == nil {
			return nil
		}
		select {
		case <-p.c.Done():
			return fmt.Errorf("%s exited while starting (%v): %s", filepath.Base(p.c.Cmd.Path), p.c.Err(), p.Tail())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not answer within %s (%v): %s", filepath.Base(p.c.Cmd.Path), limit, last, p.Tail())
		}
	}
}

// Stop sends sig to the server and waits for it to exit, killing it (and
// its process group) after grace. Children of the server (PostgreSQL's
// backends) go with it: its whole group is killed once it has exited.
func (p *Proc) Stop(sig syscall.Signal, grace time.Duration) error {
	select {
	case <-p.c.Done():
		return nil
	default:
	}
	p.c.Signal(sig)
	select {
	case <-p.c.Done():
	case <-time.After(grace):
		p.c.Kill()
		<-p.c.Done()
	}
	return nil
}

// Tail is the end of the server's log.
func (p *Proc) Tail() string {
	b, _ := os.ReadFile(p.log)
	return tail(string(b))
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	lines := strings.Split(s, "\n")
	if len(lines) > 6 {
		lines = lines[len(lines)-6:]
	}
	return strings.Join(lines, " | ")
}
