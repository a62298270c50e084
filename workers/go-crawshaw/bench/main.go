// Command bench is the plain loop litebench-worker-crawshaw is measured
// against: crawshaw.io/sqlite used directly, without litebench's harness,
// on the same data, SQL and settings as the worker's jobs, reading the
// columns as the worker does (the integer, and the text columns' bytes
// into buffers reused from row to row). The program and its jobs are
// internal/worker/workerbench's; run.sh runs the comparison.
package main

import (
	"errors"

	"crawshaw.io/sqlite"
	"crawshaw.io/sqlite/sqlitex"

	"github.com/litebench/litebench/internal/worker/workerbench"
)

func main() {
	workerbench.Main("go-crawshaw", workerbench.Plain[*sqlite.Conn]{
		Open: open, Close: func(c *sqlite.Conn) { c.Close() }, Exec: exec, Insert: insert, Read: read})
}

func exec(c *sqlite.Conn, q string) error { return sqlitex.ExecTransient(c, q, nil) }

func open(path string) (*sqlite.Conn, error) {
	c, err := sqlite.OpenConn(path, sqlite.SQLITE_OPEN_READWRITE|sqlite.SQLITE_OPEN_CREATE|sqlite.SQLITE_OPEN_URI|sqlite.SQLITE_OPEN_NOMUTEX)
	if err != nil {
		return nil, err
	}
	for _, p := range workerbench.Pragmas {
		if err := exec(c, p); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

func insert(c *sqlite.Conn, b *workerbench.RowBuf, batch, perStmt int, m *workerbench.Meter) error {
	st, _, err := c.PrepareTransient(workerbench.InsertRows(perStmt))
	if err != nil {
		return err
	}
	defer st.Finalize()
	for start := int64(0); start < workerbench.Rows; start += int64(batch) {
		b.Fill(start, batch)
		m.Start()
		if err := exec(c, "BEGIN"); err != nil {
			return err
		}
		for k := 0; k < batch; k += perStmt {
			for j := range perStmt {
				st.BindInt64(3*j+1, b.ID[k+j])
				st.BindText(3*j+2, b.Rand[k+j])
				st.BindText(3*j+3, b.Hash[k+j])
			}
			if _, err := st.Step(); err != nil {
				return err
			}
			if err := st.Reset(); err != nil {
				return err
			}
		}
		if err := exec(c, "COMMIT"); err != nil {
			return err
		}
		m.Stop()
	}
	return nil
}

func read(c *sqlite.Conn, keys *workerbench.Keys, m *workerbench.Meter) (int64, error) {
	st, _, err := c.PrepareTransient(workerbench.SelectRow)
	if err != nil {
		return 0, err
	}
	defer st.Finalize()
	var n int64
	var rnd, hash []byte
	for m.Running() {
		st.BindInt64(1, keys.Key())
		ok, err := st.Step()
		if err != nil {
			return 0, err
		}
		if !ok {
			return 0, errors.New("a read found no row")
		}
		st.ColumnInt64(0)
		rnd = appendColumn(st, 1, rnd[:0])
		hash = appendColumn(st, 2, hash[:0])
		if err := st.Reset(); err != nil {
			return 0, err
		}
		n++
	}
	return n, nil
}

// appendColumn appends column i's bytes to dst.
func appendColumn(st *sqlite.Stmt, i int, dst []byte) []byte {
	n := st.ColumnLen(i)
	dst = append(dst, make([]byte, n)...)
	st.ColumnBytes(i, dst[len(dst)-n:])
	return dst
}
