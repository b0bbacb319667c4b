-- Version 2: the record every reader shares. The estimated credits of each
-- agent and a cancel firewatch asked for are columns (read by lists without
-- the summary); and the empty rows older versions left for ids the service
-- never had (a watch of an unknown id, a wrong key) go: nothing is known of
-- them but their id (no poll, no snapshot, no list item, no status, no
-- request, no outcome, no result).

ALTER TABLE fw_runs ADD COLUMN credits_by_agent TEXT;

ALTER TABLE fw_runs ADD COLUMN cancel_requested SMALLINT NOT NULL DEFAULT 0;

DELETE FROM fw_runs WHERE polls = 0 AND item IS NULL AND result IS NULL AND status IS NULL AND outcome IS NULL AND prompt IS NULL
	AND model IS NULL AND created_at IS NULL AND credits_used IS NULL AND max_credits IS NULL AND expires_at IS NULL
	AND NOT EXISTS (SELECT 1 FROM fw_snapshots WHERE fw_snapshots.rid = fw_runs.rid);
