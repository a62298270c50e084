package dqlite

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/proc"
)

// Timeouts of a cluster's life.
const (
	// formTimeout bounds the wait for a leader and every node a voter.
	formTimeout = 60 * time.Second
	// stopGrace is how long a node has to close after its input closes
	// (tens of milliseconds, measured) before it is killed, which bounds
	// Ctrl-C. A node's Raft log survives a kill, as it survives a crash.
	stopGrace = 2 * time.Second
)

// Status is what a node says about the cluster (the node protocol's
// status message).
type Status struct {
	T      string       `json:"t"`
	ID     uint64       `json:"id,omitempty"`
	Addr   string       `json:"address,omitempty"`
	Leader string       `json:"leader,omitempty"`
	Nodes  []NodeStatus `json:"nodes,omitempty"`
	Error  string       `json:"error,omitempty"`
}

// NodeStatus is one member of the cluster as the leader lists it.
type NodeStatus struct {
	ID   uint64 `json:"id"`
	Addr string `json:"address"`
	Role string `json:"role"`
}

// node is one node process.
type node struct {
	n      int // 1-based, in start order
	addr   string
	dir    string
	cmd    *exec.Cmd
	child  *proc.Child
	in     io.WriteCloser
	lines  chan Status
	waited chan struct{}
	stderr *proc.Tail

	mu     sync.Mutex
	killed bool
	ask    sync.Mutex // one status question at a time
}

// start makes the cluster's directory, starts node 1 (which bootstraps
// the cluster), then the others (which join it), and waits until the
// cluster has a leader and every node is a voter. On any failure it stops
// and removes what it started.
func start(ctx context.Context, r engine.Request, program func() ([]string, error)) (inst *Cluster, err error) {
	n := r.Settings.Int("nodes")
	if n < 1 {
		n = 1
	}
	dir := filepath.Join(r.Dir, "litebench-"+r.Name+".dqlite")
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("dqlite cluster directory: %w", err)
	}
	c := &Cluster{db: "litebench-" + r.Name, s: r.Settings, dir: dir, keep: r.Keep, program: program}
	defer func() {
		if err != nil {
			c.Destroy()
		}
	}()
	ports, err := freePorts(n)
	if err != nil {
		return nil, err
	}
	for i := range n {
		c.addrs = append(c.addrs, "127.0.0.1:"+strconv.Itoa(ports[i]))
	}
	for i := range n {
		nd, err := c.startNode(i + 1)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			// The others join through node 1: it must be up first.
			if err := nd.ready(ctx); err != nil {
				return nil, err
			}
		}
	}
	for _, nd := range c.nodes[1:] {
		if err := nd.ready(ctx); err != nil {
			return nil, err
		}
	}
	if err := c.formed(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// freePorts finds n free loopback ports (listening on port 0, closed
// again before the nodes bind them).
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("dqlite: no free loopback port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func (c *Cluster) startNode(i int) (*node, error) {
	args, err := c.command()
	if err != nil {
		return nil, err
	}
	nd := &node{n: i, addr: c.addrs[i-1], dir: filepath.Join(c.dir, fmt.Sprintf("node%d", i)),
		lines: make(chan Status, 4), waited: make(chan struct{}), stderr: proc.NewTail(4 << 10)}
	if err := os.Mkdir(nd.dir, 0o755); err != nil {
		return nil, err
	}
	args = append(args, "node", "--dir", nd.dir, "--address", nd.addr)
	if len(c.addrs) > 1 {
		args = append(args, "--voters", strconv.Itoa(len(c.addrs)))
	}
	if i > 1 {
		args = append(args, "--join", c.addrs[0])
	}
	for _, k := range []string{"snapshot-threshold", "snapshot-trailing"} {
		if v := c.s.Get(k); v != "" && v != "default" {
			args = append(args, "--"+k, v)
		}
	}
	nd.cmd = exec.Command(args[0], args[1:]...)
	// A process group of its own (package proc): the terminal's Ctrl-C
	// reaches litebench, which stops the nodes in order; the nodes die
	// with litebench if it is killed.
	nd.cmd.Stderr = nd.stderr
	if nd.in, err = nd.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := nd.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if nd.child, err = proc.StartChild(nd.cmd); err != nil {
		return nil, fmt.Errorf("dqlite node %d: %v", i, err)
	}
	c.nodes = append(c.nodes, nd)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var st Status
			if json.Unmarshal(sc.Bytes(), &st) == nil {
				nd.lines <- st
			}
		}
		close(nd.lines)
	}()
	go func() { <-nd.child.Done(); close(nd.waited) }()
	return nd, nil
}

