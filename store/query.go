package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/shakedown-robotics/shakedown/campaign"
)

// Summary is a campaign's progress. Counts are of job slots: a job listed
// twice counts twice.
type Summary struct {
	ID      campaign.ID `json:"id"`
	Name    string      `json:"name"`
	Created time.Time   `json:"created"`
	Jobs    int         `json:"jobs"`
	Done    int         `json:"done"`    // flown
	Failed  int         `json:"failed"`  // could not be flown (dead letters)
	Pending int         `json:"pending"` // no result yet
	// Verdicts counts the flown jobs by verdict (pass, soft-fail,
	// hard-fail).
	Verdicts map[string]int `json:"verdicts"`
	// MinDistanceM is the least minimum distance over the flown jobs; nil
	// when none has obstacles.
	MinDistanceM *float64 `json:"min_distance_m"`
	// Missions breaks the counts down by mission, in name order.
	Missions []MissionSummary `json:"missions"`
}

// MissionSummary is a campaign's progress on one mission.
type MissionSummary struct {
	Mission  string         `json:"mission"`
	Jobs     int            `json:"jobs"`
	Done     int            `json:"done"`
	Failed   int            `json:"failed"`
	Verdicts map[string]int `json:"verdicts"`
}

// Campaigns returns the summary of every campaign, oldest first.
func (d *DB) Campaigns(ctx context.Context) ([]Summary, error) {
	rows, err := d.db.QueryContext(ctx, "SELECT id FROM campaigns ORDER BY created, id")
	if err != nil {
		return nil, d.wrap(err)
	}
	var ids []campaign.ID
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, d.wrap(err)
		}
		ids = append(ids, campaign.ID(id))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, d.wrap(err)
	}
	out := make([]Summary, 0, len(ids))
	for _, id := range ids {
		s, err := d.Summary(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Summary returns the progress of campaign id.
func (d *DB) Summary(ctx context.Context, id campaign.ID) (Summary, error) {
	s := Summary{ID: id, Verdicts: map[string]int{}, Missions: []MissionSummary{}}
	var created string
	err := d.db.QueryRowContext(ctx, "SELECT name, created, jobs FROM campaigns WHERE id = ?", string(id)).Scan(&s.Name, &created, &s.Jobs)
	if errors.Is(err, sql.ErrNoRows) {
		return s, fmt.Errorf("%w %s in %s", ErrNotFound, id, d.path)
	}
	if err != nil {
		return s, d.wrap(err)
	}
	if s.Created, err = time.Parse(timeFormat, created); err != nil {
		return s, fmt.Errorf("%w: %s: campaign %s: created %q", ErrCorrupt, d.path, id, created)
	}
	rows, err := d.db.QueryContext(ctx, `SELECT j.mission, coalesce(r.status, 'pending'), coalesce(r.verdict, ''), count(*), min(r.min_distance)
		FROM campaign_jobs cj JOIN jobs j ON j.id = cj.job LEFT JOIN results r ON r.job = cj.job
		WHERE cj.campaign = ? GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`, string(id))
	if err != nil {
		return s, d.wrap(err)
	}
	defer rows.Close()
	byMission := map[string]*MissionSummary{}
	for rows.Next() {
		var mission, status, verdict string
		var n int
		var minD sql.NullFloat64
		if err := rows.Scan(&mission, &status, &verdict, &n, &minD); err != nil {
			return s, d.wrap(err)
		}
		m := byMission[mission]
		if m == nil {
			m = &MissionSummary{Mission: mission, Verdicts: map[string]int{}}
			byMission[mission] = m
		}
		m.Jobs += n
		switch status {
		case "ok":
			s.Done += n
			m.Done += n
			s.Verdicts[verdict] += n
			m.Verdicts[verdict] += n
		case "failed":
			s.Failed += n
			m.Failed += n
		default:
			s.Pending += n
		}
		if minD.Valid && (s.MinDistanceM == nil || minD.Float64 < *s.MinDistanceM) {
			v := minD.Float64
			s.MinDistanceM = &v
		}
	}
	if err := rows.Err(); err != nil {
		return s, d.wrap(err)
	}
	for _, m := range byMission {
		s.Missions = append(s.Missions, *m)
	}
	sort.Slice(s.Missions, func(i, j int) bool { return s.Missions[i].Mission < s.Missions[j].Mission })
	return s, nil
}

// Row is one job slot of a campaign with its result, if any.
type Row struct {
	Index  int
	Job    campaign.Job
	Status string           // "ok", "failed" or "pending"
	Result *campaign.Result // nil when pending; trajectories only when asked for
	// Bookkeeping of the result.
	Worker    string
	Attempt   int
	ElapsedMS float64
	Finished  string // RFC 3339, UTC
}

// Filter selects rows; the zero value selects all.
type Filter struct {
	Mission string // only this mission
	Status  string // only "ok", "failed" or "pending"
	Verdict string // only flown jobs with this verdict
	// BelowM, when not nil, keeps flown jobs whose minimum distance is
	// below it.
	BelowM *float64
	// Trajectories loads each result's trajectories.
	Trajectories bool
}

// Rows calls fn for each job slot of campaign id that f selects, in
// campaign order. fn must not call the DB's methods: the rows hold its
// connection.
func (d *DB) Rows(ctx context.Context, id campaign.ID, f Filter, fn func(Row) error) error {
	if _, err := d.Summary(ctx, id); err != nil {
		return err
	}
	traj := "NULL, NULL"
	join := ""
	if f.Trajectories {
		traj, join = "t.resampled, t.full", "LEFT JOIN trajectories t ON t.job = cj.job"
	}
	q := `SELECT cj.idx, j.spec, coalesce(r.status, 'pending'), r.body, coalesce(r.worker, ''), coalesce(r.attempt, 0),
			coalesce(r.elapsed_ms, 0), coalesce(r.finished, ''), ` + traj + `
		FROM campaign_jobs cj JOIN jobs j ON j.id = cj.job LEFT JOIN results r ON r.job = cj.job ` + join + `
		WHERE cj.campaign = ?`
	args := []any{string(id)}
	if f.Mission != "" {
		q += " AND j.mission = ?"
		args = append(args, f.Mission)
	}
	if f.Status != "" {
		q += " AND coalesce(r.status, 'pending') = ?"
		args = append(args, f.Status)
	}
	if f.Verdict != "" {
		q += " AND r.verdict = ?"
		args = append(args, f.Verdict)
	}
	if f.BelowM != nil {
		q += " AND r.min_distance < ?"
		args = append(args, *f.BelowM)
	}
	rows, err := d.db.QueryContext(ctx, q+" ORDER BY cj.idx", args...)
	if err != nil {
		return d.wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		var r Row
		var spec, body, resampled, full []byte
		if err := rows.Scan(&r.Index, &spec, &r.Status, &body, &r.Worker, &r.Attempt, &r.ElapsedMS, &r.Finished, &resampled, &full); err != nil {
			return d.wrap(err)
		}
		if r.Job, err = campaign.DecodeJob(spec); err != nil {
			return fmt.Errorf("%w: %s: campaign %s, job %d: %v", ErrCorrupt, d.path, id, r.Index, err)
		}
		if body != nil {
			res, err := decodeResult(body, resampled, full)
			if err != nil {
				return fmt.Errorf("%w: %s: result of job %s: %v", ErrCorrupt, d.path, r.Job.ID, err)
			}
			r.Result = &res
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return d.wrap(rows.Err())
}

// Campaign returns campaign id and its jobs in order, for resuming it.
func (d *DB) Campaign(ctx context.Context, id campaign.ID) (campaign.Campaign, []campaign.Job, error) {
	s, err := d.Summary(ctx, id)
	if err != nil {
		return campaign.Campaign{}, nil, err
	}
	jobs := make([]campaign.Job, 0, s.Jobs)
	err = d.Rows(ctx, id, Filter{}, func(r Row) error {
		jobs = append(jobs, r.Job)
		return nil
	})
	if err != nil {
		return campaign.Campaign{}, nil, err
	}
	if len(jobs) != s.Jobs || campaign.CampaignID(jobs) != id {
		return campaign.Campaign{}, nil, fmt.Errorf("%w: %s: campaign %s lists %d of its %d jobs, or other ones", ErrCorrupt, d.path, id, len(jobs), s.Jobs)
	}
	return campaign.Campaign{ID: id, Name: s.Name, Created: s.Created}, jobs, nil
}

// Counts returns the number of rows of each table, for checks.
func (d *DB) Counts(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	for _, t := range []string{"campaigns", "jobs", "campaign_jobs", "results", "trajectories"} {
		var n int
		if err := d.db.QueryRowContext(ctx, "SELECT count(*) FROM "+t).Scan(&n); err != nil {
			return nil, d.wrap(err)
		}
		out[t] = n
	}
	return out, nil
}

// Check runs SQLite's integrity check and returns its complaints, or nil.
func (d *DB) Check(ctx context.Context) error {
	rows, err := d.db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return d.wrap(err)
	}
	defer rows.Close()
	var msgs []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			return d.wrap(err)
		}
		if m != "ok" {
			msgs = append(msgs, m)
		}
	}
	if err := rows.Err(); err != nil {
		return d.wrap(err)
	}
	if len(msgs) > 0 {
		return fmt.Errorf("%w: %s: %v", ErrCorrupt, d.path, msgs)
	}
	return nil
}
