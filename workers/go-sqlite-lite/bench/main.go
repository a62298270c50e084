// Command bench is the plain loop litebench-worker-sqlite-lite is measured
// against: go-sqlite-lite used directly, without litebench's harness, on
// the same data, SQL and settings as the worker's jobs, reading the
// columns as the worker does (the integer, and the text columns' bytes
// into buffers reused from row to row). The program and its jobs are
// internal/worker/workerbench's; run.sh runs the comparison.
package main

import (
	"errors"

	"github.com/bvinc/go-sqlite-lite/sqlite3"

	"github.com/litebench/litebench/internal/worker/workerbench"
)

func main() {
	workerbench.Main("go-sqlite-lite", workerbench.Plain[*sqlite3.Conn]{
		Open: open, Close: func(c *sqlite3.Conn) { c.Close() },
		Exec: func(c *sqlite3.Conn, q string) error { return c.Exec(q) }, Insert: insert, Read: read})
}

func open(path string) (*sqlite3.Conn, error) {
	c, err := sqlite3.Open(path, sqlite3.OPEN_READWRITE|sqlite3.OPEN_CREATE|sqlite3.OPEN_URI|sqlite3.OPEN_NOMUTEX)
	if err != nil {
		return nil, err
	}
	for _, p := range workerbench.Pragmas {
		if err := c.Exec(p); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

func insert(c *sqlite3.Conn, b *workerbench.RowBuf, batch, perStmt int, m *workerbench.Meter) error {
	st, err := c.Prepare(workerbench.InsertRows(perStmt))
	if err != nil {
		return err
	}
	defer st.Close()
	args := make([]any, 3*perStmt)
	for start := int64(0); start < workerbench.Rows; start += int64(batch) {
		b.Fill(start, batch)
		m.Start()
		if err := c.Begin(); err != nil {
			return err
		}
		for k := 0; k < batch; k += perStmt {
			for j := range perStmt {
				args[3*j], args[3*j+1], args[3*j+2] = b.ID[k+j], b.Rand[k+j], b.Hash[k+j]
			}
			if err := st.Bind(args...); err != nil {
				return err
			}
			if _, err := st.Step(); err != nil {
				return err
			}
			if err := st.Reset(); err != nil {
				return err
			}
		}
		if err := c.Commit(); err != nil {
			return err
		}
		m.Stop()
	}
	return nil
}

func read(c *sqlite3.Conn, keys *workerbench.Keys, m *workerbench.Meter) (int64, error) {
	st, err := c.Prepare(workerbench.SelectRow)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	var n int64
	var rnd, hash []byte
	for m.Running() {
		if err := st.Bind(keys.Key()); err != nil {
			return 0, err
		}
		ok, err := st.Step()
		if err != nil {
			return 0, err
		}
		if !ok {
			return 0, errors.New("a read found no row")
		}
		if _, _, err := st.ColumnInt64(0); err != nil {
			return 0, err
		}
		b, err := st.ColumnRawBytes(1)
		if err != nil {
			return 0, err
		}
		rnd = append(rnd[:0], b...)
		if b, err = st.ColumnRawBytes(2); err != nil {
			return 0, err
		}
		hash = append(hash[:0], b...)
		if err := st.Reset(); err != nil {
			return 0, err
		}
		n++
	}
	return n, nil
}
