// Package audit measures what a cell's settings give up in durability by
// crashing it. For every cell of a plan and every fault it runs trials:
// the workload runs in a 'litebench worker' child process that
// acknowledges every committed write transaction; at a seeded moment the
// fault strikes (process-kill: SIGKILL of the child; power-loss: SIGKILL,
// then the files are rewritten to what a disk would hold after a power
// cut, per the crash VFS's log); a fresh connection then opens the
// database, times its recovery, checks its integrity and looks for every
// acknowledged transaction. The trials add up to one result per cell and
// fault, with SQLite's documented behaviour (the oracle) beside it.
package audit

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/litebench/litebench/internal/crashfs"
	"github.com/litebench/litebench/internal/crashvfs"
	"github.com/litebench/litebench/internal/plan"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/runner"
	"github.com/litebench/litebench/internal/target"
	"github.com/litebench/litebench/internal/units"
	"github.com/litebench/litebench/internal/worker"
)

// Config is an audit: which faults, how many trials and where.
type Config struct {
	// Faults are ProcessKill and/or PowerLoss, in that order.
	Faults []string
	// Auto runs each cell under those of Faults its target can take
	// (the faults were not asked for by name); otherwise every cell runs
	// under every fault, and one that cannot take one is refused.
	Auto bool
	// Models are the power models each power-loss trial is judged under
	// (the same crash, one disk per model).
	Models []crashvfs.Model
	Trials int
	// FaultAt is the window, after the measured part starts, in which a
	// trial's fault strikes (uniform, seeded).
	FaultAt [2]time.Duration
	// Seed seeds the fault moments and the torn patterns.
	Seed uint64
	// Dir holds the trials' databases.
	Dir string
	// Keep leaves every trial's files in Dir.
	Keep bool
	// Section names the results' section prefix ("audit" for the
	// command).
	Section string
	// Progress receives a line per cell and fault; nil for none.
	Progress io.Writer
	// PowerVia is how power-loss trials record what reaches the disk:
	// ViaFS (the crash file system), ViaVFS (the crash VFS), or "" for
	// the VFS where the target can use it and the file system elsewhere.
	PowerVia string
	// Device is the simulated disk of the crash file system.
	Device crashfs.Device
	// Point, when set, strikes power-loss trials on the crash file system
	// at that operation instead of a moment in FaultAt.
	Point *crashfs.Point
	// Begin, when set, is called with each result before its trials run
	// (status running); Done with it as soon as they end.
	Begin, Done func(*results.Result) error
}

