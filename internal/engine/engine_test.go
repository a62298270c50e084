package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestClassify(t *testing.T) {
	busy := errors.New("database is locked")
	native := func(err error) ErrClass {
		if errors.Is(err, busy) {
			return Busy
		}
		return None
	}
	for _, c := range []struct {
		err  error
		want ErrClass
	}{
		{nil, None},
		{fmt.Errorf("step: %w", context.Canceled), Interrupted},
		{context.DeadlineExceeded, Interrupted},
		{fmt.Errorf("insert: %w", busy), Busy},
		{errors.New("disk I/O error"), Other},
	} {
		if got := Classify(c.err, native); got != c.want {
			t.Errorf("Classify(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

func TestClassesRetryAndFatal(t *testing.T) {
	for c := None; c <= Other; c++ {
		retry := c == Busy || c == Locked || c == Serialization || c == Deadlock
		if c.Retryable() != retry {
			t.Errorf("%v retryable %v", c, c.Retryable())
		}
		if c.Fatal() != (c == Conn || c == Other) {
			t.Errorf("%v fatal %v", c, c.Fatal())
		}
	}
	if Conn.String() != "connection" || Serialization.String() != "serialization" || ErrClass(200).String() != "other" {
		t.Errorf("names: %v %v %v", Conn, Serialization, ErrClass(200))
	}
}
