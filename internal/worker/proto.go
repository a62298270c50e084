package worker

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// maxLine bounds one protocol message (a final event with many op kinds
// and full histograms is well under this).
const maxLine = 64 << 20

// helloMax bounds what a worker may write before its hello: the hello
// itself, a line of a few hundred bytes.
const helloMax = 64 << 10

// Encoder writes events as JSON lines. It is safe for concurrent use.
type Encoder struct {
	mu sync.Mutex
	w  *bufio.Writer
}

// NewEncoder returns an encoder writing to w.
func NewEncoder(w io.Writer) *Encoder { return &Encoder{w: bufio.NewWriter(w)} }

// Send writes one event and flushes it.
func (e *Encoder) Send(ev Event) error {
	b, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.w.Write(b)
	e.w.WriteByte('\n')
	return e.w.Flush()
}

// Decoder reads events from JSON lines.
type Decoder struct {
	r    *bufio.Reader
	line []byte
	// limited says that left bounds the bytes still to be read (blank
	// lines included) until Lift: a worker's output before its hello.
	limited bool
	left    int
}

// NewDecoder returns a decoder reading r.
func NewDecoder(r io.Reader) *Decoder { return &Decoder{r: bufio.NewReaderSize(r, 64<<10)} }

// Limit bounds what may be read, in all, until Lift.
func (d *Decoder) Limit(n int) { d.limited, d.left = true, n }

// Lift removes the bound of Limit.
func (d *Decoder) Lift() { d.limited = false }

// ErrFlood is the error of output past a bound.
var ErrFlood = errors.New("worker protocol: output past its bound")

// next reads one line (without its newline), at most maxLine bytes and
// within the budget.
func (d *Decoder) next() ([]byte, error) {
	d.line = d.line[:0]
	for {
		frag, err := d.r.ReadSlice('\n')
		d.line = append(d.line, frag...)
		if d.limited && len(d.line) > d.left {
			return nil, fmt.Errorf("%w: more than %d KiB before its hello (a worker writes nothing but protocol JSON lines on its standard output)", ErrFlood, helloMax>>10)
		}
		if len(d.line) > maxLine {
			return nil, fmt.Errorf("%w: a line longer than %d MiB", ErrFlood, maxLine>>20)
		}
		switch {
		case err == nil:
			if d.limited {
				d.left -= len(d.line)
			}
			return d.line[:len(d.line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(d.line) > 0:
			return d.line, nil
		default:
			return nil, err
		}
	}
}

// Next reads the next event; io.EOF at the end of the stream.
func (d *Decoder) Next() (Event, error) {
	for {
		line, err := d.next()
		if err != nil {
			return Event{}, err
		}
		if len(line) == 0 {
			continue
		}
		var ev Event
		if err := json.Unmarshal(line, &ev); err != nil {
			return Event{}, fmt.Errorf("worker protocol: bad message %.80q: %v", line, err)
		}
		if ev.T == "" {
			return Event{}, fmt.Errorf("worker protocol: message without \"t\": %.80q", line)
		}
		return ev, nil
	}
}

// Serve is the worker's side of the protocol: it answers hello, sets up
// one job, runs it (emitting intervals and acks), sends the final event
// and ends at close or at the end of its input. A cancel message, or the
// end of input while running, interrupts the run (the final event then
// says interrupted). Errors go out as error events; Serve returns when the
// conversation is over.
func Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	enc := NewEncoder(out)
	dec := NewDecoder(in)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := NewLocal()
	defer w.Close()

	// Messages arrive on a goroutine, so that a cancel is seen while a
	// setup or run is in progress.
	msgs := make(chan Event)
	go func() {
		defer close(msgs)
		for {
			ev, err := dec.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					enc.Send(Event{T: TError, Error: err.Error()})
				}
				cancel() // input gone: the controller is gone
				return
			}
			if ev.T == TCancel {
				cancel()
				continue
			}
			select {
			case msgs <- ev:
			case <-ctx.Done():
				if ev.T == TClose {
					return
				}
			}
		}
	}()
	fail := func(err error) error {
		enc.Send(Event{T: TError, Error: err.Error()})
		return err
	}
	for {
		var ev Event
		var ok bool
		select {
		case ev, ok = <-msgs:
		case <-ctx.Done():
			return nil
		}
		if !ok {
			return nil
		}
		switch ev.T {
		case THello:
			if ev.Protocol != Protocol {
				return fail(fmt.Errorf("worker protocol %d asked, this worker speaks %d", ev.Protocol, Protocol))
			}
			h, _ := w.Hello(ctx)
			if err := enc.Send(h); err != nil {
				return err
			}
		case TSetup:
			if ev.Job == nil {
				return fail(errors.New("setup without a job"))
			}
			done, err := w.Setup(ctx, ev.Job)
			if err != nil {
				return fail(err)
			}
			if err := enc.Send(done); err != nil {
				return err
			}
		case TRun:
			fin, err := w.Run(ctx, func(e Event) { enc.Send(e) })
			if err != nil {
				return fail(err)
			}
			if err := enc.Send(fin); err != nil {
				return err
			}
		case TClose:
			return nil
		default:
			return fail(fmt.Errorf("unexpected message %q", ev.T))
		}
	}
}
