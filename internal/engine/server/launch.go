package server

import (
	"context"
	"fmt"
	"syscall"
	"time"
)

// Launch is how a managed server is set up and started.
type Launch struct {
	// What names the server in messages ("PostgreSQL").
	What string
	// Init and Daemon are the set-up program and the server.
	Init, Daemon string
	// InitArgs and Args are their command lines in dir, as user u, the
	// server listening on port.
	InitArgs func(d *Dir, u User) []string
	Args     func(d *Dir, u User, port int) []string
	// URL reaches the server on port as its superuser.
	URL func(port int) string
	// Ping connects to url once.
	Ping func(ctx context.Context, url string) error
	// Stop is the signal of a clean shutdown, Grace how long it may take
	// before the server is killed.
	Stop  syscall.Signal
	Grace time.Duration
	// Ready is how long the server may take to answer.
	Ready time.Duration
}

// Running is a managed server litebench started.
type Running struct {
	Dir  *Dir
	proc *Proc
	url  string
	keep bool
	l    Launch
}

// URL reaches the server as its superuser.
func (r *Running) URL() string { return r.url }

// Close stops the server cleanly (killing it after the grace period) and
// removes its directory, or leaves it to the user with keep.
func (r *Running) Close() error {
	if r.proc != nil {
		r.proc.Stop(r.l.Stop, r.l.Grace)
	}
	r.Dir.Close(r.keep)
	return nil
}

// Start sets a server up in a directory of its own and starts it on a
// free loopback port, waiting until it answers.
func (l Launch) Start(ctx context.Context, keep bool) (*Running, error) {
	u, err := RunAs()
	if err != nil {
		return nil, err
	}
	dir, err := NewDir(u)
	if err != nil {
		return nil, err
	}
	r := &Running{Dir: dir, keep: keep, l: l}
	fail := func(err error) (*Running, error) {
		r.Close()
		return nil, fmt.Errorf("managed %s server: %w", l.What, err)
	}
	if err := Run(ctx, u, dir, l.Init, l.InitArgs(dir, u)...); err != nil {
		return fail(err)
	}
	port, err := FreePort()
	if err != nil {
		return fail(err)
	}
	if r.proc, err = Start(u, dir, l.Daemon, l.Args(dir, u, port)...); err != nil {
		return fail(err)
	}
	r.url = l.URL(port)
	if err := r.proc.WaitReady(ctx, l.Ready, func(ctx context.Context) error { return l.Ping(ctx, r.url) }); err != nil {
		return fail(err)
	}
	return r, nil
}
