// Command pgx-plain is the plain loop litebench's PostgreSQL point reads
// are held against: N goroutines, each with a pgx connection of its own,
// running pgbench's select-only transaction (a random account's balance,
// by a prepared statement) for a duration, with nothing else: no
// histogram, no harness. It prints the transactions per second and the
// process's CPU per transaction (user and system), the figures
// scripts/compare-pgbench sets beside pgbench's and litebench's. With
// -pgconn the loop runs the statement on pgx's protocol layer (pgconn),
// the layer litebench's prepared statements of plain types run on.
//
//	go run ./scripts/pgx-plain -dsn URL [-c 8] [-d 10s] [-blocking] [-pgconn]
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/litebench/litebench/internal/engine/server"
)

func main() {
	dsn := flag.String("dsn", "", "PostgreSQL URL of a database with pgbench's tables (pgbench -i)")
	clients := flag.Int("c", 8, "connections, one goroutine each")
	dur := flag.Duration("d", 10*time.Second, "how long")
	blocking := flag.Bool("blocking", true, "blocking sockets, as litebench's postgres target uses")
	low := flag.Bool("pgconn", false, "run the statement through pgconn (pgx's protocol layer) instead of pgx.Conn")
	flag.Parse()
	if *dsn == "" {
		fmt.Fprintln(os.Stderr, "pgx-plain: -dsn URL is required")
		os.Exit(2)
	}
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(*dsn)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgx-plain:", err)
		os.Exit(2)
	}
	if *blocking {
		cfg.DialFunc = server.DialBlocking
	}
	var conns []*pgx.Conn
	var accounts int64
	for range *clients {
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			fmt.Fprintln(os.Stderr, "pgx-plain:", err)
			os.Exit(1)
		}
		if _, err := c.Prepare(ctx, "sel", "SELECT abalance FROM pgbench_accounts WHERE aid = $1"); err != nil {
			fmt.Fprintln(os.Stderr, "pgx-plain:", err)
			os.Exit(1)
		}
		conns = append(conns, c)
	}
	if err := conns[0].QueryRow(ctx, "SELECT count(*) FROM pgbench_accounts").Scan(&accounts); err != nil {
		fmt.Fprintln(os.Stderr, "pgx-plain:", err)
		os.Exit(1)
	}
	var n atomic.Int64
	var wg sync.WaitGroup
	u0, s0 := cpu()
	cpu0 := times{u0, s0}
	start := time.Now()
	end := start.Add(*dur)
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), 1))
			var bal int32
			var k int64
			if *low {
				pc := c.PgConn()
				var arg [1][]byte
				var buf [20]byte
				for time.Now().Before(end) {
					arg[0] = strconv.AppendInt(buf[:0], r.Int64N(accounts)+1, 10)
					rr := pc.ExecPrepared(ctx, "sel", arg[:], nil, nil)
					for rr.NextRow() {
						v := rr.Values()
						if len(v) != 1 {
							os.Exit(1)
						}
					}
					if _, err := rr.Close(); err != nil {
						fmt.Fprintln(os.Stderr, "pgx-plain:", err)
						os.Exit(1)
					}
					k++
				}
				n.Add(k)
				return
			}
			for time.Now().Before(end) {
				if err := c.QueryRow(ctx, "sel", r.Int64N(accounts)+1).Scan(&bal); err != nil {
					fmt.Fprintln(os.Stderr, "pgx-plain:", err)
					os.Exit(1)
				}
				k++
			}
			n.Add(k)
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	u, s := cpu()
	tx := float64(n.Load())
	fmt.Printf("%.0f tx/s  %.2f us/tx CPU (user %.2f, system %.2f)\n", tx/wall.Seconds(),
		float64(u-cpu0.u+s-cpu0.s)/tx/1e3, float64(u-cpu0.u)/tx/1e3, float64(s-cpu0.s)/tx/1e3)
}

type times struct{ u, s time.Duration }

func cpu() (u, s time.Duration) {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru) //nolint:errcheck
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
