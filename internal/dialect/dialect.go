// Package dialect renders the SQL text that differs between engines:
// placeholders, column types and table definitions, inserts, updates and
// upserts, and catalog queries. Workloads build every statement here, so a
// new engine brings its dialect and leaves the workloads alone.
package dialect

import "strings"

// Type is a column's type, by what it holds rather than by an engine's
// spelling.
type Type uint8

const (
	// Int is a plain integer column. As a primary key it is an ordinary
	// unique key (on SQLite: not the table's rowid, so the table keeps a
	// separate index, as sqlite3perf's bench table does).
	Int Type = iota
	// Integer is an integer column that, as the primary key, is the table's
	// own row id (SQLite's INTEGER PRIMARY KEY): a row inserted without it
	// is given one, on every engine (PostgreSQL's identity, MariaDB's
	// AUTO_INCREMENT; see AutoKey).
	Integer
	// Text is character data.
	Text
	// Blob is binary data.
	Blob
)

// Column is one column of a table.
type Column struct {
	Name       string
	Type       Type
	PrimaryKey bool
	NotNull    bool
	Unique     bool
}

// Index is a secondary index.
type Index struct {
	Name    string
	Columns []string
	Unique  bool
}

// Table is a table definition.
type Table struct {
	Name    string
	Columns []Column
	Indexes []Index
}

// Dialect renders statements for one engine.
type Dialect interface {
	// Name is the engine's name ("sqlite").
	Name() string
	// Param is the placeholder of the n-th bound parameter, from 1.
	Param(n int) string
	// MaxParams is the most bound parameters one statement may have.
	MaxParams() int
	// Create returns the statements that create t and its indexes.
	Create(t Table) []string
	// Loaded returns the statements to run after rows were loaded into t
	// with their keys given, so that a row inserted later without its
	// automatically assigned key (AutoKey) gets one past them (nil when
	// the engine sees to it itself).
	Loaded(t Table) []string
	// Insert inserts rows rows of cols in one statement.
	Insert(table string, cols []string, rows int) string
	// Update sets cols of the row whose key column equals the last
	// parameter.
	Update(table string, cols []string, key string) string
	// Upsert inserts one row of cols or, when key exists, sets set to the
	// values it would have inserted.
	Upsert(table string, cols []string, key string, set []string) string
	// Select reads cols of the row whose key column equals the parameter.
	Select(table string, cols []string, key string) string
	// TableExists is a query whose one row counts the tables named table
	// (0 or 1).
	TableExists(table string) string
	// Begin is the statement the engine's clients begin a transaction
	// with under the tx setting (deferred or immediate; docs/engines.md):
	// on an engine without SQLite's begin modes, its one read-write begin.
	Begin(tx string) string
	// Vacuum rebuilds the database compactly ("" when the engine cannot).
	Vacuum() string
	// Checkpoint moves every committed change into the main database so
	// that a reader that ignores the log sees them ("" when there is
	// nothing to do).
	Checkpoint() string

	// Catalog queries and expressions for a content digest that is the
	// same on every engine (see Digest in package worker).

	// Tables is a query whose rows name the user tables.
	Tables() string
	// Columns is a query whose rows are the name and declared type of
	// each column of table, in order.
	Columns(table string) string
	// Ident quotes an identifier.
	Ident(name string) string
	// QuoteValue is an expression that renders column col, declared as
	// typ, as SQLite's quote() does: NULL, a decimal integer, 'text' with
	// quotes doubled, X'HEX' for bytes.
	QuoteValue(col, typ string) string
	// JoinText is an expression joining text expressions with commas.
	JoinText(exprs []string) string
	// OrderBytes is an ORDER BY term sorting by text expression expr
	// bytewise.
	OrderBytes(expr string) string
}

// SQLite is SQLite's dialect.
var SQLite Dialect = sqlite{}

type sqlite struct{}

func (sqlite) Name() string { return "sqlite" }

func (sqlite) Param(int) string { return "?" }

// MaxParams is SQLITE_MAX_VARIABLE_NUMBER's default since 3.32.
func (sqlite) MaxParams() int { return 32766 }

func (d sqlite) Create(t Table) []string {
	return create(t, func(c Column, _ bool) string { return d.typeName(c.Type) }, "")
}

// Loaded is nil: SQLite gives a new row one more than the largest key.
func (sqlite) Loaded(Table) []string { return nil }

// AutoKey returns t's column whose value the engine assigns to a row
// inserted without it: an Integer primary key (nil for none).
func AutoKey(t Table) *Column {
	for i, c := range t.Columns {
		if c.PrimaryKey && c.Type == Integer {
			return &t.Columns[i]
		}
	}
	return nil
}

func (sqlite) typeName(t Type) string {
	switch t {
	case Int:
		return "int"
	case Integer:
		return "INTEGER"
	case Blob:
		return "BLOB"
	}
	return "TEXT"
}

func (d sqlite) Insert(table string, cols []string, rows int) string {
	return insert(d, table, cols, rows)
}

func (d sqlite) Update(table string, cols []string, key string) string {
	return update(d, table, cols, key)
}

