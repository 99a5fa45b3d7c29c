// Package store keeps campaigns, jobs, results and trajectories in an
// embedded SQLite database (modernc.org/sqlite: pure Go, no cgo), in WAL
// mode so that `shakedown campaign status` can read while a campaign
// writes.
//
// Writes are idempotent and keyed by job id: a job is stored once however
// many campaigns hold it, and a result put twice for one job (a redelivered
// NATS message, a re-run after a crash) is recorded once; only a
// successful result replaces a failed one. Every write is one transaction,
// so a process killed mid-campaign leaves whole rows only, and a re-run
// skips what is done. The schema is versioned with PRAGMA user_version and
// migrated step by step, each step in one transaction with its version
// bump: a database is never left half-migrated.
//
// *DB implements campaign.Store.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/shakedown-robotics/shakedown/campaign"
	"github.com/shakedown-robotics/shakedown/run"
)

// Errors of the package.
var (
	// ErrCorrupt is a file that is not a Shakedown database or is damaged.
	ErrCorrupt = errors.New("store: not a Shakedown database, or a damaged one")
	// ErrNewer is a database written by a newer version of Shakedown.
	ErrNewer = errors.New("store: database written by a newer Shakedown")
	// ErrNotFound is a campaign that is not in the database.
	ErrNotFound = errors.New("store: no such campaign")
	// ErrAmbiguous is a campaign id prefix that names several campaigns.
	ErrAmbiguous = errors.New("store: ambiguous campaign id")
)

// Options configure Open. The zero value opens read-write, creating the
// file if needed.
type Options struct {
	// ReadOnly opens an existing database for reading only; it must be at
	// the current schema version.
	ReadOnly bool
	// Now stamps campaigns and results; nil means time.Now.
	Now func() time.Time
}

// DB is an open results database. Its methods may be called from several
// goroutines; they are serialised on one connection.
type DB struct {
	db   *sql.DB
	path string
	now  func() time.Time
}

var _ campaign.Store = (*DB)(nil)

// Open opens (or creates) the database at path and brings its schema to
// the current version. A file that is not a Shakedown database, or fails
// SQLite's integrity check (quick_check), is an error wrapping ErrCorrupt,
// and is left as it was.
func Open(ctx context.Context, path string, opt Options) (*DB, error) {
	if path == "" {
		return nil, errors.New("store: no database file given")
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, fmt.Errorf("store: %s is a folder, not a database file", path)
	} else if err != nil && (opt.ReadOnly || !errors.Is(err, os.ErrNotExist)) {
		return nil, fmt.Errorf("store: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	if opt.ReadOnly {
		q.Set("mode", "ro")
	} else {
		// journal_mode(WAL) is set by init once the file is known to be
		// ours: it is written into the file.
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Set("_txlock", "immediate")
	}
	dsn := (&url.URL{Scheme: "file", OmitHost: true, Path: filepath.ToSlash(abs), RawQuery: q.Encode()}).String()
	sdb, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	sdb.SetMaxOpenConns(1)
	d := &DB{db: sdb, path: path, now: opt.Now}
	if d.now == nil {
		d.now = time.Now
	}
	if err := d.init(ctx, opt.ReadOnly); err != nil {
		sdb.Close()
		return nil, err
	}
	return d, nil
}

// Close closes the database.
func (d *DB) Close() error { return d.db.Close() }

// Path is the file the database was opened from.
func (d *DB) Path() string { return d.path }

// wrap turns SQLite's "not a database" and "corrupt" into ErrCorrupt.
func (d *DB) wrap(err error) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
			return fmt.Errorf("%w: %s: %v", ErrCorrupt, d.path, err)
		}
	}
	return fmt.Errorf("store: %s: %w", d.path, err)
}

// Version is the schema version this package writes.
func Version() int { return len(migrations) }

func (d *DB) version(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int, error) {
	var v int
	err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, d.wrap(err)
}

// init checks the file and migrates it.
func (d *DB) init(ctx context.Context, readOnly bool) error {
	v, err := d.version(ctx, d.db)
	if err != nil {
		return err
	}
	if v > len(migrations) {
		return fmt.Errorf("%w: %s has schema version %d; this one knows up to %d", ErrNewer, d.path, v, len(migrations))
	}
	if v == 0 {
		var n int
		if err := d.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'").Scan(&n); err != nil {
			return d.wrap(err)
		}
		if n > 0 {
			return fmt.Errorf("%w: %s holds other tables and no Shakedown schema version", ErrCorrupt, d.path)
		}
	}
	if err := d.quickCheck(ctx); err != nil {
		return err
	}
	if readOnly {
		if v < len(migrations) {
			return fmt.Errorf("store: %s has schema version %d, older than %d: open it once with a command that writes (e.g. shakedown campaign resume) to migrate it", d.path, v, len(migrations))
		}
		return nil
	}
	var mode string
	if err := d.db.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode); err != nil {
		return d.wrap(err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("store: %s: cannot switch to WAL mode (journal mode %s)", d.path, mode)
	}
	return d.migrate(ctx, migrations)
}

