package dialect

import (
	"reflect"
	"strconv"
	"testing"
)

func TestSQLiteStatements(t *testing.T) {
	d := SQLite
	for _, c := range []struct{ got, want string }{
		{d.Insert("bench", []string{"ID", "rand", "hash"}, 1), "INSERT INTO bench(ID,rand,hash) VALUES (?,?,?)"},
		{d.Insert("foo", []string{"id", "name"}, 3), "INSERT INTO foo(id,name) VALUES (?,?),(?,?),(?,?)"},
		{d.Update("bench", []string{"rand", "hash"}, "ID"), "UPDATE bench SET rand = ?, hash = ? WHERE ID = ?"},
		{d.Upsert("foo", []string{"id", "name"}, "id", []string{"name"}),
			"INSERT INTO foo(id,name) VALUES (?,?) ON CONFLICT(id) DO UPDATE SET name = excluded.name"},
		{d.Select("users", []string{"id", "created_at"}, "id"), "SELECT id,created_at FROM users WHERE id = ?"},
		{d.TableExists("it's"), "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='it''s'"},
	} {
		if c.got != c.want {
			t.Errorf("got  %s\nwant %s", c.got, c.want)
		}
	}
}

func TestSQLiteCreate(t *testing.T) {
	got := SQLite.Create(Table{
		Name: "account",
		Columns: []Column{
			{Name: "id", Type: Integer, PrimaryKey: true},
			{Name: "email", Type: Text, NotNull: true, Unique: true},
			{Name: "key", Type: Blob},
			{Name: "n", Type: Int},
		},
		Indexes: []Index{{Name: "a_email", Columns: []string{"email"}}, {Name: "a_key", Columns: []string{"key", "n"}, Unique: true}},
	})
	want := []string{
		"CREATE TABLE account(id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, key BLOB, n int)",
		"CREATE INDEX a_email ON account(email)",
		"CREATE UNIQUE INDEX a_key ON account(key,n)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// numbered is a dialect whose placeholders are numbered: the builders must
// count parameters across rows and clauses.
type numbered struct{ sqlite }

func (numbered) Param(n int) string { return "$" + strconv.Itoa(n) }

func TestPlaceholdersAreNumberedAcrossRows(t *testing.T) {
	if got, want := insert(numbered{}, "t", []string{"a", "b"}, 2), "INSERT INTO t(a,b) VALUES ($1,$2),($3,$4)"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// The servers' dialects render the same statements in their own syntax.
func TestServerDialects(t *testing.T) {
	tb := Table{Name: "users", Columns: []Column{{Name: "id", Type: Blob, PrimaryKey: true}, {Name: "name", Type: Text}, {Name: "n", Type: Int}},
		Indexes: []Index{{Name: "users_name", Columns: []string{"name"}}}}
	for _, c := range []struct {
		d                      Dialect
		create, insert, upsert string
	}{
		{Postgres, "CREATE TABLE users(id BYTEA PRIMARY KEY, name TEXT, n BIGINT)",
			"INSERT INTO users(id,name) VALUES ($1,$2),($3,$4)",
			"INSERT INTO users(id,name) VALUES ($1,$2) ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name"},
		{MySQL, "CREATE TABLE users(id VARBINARY(255) PRIMARY KEY, name VARCHAR(255), n BIGINT) ENGINE=InnoDB",
			"INSERT INTO users(id,name) VALUES (?,?),(?,?)",
			"INSERT INTO users(id,name) VALUES (?,?) ON DUPLICATE KEY UPDATE name = VALUES(name)"},
	} {
		if got := c.d.Create(tb); got[0] != c.create || got[1] != "CREATE INDEX users_name ON users(name)" {
			t.Errorf("%s: %q", c.d.Name(), got)
		}
		if got := c.d.Insert("users", []string{"id", "name"}, 2); got != c.insert {
			t.Errorf("%s: %s", c.d.Name(), got)
		}
		if got := c.d.Upsert("users", []string{"id", "name"}, "id", []string{"name"}); got != c.upsert {
			t.Errorf("%s: %s", c.d.Name(), got)
		}
	}
}
