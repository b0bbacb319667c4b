-- Version 3: each run's owning team (a one-way name of the key, TeamOf), so
-- that a pass expires only its own team's runs, and the parts an archive
-- pass could not fetch (gaps), which the next pass fetches again.

ALTER TABLE fw_runs ADD COLUMN team TEXT;

ALTER TABLE fw_runs ADD COLUMN gaps INTEGER NOT NULL DEFAULT 0;

CREATE INDEX fw_runs_service_team ON fw_runs (service, team);
