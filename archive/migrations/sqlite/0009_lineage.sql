-- Version 9: a run's lineage, for history, cost --by thread and compare
-- --previous: the run it was rerun from (rerun_of) and the request fields
-- the rerun changed (rerun_changed, a JSON array of the body's names), and
-- the service's thread and turn (thread_id, thread_turn; a follow-up is a
-- later turn of its thread); and the request as firewatch sent it (request,
-- the POST /v2/agent body: what a rerun sends again).

ALTER TABLE fw_runs ADD COLUMN rerun_of TEXT;

ALTER TABLE fw_runs ADD COLUMN rerun_changed TEXT;

ALTER TABLE fw_runs ADD COLUMN thread_id TEXT;

ALTER TABLE fw_runs ADD COLUMN thread_turn INTEGER;

ALTER TABLE fw_runs ADD COLUMN request TEXT;
