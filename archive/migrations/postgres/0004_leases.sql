-- Version 4: a lease per run and per team's list, so that the processes
-- sharing an archive poll each run once: the holder polls and stores, the
-- others read what it stores. Times are the database's clock (ms).

CREATE TABLE fw_leases (
			service TEXT NOT NULL, team TEXT NOT NULL, run TEXT NOT NULL,
			token BIGINT NOT NULL, holder TEXT NOT NULL, label TEXT NOT NULL, host TEXT NOT NULL, pid BIGINT NOT NULL,
			since BIGINT NOT NULL, renewed BIGINT NOT NULL, expires BIGINT NOT NULL, ttl_ms BIGINT NOT NULL,
			bell BIGINT NOT NULL DEFAULT 0,
			PRIMARY KEY (service, team, run));