// Check refuses an audit that cannot run as asked: a cell whose workload
// the audit cannot check, an in-memory database, power loss on a target
// that cannot use the crash VFS. Nothing is touched.
func Check(cfg Config, cells []plan.Cell) error {
	if cfg.Trials < 1 {
		return fmt.Errorf("--trials %d: want 1 or more", cfg.Trials)
	}
	if cfg.FaultAt[0] < 0 || cfg.FaultAt[1] < cfg.FaultAt[0] {
		return fmt.Errorf("--fault-at: want a window such as 100ms-1s")
	}
	for _, c := range cells {
		faults := cfg.FaultsFor(c)
		if len(faults) == 0 {
			// None applies: say why the first does not.
			faults = cfg.Faults[:min(len(cfg.Faults), 1)]
		}
		power := false
		for _, f := range faults {
			if err := faultApplies(c, f); err != nil {
				return err
			}
			power = power || f == PowerLoss
		}
		if c.Settings.Bool("in-memory") {
			return fmt.Errorf("audit: --in-memory: a fault leaves nothing of an in-memory database to check; audit a file")
		}
		if _, err := layoutFor(c); err != nil {
			return err
		}
		if power {
			if err := checkPower(cfg, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// Run audits every cell under every fault and returns a result per cell,
// fault and power model, in that order. It stops at an interrupt; the
// result in progress is returned as interrupted.
func Run(ctx context.Context, cfg Config, cells []plan.Cell) ([]*results.Result, error) {
	if err := Check(cfg, cells); err != nil {
		return nil, err
	}
	var out []*results.Result
	for i, c := range cells {
		for _, fault := range cfg.FaultsFor(c) {
			rs, err := runCell(ctx, cfg, i, len(cells), c, fault)
			out = append(out, rs...)
			if err != nil {
				return out, err
			}
			for _, r := range rs {
				if r.Status == results.StatusInterrupted {
					return out, nil
				}
			}
		}
	}
	return out, nil
}

// FaultsFor are the faults cell c runs under: every one of Faults, or
// with Auto (the quick default audit) those its target can take without
// mounting anything: power loss on targets that open through the crash
// VFS (--fault power-loss asked for runs on any target, through the
// crash file system), the cluster faults on 3 nodes or more.
func (cfg Config) FaultsFor(c plan.Cell) []string {
	if !cfg.Auto {
		return cfg.Faults
	}
	var out []string
	for _, f := range cfg.Faults {
		if faultApplies(c, f) == nil && (f != PowerLoss || target.SupportsVFS(c.Target)) {
			out = append(out, f)
		}
	}
	return out
}

// trial is one run of a cell struck by a fault.
type trial struct {
	index   int
	seed    uint64
	moment  time.Duration // when the fault is due, after the measured start
	dir, db string
	faulted bool // the fault struck while the workload ran
	// struckAt is when the fault struck (the moment, a little later).
	struckAt time.Duration
	acks     []ack
	runErr   error
	// inForce are the settings the workload ran with, as its worker
	// reported them (journal_mode; synchronous for Go workers).
	inForce map[string]string
	// fsLog is the crash file system's log (power loss on it) and
	// device its disk.
	fsLog  *crashfs.Log
	device crashfs.Device
}

// models are the judgements of a fault: one per power model, or the
// files as they are for a process kill.
func (cfg Config) models(fault string) []crashvfs.Model {
	if fault == PowerLoss {
		return cfg.Models
	}
	return []crashvfs.Model{""}
}

// runCell runs the trials of cell c under fault and sums them up.
func runCell(ctx context.Context, cfg Config, ci, nc int, c plan.Cell, fault string) ([]*results.Result, error) {
	l, err := layoutFor(c)
	if err != nil {
		return nil, err
	}
	models := cfg.models(fault)
	rs := make([]*results.Result, len(models))
	sums := make([]*tally, len(models))
	for k, m := range models {
		rs[k] = newResult(cfg, c, fault, m)
		sums[k] = &tally{}
		if cfg.Begin != nil {
			if err := cfg.Begin(rs[k]); err != nil {
				return nil, err
			}
		}
	}
	name := fault
	if fault == PowerLoss {
		name += " (" + joinModels(models) + ")"
	}
	progress(cfg, "[%d/%d] %s, %s: %d trials ...", ci+1, nc, c.Label, name, cfg.Trials)
	var failure error
	interrupted := false
	var rate rateSum
	for i := 0; i < cfg.Trials; i++ {
		if ctx.Err() != nil {
			interrupted = true
			break
		}
		var t *trial
		var cluster check
		if IsClusterFault(fault) {
			t, cluster, err = runClusterTrial(ctx, cfg, c, fault, i, l)
		} else {
			t, err = runTrial(ctx, cfg, c, fault, i)
		}
		if err != nil {
			if ctx.Err() != nil {
				interrupted = true
			} else {
				failure = err
			}
			break
		}
		rate.add(t)
		for k, m := range models {
			if IsClusterFault(fault) {
				sums[k].add(t, cluster, "")
				continue
			}
			path := t.db
			var pattern string
			if m != "" {
				if path, pattern, err = powerCut(t, m); err != nil {
					failure = fmt.Errorf("trial %d: power model %s: %w", i+1, m, err)
					break
				}
			}
			ck := verify(context.WithoutCancel(ctx), path, l, t.acks, t.inForce, m != "")
			sums[k].add(t, ck, pattern)
		}
		if failure != nil {
			break
		}
		if !cfg.Keep {
			os.RemoveAll(t.dir)
		}
	}
	for k := range models {
		finish(rs[k], c, fault, sums[k], rate)
		switch {
		case interrupted:
			rs[k].Status = results.StatusInterrupted
		case failure != nil:
			rs[k].Status, rs[k].Error = results.StatusFailed, failure.Error()
		}
		a := rs[k].Audit
		progress(cfg, "[%d/%d] %s, %s: %d trials, %d acknowledged, %d lost (max %d), %d corrupt, %d partial, %d unverified: %s",
			ci+1, nc, c.Label, resultFault(a), a.Trials, a.Acked, a.LostAckedTotal, a.LostAckedMax, a.CorruptTrials, a.AtomicityViolations, a.UnverifiedTrials, a.Verdict)
		if cfg.Done != nil {
			if err := cfg.Done(rs[k]); err != nil {
				return rs, err
			}
		}
	}
	return rs, nil
}

func resultFault(a *results.Audit) string {
	if a.PowerModel != "" {
		return a.Fault + " " + a.PowerModel
	}
	return a.Fault
}

func joinModels(ms []crashvfs.Model) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = string(m)
	}
	return strings.Join(s, ", ")
}

func progress(cfg Config, format string, a ...any) {
	if cfg.Progress != nil {
		fmt.Fprintf(cfg.Progress, format+"\n", a...)
	}
}

// TrialSeed is the seed of trial i of a cell under fault: it fixes the
// fault's moment and the torn pattern. It depends on the audit's seed and
// on what the cell measures (not on its place in the sweep), so a cell
// audited again with the same seed meets the same faults.
func TrialSeed(seed uint64, c plan.Cell, fault string, i int) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	fmt.Fprintf(h, "|%s|%s|%s|%v|%v|%d", c.Workload.Name(), c.Target.Name(), fault, sortedPairs(c.Params), sortedPairs(c.Settings.Map()), i)
	return h.Sum64()
}

func sortedPairs(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		if k == "placement" {
			continue
		}
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// FaultMoment is when trial seed's fault strikes within the window.
func FaultMoment(seed uint64, window [2]time.Duration) time.Duration {
	span := window[1] - window[0]
	if span <= 0 {
		return window[0]
	}
	r := rand.New(rand.NewPCG(seed, 1))
	return window[0] + time.Duration(r.Int64N(int64(span)+1))
}

// runTrial runs cell c once in a child worker and strikes it at the
// trial's moment.
func runTrial(ctx context.Context, cfg Config, c plan.Cell, fault string, i int) (*trial, error) {
	t := &trial{index: i, seed: TrialSeed(cfg.Seed, c, fault, i)}
	t.moment = FaultMoment(t.seed, cfg.FaultAt)
	t.dir = filepath.Join(cfg.Dir, fmt.Sprintf("%s-%s-%d", sanitize(c.RunID), fault, i+1))
	if err := os.Mkdir(t.dir, 0o755); err != nil {
		return nil, err
	}
	t.db = filepath.Join(t.dir, "bench.db")
	var cfs *crashfs.FS
	var err error
	if fault == PowerLoss && viaFS(cfg, c) {
		t.device = cfg.Device
		if t.device.SectorSize == 0 {
			t.device = crashfs.DefaultDevice
		}
		if cfg.Point != nil {
			t.moment = PointLimit
		}
		if cfs, err = mountTrial(t); err != nil {
			return nil, err
		}
		// Unmounted on every way out; the log is kept in the trial.
		defer func() {
			if cfs != nil {
				unmountTrial(cfs, t, false)
			}
		}()
	}
	led, err := openLedger(filepath.Join(t.dir, "acks"))
	if err != nil {
		return nil, err
	}
	defer led.close()

	sp := c.Spec
	sp.Settings = c.Settings.Clone()
	sp.Settings.Set("placement", worker.ChildProc)
	sp.RunID = fmt.Sprintf("%s.%s%d", c.RunID, fault, i+1)
	sp.DBPath, sp.Dir, sp.Keep, sp.Attach = t.db, t.dir, true, false
	sp.Progress, sp.Interval, sp.SeriesInterval, sp.WALWarn = nil, 0, 0, 0
	if fault == PowerLoss && cfs == nil {
		sp.VFS = crashvfs.Name
	}
	var mu sync.Mutex
	var start time.Time
	var timer *time.Timer
	var once sync.Once
	var fired atomic.Bool
	killed := make(chan struct{})
	var setupErr error
	sp.Acks = func(ev worker.Event) {
		mu.Lock()
		defer mu.Unlock()
		at := time.Since(start)
		for k, first := range ev.Seqs {
			n := int64(1)
			if k < len(ev.Rows) {
				n = ev.Rows[k]
			}
			t.acks = append(t.acks, ack{first: first, n: n, at: at})
			led.add(first, n, at)
		}
	}
	sp.Started = func(w worker.Worker) {
		p, ok := w.(interface{ Kill() error })
		if !ok {
			setupErr = errors.New("the worker is not a child process")
			return
		}
		strike := func() {
			once.Do(func() {
				if cfs != nil {
					cfs.Freeze() // the power goes, then the worker
				}
				p.Kill()
				mu.Lock()
				t.struckAt = time.Since(start)
				mu.Unlock()
				fired.Store(true)
				close(killed)
			})
		}
		if cfs != nil {
			// What the worker set up is on the disk: the fault strikes
			// the measured part only.
			if err := cfs.Barrier(); err != nil {
				setupErr = err
				p.Kill()
				return
			}
			if cfg.Point != nil {
				cfs.SetCrashPoint(*cfg.Point, filepath.Base(t.db), strike)
			}
		} else if fault == PowerLoss {
			// The set-up database is on disk: the fault strikes the
			// measured part only.
			if err := crashvfs.Barrier(t.db); err != nil {
				setupErr = fmt.Errorf("crash log: %w", err)
				p.Kill()
				return
			}
		}
		mu.Lock()
		start = time.Now()
		mu.Unlock()
		timer = time.AfterFunc(t.moment, strike)
	}
	r := runner.Run(ctx, sp)
	t.inForce = r.InForce
	struck := false
	if timer != nil {
		timer.Stop()
		once.Do(func() {}) // no strike from now on; one under way ends first
		if fired.Load() {
			<-killed
			struck = true
		}
	}
	if cfs != nil {
		err := unmountTrial(cfs, t, cfg.Keep)
		cfs = nil
		if err != nil {
			return nil, fmt.Errorf("trial %d: crash file system: %w", i+1, err)
		}
	}
	if !struck && len(t.acks) > 0 {
		// Struck after the run: at its end.
		t.struckAt = t.acks[len(t.acks)-1].at
	}
	if err := led.sync(); err != nil {
		return nil, err
	}
	switch {
	case setupErr != nil:
		return nil, setupErr
	case r.Status == results.StatusInterrupted || ctx.Err() != nil:
		return nil, context.Canceled
	case timer == nil:
		// The worker failed before the measured part.
		return nil, fmt.Errorf("trial %d: %s", i+1, r.Error)
	case r.Status == results.StatusFailed && !struck:
		return nil, fmt.Errorf("trial %d: %s", i+1, r.Error)
	}
	// Struck after the final event (the run had ended) or while running.
	t.faulted = struck && r.Status == results.StatusFailed
	if cfg.Point != nil && struck && t.fsLog != nil {
		t.moment = t.struckAt // when the operation came
	}
	return t, nil
}

// powerCut writes what the disk holds after a power cut under model m
// into a directory of its own, and returns the database there and a
// summary of what the model did.
func powerCut(t *trial, m crashvfs.Model) (string, string, error) {
	if t.fsLog != nil {
		return powerCutFS(t, m)
	}
	im, err := crashvfs.Crash(t.db, m, t.seed)
	if err != nil {
		return "", "", err
	}
	dir := filepath.Join(t.dir, string(m))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", "", err
	}
	if err := im.WriteTo(dir); err != nil {
		return "", "", err
	}
	st := im.Stats
	h := fnv.New32a()
	io.WriteString(h, im.Pattern)
	pat := fmt.Sprintf("writes %d: pieces kept %d, dropped %d, garbled %d; truncations %d/%d; directory changes %d/%d",
		st.Writes, st.Kept, st.Dropped, st.Garbled, st.TruncKept, st.Truncations, st.DirKept, st.DirChanges)
	if len(st.Resurrected) > 0 {
		pat += "; back: " + strings.Join(st.Resurrected, ",")
	}
	if len(st.Vanished) > 0 {
		pat += "; gone: " + strings.Join(st.Vanished, ",")
	}
	return filepath.Join(dir, filepath.Base(t.db)), fmt.Sprintf("%s #%08x", pat, h.Sum32()), nil
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' {
			return '_'
		}
		return r
	}, s)
}

