-- Version 8: the crawls firewatch started, watched or saw in the team's
-- active crawls, one row per service and crawl id, joined by MergeCrawl
-- (crawls.go): the url, the status, the pages done and in all, the credits,
-- when firewatch first saw it and when it saw it end (ms), and who started
-- it through a hub.

CREATE TABLE fw_crawls (
			service TEXT NOT NULL, id TEXT NOT NULL, url TEXT, status TEXT,
			pages BIGINT, total BIGINT, credits_used DOUBLE PRECISION,
			created_at BIGINT, ended_at BIGINT, started_by TEXT, team TEXT,
			archived_at BIGINT NOT NULL,
			PRIMARY KEY (service, id));

CREATE INDEX fw_crawls_created ON fw_crawls (created_at, id);
