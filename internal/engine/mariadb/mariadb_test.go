package mariadb

import (
	"errors"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/litebench/litebench/internal/engine"
)

// A deadlock and a lock wait timeout are retried like SQLITE_BUSY.
func TestClassify(t *testing.T) {
	for _, c := range []struct {
		err  error
		want engine.ErrClass
	}{
		{&mysql.MySQLError{Number: 1213}, engine.Deadlock},
		{fmt.Errorf("exec: %w", &mysql.MySQLError{Number: 1205}), engine.Busy},
		{&mysql.MySQLError{Number: 1062}, engine.Constraint},
		{&mysql.MySQLError{Number: 1146}, engine.Other},
		{mysql.ErrInvalidConn, engine.Conn},
		{errors.New("not mariadb"), engine.None},
	} {
		if got := Classify(c.err); got != c.want {
			t.Errorf("%v: %s, want %s", c.err, got, c.want)
		}
		if c.want == engine.Deadlock || c.want == engine.Busy {
			if !Classify(c.err).Retryable() {
				t.Errorf("%v is not retryable", c.err)
			}
		}
	}
}

// The user's URL becomes the driver's connection string, password and
// parameters kept.
func TestDriverDSN(t *testing.T) {
	got, err := DriverDSN("mariadb://me:p%40ss@db.example/mydb?tls=false")
	if err != nil {
		t.Fatal(err)
	}
	if want := "me:p@ss@tcp(db.example:3306)/mydb?tls=false"; got != want {
		t.Errorf("%s, want %s", got, want)
	}
}
