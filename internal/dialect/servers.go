package dialect

import (
	"strconv"
	"strings"
)

// Postgres is PostgreSQL's dialect: $n placeholders, BIGINT and BYTEA,
// ON CONFLICT upserts, the information schema of the current schema.
var Postgres Dialect = postgres{}

// MySQL is MariaDB's (and MySQL's) dialect: ? placeholders, BIGINT,
// LONGTEXT and LONGBLOB (VARCHAR and VARBINARY where a key or index covers
// the column, which MariaDB cannot index whole), ON DUPLICATE KEY upserts,
// the information schema of the current database.
var MySQL Dialect = mysql{}

type postgres struct{}

func (postgres) Name() string { return "postgres" }

func (postgres) Param(n int) string { return "$" + strconv.Itoa(n) }

// MaxParams is the protocol's limit: a 16-bit parameter count.
func (postgres) MaxParams() int { return 65535 }

func (postgres) Create(t Table) []string {
	return create(t, func(c Column, _ bool) string {
		switch c.Type {
		case Int, Integer:
			return "BIGINT"
		case Blob:
			return "BYTEA"
		}
		return "TEXT"
	}, "")
}

func (d postgres) Insert(table string, cols []string, rows int) string {
	return insert(d, table, cols, rows)
}

func (d postgres) Update(table string, cols []string, key string) string {
	return update(d, table, cols, key)
}

func (d postgres) Upsert(table string, cols []string, key string, set []string) string {
	return upsert(d, table, cols, " ON CONFLICT ("+key+") DO UPDATE SET ", set, func(c string) string { return "EXCLUDED." + c })
}

func (d postgres) Select(table string, cols []string, key string) string {
	return selectKey(d, table, cols, key)
}

func (postgres) TableExists(table string) string {
	return "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = " + Quote(strings.ToLower(table))
}

func (postgres) Vacuum() string     { return "VACUUM" }
func (postgres) Checkpoint() string { return "" }

func (postgres) Tables() string {
	return "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name COLLATE \"C\""
}

func (postgres) Columns(table string) string {
	return "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = " + Quote(table) + " ORDER BY ordinal_position"
}

func (postgres) Ident(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

func (d postgres) QuoteValue(col, typ string) string {
	c := d.Ident(col)
	switch kindOf(typ) {
	case Int:
		return "COALESCE(CAST(" + c + " AS text), 'NULL')"
	case Blob:
		return "COALESCE('X''' || upper(encode(" + c + ", 'hex')) || '''', 'NULL')"
	}
	return "COALESCE('''' || replace(CAST(" + c + " AS text), '''', '''''') || '''', 'NULL')"
}

func (postgres) JoinText(exprs []string) string { return strings.Join(exprs, " || ',' || ") }
func (postgres) OrderBytes(expr string) string  { return "(" + expr + ") COLLATE \"C\"" }

type mysql struct{}

func (mysql) Name() string { return "mariadb" }

func (mysql) Param(int) string { return "?" }

// MaxParams is the protocol's limit: a 16-bit parameter count.
func (mysql) MaxParams() int { return 65535 }

func (mysql) Create(t Table) []string {
	return create(t, func(c Column, keyed bool) string {
		switch {
		case c.Type == Int || c.Type == Integer:
			return "BIGINT"
		case c.Type == Blob && keyed:
			return "VARBINARY(255)"
		case c.Type == Blob:
			return "LONGBLOB"
		case keyed:
			return "VARCHAR(255)"
		}
		return "LONGTEXT"
	}, " ENGINE=InnoDB")
}

func (d mysql) Insert(table string, cols []string, rows int) string {
	return insert(d, table, cols, rows)
}

func (d mysql) Update(table string, cols []string, key string) string {
	return update(d, table, cols, key)
}

func (d mysql) Upsert(table string, cols []string, key string, set []string) string {
	return upsert(d, table, cols, " ON DUPLICATE KEY UPDATE ", set, func(c string) string { return "VALUES(" + c + ")" })
}

func (d mysql) Select(table string, cols []string, key string) string {
	return selectKey(d, table, cols, key)
}

func (mysql) TableExists(table string) string {
	return "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = " + Quote(table)
}

func (mysql) Vacuum() string     { return "" }
func (mysql) Checkpoint() string { return "" }

func (mysql) Tables() string {
	return "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE' ORDER BY CAST(table_name AS BINARY)"
}

func (mysql) Columns(table string) string {
	return "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = " + Quote(table) + " ORDER BY ordinal_position"
}

func (mysql) Ident(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

func (d mysql) QuoteValue(col, typ string) string {
	c := d.Ident(col)
	switch kindOf(typ) {
	case Int:
		return "COALESCE(CAST(" + c + " AS CHAR), 'NULL')"
	case Blob:
		return "COALESCE(CONCAT('X''', HEX(" + c + "), ''''), 'NULL')"
	}
	return "COALESCE(CONCAT('''', REPLACE(" + c + ", '''', ''''''), ''''), 'NULL')"
}

func (mysql) JoinText(exprs []string) string {
	return "CONCAT_WS(','," + strings.Join(exprs, ",") + ")"
}
func (mysql) OrderBytes(expr string) string { return "CAST(" + expr + " AS BINARY)" }