// update renders an UPDATE of cols by key with d's placeholders.
func update(d Dialect, table string, cols []string, key string) string {
	var b strings.Builder
	b.WriteString("UPDATE " + table + " SET ")
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c + " = " + d.Param(i+1))
	}
	b.WriteString(" WHERE " + key + " = " + d.Param(len(cols)+1))
	return b.String()
}

func (d sqlite) Upsert(table string, cols []string, key string, set []string) string {
	return upsert(d, table, cols, " ON CONFLICT("+key+") DO UPDATE SET ", set, func(c string) string { return "excluded." + c })
}

// upsert renders a one-row INSERT followed by clause and the assignments
// of set, each to val of its column.
func upsert(d Dialect, table string, cols []string, clause string, set []string, val func(col string) string) string {
	var b strings.Builder
	b.WriteString(insert(d, table, cols, 1))
	b.WriteString(clause)
	for i, c := range set {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c + " = " + val(c))
	}
	return b.String()
}

func (d sqlite) Select(table string, cols []string, key string) string {
	return selectKey(d, table, cols, key)
}

func selectKey(d Dialect, table string, cols []string, key string) string {
	return "SELECT " + strings.Join(cols, ",") + " FROM " + table + " WHERE " + key + " = " + d.Param(1)
}

func (sqlite) TableExists(table string) string {
	return "SELECT count(*) FROM sqlite_master WHERE type='table' AND name=" + Quote(table)
}

// Begin is BEGIN; BEGIN IMMEDIATE, which takes the database's write lock
// at once (one writing transaction at a time); or BEGIN EXCLUSIVE, which
// also keeps readers out in a rollback journal mode (in WAL mode it is
// IMMEDIATE).
func (sqlite) Begin(tx string) string {
	switch tx {
	case "immediate":
		return "BEGIN IMMEDIATE"
	case "exclusive":
		return "BEGIN EXCLUSIVE"
	}
	return "BEGIN"
}

func (sqlite) Vacuum() string     { return "VACUUM" }
func (sqlite) Checkpoint() string { return "PRAGMA wal_checkpoint(TRUNCATE)" }

func (sqlite) Tables() string {
	return "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
}

func (sqlite) Columns(table string) string {
	return "SELECT name, type FROM pragma_table_info(" + Quote(table) + ") ORDER BY cid"
}

func (sqlite) Ident(name string) string          { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }
func (d sqlite) QuoteValue(col, _ string) string { return "quote(" + d.Ident(col) + ")" }
func (sqlite) JoinText(exprs []string) string    { return strings.Join(exprs, "||','||") }
func (sqlite) OrderBytes(string) string          { return "1" }

// kindOf reads a server's declared column type as what it holds.
func kindOf(typ string) Type {
	t := strings.ToLower(typ)
	switch {
	case strings.Contains(t, "int"):
		return Int
	case strings.Contains(t, "bytea"), strings.Contains(t, "blob"), strings.Contains(t, "binary"):
		return Blob
	}
	return Text
}

// keyed returns the columns of t that a key or an index covers.
func keyed(t Table) map[string]bool {
	k := map[string]bool{}
	for _, c := range t.Columns {
		if c.PrimaryKey || c.Unique {
			k[c.Name] = true
		}
	}
	for _, ix := range t.Indexes {
		for _, c := range ix.Columns {
			k[c] = true
		}
	}
	return k
}

// create renders t with the column types typ gives, for the servers.
func create(t Table, typ func(c Column, keyed bool) string, suffix string) []string {
	k := keyed(t)
	var b strings.Builder
	b.WriteString("CREATE TABLE " + t.Name + "(")
	for i, c := range t.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.Name + " " + typ(c, k[c.Name]))
		if c.PrimaryKey {
			b.WriteString(" PRIMARY KEY")
		}
		if c.NotNull {
			b.WriteString(" NOT NULL")
		}
		if c.Unique {
			b.WriteString(" UNIQUE")
		}
	}
	b.WriteString(")" + suffix)
	return append([]string{b.String()}, CreateIndexes(t)...)
}

// CreateIndexes renders the CREATE INDEX statements of t's indexes, the
// same on every engine (for a table whose own DDL a workload gives).
func CreateIndexes(t Table) []string {
	var out []string
	for _, ix := range t.Indexes {
		u := ""
		if ix.Unique {
			u = "UNIQUE "
		}
		out = append(out, "CREATE "+u+"INDEX "+ix.Name+" ON "+t.Name+"("+strings.Join(ix.Columns, ",")+")")
	}
	return out
}

// insert renders a multi-row INSERT with d's placeholders, numbered
// across the rows.
func insert(d Dialect, table string, cols []string, rows int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + table + "(" + strings.Join(cols, ",") + ") VALUES ")
	n := 0
	for r := 0; r < rows; r++ {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for c := range cols {
			if c > 0 {
				b.WriteByte(',')
			}
			n++
			b.WriteString(d.Param(n))
		}
		b.WriteByte(')')
	}
	return b.String()
}

// Quote renders s as an SQL string literal.
func Quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