// ledger is the controller's record of acknowledgements: one 24-byte
// record per acknowledged transaction (first row, rows, nanoseconds after
// the measured start), written as it arrives and synced when the trial
// ends, before the fault is judged.
type ledger struct {
	f   *os.File
	buf [24]byte
	err error
}

func openLedger(path string) (*ledger, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &ledger{f: f}, nil
}

func (l *ledger) add(first, n int64, at time.Duration) {
	binary.LittleEndian.PutUint64(l.buf[0:], uint64(first))
	binary.LittleEndian.PutUint64(l.buf[8:], uint64(n))
	binary.LittleEndian.PutUint64(l.buf[16:], uint64(at))
	if _, err := l.f.Write(l.buf[:]); err != nil && l.err == nil {
		l.err = err
	}
}

func (l *ledger) sync() error {
	if l.err != nil {
		return fmt.Errorf("ack ledger: %w", l.err)
	}
	return l.f.Sync()
}

func (l *ledger) close() { l.f.Close() }

// rateSum adds up the committed rows of the trials and the time they took
// (from the measured start to the last acknowledgement).
type rateSum struct {
	rows    int64
	elapsed time.Duration
}

func (r *rateSum) add(t *trial) {
	if len(t.acks) == 0 {
		return
	}
	for _, a := range t.acks {
		r.rows += a.n
	}
	r.elapsed += t.acks[len(t.acks)-1].at
}

