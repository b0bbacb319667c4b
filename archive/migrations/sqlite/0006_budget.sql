-- Version 6: the request budget the archive passes of one service and team
-- share (budget.go): when their next request is due, and until when a 429
-- holds them all, by the database's clock (ms), so that passes on every
-- machine pace together.

CREATE TABLE fw_budget (
			service TEXT NOT NULL, team TEXT NOT NULL, due BIGINT NOT NULL, held_until BIGINT NOT NULL,
			PRIMARY KEY (service, team));