// quickCheck runs SQLite's quick_check (the integrity check without the
// index-content cross-checks: every page read, every b-tree walked), so
// that no command reads from, or writes into, a damaged file: a zeroed or
// torn page is refused at open with the check's first complaints. Its cost
// grows with the file (about a millisecond per megabyte).
func (d *DB) quickCheck(ctx context.Context) error {
	var msgs []string
	err := func() error {
		rows, err := d.db.QueryContext(ctx, "PRAGMA quick_check(5)")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var m string
			if err := rows.Scan(&m); err != nil {
				return err
			}
			if m != "ok" {
				msgs = append(msgs, m)
			}
		}
		return rows.Err()
	}()
	if err := d.wrap(err); errors.Is(err, ErrCorrupt) {
		return fmt.Errorf("%w; it fails SQLite's integrity check: restore it from a copy or give another --db file", err)
	} else if err != nil {
		return err
	}
	if len(msgs) > 0 {
		return fmt.Errorf("%w: %s fails SQLite's integrity check (%s); restore it from a copy or give another --db file", ErrCorrupt, d.path, strings.Join(msgs, "; "))
	}
	return nil
}

// migrate applies steps from the database's version on, each in one
// transaction with its version bump.
func (d *DB) migrate(ctx context.Context, steps []string) error {
	for {
		done, err := d.step(ctx, steps)
		if err != nil || done {
			return err
		}
	}
}

func (d *DB) step(ctx context.Context, steps []string) (done bool, err error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return false, d.wrap(err)
	}
	defer tx.Rollback()
	v, err := d.version(ctx, tx) // again, inside the lock: another process may have migrated
	if err != nil {
		return false, err
	}
	if v >= len(steps) {
		return true, nil
	}
	if _, err := tx.ExecContext(ctx, steps[v]); err != nil {
		return false, fmt.Errorf("store: %s: migrating to version %d: %w", d.path, v+1, d.wrap(err))
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
		return false, d.wrap(err)
	}
	return false, d.wrap(tx.Commit())
}

const timeFormat = time.RFC3339Nano

// AddCampaign records the campaign and its jobs, once: adding a campaign
// that is already there changes nothing.
func (d *DB) AddCampaign(ctx context.Context, c campaign.Campaign, jobs []campaign.Job) error {
	if !c.ID.Valid() {
		return fmt.Errorf("store: campaign id %q", c.ID)
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err)
	}
	defer tx.Rollback()
	created := c.Created
	if created.IsZero() {
		created = d.now()
	}
	res, err := tx.ExecContext(ctx, "INSERT INTO campaigns(id, name, created, jobs) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO NOTHING",
		string(c.ID), c.Name, created.UTC().Format(timeFormat), len(jobs))
	if err != nil {
		return d.wrap(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	insJob, err := tx.PrepareContext(ctx, "INSERT INTO jobs(id, mission, seed, run, spec) VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING")
	if err != nil {
		return d.wrap(err)
	}
	defer insJob.Close()
	insSlot, err := tx.PrepareContext(ctx, "INSERT INTO campaign_jobs(campaign, idx, job) VALUES (?, ?, ?)")
	if err != nil {
		return d.wrap(err)
	}
	defer insSlot.Close()
	for i, j := range jobs {
		spec, err := j.Encode()
		if err != nil {
			return err
		}
		if _, err := insJob.ExecContext(ctx, string(j.ID), j.Scenario.Mission.Name, int64(j.Seed), j.Run, spec); err != nil {
			return d.wrap(err)
		}
		if _, err := insSlot.ExecContext(ctx, string(c.ID), i, string(j.ID)); err != nil {
			return d.wrap(err)
		}
	}
	return d.wrap(tx.Commit())
}

// Results returns the successful results recorded for any of ids.
func (d *DB) Results(ctx context.Context, ids []campaign.ID) (map[campaign.ID]campaign.Result, error) {
	out := make(map[campaign.ID]campaign.Result)
	const chunk = 500
	for lo := 0; lo < len(ids); lo += chunk {
		part := ids[lo:min(lo+chunk, len(ids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = string(id)
		}
		rows, err := d.db.QueryContext(ctx, `SELECT r.body, t.resampled, t.full FROM results r LEFT JOIN trajectories t ON t.job = r.job
			WHERE r.status = 'ok' AND r.job IN (?`+strings.Repeat(", ?", len(part)-1)+`)`, args...)
		if err != nil {
			return nil, d.wrap(err)
		}
		for rows.Next() {
			var body, resampled, full []byte
			if err := rows.Scan(&body, &resampled, &full); err != nil {
				rows.Close()
				return nil, d.wrap(err)
			}
			r, err := decodeResult(body, resampled, full)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, d.path, err)
			}
			out[r.Job] = r
		}
		if err := rows.Close(); err != nil {
			return nil, d.wrap(err)
		}
		if err := rows.Err(); err != nil {
			return nil, d.wrap(err)
		}
	}
	return out, nil
}

func decodeResult(body, resampled, full []byte) (campaign.Result, error) {
	r, err := campaign.DecodeResult(body)
	if err != nil {
		return r, err
	}
	if r.Trajectory, err = campaign.DecodeSamples(resampled); err != nil {
		return r, err
	}
	if r.Trace, err = campaign.DecodeSamples(full); err != nil {
		return r, err
	}
	return r, nil
}

// Put records a result. A job that already has a successful result keeps
// it; a failed result is replaced by a successful one, never the other way
// round. The job must have been added with AddCampaign.
func (d *DB) Put(ctx context.Context, _ campaign.ID, dl campaign.Delivery) error {
	return d.PutBatch(ctx, []campaign.Delivery{dl})
}

// PutBatch records several results in one transaction, as Put does each.
func (d *DB) PutBatch(ctx context.Context, ds []campaign.Delivery) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(err)
	}
	defer tx.Rollback()
	finished := d.now().UTC().Format(timeFormat)
	for _, dl := range ds {
		if err := d.put(ctx, tx, dl, finished); err != nil {
			return err
		}
	}
	return d.wrap(tx.Commit())
}

