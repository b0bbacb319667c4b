-- Version 5: who cancelled or started the run through a hub (the person's
-- name, the comment of their key in the hub's authorized_keys files), for
-- every reader of the record: history, the report.

ALTER TABLE fw_runs ADD COLUMN cancelled_by TEXT;

ALTER TABLE fw_runs ADD COLUMN started_by TEXT;
