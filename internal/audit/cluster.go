package audit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/plan"
	"github.com/litebench/litebench/internal/results"
	"github.com/litebench/litebench/internal/runner"
	"github.com/litebench/litebench/internal/worker"
	"github.com/litebench/litebench/internal/workload"
)

// The faults of a replicated engine's cluster (dqlite): SIGKILL of the
// leader's node process, or of a follower's, while the workload runs on.
const (
	KillLeader   = "kill-leader"
	KillFollower = "kill-follower"
)

// ClusterFaults lists them in the order they run.
var ClusterFaults = []string{KillLeader, KillFollower}

// IsClusterFault reports whether fault strikes a node of a cluster.
func IsClusterFault(fault string) bool { return fault == KillLeader || fault == KillFollower }

// cluster is what a cluster fault needs of a server instance: to kill a
// node by role, and to read the data through the cluster.
type cluster interface {
	engine.Instance
	engine.SQL
	Kill(ctx context.Context, role string) (string, error)
}

// clusterExpectation is what a Raft cluster promises when one node of
// three or more dies: a commit is acknowledged once a majority holds it
// in its log, so a majority left alive has every acknowledged commit.
var clusterExpectation = Expectation{Journal: "raft", Sync: "majority", ProcessKill: Safe, PowerLoss: Safe,
	Why: "Raft acknowledges a commit once a majority of the voters has appended it to its log (dqlite fsyncs every entry): with a majority alive, no acknowledged commit is lost"}

// faultApplies reports whether fault can strike cell c: cluster faults
// on a server engine of 3 or more nodes, the others on SQLite files.
func faultApplies(c plan.Cell, fault string) error {
	server := engine.IsServer(c.Target.Engine())
	switch {
	case IsClusterFault(fault) && !server:
		return fmt.Errorf("audit: --fault %s strikes a node of a cluster; %s is not one (use --target dqlite)", fault, c.Target.Name())
	case IsClusterFault(fault) && c.Settings.Int("nodes") < 3:
		return fmt.Errorf("audit: --fault %s on %d node: a cluster with a node killed has no majority left below 3 nodes; use --nodes 3", fault, c.Settings.Int("nodes"))
	case !IsClusterFault(fault) && server:
		return fmt.Errorf("audit: --fault %s strikes a database file; %s runs a cluster: use --fault %s,%s", fault, c.Target.Name(), KillLeader, KillFollower)
	}
	return nil
}

