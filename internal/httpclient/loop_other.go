//go:build !linux

package httpclient

import (
	"context"
	"errors"
)

// Loop is the event-loop client; it needs Linux's epoll. Elsewhere
// NewLoop fails and the load generator keeps a goroutine per connection.
type Loop struct {
	// Dials counts connections opened.
	Dials int
}

// Result is the end of one request of a loop.
type Result struct {
	Conn   int
	Status int
	N      int64
	Err    error
}

// HasLoop says whether this system has the event-loop client.
const HasLoop = false

// ErrNoLoop is NewLoop's error where there is no event loop.
var ErrNoLoop = errors.New("the event-loop client needs Linux")

// NewLoop fails: there is no event loop on this system.
func NewLoop(context.Context, Target, int) (*Loop, error) { return nil, ErrNoLoop }

// Start fails: there is no event loop on this system.
func (l *Loop) Start(int) error { return ErrNoLoop }

// Wait fails: there is no event loop on this system.
func (l *Loop) Wait(func(Result)) error { return ErrNoLoop }

// Close does nothing.
func (l *Loop) Close() {}