// tally sums the trials of one cell, fault and model.
type tally struct {
	Summary
	window    time.Duration
	recovery  []float64
	journal   string
	sync      string
	trials    []results.AuditTrial
	corruptBy []string
	// unverifiedBy says why trials could not be verified.
	unverifiedBy []string
}

func (s *tally) add(t *trial, ck check, pattern string) {
	s.Trials++
	if t.faulted {
		s.Faulted++
	}
	s.Acked += int64(len(t.acks))
	tr := results.AuditTrial{FaultMS: ms(t.moment), Faulted: t.faulted, Acked: int64(len(t.acks)), Pattern: pattern}
	if ck.unverified != "" {
		// Not seen: neither sound, nor corrupt, nor lost.
		s.Unverified++
		tr.Unverified = ck.unverified
		s.unverifiedBy = append(s.unverifiedBy, fmt.Sprintf("trial %d: %s", t.index+1, ck.unverified))
		s.trials = append(s.trials, tr)
		return
	}
	if ck.corrupt != "" {
		s.Corrupt++
		tr.Corrupt = ck.corrupt
		s.corruptBy = append(s.corruptBy, fmt.Sprintf("trial %d: %s", t.index+1, ck.corrupt))
	} else {
		s.recovery = append(s.recovery, ms(ck.recovery))
		tr.RecoveryMS = ms(ck.recovery)
		if ck.journal != "" {
			s.journal, s.sync = ck.journal, ck.sync
		}
	}
	tr.Lost, tr.Atomicity, tr.UnackedPresent = ck.lost, ck.atomicity, ck.unacked
	s.LostTotal += ck.lost
	s.LostMax = max(s.LostMax, ck.lost)
	if ck.lost > 0 {
		s.LossTrials++
		// How long before the fault the oldest lost transaction was
		// acknowledged (an acknowledgement may be read after the kill).
		s.window = max(s.window, t.struckAt-ck.oldestLost)
	}
	s.Atomicity += ck.atomicity
	s.UnackedPresent += ck.unacked
	s.trials = append(s.trials, tr)
}

