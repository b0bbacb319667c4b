-- Version 6: the request budget the archive passes of one service and team
-- share (budget.go): the time their next request is due, by the
-- database's clock (ms), so that passes on every machine pace together.

CREATE TABLE fw_budget (
			service TEXT NOT NULL, team TEXT NOT NULL, due BIGINT NOT NULL,
			PRIMARY KEY (service, team));
