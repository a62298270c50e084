package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	dqlitego "github.com/canonical/go-dqlite"
	"github.com/canonical/go-dqlite/app"
	"github.com/canonical/go-dqlite/client"

	"github.com/litebench/litebench/internal/engine/dqlite"
)

// runNode runs one node of a cluster until its input closes or a signal
// comes: it bootstraps the cluster (no --join) or joins it, says ready
// once it has, and answers each "status" line on its input with the
// cluster as the leader sees it. Messages are JSON lines (dqlite.Status).
func runNode(ctx context.Context, args []string, in io.Reader, out io.Writer) error {
	fs := flag.NewFlagSet("node", flag.ContinueOnError)
	dir := fs.String("dir", "", "data directory")
	addr := fs.String("address", "", "address to bind, HOST:PORT")
	join := fs.String("join", "", "address of a node of the cluster to join")
	voters := fs.Int("voters", 3, "voters the cluster should have")
	threshold := fs.Uint("snapshot-threshold", 0, "Raft log entries between snapshots (0: dqlite's default)")
	trailing := fs.Uint("snapshot-trailing", 0, "Raft log entries kept after a snapshot (0: dqlite's default)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || *addr == "" {
		return errors.New("node: --dir and --address are required")
	}
	enc := json.NewEncoder(out)
	// The input is read from the start: its end stops the node at any
	// point, while it forms the cluster too (the controller, stopping on
	// Ctrl-C, closes it and waits a moment only).
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	lines := make(chan string)
	go func() {
		defer stop()
		defer close(lines)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	opts := []app.Option{app.WithAddress(*addr), app.WithVoters(*voters),
		// Promote joining nodes within a tenth of a second, not go-dqlite's
		// 30 s, so that a cluster is whole soon after it starts.
		app.WithRolesAdjustmentFrequency(100 * time.Millisecond)}
	if *join != "" {
		opts = append(opts, app.WithCluster([]string{*join}))
	}
	if *threshold > 0 || *trailing > 0 {
		p := dqlitego.SnapshotParams{Threshold: 1024, Trailing: 8192}
		if *threshold > 0 {
			p.Threshold = uint64(*threshold)
		}
		if *trailing > 0 {
			p.Trailing = uint64(*trailing)
		}
		opts = append(opts, app.WithSnapshotParams(p))
	}
	a, err := app.New(*dir, opts...)
	if err != nil {
		enc.Encode(dqlite.Status{T: "error", Error: err.Error()})
		return err
	}
	defer a.Close()
	rctx, cancel := context.WithTimeout(ctx, time.Minute)
	err = a.Ready(rctx)
	cancel()
	if err != nil {
		enc.Encode(dqlite.Status{T: "error", Error: "not ready: " + err.Error()})
		return err
	}
	enc.Encode(dqlite.Status{T: "ready", ID: a.ID(), Addr: a.Address()})

	for {
		select {
		case <-ctx.Done():
			return nil
		case l, ok := <-lines:
			if !ok {
				return nil // the controller closed our input: stop
			}
			if l == "status" {
				enc.Encode(status(ctx, a))
			}
		}
	}
}

// status is the cluster as the leader lists it.
func status(ctx context.Context, a *app.App) dqlite.Status {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st := dqlite.Status{T: "status", ID: a.ID(), Addr: a.Address()}
	cli, err := a.Leader(ctx)
	if err != nil {
		st.Error = "no leader: " + err.Error()
		return st
	}
	defer cli.Close()
	l, err := cli.Leader(ctx)
	if err != nil {
		st.Error = err.Error()
		return st
	}
	if l != nil {
		st.Leader = l.Address
	}
	nodes, err := cli.Cluster(ctx)
	if err != nil {
		st.Error = err.Error()
		return st
	}
	for _, n := range nodes {
		st.Nodes = append(st.Nodes, dqlite.NodeStatus{ID: n.ID, Addr: n.Address, Role: roleName(n.Role)})
	}
	return st
}

func roleName(r client.NodeRole) string {
	switch r {
	case client.Voter:
		return "voter"
	case client.StandBy:
		return "stand-by"
	case client.Spare:
		return "spare"
	}
	return r.String()
}

// runQuery runs one statement on a cluster: exec runs it, query prints
// the first column of every row as a JSON array of strings.
func runQuery(ctx context.Context, mode string, args []string, out io.Writer) error {
	if len(args) != 2 {
		return fmt.Errorf("%s: want DSN and SQL", mode)
	}
	drv, name, err := newDriver(ctx, args[0])
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cn, err := drv.OpenConnector(name)
	if err != nil {
		return err
	}
	db := sql.OpenDB(cn)
	defer db.Close()
	rows := []string{}
	if mode == "exec" {
		if _, err := db.ExecContext(ctx, args[1]); err != nil {
			return err
		}
	} else {
		rs, err := db.QueryContext(ctx, args[1])
		if err != nil {
			return err
		}
		cols, _ := rs.Columns()
		vals := make([]any, len(cols))
		var s sql.NullString
		vals[0] = &s
		for i := 1; i < len(vals); i++ {
			vals[i] = new(any)
		}
		for rs.Next() {
			if err := rs.Scan(vals...); err != nil {
				return err
			}
			rows = append(rows, s.String)
		}
		if err := rs.Err(); err != nil {
			return err
		}
	}
	return json.NewEncoder(out).Encode(rows)
}
