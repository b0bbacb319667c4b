-- Version 1: the runs, their polls as received and their artifact snapshots,
-- and fw_meta, whose row k='schema' holds the schema's version.
-- (Each statement is the text earlier firewatch versions ran, byte for byte:
-- SQLite keeps it in sqlite_master.)

CREATE TABLE fw_meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);

CREATE TABLE fw_runs (
			rid INTEGER PRIMARY KEY,
			service TEXT NOT NULL,
			id TEXT NOT NULL,
			prompt TEXT, model TEXT, effort TEXT, urls TEXT, schema_json TEXT, label TEXT, status TEXT,
			created_at BIGINT, expires_at BIGINT, credits_used DOUBLE PRECISION, max_credits DOUBLE PRECISION,
			item BLOB, result_enc SMALLINT, result BLOB,
			outcome TEXT, finished_at BIGINT, duration_ms BIGINT, tokens_used DOUBLE PRECISION,
			events INTEGER NOT NULL DEFAULT 0, tool_calls INTEGER NOT NULL DEFAULT 0,
			errors INTEGER NOT NULL DEFAULT 0, attention INTEGER NOT NULL DEFAULT 0,
			summary_enc SMALLINT, summary BLOB,
			started_at BIGINT, polls INTEGER NOT NULL DEFAULT 0, poll_bytes BIGINT NOT NULL DEFAULT 0,
			complete SMALLINT NOT NULL DEFAULT 0, expired SMALLINT NOT NULL DEFAULT 0,
			archived_at BIGINT NOT NULL, sort_at BIGINT NOT NULL,
			UNIQUE (service, id));

CREATE INDEX fw_runs_service_sort ON fw_runs (service, sort_at, id);

CREATE INDEX fw_runs_sort ON fw_runs (sort_at, id);

CREATE INDEX fw_runs_id ON fw_runs (id);

CREATE TABLE fw_polls (rid BIGINT NOT NULL, seq INTEGER NOT NULL, received_at BIGINT NOT NULL,
			enc SMALLINT NOT NULL, body BLOB NOT NULL, PRIMARY KEY (rid, seq));

CREATE TABLE fw_snapshots (rid BIGINT NOT NULL, snapshot_id TEXT NOT NULL,
			enc SMALLINT NOT NULL, body BLOB NOT NULL, PRIMARY KEY (rid, snapshot_id));
