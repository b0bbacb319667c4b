package archive

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/firewatch/firewatch/text"
)

// migrationLock serialises migrations of one PostgreSQL database (a
// transaction-scoped advisory lock; the number is firewatch's own).
const migrationLock = `SELECT pg_advisory_xact_lock(7305482193)`

// idleInTransaction bounds how long the server keeps a transaction of the
// archive's open while its client says nothing (unless the DSN says
// otherwise).
const idleInTransaction = 30 * time.Second

// openPostgres connects to a team's shared archive with pgx.
func openPostgres(ctx context.Context, dsn string, o Options) (Store, error) {
	where := RedactDSN(dsn)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		// pgx's message can quote the DSN: say it without.
		return nil, fmt.Errorf("archive %s: the DSN does not parse", where)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	var opts []stdlib.OptionOpenDB
	if _, set := cfg.RuntimeParams["idle_in_transaction_session_timeout"]; !set {
		// A process stopped inside one of its (short) transactions, a
		// laptop closed, would hold the rows it locked (a run's lease
		// among them) until TCP gives up: the server ends it instead.
		// Set once connected, not as a startup parameter, which a pooler
		// (PgBouncer) may refuse; where it cannot be set, it is not.
		set := "SET idle_in_transaction_session_timeout = " + strconv.Itoa(int(idleInTransaction.Milliseconds()))
		opts = append(opts, stdlib.OptionAfterConnect(func(ctx context.Context, c *pgx.Conn) error {
			_, _ = c.Exec(ctx, set)
			return nil
		}))
	}
	db := stdlib.OpenDB(*cfg, opts...)
	db.SetMaxOpenConns(4)
	db.SetConnMaxIdleTime(time.Minute)
	s := &sqlStore{db: db, d: postgresDialect, where: where, lockTx: migrationLock, now: time.Now, lockWait: o.LockWait, waiting: o.Waiting,
		password: cfg.Password, pgcfg: cfg, relistenFirst: relistenFirst}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		// Unreachable (errors.Is ErrUnavailable): the caller may open it
		// again later.
		return nil, s.fail("connecting", err)
	}
	// A newer schema is reported before the migration's lock is taken.
	if v, err := s.version(ctx, db); err == nil && v > SchemaVersion {
		db.Close()
		return nil, &NewerError{Where: where, Version: v}
	}
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	var schema string
	if err := db.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		s.Close()
		return nil, s.fail("connecting", err)
	}
	s.channel = bellChannel(schema)
	return s, nil
}

// scrubPassword is msg (the database's) with the DSN's password redacted
// where it stands as one (text.RedactPassword): a password that is also a
// word (the user's name, the database's) leaves the rest readable.
func scrubPassword(msg, pw string) string {
	return text.RedactPassword(msg, pw)
}
