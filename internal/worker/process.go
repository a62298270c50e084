package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/litebench/litebench/internal/cpuuse"
	"github.com/litebench/litebench/internal/proc"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/units"
)

// EnvWorker, set to 1 in a child's environment, makes a litebench binary
// (or a test binary's TestMain) serve the worker protocol on stdin/stdout
// whatever its arguments.
const EnvWorker = "LITEBENCH_WORKER"

// Executable is the program started for the child-process placement:
// this binary, unless set otherwise (tests, other builds).
var Executable = func() (string, error) { return os.Executable() }

// Process runs jobs in a child process speaking the worker protocol.
type Process struct {
	child  *proc.Child
	stdin  io.WriteCloser
	enc    *Encoder
	dec    *Decoder
	stderr *proc.Tail
	once   sync.Once
	// OwnCPU says whether the last final event carried the worker's own
	// process_cpu, not one Run measured from outside.
	OwnCPU bool
}

// killGrace is how long a child has to end its run after a cancel before
// it is killed.
const killGrace = 5 * time.Second

// StartProcess starts 'litebench worker' as a child process. The child
// leads a process group of its own that dies with litebench (package
// proc), and stops its run when its input closes.
func StartProcess() (*Process, error) {
	exe, err := Executable()
	if err != nil {
		return nil, fmt.Errorf("worker process: %v", err)
	}
	return StartCommand(exe, "worker")
}

// StartCommand starts a worker from any program speaking the protocol.
// Until its hello the worker may write at most helloMax bytes; a worker
// that breaks the protocol (garbage, a flood, an unexpected message) has
// its process group killed at once.
func StartCommand(name string, args ...string) (*Process, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), EnvWorker+"=1")
	p := &Process{stderr: proc.NewTail(8 << 10)}
	cmd.Stderr = p.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if p.child, err = proc.StartChild(cmd); err != nil {
		return nil, fmt.Errorf("worker process %s: %v", name, err)
	}
	p.stdin, p.enc, p.dec = in, NewEncoder(in), NewDecoder(out)
	p.dec.Limit(helloMax)
	return p, nil
}

// Pid is the child's process id.
func (p *Process) Pid() int { return p.child.Pid() }

// Kill kills the child and its process group (the durability audit's
// process crash).
func (p *Process) Kill() error {
	p.child.Kill()
	return nil
}

// Hello exchanges protocol versions and returns the worker's description.
func (p *Process) Hello(ctx context.Context) (Event, error) {
	if err := p.enc.Send(Event{T: THello, Protocol: Protocol}); err != nil {
		return Event{}, p.gone(err)
	}
	ev, err := p.await(ctx, nil, THello)
	if err != nil {
		return Event{}, err
	}
	if ev.Protocol != Protocol {
		p.Kill()
		return Event{}, fmt.Errorf("worker speaks protocol %d, litebench %d", ev.Protocol, Protocol)
	}
	p.dec.Lift()
	return ev, nil
}

// Setup sends the job and waits until the worker has set it up.
func (p *Process) Setup(ctx context.Context, j *Job) (Event, error) {
	if err := p.enc.Send(Event{T: TSetup, Job: j}); err != nil {
		return Event{}, p.gone(err)
	}
	return p.await(ctx, nil, TSetupDone)
}

// Run starts the measured part and relays intervals and acks to emit
// until the final event.
//
// A worker that does not report its own process_cpu (every worker of the
// project does, over its measured part) gets one measured from outside:
// the child's CPU from the run message to the final event, over that wall
// time (the warm-up included), in cores.
func (p *Process) Run(ctx context.Context, emit func(Event)) (Event, error) {
	cpu0, ok0 := cpuuse.Of(p.Pid())
	t0 := time.Now()
	if err := p.enc.Send(Event{T: TRun}); err != nil {
		return Event{}, p.gone(err)
	}
	fin, err := p.await(ctx, emit, TFinal)
	p.OwnCPU = slices.ContainsFunc(fin.Metrics, func(m results.Metric) bool { return m.Name == results.ProcessCPU })
	if err != nil || !ok0 || p.OwnCPU {
		return fin, err
	}
	if cpu, ok := cpuuse.Of(p.Pid()); ok {
		if wall := time.Since(t0); wall > 0 {
			fin.Metrics = append(fin.Metrics, results.Metric{Name: results.ProcessCPU, Unit: units.Cores, Value: float64(cpu-cpu0) / float64(wall)})
		}
	}
	return fin, nil
}

// await reads events until one of type want; others go to emit. A
// cancelled ctx sends cancel to the worker, and kills it if it has not
// answered within killGrace.
func (p *Process) await(ctx context.Context, emit func(Event), want string) (Event, error) {
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-stop:
			return
		case <-ctx.Done():
		}
		p.enc.Send(Event{T: TCancel})
		select {
		case <-stop:
		case <-time.After(killGrace):
			p.Kill()
		}
	}()
	for {
		ev, err := p.dec.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				// Garbage or a flood: the worker is not to be trusted
				// with another byte.
				p.Kill()
				return Event{}, err
			}
			if ctx.Err() != nil {
				p.Kill()
				return Event{}, ctx.Err() // killed after the cancel
			}
			return Event{}, p.gone(err)
		}
		switch ev.T {
		case want:
			return ev, nil
		case TError:
			return Event{}, fmt.Errorf("worker: %s", ev.Error)
		case TInterval, TAck:
			if emit != nil {
				emit(ev)
			}
		default:
			p.Kill()
			return Event{}, fmt.Errorf("worker protocol: %q while waiting for %q", ev.T, want)
		}
	}
}

// gone explains a broken conversation: the child's exit status and the
// end of what it wrote on stderr.
func (p *Process) gone(err error) error {
	select {
	case <-p.child.Done():
	case <-time.After(2 * time.Second):
		p.Kill()
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("worker closed its output without exiting")
		}
		return fmt.Errorf("worker: %v", err)
	}
	msg := "worker exited"
	if err := p.child.Err(); err != nil {
		msg += " (" + err.Error() + ")"
	}
	if s := strings.Join(strings.Fields(p.stderr.String()), " "); s != "" {
		msg += ": " + s
	}
	return errors.New(msg)
}

// Close ends the conversation and waits for the child, killing it if it
// does not exit.
func (p *Process) Close() error {
	p.once.Do(func() {
		p.enc.Send(Event{T: TClose})
		p.stdin.Close()
		select {
		case <-p.child.Done():
		case <-time.After(killGrace):
			p.Kill()
			<-p.child.Done()
		}
	})
	return nil
}
