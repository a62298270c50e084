package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/litebench/litebench/internal/engine"
)

// DBName is the name of the database litebench creates for run: the
// prefix litebench_ and the run id in lower-case letters, digits and
// underscores.
func DBName(run string) string {
	var b strings.Builder
	b.WriteString("litebench_")
	for _, r := range strings.ToLower(run) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > 63 {
		s = s[:63]
	}
	return s
}

// Database is a database litebench created on a server for one run. It
// drops that database, by the name it created it under, and nothing else.
type Database struct {
	Name string
	// Addr names the server in messages (its URL without password).
	Addr string
	// Admin reaches the server for creating, measuring and dropping.
	Admin *sql.DB
	// Drop drops the database; Size reads its size in bytes; Restamp
	// marks it kept.
	Drop, Size, Restamp string
	// DropUser drops the run's own user, KeepUser marks it kept (nil
	// when there is none).
	DropUser, KeepUser func(context.Context) error
	// Keep leaves it on the server.
	Keep bool
	// Private are the run's own servers, stopped after the drop (nil when
	// the sweep's servers serve it).
	Private *engine.Servers
	created bool
}

// Create runs the statements that create the database (the first must
// create it: a name taken fails there, and nothing is dropped).
func (d *Database) Create(ctx context.Context, stmts ...string) error {
	for i, q := range stmts {
		if _, err := d.Admin.ExecContext(ctx, q); err != nil {
			if i == 0 {
				return fmt.Errorf("creating database %s on %s: %w", d.Name, d.Addr, err)
			}
			d.Destroy()
			return fmt.Errorf("marking database %s on %s: %w", d.Name, d.Addr, err)
		}
		d.created = true
	}
	return nil
}

// Probe reads the database's size from the server.
func (d *Database) Probe() (engine.Probe, bool) {
	if d.Admin == nil || d.Size == "" {
		return engine.Probe{}, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var n sql.NullInt64
	if err := d.Admin.QueryRowContext(ctx, d.Size).Scan(&n); err != nil {
		return engine.Probe{}, false
	}
	return engine.Probe{DB: n.Int64}, true
}

// Destroy drops the database litebench created (unless kept) and stops
// the run's own servers.
func (d *Database) Destroy() error {
	var errs []error
	if d.created && d.Admin != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if d.Keep {
			// Kept: stamped so that no later run takes it for a killed
			// run's.
			if d.Restamp != "" {
				if _, err := d.Admin.ExecContext(ctx, d.Restamp); err != nil {
					errs = append(errs, fmt.Errorf("marking database %s on %s kept: %w", d.Name, d.Addr, err))
				}
			}
			if d.KeepUser != nil {
				errs = append(errs, d.KeepUser(ctx))
			}
		} else {
			if _, err := d.Admin.ExecContext(ctx, d.Drop); err != nil {
				errs = append(errs, fmt.Errorf("dropping database %s on %s: %w", d.Name, d.Addr, err))
			}
			if d.DropUser != nil {
				if err := d.DropUser(ctx); err != nil {
					errs = append(errs, fmt.Errorf("dropping the run's user %s on %s: %w", d.Name, d.Addr, err))
				}
			}
		}
		cancel()
		d.created = false
	} else if d.DropUser != nil && d.Admin != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		errs = append(errs, d.DropUser(ctx))
		cancel()
	}
	d.DropUser, d.KeepUser = nil, nil
	if d.Admin != nil {
		d.Admin.Close()
		d.Admin = nil
	}
	if d.Private != nil {
		errs = append(errs, d.Private.Close())
		d.Private = nil
	}
	return errors.Join(errs...)
}