func ms(d time.Duration) float64 { return units.Round3(float64(d) / 1e6) }

// newResult is the result of cell c under fault (and model), as it
// starts.
func newResult(cfg Config, c plan.Cell, fault string, m crashvfs.Model) *results.Result {
	sp := c.Spec
	sp.Settings = c.Settings.Clone()
	sp.Settings.Set("placement", worker.ChildProc)
	sp.Dir = cfg.Dir
	what := fault
	if m != "" {
		what += " " + string(m)
	}
	sp.RunID = c.RunID + "." + strings.ReplaceAll(what, " ", "-")
	sp.Section = cfg.Section + ": " + what
	name := c.Name
	if name == "" {
		name = c.Label
	}
	sp.Name = name + " [" + what + "]"
	r := runner.NewResult(sp)
	r.Audit = &results.Audit{Fault: fault, PowerModel: string(m), Seed: cfg.Seed}
	return r
}

// finish fills r in from the tally.
func finish(r *results.Result, c plan.Cell, fault string, s *tally, rate rateSum) {
	a := r.Audit
	a.Trials, a.Faulted, a.Acked = s.Trials, s.Faulted, s.Acked
	a.LostAckedTotal, a.LostAckedMax, a.LossTrials = s.LostTotal, s.LostMax, s.LossTrials
	a.LostWindowMS = ms(s.window)
	a.CorruptTrials, a.AtomicityViolations, a.UnackedPresent = s.Corrupt, s.Atomicity, s.UnackedPresent
	a.UnverifiedTrials = s.Unverified
	a.RecoveryMSP50, a.RecoveryMSMax = median(s.recovery), maxOf(s.recovery)
	a.TrialResults = s.trials
	a.Journal, a.Sync = s.journal, s.sync
	if a.Journal == "" {
		a.Journal = asked(c.Settings.Get("journal"), "delete")
	}
	if a.Sync == "" {
		// The worker did not say (workers of other languages report the
		// journal mode only): what was asked, or SQLite's default.
		a.Sync = asked(c.Settings.Get("sync"), "full")
	}
	e, err := Lookup(a.Journal, a.Sync)
	documents := "SQLite documents: "
	if IsClusterFault(fault) {
		e, err, documents = clusterExpectation, nil, "Raft's promise: "
		a.Journal, a.Sync = e.Journal, e.Sync
		r.Notes = append(r.Notes, "recovery is the time from the kill until the first write acknowledged after it (writes resumed)")
	}
	switch {
	case err == nil && s.Unverified == s.Trials && s.Trials > 0:
		// Nothing was seen: no verdict, no class beyond the documents.
		a.Expected = e.For(fault).String()
		a.Verdict = "unverified"
		a.OracleClass = e.Class()
		a.Class = e.Class()
		r.Notes = append(r.Notes, documents+e.Why)
	case err == nil:
		a.Expected = e.For(fault).String()
		a.Verdict, a.Finding = Verdict(e, fault, s.Summary)
		a.OracleClass = e.Class()
		pk, pl := e.ProcessKill, e.PowerLoss
		got := Measured(s.LostTotal, int64(s.Corrupt), s.Atomicity)
		if fault == ProcessKill {
			pk = max(pk, got)
		} else {
			pl = max(pl, got)
		}
		a.Class = ClassOf(pk, pl)
		r.Notes = append(r.Notes, documents+e.Why)
	default:
		a.Verdict = "no documented behaviour"
		r.Notes = append(r.Notes, err.Error())
	}
	if a.Finding != "" {
		r.Notes = append(r.Notes, "finding: "+a.Finding)
	}
	if n := a.Trials - a.Faulted; n > 0 && a.Trials > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d of %d trials ended before their fault moment (struck after the end); a larger workload or an earlier --fault-at strikes them while they run", n, a.Trials))
	}
	for _, why := range s.corruptBy[:min(len(s.corruptBy), 3)] {
		r.Notes = append(r.Notes, "corrupt: "+why)
	}
	if !IsClusterFault(fault) && s.Trials > s.Unverified {
		r.Notes = append(r.Notes, fmt.Sprintf("verified by litebench's own SQLite (%s, SQLite %s) on a copy of the crashed files; recovery is its open and first query", Verifier, verifierVersion()))
	}
	if s.Unverified > 0 {
		why := strings.Join(s.unverifiedBy[:min(len(s.unverifiedBy), 3)], "; ")
		if s.Unverified == s.Trials {
			r.Status, r.Error = results.StatusFailed, fmt.Sprintf("no trial could be verified (%s)", why)
		} else {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%d of %d trials could not be verified and count in no figure (%s)", s.Unverified, s.Trials, why))
		}
	}
	if fault == PowerLoss {
		r.Notes = append(r.Notes, "the workload ran through the crash VFS (throughput includes its logging)")
	}
	r.Rows, r.Elapsed = rate.rows, rate.elapsed.Seconds()
	head := results.Metric{Name: results.Throughput, Unit: units.RowsPerSecond, Better: units.Higher}
	if r.Elapsed > 0 {
		head.Value = float64(r.Rows) / r.Elapsed
	}
	metric := func(name, unit string, better units.Direction, v float64) {
		r.Metrics = append(r.Metrics, results.Metric{Name: name, Unit: unit, Value: v, Better: better})
	}
	metric("trials", "trials", units.None, float64(a.Trials))
	metric("acked", "transactions", units.None, float64(a.Acked))
	metric("lost_acked_total", "transactions", units.Lower, float64(a.LostAckedTotal))
	metric("lost_acked_max", "transactions", units.Lower, float64(a.LostAckedMax))
	metric("lost_window", units.Microseconds, units.Lower, a.LostWindowMS*1e3)
	metric("corrupt_trials", "trials", units.Lower, float64(a.CorruptTrials))
	metric("unverified_trials", "trials", units.Lower, float64(a.UnverifiedTrials))
	metric("atomicity_violations", "transactions", units.Lower, float64(a.AtomicityViolations))
	metric("unacked_present", "transactions", units.None, float64(a.UnackedPresent))
	metric("recovery_p50", units.Microseconds, units.Lower, a.RecoveryMSP50*1e3)
	r.SetHeadline(head)
}

// asked is the setting's value, or def for the driver's default.
func asked(v, def string) string {
	if v == "" || v == "default" {
		return def
	}
	return v
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return units.Round3((s[n/2-1] + s[n/2]) / 2)
}

func maxOf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// ParseWindow reads a fault window: "300ms" (that moment) or "100ms-1s".
func ParseWindow(s string) ([2]time.Duration, error) {
	lo, hi, found := strings.Cut(s, "-")
	a, err := time.ParseDuration(strings.TrimSpace(lo))
	if err != nil {
		return [2]time.Duration{}, fmt.Errorf("--fault-at %q: want a duration or a window such as 100ms-1s", s)
	}
	b := a
	if found {
		if b, err = time.ParseDuration(strings.TrimSpace(hi)); err != nil {
			return [2]time.Duration{}, fmt.Errorf("--fault-at %q: want a duration or a window such as 100ms-1s", s)
		}
	}
	if a < 0 || b < a {
		return [2]time.Duration{}, fmt.Errorf("--fault-at %q: want 0 ≤ start ≤ end", s)
	}
	return [2]time.Duration{a, b}, nil
}
