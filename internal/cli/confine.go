package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/litebench/litebench/internal/limits"
	"github.com/litebench/litebench/internal/report"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/runner"
	"github.com/litebench/litebench/internal/settings"
	"github.com/litebench/litebench/internal/store"
	"github.com/litebench/litebench/internal/workload"
)

// invocation is the command line Main was given, for running it again as
// a confined child.
type invocation struct {
	args      []string
	out, errw io.Writer
}

type invocationKey struct{}

func withInvocation(ctx context.Context, args []string, out, errw io.Writer) context.Context {
	return context.WithValue(ctx, invocationKey{}, invocation{args, out, errw})
}

// childExit ends a command that a confined child ran: Main returns code,
// the child having said everything.
type childExit struct{ code int }

func (e childExit) Error() string {
	return fmt.Sprintf("the confined process exited with status %d", e.code)
}

// applyLimits confines the command per --cpus and --memory; a limit that
// cannot be applied is a usage error (exit 2), never ignored. With
// --memory the command runs again as a child process in a memory cgroup
// (see confine); this process then returns childExit.
func (c *common) applyLimits(ctx context.Context) error {
	if c.memory != "" {
		if !limits.Child() {
			return c.confine(ctx)
		}
		if err := limits.AcceptChild(); err != nil {
			return err
		}
	}
	if c.cpus > 0 {
		if err := limits.CPUs(c.cpus); err != nil {
			return usageError{err.Error()}
		}
	}
	return nil
}

// defaultLimits gives the limits suite the SQLite Performance Limits benchmark's box, 2 CPUs and 1 GB,
// when the user chose no limits and the machine allows them; what cannot
// be applied is noted in the suite's table.
func (c *common) defaultLimits() {
	if c.cpus != 0 || c.memory != "" {
		return
	}
	c.cpus = min(2, limitsCPUs())
	if err := limits.CanConfine(); err != nil {
		c.limitNotes = append(c.limitNotes, "memory limit not applied: "+err.Error())
		return
	}
	c.memory = "1GiB"
}

// confine runs this command again in a child process confined to
// --memory, and waits for it. When the kernel kills the child for want of
// memory, the run it was in is saved as failed with a message saying so;
// the child's cgroup and temporary files are removed in every case.
func (c *common) confine(ctx context.Context) error {
	inv, ok := ctx.Value(invocationKey{}).(invocation)
	if !ok {
		return usagef("--memory: cannot run this command confined (no command line)")
	}
	n, _ := settings.ParseSize(c.memory)
	o, err := limits.RunConfined(ctx, limits.ChildSpec{Bytes: n, Args: inv.args, Stdout: inv.out, Stderr: inv.errw,
		KeepTemp: c.keep && c.dir == ""})
	if err != nil {
		return usageError{err.Error()}
	}
	defer os.RemoveAll(o.Dir)
	if o.Signal == 0 {
		return childExit{o.Code}
	}
	status, msg := results.StatusFailed, fmt.Sprintf("the workload's process was killed by signal %d (%v)", int(o.Signal), o.Signal)
	switch {
	case o.OOM:
		msg = fmt.Sprintf("out of memory: the workload needed more than --memory %s, and the kernel stopped it at the limit", c.memory)
		if o.Peak > 0 {
			msg += " (peak " + report.Bytes(o.Peak) + ")"
		}
		msg += "; raise --memory, or lower --rows, the connections or --cache-size"
	case o.Killed:
		status, msg = results.StatusInterrupted, "the workload's process did not stop within its grace period after the interrupt and was killed"
	}
	r := readRunNote(o.Dir)
	if r == nil {
		fmt.Fprintln(inv.errw, "litebench: "+msg)
		return errFailed
	}
	r.Status, r.Error = status, msg
	if status == results.StatusInterrupted {
		r.Error = ""
	}
	fmt.Fprintf(inv.errw, "%s %s: %s\n", r.Label, status, msg)
	rs := []*results.Result{r}
	if !c.noStore {
		s, err := store.Open(c.store)
		if err != nil {
			return err
		}
		defer s.Close()
		if err := s.Save(r); err != nil {
			return fmt.Errorf("saving run %s: %w", r.RunID, err)
		}
		fmt.Fprintf(inv.errw, "saved run %s as %s in %s\n", r.RunID, status, s.Path())
		if sweep, err := s.Get(r.SweepID); err == nil {
			rs = sweep // the runs the child finished, and this one
		}
	}
	if c.format == "json" {
		report.WriteJSON(inv.out, r) // the child printed the others
	} else {
		report.Write(inv.out, rs, c.format) //nolint:errcheck // the exit status says it failed
	}
	if status == results.StatusInterrupted {
		return errInterrupted
	}
	return errFailed
}

const runNote = "run.json"

// noteRun tells a confining parent which run this child is starting, so
// that the parent can save it if the kernel kills this process.
func noteRun(sp *runner.Spec) {
	dir := limits.StateDir()
	if dir == "" {
		return
	}
	b, err := results.MarshalJSONLine(runner.NewResult(*sp))
	if err != nil {
		return
	}
	tmp := filepath.Join(dir, runNote+".tmp")
	if os.WriteFile(tmp, b, 0o600) == nil {
		os.Rename(tmp, filepath.Join(dir, runNote)) //nolint:errcheck // best effort: the parent then saves no run
	}
}

// readRunNote is the run a confined child last started, or nil.
func readRunNote(dir string) *results.Result {
	b, err := os.ReadFile(filepath.Join(dir, runNote))
	if err != nil {
		return nil
	}
	r, err := results.UnmarshalJSONLine(b)
	if err != nil {
		return nil
	}
	return r
}

// checkDemand refuses a run whose connections and histograms will not fit
// the open-file limit or the memory.
func (c *common) checkDemand(w workload.Workload, s settings.Settings) error {
	if d, ok := workload.Demand(w, s); ok {
		return c.fits(d)
	}
	return nil
}

// fits checks d against the open-file limit and the memory: --memory when
// set, else what the machine has available.
func (c *common) fits(d limits.Demand) error {
	var mem int64
	if c.memory != "" {
		mem, _ = settings.ParseSize(c.memory)
	}
	if err := limits.Check(d, mem); err != nil {
		return usageError{err.Error()}
	}
	return nil
}
