package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A migration step that fails half-way leaves the database at the version
// before it, with none of the step's tables; the next open with the good
// steps completes it.
func TestMigrationAtomic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	ctx := context.Background()
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	broken := append(append([]string{}, migrations...),
		"CREATE TABLE half(x INTEGER); INSERT INTO half VALUES (1); CREATE INDEX nope ON missing(x);")
	err = db.migrate(ctx, broken)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("migrating to version %d", len(migrations)+1)) {
		t.Fatalf("got %v; want the failing step named", err)
	}
	v, err := db.version(ctx, db.db)
	if err != nil || v != len(migrations) {
		t.Errorf("version after the failed step: %d (%v); want %d", v, err, len(migrations))
	}
	var n int
	if err := db.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE name = 'half'").Scan(&n); err != nil || n != 0 {
		t.Errorf("the failed step left table half behind (%d, %v)", n, err)
	}
	db.Close()

	// A fresh file whose first step fails stays empty.
	fresh := filepath.Join(t.TempDir(), "fresh.db")
	db, err = Open(ctx, fresh, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.db.ExecContext(ctx, "PRAGMA user_version = 0; DROP TABLE events; DROP TABLE trajectories; DROP TABLE results; DROP TABLE campaign_jobs; DROP TABLE jobs; DROP TABLE campaigns"); err != nil {
		t.Fatal(err)
	}
	if err := db.migrate(ctx, []string{migrations[0] + "\nCREATE TABLE campaigns(x);"}); err == nil {
		t.Fatal("a failing first step succeeded")
	}
	if err := db.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil || n != 0 {
		t.Errorf("the failed first step left %d schema objects (%v)", n, err)
	}
	db.Close()
	db, err = Open(ctx, fresh, Options{})
	if err != nil {
		t.Fatalf("reopening after the failed step: %v", err)
	}
	if v, _ := db.version(ctx, db.db); v != Version() {
		t.Errorf("version %d after reopening; want %d", v, Version())
	}
	db.Close()
}