// ready waits for the node's ready message.
func (nd *node) ready(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, formTimeout)
	defer cancel()
	for {
		select {
		case st, ok := <-nd.lines:
			if !ok {
				return nd.gone("did not start")
			}
			if st.T == "ready" {
				return nil
			}
			if st.Error != "" {
				return fmt.Errorf("dqlite node %d (%s): %s", nd.n, nd.addr, st.Error)
			}
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("dqlite node %d (%s) was not ready after %s", nd.n, nd.addr, formTimeout)
			}
			return ctx.Err()
		}
	}
}

// gone explains a node that ended: its exit and the end of its stderr.
func (nd *node) gone(what string) error {
	select {
	case <-nd.waited:
	case <-time.After(2 * time.Second):
	}
	msg := fmt.Sprintf("dqlite node %d (%s) %s", nd.n, nd.addr, what)
	if s := strings.TrimSpace(nd.stderr.String()); s != "" {
		lines := strings.Split(s, "\n")
		msg += ": " + lines[len(lines)-1]
	}
	return errors.New(msg)
}

// status asks the node about the cluster.
func (nd *node) status(ctx context.Context) (Status, error) {
	nd.ask.Lock()
	defer nd.ask.Unlock()
	if _, err := io.WriteString(nd.in, "status\n"); err != nil {
		return Status{}, nd.gone("is gone")
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	select {
	case st, ok := <-nd.lines:
		if !ok {
			return Status{}, nd.gone("is gone")
		}
		if st.Error != "" {
			return st, errors.New(st.Error)
		}
		return st, nil
	case <-ctx.Done():
		return Status{}, fmt.Errorf("dqlite node %d (%s) did not answer: %w", nd.n, nd.addr, ctx.Err())
	}
}

func (nd *node) alive() bool {
	nd.mu.Lock()
	defer nd.mu.Unlock()
	if nd.killed {
		return false
	}
	select {
	case <-nd.waited:
		return false
	default:
		return true
	}
}

// formed waits until a node sees a leader and every node as a voter.
func (c *Cluster) formed(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, formTimeout)
	defer cancel()
	var last string
	for {
		st, err := c.Status(ctx)
		if err == nil {
			voters := 0
			for _, m := range st.Nodes {
				if m.Role == "voter" {
					voters++
				}
			}
			if st.Leader != "" && voters == len(c.addrs) {
				return nil
			}
			last = fmt.Sprintf("leader %q, %d of %d nodes voters", st.Leader, voters, len(c.addrs))
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("dqlite cluster of %d nodes not formed after %s (%s)", len(c.addrs), formTimeout, last)
			}
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Status asks the first live node about the cluster: the leader and the
// members with their roles.
func (c *Cluster) Status(ctx context.Context) (Status, error) {
	for _, nd := range c.nodes {
		if nd.alive() {
			return nd.status(ctx)
		}
	}
	return Status{}, errors.New("dqlite: no node of the cluster is running")
}

// Roles of the nodes a fault can strike.
const (
	Leader   = "leader"
	Follower = "follower"
)

// Kill sends SIGKILL to the leader's process or to a follower's (the
// last live one that is not the leader), and returns its address.
func (c *Cluster) Kill(ctx context.Context, role string) (string, error) {
	st, err := c.Status(ctx)
	if err != nil {
		return "", err
	}
	if st.Leader == "" {
		return "", errors.New("dqlite: the cluster has no leader to tell the roles apart")
	}
	var victim *node
	for _, nd := range c.nodes {
		if !nd.alive() || (role == Leader) != (nd.addr == st.Leader) {
			continue
		}
		victim = nd
	}
	if victim == nil {
		return "", fmt.Errorf("dqlite: no live %s to kill", role)
	}
	victim.mu.Lock()
	victim.killed = true
	victim.mu.Unlock()
	victim.child.Kill()
	<-victim.waited
	return victim.addr, nil
}

// Report is the cluster's figures after a run, read while the nodes run
// (the leader and the members) and after they have stopped (each node's
// last Raft log index and the bytes of its data directory). It stops the
// nodes; Destroy removes them.
func (c *Cluster) Report(ctx context.Context) ([]engine.Figure, []string) {
	if c.dir == "" {
		return nil, nil
	}
	var notes []string
	st, err := c.Status(ctx)
	switch {
	case err != nil:
		notes = append(notes, "dqlite: the cluster did not answer after the run: "+err.Error())
	case st.Leader != "":
		notes = append(notes, fmt.Sprintf("dqlite leader %s (node %d of %d); go-dqlite's driver sends every statement to the leader, the followers apply the Raft log",
			st.Leader, c.index(st.Leader), len(c.addrs)))
	}
	c.stop()
	var figs []engine.Figure
	var idx []string
	for _, nd := range c.nodes {
		last := LastIndex(nd.dir)
		figs = append(figs, engine.Figure{Name: fmt.Sprintf("node%d_raft_index", nd.n), Unit: "entries", Value: float64(last)},
			engine.Figure{Name: fmt.Sprintf("node%d_disk", nd.n), Unit: "B", Value: float64(dirBytes(nd.dir))})
		role := "follower"
		switch {
		case nd.killed:
			role = "killed"
		case nd.addr == st.Leader:
			role = "leader"
		}
		idx = append(idx, fmt.Sprintf("node%d %s %s: %d", nd.n, nd.addr, role, last))
	}
	notes = append(notes, "dqlite Raft log index per node at the end: "+strings.Join(idx, ", "))
	return figs, notes
}

func (c *Cluster) index(addr string) int {
	for i, a := range c.addrs {
		if a == addr {
			return i + 1
		}
	}
	return 0
}

// stop closes every live node's input, which closes the node (its Raft
// log is finalised), and kills those that have not exited in time.
func (c *Cluster) stop() {
	for _, nd := range c.nodes {
		nd.in.Close()
	}
	deadline := time.NewTimer(stopGrace)
	defer deadline.Stop()
	late := false
	for _, nd := range c.nodes {
		if !late {
			select {
			case <-nd.waited:
				continue
			case <-deadline.C:
				// The deadline fires once: every node still running
				// from here on is killed.
				late = true
			}
		}
		select {
		case <-nd.waited:
		default:
			nd.child.Kill()
			<-nd.waited
		}
	}
}

// Destroy stops the nodes and removes their directories, unless the
// request kept them.
func (c *Cluster) Destroy() error {
	if c.dir == "" {
		return nil
	}
	c.stop()
	if c.keep {
		return nil
	}
	return os.RemoveAll(c.dir)
}

// Exec runs a statement on the cluster through the worker binary's query
// mode (litebench itself links no dqlite client).
func (c *Cluster) Exec(ctx context.Context, q string) error {
	_, err := c.query(ctx, "exec", q)
	return err
}

// Strings returns the first column of every row of q, read through the
// worker binary's query mode.
func (c *Cluster) Strings(ctx context.Context, q string) ([]string, error) {
	return c.query(ctx, "query", q)
}

func (c *Cluster) query(ctx context.Context, mode, q string) ([]string, error) {
	args, err := c.command()
	if err != nil {
		return nil, err
	}
	args = append(args, mode, c.String(), q)
	cmd := exec.Command(args[0], args[1:]...)
	stderr := proc.NewTail(4 << 10)
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	err = proc.Run(ctx, cmd)
	out := stdout.Bytes()
	if err != nil {
		return nil, fmt.Errorf("dqlite %s: %v: %s", mode, err, strings.TrimSpace(stderr.String()))
	}
	var rows []string
	if err := json.Unmarshal(out, &rows); err != nil {
		return nil, fmt.Errorf("dqlite %s: %v", mode, err)
	}
	return rows, nil
}

// LastIndex is the last Raft log index a stopped node's directory holds:
// the end of its last closed segment (named FIRST-LAST) or of its last
// snapshot (snapshot-TERM-INDEX-TIME), whichever is later.
func LastIndex(dir string) uint64 {
	ents, _ := os.ReadDir(dir)
	var last uint64
	for _, e := range ents {
		name := e.Name()
		var v uint64
		if a, b, ok := strings.Cut(name, "-"); ok && len(a) == 16 && len(b) == 16 {
			v, _ = strconv.ParseUint(b, 10, 64)
		} else if rest, ok := strings.CutPrefix(name, "snapshot-"); ok && !strings.HasSuffix(name, ".meta") {
			if f := strings.Split(rest, "-"); len(f) == 3 {
				v, _ = strconv.ParseUint(f[1], 10, 64)
			}
		}
		last = max(last, v)
	}
	return last
}

func dirBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// Nodes are the nodes' addresses with their process ids (0 once gone),
// in start order.
func (c *Cluster) Nodes() map[string]int {
	m := map[string]int{}
	for _, nd := range c.nodes {
		pid := 0
		if nd.alive() {
			pid = nd.child.Pid()
		}
		m[nd.addr] = pid
	}
	return m
}

// Dir is the directory holding the nodes' data ("" for a cluster this
// process did not start).
func (c *Cluster) Dir() string { return c.dir }