// runClusterTrial starts the cell's cluster, runs the workload against it
// in a worker process, kills the node at the trial's moment and lets the
// workload run on; then it reads the rows through the surviving nodes.
// The check's recovery is the time from the kill to the first write
// acknowledged after it (writes resumed).
func runClusterTrial(ctx context.Context, cfg Config, c plan.Cell, fault string, i int, l *layout) (*trial, check, error) {
	var ck check
	t := &trial{index: i, seed: TrialSeed(cfg.Seed, c, fault, i)}
	t.moment = FaultMoment(t.seed, cfg.FaultAt)
	t.dir = filepath.Join(cfg.Dir, fmt.Sprintf("%s-%s-%d", sanitize(c.RunID), fault, i+1))
	if err := os.Mkdir(t.dir, 0o755); err != nil {
		return nil, ck, err
	}
	led, err := openLedger(filepath.Join(t.dir, "acks"))
	if err != nil {
		return nil, ck, err
	}
	defer led.close()
	runID := fmt.Sprintf("%s.%s%d", c.RunID, fault, i+1)
	inst, err := c.Target.Engine().Provision(ctx, engine.Request{Settings: c.Settings, Dir: t.dir, Name: sanitize(runID), Keep: cfg.Keep, Kind: workload.DBKind(c.Workload)})
	if err != nil {
		return nil, ck, err
	}
	defer inst.Destroy()
	cl, ok := inst.(cluster)
	if !ok {
		return nil, ck, fmt.Errorf("audit: %s cannot kill a node of its instance", c.Target.Name())
	}

	sp := c.Spec
	sp.Settings = c.Settings.Clone()
	sp.Settings.Set("placement", worker.ChildProc)
	sp.RunID, sp.Dir, sp.Instance = runID, t.dir, inst
	sp.Progress, sp.Interval, sp.SeriesInterval, sp.WALWarn = nil, 0, 0, 0
	var mu sync.Mutex
	var start time.Time
	var timer *time.Timer
	struck := make(chan struct{})
	var killErr error
	// The workload runs on after the kill: the trial ends it a little
	// after writes resume (or when they have not within resumeWait).
	runCtx, endRun := context.WithCancel(ctx)
	defer endRun()
	var ending sync.Once
	end := func() { ending.Do(func() { time.AfterFunc(afterResume, endRun) }) }
	sp.Acks = func(ev worker.Event) {
		mu.Lock()
		defer mu.Unlock()
		at := time.Since(start)
		if t.faulted && at > t.struckAt {
			end()
		}
		for k, first := range ev.Seqs {
			n := int64(1)
			if k < len(ev.Rows) {
				n = ev.Rows[k]
			}
			t.acks = append(t.acks, ack{first: first, n: n, at: at})
			led.add(first, n, at)
		}
	}
	sp.Started = func(worker.Worker) {
		mu.Lock()
		start = time.Now()
		mu.Unlock()
		timer = time.AfterFunc(t.moment, func() {
			defer close(struck)
			mu.Lock()
			at := time.Since(start)
			mu.Unlock()
			if _, err := cl.Kill(context.WithoutCancel(ctx), roleOf(fault)); err != nil {
				killErr = err
				return
			}
			mu.Lock()
			t.struckAt = at
			t.faulted = true
			mu.Unlock()
			time.AfterFunc(resumeWait, endRun)
		})
	}
	r := runner.Run(runCtx, sp)
	if timer != nil && !timer.Stop() {
		<-struck
	}
	if err := led.sync(); err != nil {
		return nil, ck, err
	}
	switch {
	case ctx.Err() != nil:
		return nil, ck, context.Canceled
	case r.Status == results.StatusInterrupted && !t.faulted:
		return nil, ck, fmt.Errorf("trial %d: the run ended before its fault", i+1)
	case killErr != nil:
		return nil, ck, fmt.Errorf("trial %d: %s: %w", i+1, fault, killErr)
	case r.Status == results.StatusFailed:
		return nil, ck, fmt.Errorf("trial %d: %s", i+1, r.Error)
	}
	if t.faulted {
		var ok bool
		if ck.recovery, ok = resumed(t.acks, t.struckAt, writers(c)); !ok {
			ck.corrupt = "no write was acknowledged after the kill"
		}
	} else if len(t.acks) > 0 {
		t.struckAt = t.acks[len(t.acks)-1].at
	}
	vctx := context.WithoutCancel(ctx)
	if err := inst.Check(vctx, cl); err != nil {
		ck.corrupt = err.Error()
		return t, ck, nil
	}
	present, err := l.keysOf(vctx, cl)
	if err != nil {
		ck.corrupt = "reading the rows: " + err.Error()
		return t, ck, nil
	}
	l.count(&ck, present, t.acks)
	return t, ck, nil
}

// resumed is how long after a kill at struck writes resumed: until the
// first acknowledgement of a transaction begun after the kill. Each of
// the workload's writers may have had one commit on its way at the kill
// (returned just before it, acknowledged just after), so the first
// inflight acknowledgements after the kill are passed over. False when
// none came after them.
func resumed(acks []ack, struck time.Duration, inflight int) (time.Duration, bool) {
	for _, a := range acks {
		if a.at <= struck {
			continue
		}
		if inflight > 0 {
			inflight--
			continue
		}
		return a.at - struck, true
	}
	return 0, false
}

// writers is how many transactions a cell's workload may have in flight
// at once: its writers (write, mixed) or loading workers (insert).
func writers(c plan.Cell) int {
	for _, k := range []string{"writers", "workers"} {
		if n, err := strconv.Atoi(c.Params[k]); err == nil && n > 0 {
			return n
		}
	}
	return 1
}

// How long a trial runs on after writes resume, and how long it waits
// for them to resume.
const (
	afterResume = 500 * time.Millisecond
	resumeWait  = 30 * time.Second
)

func roleOf(fault string) string {
	if fault == KillLeader {
		return "leader"
	}
	return "follower"
}

// keysOf reads every key of the workload's table through an engine's
// SQL (a cluster read through the worker binary).
func (l *layout) keysOf(ctx context.Context, db engine.SQL) (*keySet, error) {
	rows, err := db.Strings(ctx, "SELECT "+l.schema.KeyCol+" FROM "+l.schema.Table)
	if err != nil {
		return nil, err
	}
	ks := &keySet{}
	if !l.schema.IntKey() {
		ks.strs = make(map[string]bool, len(rows))
		for _, r := range rows {
			ks.strs[r] = true
		}
		return ks, nil
	}
	ks.ints = make(map[int64]bool, len(rows))
	for _, r := range rows {
		v, err := strconv.ParseInt(r, 10, 64)
		if err != nil {
			return nil, errors.New("key " + strconv.Quote(r) + " is not an integer")
		}
		ks.ints[v] = true
	}
	return ks, nil
}
