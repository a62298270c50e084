package main

// #cgo LDFLAGS: -ldqlite
// #include <dqlite.h>
import "C"

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"syscall"

	"github.com/canonical/go-dqlite/client"
	dqdriver "github.com/canonical/go-dqlite/driver"

	"github.com/litebench/litebench/internal/engine"
	"github.com/litebench/litebench/internal/engine/dqlite"
	"github.com/litebench/litebench/internal/engine/sqlite"
	"github.com/litebench/litebench/internal/target"
)

// Name is the target's name; module the driver's Go module.
const (
	Name   = "dqlite"
	module = "github.com/canonical/go-dqlite"
)

func init() {
	dqlite.LibVersion = libVersion()
	target.Register(dqClient{})
}

// libVersion is the libdqlite this binary links.
func libVersion() string {
	n := int(C.dqlite_version_number())
	return fmt.Sprintf("%d.%d.%d", n/10000, n/100%100, n%100)
}

// dqClient is go-dqlite's database/sql driver as a litebench client.
type dqClient struct{}

func (dqClient) Name() string             { return Name }
func (dqClient) Engine() string           { return dqlite.Name }
func (dqClient) API() string              { return "database/sql" }
func (dqClient) Module() string           { return module }
func (dqClient) Version() (string, error) { return libVersion(), nil }

// Open connects to the cluster the endpoint names: a driver per pool,
// whose node store holds the cluster's addresses (the driver finds the
// leader among them, and finds it again after a leader change).
func (dqClient) Open(ctx context.Context, ep engine.Endpoint, p target.PoolOptions) (target.DB, error) {
	drv, db, err := newDriver(ctx, ep.DSN)
	if err != nil {
		return nil, err
	}
	sc := &target.SQLClient{ClientName: Name, ModulePath: module, EngineName: dqlite.Name, Driver: drv,
		DSN: func(engine.Endpoint, target.PoolOptions) string { return db }, Native: classify}
	return sc.Open(ctx, ep, p)
}

func newDriver(ctx context.Context, dsn string) (*dqdriver.Driver, string, error) {
	addrs, db, err := dqlite.ParseDSN(dsn)
	if err != nil {
		return nil, "", err
	}
	store := client.NewInmemNodeStore()
	var infos []client.NodeInfo
	for _, a := range addrs {
		infos = append(infos, client.NodeInfo{Address: a})
	}
	if err := store.Set(ctx, infos); err != nil {
		return nil, "", err
	}
	drv, err := dqdriver.New(store)
	return drv, db, err
}

func (dqClient) Classify(err error) engine.ErrClass { return classify(err) }

// SQLite's extended codes by which dqlite says a node is not (or no
// longer) the leader: SQLITE_IOERR_NOT_LEADER and
// SQLITE_IOERR_LEADERSHIP_LOST, and their codes before dqlite 1.10.
var notLeader = map[int]bool{10 | 40<<8: true, 10 | 41<<8: true, 10 | 32<<8: true, 10 | 33<<8: true}

// classify reads dqlite's errors. A leader change (the driver's bad
// connection once it has retried, no leader available, not leader,
// leadership lost) is busy: the cluster cannot take the statement now and
// may take it again, so it is counted as busy and retried per
// --busy-retry. SQLite's own codes (SQLITE_BUSY, constraints) are
// SQLite's classes.
func classify(err error) engine.ErrClass {
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, dqdriver.ErrNoAvailableLeader) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		// The connection to the leader broke (it died or stepped down)
		// while a request was out: the driver discards the connection
		// when it is next used and finds the new leader.
		return engine.Busy
	}
	var e dqdriver.Error
	if errors.As(err, &e) {
		if notLeader[e.Code] {
			return engine.Busy
		}
		return sqlite.Classify(e.Code)
	}
	return engine.None
}