func (d *DB) put(ctx context.Context, tx *sql.Tx, dl campaign.Delivery, finished string) error {
	r := dl.Result
	var status string
	err := tx.QueryRowContext(ctx, "SELECT status FROM results WHERE job = ?", string(r.Job)).Scan(&status)
	switch {
	case err == nil:
		if status == "ok" || !r.OK() {
			return nil // first write wins; a failure never replaces anything
		}
	case errors.Is(err, sql.ErrNoRows):
	default:
		return d.wrap(err)
	}
	bare := r
	bare.Trajectory, bare.Trace = nil, nil
	body, err := bare.Encode()
	if err != nil {
		return err
	}
	status = "failed"
	var verdict, minD, points, flight, completed, timedOut any
	if r.OK() {
		status = "ok"
		verdict, points, flight, completed, timedOut = r.Run.Verdict, r.Run.Points, r.Run.FlightTimeS, r.Run.Completed, r.Run.TimedOut
		if r.Run.MinClearanceM != nil {
			minD = *r.Run.MinClearanceM
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO results(job, status, verdict, min_distance, points, flight_time, completed, timed_out, error, body, worker, attempt, elapsed_ms, finished)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(job) DO UPDATE SET status = excluded.status, verdict = excluded.verdict, min_distance = excluded.min_distance,
			points = excluded.points, flight_time = excluded.flight_time, completed = excluded.completed, timed_out = excluded.timed_out,
			error = excluded.error, body = excluded.body, worker = excluded.worker, attempt = excluded.attempt,
			elapsed_ms = excluded.elapsed_ms, finished = excluded.finished`,
		string(r.Job), status, verdict, minD, points, flight, completed, timedOut, r.Error, body,
		dl.Worker, dl.Attempt, float64(dl.Elapsed)/float64(time.Millisecond), finished)
	if err != nil {
		return fmt.Errorf("store: job %s: %w", r.Job, d.wrap(err))
	}
	if r.OK() {
		var full any
		if r.Trace != nil {
			full = campaign.EncodeSamples(r.Trace)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO trajectories(job, period_s, resampled, full) VALUES (?, ?, ?, ?)
			ON CONFLICT(job) DO UPDATE SET period_s = excluded.period_s, resampled = excluded.resampled, full = excluded.full`,
			string(r.Job), run.ResamplePeriodS, campaign.EncodeSamples(r.Trajectory), full)
		if err != nil {
			return d.wrap(err)
		}
	}
	return nil
}

// Resolve returns the campaign whose id is or starts with prefix (at
// least 4 characters), or the only campaign when prefix is empty.
func (d *DB) Resolve(ctx context.Context, prefix string) (campaign.ID, error) {
	if prefix != "" && len(prefix) < 4 {
		return "", fmt.Errorf("store: campaign id %q: give at least 4 characters", prefix)
	}
	for _, c := range prefix {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return "", fmt.Errorf("%w %q in %s", ErrNotFound, prefix, d.path)
		}
	}
	rows, err := d.db.QueryContext(ctx, "SELECT id FROM campaigns WHERE id >= ? AND id < ? ORDER BY id LIMIT 2", prefix, prefix+"g")
	if err != nil {
		return "", d.wrap(err)
	}
	defer rows.Close()
	var ids []campaign.ID
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return "", d.wrap(err)
		}
		ids = append(ids, campaign.ID(id))
	}
	if err := rows.Err(); err != nil {
		return "", d.wrap(err)
	}
	switch {
	case len(ids) == 0 && prefix == "":
		return "", fmt.Errorf("%w: %s holds no campaign", ErrNotFound, d.path)
	case len(ids) == 0:
		return "", fmt.Errorf("%w %q in %s", ErrNotFound, prefix, d.path)
	case len(ids) > 1 && prefix == "":
		return "", fmt.Errorf("%w: %s holds several campaigns; name one (shakedown campaign status lists them)", ErrAmbiguous, d.path)
	case len(ids) > 1:
		return "", fmt.Errorf("%w %q: several campaigns start with it", ErrAmbiguous, prefix)
	}
	return ids[0], nil
}
