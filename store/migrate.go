package store

// migrations are the schema, one step per version: migrations[k] takes a
// database from user_version k to k+1. Each runs in one transaction with
// the version bump, so a database is at one version or the next, never
// half-way. Append; never edit a step that has shipped.
var migrations = []string{
	// 1: campaigns, jobs, results, trajectories.
	`
CREATE TABLE campaigns (
	id      TEXT PRIMARY KEY,
	name    TEXT NOT NULL,
	created TEXT NOT NULL,      -- RFC 3339, UTC
	jobs    INTEGER NOT NULL    -- job slots, duplicates included
) STRICT;

CREATE TABLE jobs (
	id      TEXT PRIMARY KEY,   -- campaign.ID: the hash of spec
	mission TEXT NOT NULL,
	seed    INTEGER NOT NULL,   -- the uint64 seed's bits
	run     INTEGER NOT NULL,
	spec    BLOB NOT NULL       -- the job's JSON (campaign.Job.Encode)
) STRICT;
CREATE INDEX jobs_mission ON jobs(mission);

CREATE TABLE campaign_jobs (
	campaign TEXT NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
	idx      INTEGER NOT NULL,
	job      TEXT NOT NULL REFERENCES jobs(id),
	PRIMARY KEY (campaign, idx)
) STRICT, WITHOUT ROWID;
CREATE INDEX campaign_jobs_job ON campaign_jobs(job);

CREATE TABLE results (
	job          TEXT PRIMARY KEY REFERENCES jobs(id),
	status       TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
	verdict      TEXT,          -- NULL when failed
	min_distance REAL,          -- m; NULL without obstacles or when failed
	points       INTEGER,
	flight_time  REAL,          -- s
	completed    INTEGER,
	timed_out    INTEGER,
	error        TEXT NOT NULL DEFAULT '',
	body         BLOB NOT NULL, -- the result's JSON without its trajectories
	worker       TEXT NOT NULL,
	attempt      INTEGER NOT NULL,
	elapsed_ms   REAL NOT NULL,
	finished     TEXT NOT NULL  -- RFC 3339, UTC
) STRICT;
CREATE INDEX results_verdict ON results(verdict, min_distance);
CREATE INDEX results_min_distance ON results(min_distance);

CREATE TABLE trajectories (
	job       TEXT PRIMARY KEY REFERENCES results(job) ON DELETE CASCADE,
	period_s  REAL NOT NULL,
	resampled BLOB NOT NULL,    -- campaign.EncodeSamples
	full      BLOB              -- the full-rate trace, when the job kept it
) STRICT;
`,
	// 2: telemetry events (the end-of-line test's eol_check, …).
	`
CREATE TABLE events (
	kind TEXT NOT NULL,         -- telemetry.Event.Kind
	id   TEXT NOT NULL,         -- unique within kind; a re-sent event replaces the first
	time TEXT NOT NULL,         -- RFC 3339, UTC
	doc  BLOB NOT NULL,         -- the event's JSON object
	PRIMARY KEY (kind, id)
) STRICT, WITHOUT ROWID;
CREATE INDEX events_time ON events(kind, time);
`,
}
