-- Version 7: the notification moments claimed for the team (moments.go),
-- so that the processes sharing an archive send each moment to each of
-- the team's sinks once: who claimed it and until when (a short lease of
-- its own), and when it was sent (0: not yet), by the database's clock
-- (ms). sink is a hash of the webhook's URL or the command, never either.

CREATE TABLE fw_moments (
			service TEXT NOT NULL, team TEXT NOT NULL, run TEXT NOT NULL, moment TEXT NOT NULL, sink TEXT NOT NULL,
			holder TEXT NOT NULL, label TEXT NOT NULL, claimed BIGINT NOT NULL, expires BIGINT NOT NULL,
			sent_at BIGINT NOT NULL DEFAULT 0, failed BIGINT NOT NULL DEFAULT 0,
			PRIMARY KEY (service, team, run, moment, sink));
