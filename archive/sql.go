package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/jackc/pgx/v5"
	"github.com/ncruces/go-sqlite3"
)

// dialect is what differs between SQLite and PostgreSQL.
type dialect struct {
	name   string // its folder of migrations (migrations.go)
	blob   string
	like   string // a case-insensitive LIKE
	dollar bool   // placeholders are $1, $2 ...
	// forUpdate locks the row read before a merge (SQLite's BEGIN
	// IMMEDIATE already holds the write lock).
	forUpdate string
	// tableExists is the query that reports whether fw_meta exists.
	tableExists string
	// foreign counts what the database holds that a firewatch archive
	// without fw_meta may not: a database holding it is another
	// program's, and firewatch writes nothing into it.
	foreign string
	// nowMs is the database's clock in milliseconds since 1970 (lease
	// times are the database's, never a process's).
	nowMs string
}

var sqliteDialect = dialect{
	name:        "sqlite",
	blob:        "BLOB",
	like:        "LIKE",
	tableExists: `SELECT COUNT(*) FROM sqlite_master WHERE type='table' AND name='fw_meta'`,
	foreign:     `SELECT COUNT(*) FROM sqlite_master`,
	nowMs:       `CAST(unixepoch('subsec') * 1000 AS INTEGER)`,
}

var postgresDialect = dialect{
	name:        "postgres",
	blob:        "BYTEA",
	like:        "ILIKE",
	dollar:      true,
	forUpdate:   " FOR UPDATE",
	tableExists: `SELECT COUNT(*) FROM information_schema.tables WHERE table_schema=current_schema() AND table_name='fw_meta'`,
	// A PostgreSQL schema is shared with other programs' tables: only
	// firewatch's own names without fw_meta are another program's.
	foreign: `SELECT COUNT(*) FROM information_schema.tables WHERE table_schema=current_schema() AND table_name IN ('fw_runs', 'fw_polls', 'fw_snapshots', 'fw_leases')`,
	// now(): when the transaction began, one value in all of it.
	nowMs: `CAST(EXTRACT(EPOCH FROM now()) * 1000 AS BIGINT)`,
}

// sqlStore is the Store both databases share.
type sqlStore struct {
	db    *sql.DB
	d     dialect
	where string
	// lockTx, if set, runs first in every migration transaction (the
	// PostgreSQL advisory lock).
	lockTx string
	now    func() time.Time
	// rids caches a run's key (service NUL id → rid) for AppendPolls.
	rids sync.Map
	// A watch's two statements per poll and its snapshot's (prepareHot).
	insertPoll, countPolls, insertSnapshot *sql.Stmt
	// hot is the same on SQLite's own connection (sqlite_hot.go), used
	// by a watch's polls and snapshots there; only within the
	// connection's Raw (one connection: one at a time).
	hot *sqliteHot
	// SQLite: upsertRun's statements (query → *sql.Stmt), prepared once
	// used (wanted): a watch merges into its run's record several times,
	// each a parse of statements of thirty columns otherwise (txQuery).
	runStmts sync.Map
	wantMu   sync.Mutex
	wanted   []string
	// lockWait bounds a write's wait for another writer's lock; waiting
	// is told once, when a write first has to wait (Options).
	lockWait time.Duration
	waiting  func()
	waitSaid sync.Once
	// locked: a write waited lockWait for the lock in vain and none has
	// begun since. Later writes then try for one slice only: a lock held
	// for long (another program's open transaction) costs a watch one
	// wait, not one at each write, its last ones one after the other.
	locked   atomic.Bool
	readOnly bool // opened read-only (a file, folder or disk that cannot be written)
	// password is the DSN's, scrubbed from the database's errors.
	password string
	// PostgreSQL: the connection's settings (the doorbells' listener
	// makes one of its own) and the doorbells' channel ("" on SQLite).
	pgcfg         *pgx.ConnConfig
	channel       string
	relistenFirst time.Duration
	// The doorbells' one listener and its subscribers (listen.go).
	bells bellHub
}

func (s *sqlStore) Where() string { return s.where }

// ReadOnly reports whether st was opened read-only (Open: a file, folder or
// disk that cannot be written); its writes fail with ErrReadOnly.
func ReadOnly(st Store) bool {
	s, ok := st.(*sqlStore)
	return ok && s.readOnly
}

func (s *sqlStore) Close() error {
	s.stopListening()
	s.closeHot()
	for _, st := range []*sql.Stmt{s.insertPoll, s.countPolls, s.insertSnapshot} {
		if st != nil {
			st.Close()
		}
	}
	s.runStmts.Range(func(_, st any) bool {
		st.(*sql.Stmt).Close()
		return true
	})
	return s.db.Close()
}

// Hot statements, prepared when the store opens (prepareHot) and bound to
// each transaction: a prepare inside a transaction would wait for a
// second connection, which SQLite's pool of one does not have.
const (
	insertPollSQL = `INSERT INTO fw_polls (rid, seq, received_at, enc, body) VALUES (?, ?, ?, ?, ?)`
	countPollsSQL = `UPDATE fw_runs SET polls = polls + ?, poll_bytes = poll_bytes + ? WHERE rid = ? RETURNING polls`
)

// putSnapshotSQL stores a snapshot of a run that is still there (the
// casts type the parameters for PostgreSQL, which cannot tell them from a
// SELECT).
func (d dialect) putSnapshotSQL() string {
	return `INSERT INTO fw_snapshots (rid, snapshot_id, enc, body)
		SELECT CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS SMALLINT), CAST(? AS ` + d.blob + `) WHERE EXISTS (SELECT 1 FROM fw_runs WHERE rid = CAST(? AS BIGINT))
		ON CONFLICT (rid, snapshot_id) DO UPDATE SET enc = excluded.enc, body = excluded.body`
}

// ready migrates the schema and prepares the hot statements, the last
// step of opening either store; on failure the store is closed.
func (s *sqlStore) ready(ctx context.Context) error {
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		return err
	}
	if err := s.prepareHot(ctx); err != nil {
		s.Close()
		return s.fail("preparing", err)
	}
	return nil
}

func (s *sqlStore) prepareHot(ctx context.Context) error {
	var err error
	if s.insertPoll, err = s.db.PrepareContext(ctx, s.q(insertPollSQL)); err != nil {
		return err
	}
	if s.countPolls, err = s.db.PrepareContext(ctx, s.q(countPollsSQL)); err != nil {
		return err
	}
	s.insertSnapshot, err = s.db.PrepareContext(ctx, s.q(s.d.putSnapshotSQL()))
	return err
}

// prepared binds a hot statement to tx (prepared in tx when the store has
// none).
func (s *sqlStore) prepared(ctx context.Context, tx *sql.Tx, st *sql.Stmt, query string) (*sql.Stmt, error) {
	if st == nil {
		return tx.PrepareContext(ctx, s.q(query))
	}
	return tx.StmtContext(ctx, st), nil
}

// txStmt is query's statement bound to tx when the store has prepared it
// (SQLite), else nil, and then the query is wanted: prepared before the
// next write's transaction begins (a prepare inside one would wait for a
// second connection, which SQLite's pool of one does not have).
func (s *sqlStore) txStmt(ctx context.Context, tx *sql.Tx, query string) *sql.Stmt {
	if s.d.name != sqliteDialect.name {
		return nil
	}
	if st, ok := s.runStmts.Load(query); ok {
		return tx.StmtContext(ctx, st.(*sql.Stmt))
	}
	s.wantMu.Lock()
	if !slices.Contains(s.wanted, query) {
		s.wanted = append(s.wanted, query)
	}
	s.wantMu.Unlock()
	return nil
}

// prepareWanted prepares the statements txStmt found wanted, outside any
// transaction; one that cannot be prepared is run as a query again.
func (s *sqlStore) prepareWanted(ctx context.Context) {
	s.wantMu.Lock()
	qs := s.wanted
	s.wanted = nil
	s.wantMu.Unlock()
	for _, q := range qs {
		if _, ok := s.runStmts.Load(q); ok {
			continue
		}
		if st, err := s.db.PrepareContext(ctx, q); err == nil {
			if _, had := s.runStmts.LoadOrStore(q, st); had {
				st.Close()
			}
		}
	}
}

// txQueryRow is tx.QueryRowContext, through txStmt's statement.
func (s *sqlStore) txQueryRow(ctx context.Context, tx *sql.Tx, query string, args ...any) *sql.Row {
	if st := s.txStmt(ctx, tx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return tx.QueryRowContext(ctx, query, args...)
}

// txExec is tx.ExecContext, through txStmt's statement.
func (s *sqlStore) txExec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	if st := s.txStmt(ctx, tx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, query, args...)
}

// q rewrites ? placeholders for the dialect.
func (s *sqlStore) q(query string) string {
	if !s.d.dollar {
		return query
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}

func (s *sqlStore) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	if s.password != "" && strings.Contains(err.Error(), s.password) {
		err = &scrubbed{err, s.password}
	}
	if s.d.name == "sqlite" && errors.Is(err, sqlite3.IOERR) && !errors.Is(err, ErrNoSpace) {
		// SQLite says a full disk as "disk I/O error" (its write failed,
		// the reason is not kept): the disk is asked.
		if free, ok := freeSpace(filepath.Dir(s.where)); ok && free < lowSpace {
			err = &kindError{ErrNoSpace, err}
		}
	}
	if s.d.name == postgresDialect.name && unreachable(err) {
		err = &kindError{ErrUnavailable, err}
	}
	return fmt.Errorf("archive %s: %s: %w", s.where, op, classify(err))
}

// lowSpace is the free space under which a failed write is taken to have
// failed for want of space: more than any one write of the archive's
// needs, far less than a disk in use has free.
const lowSpace = 64 << 20

// scrubbed is a database error whose message is said without the DSN's
// password (its kind is still found with errors.Is).
type scrubbed struct {
	err error
	pw  string
}

func (e *scrubbed) Error() string { return scrubPassword(e.err.Error(), e.pw) }
func (e *scrubbed) Unwrap() error { return e.err }

// begin begins a write transaction (waitLock's rules).
func (s *sqlStore) begin(ctx context.Context) (*sql.Tx, error) {
	var tx *sql.Tx
	err := s.waitLock(ctx, func() (err error) {
		tx, err = s.db.BeginTx(ctx, nil)
		return err
	})
	return tx, err
}

// waitLock runs begin, which begins a write transaction. On SQLite,
// another program's write lock is waited for in slices (the busy timeout),
// said once (waiting), up to lockWait (one slice after a wait in vain,
// until a write begins again); then ErrLocked.
func (s *sqlStore) waitLock(ctx context.Context, begin func() error) error {
	var deadline time.Time
	for {
		err := begin()
		switch {
		case err == nil:
			s.locked.Store(false)
			return nil
		case !busy(err):
			return err
		case ctx.Err() != nil:
			// The caller's own bound came first: still a lock.
			return &kindError{ErrLocked, err}
		}
		if deadline.IsZero() {
			wait := s.lockWait - sqliteBusySlice
			if s.locked.Load() {
				wait = 0
			}
			deadline = time.Now().Add(max(wait, 0))
		}
		if !time.Now().Before(deadline) {
			s.locked.Store(true)
			return &kindError{ErrLocked, err}
		}
		if s.waiting != nil {
			s.waitSaid.Do(s.waiting)
		}
	}
}

// version reads the schema version: 0 for an empty database, -1 for one
// that holds tables that are not firewatch's.
func (s *sqlStore) version(ctx context.Context, qr interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int, error) {
	var n int
	if err := qr.QueryRowContext(ctx, s.d.tableExists).Scan(&n); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	var v string
	err := qr.QueryRowContext(ctx, `SELECT v FROM fw_meta WHERE k='schema'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	ver, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("schema version %q is not a number", v)
	}
	return ver, nil
}

// migrate brings the schema to SchemaVersion in one transaction.
func (s *sqlStore) migrate(ctx context.Context) error {
	// Up to date (the usual case): no write transaction at all.
	if v, err := s.version(ctx, s.db); err == nil && v == SchemaVersion {
		return nil
	}
	tx, err := s.begin(ctx)
	if err != nil {
		return s.fail("migrating", err)
	}
	defer tx.Rollback()
	if s.lockTx != "" {
		if _, err := tx.ExecContext(ctx, s.lockTx); err != nil {
			return s.fail("migrating", err)
		}
	}
	v, err := s.version(ctx, tx)
	if err != nil {
		return &CorruptError{Where: s.where, Err: err}
	}
	if v > SchemaVersion {
		return &NewerError{Where: s.where, Version: v}
	}
	if v == SchemaVersion {
		return nil
	}
	if v == 0 {
		// Never write into another program's database, whatever its
		// journal mode.
		var n int
		if err := tx.QueryRowContext(ctx, s.d.foreign).Scan(&n); err != nil {
			return &CorruptError{Where: s.where, Err: err}
		}
		if n > 0 {
			return &CorruptError{Where: s.where, Err: errors.New("it is a database, but not a firewatch archive")}
		}
	}
	for _, step := range s.d.migrations()[v:] {
		for _, stmt := range step {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return s.fail("migrating", err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM fw_meta WHERE k='schema'`)); err != nil {
		return s.fail("migrating", err)
	}
	if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO fw_meta (k, v) VALUES ('schema', ?)`), strconv.Itoa(SchemaVersion)); err != nil {
		return s.fail("migrating", err)
	}
	return s.fail("migrating", tx.Commit())
}

func ms(t *time.Time) any {
	if t == nil || t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

func fromMs(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := time.UnixMilli(v.Int64).UTC()
	return &t
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullF(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

func nullB(b []byte) any {
	if b == nil {
		return nil
	}
	return b
}

func b01(b bool) int {
	if b {
		return 1
	}
	return 0
}

// heldRun reads the record of a run, without its blobs, locking its row
// for the rest of tx; ErrNotFound when there is none.
func (s *sqlStore) heldRun(ctx context.Context, tx *sql.Tx, service, id string) (*Run, int64, error) {
	var rid int64
	r, err := scanRun(s.txQueryRow(ctx, tx, s.q(`SELECT `+runCols+`, rid FROM fw_runs WHERE service = ? AND id = ?`+s.d.forUpdate), service, id), &rid)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, ErrNotFound
	}
	return r, rid, err
}

// upsertRun joins r to the run's record by Merge inside tx and returns the
// run's rid. A run not held is created when create is set, else the
// answer is ErrNotFound.
func (s *sqlStore) upsertRun(ctx context.Context, tx *sql.Tx, r *Run, create bool) (int64, error) {
	held, rid, err := s.heldRun(ctx, tx, r.Service, r.ID)
	switch {
	case errors.Is(err, ErrNotFound) && !create:
		return 0, err
	case errors.Is(err, ErrNotFound):
		held = nil
	case err != nil:
		return 0, err
	}
	m := Merge(held, r)
	if held == nil {
		m.ArchivedAt = s.now()
	}
	var urls, schema, byAgent any
	if m.URLs != nil {
		b, _ := json.Marshal(m.URLs, jsontext.AllowInvalidUTF8(true))
		urls = string(b)
	}
	if m.Schema != nil {
		schema = string(m.Schema)
	}
	if m.CreditsByAgent != nil {
		b, _ := json.Marshal(m.CreditsByAgent, json.Deterministic(true), jsontext.AllowInvalidUTF8(true))
		byAgent = string(b)
	}
	var changed, turn any
	if m.RerunChanged != nil {
		b, _ := json.Marshal(m.RerunChanged, jsontext.AllowInvalidUTF8(true))
		changed = string(b)
	}
	if m.ThreadTurn > 0 {
		turn = int64(m.ThreadTurn)
	}
	var resEnc, res, sumEnc, sum any
	if m.Result != nil {
		e, b := encode(m.Result)
		if err := fits("the run's result", len(b)); err != nil {
			return 0, err
		}
		resEnc, res = e, b
	}
	switch {
	case m.SummaryEncoded != nil:
		sumEnc, sum = m.SummaryEncoded.enc, m.SummaryEncoded.body
	case m.Summary != nil:
		e, b := encode(m.Summary)
		sumEnc, sum = e, b
	}
	vals := []any{nullStr(m.Prompt), nullStr(m.Model), nullStr(m.Effort), urls, schema, nullStr(m.Label), nullStr(m.Status),
		ms(m.CreatedAt), ms(m.ExpiresAt), nullF(m.CreditsUsed), nullF(m.MaxCredits),
		nullStr(m.Outcome), ms(m.FinishedAt), nullI(m.DurationMs), nullF(m.TokensUsed), m.Events, m.ToolCalls, m.Errors, m.Attention,
		byAgent, ms(m.StartedAt), b01(m.Complete), b01(m.Expired), b01(m.CancelRequested), m.SortTime().UnixMilli(), nullStr(m.Team),
		nullStr(m.CancelledBy), nullStr(m.StartedBy), nullStr(m.RerunOf), changed, nullStr(m.ThreadID), turn, nullStr(string(m.Request)),
		nullB(m.Item), resEnc, res, sumEnc, sum}
	if held == nil {
		_, err = s.txExec(ctx, tx, s.q(`INSERT INTO fw_runs (`+mergedCols+`, item, result_enc, result, summary_enc, summary, service, id, archived_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			append(vals, m.Service, m.ID, m.ArchivedAt.UnixMilli())...)
		if err != nil {
			return 0, err
		}
		err = s.txQueryRow(ctx, tx, s.q(`SELECT rid FROM fw_runs WHERE service = ? AND id = ?`), m.Service, m.ID).Scan(&rid)
		return rid, err
	}
	set := strings.ReplaceAll(mergedCols, ",", " = ?,") + ` = ?, item = COALESCE(?, item), result_enc = COALESCE(?, result_enc),
		result = COALESCE(?, result), summary_enc = COALESCE(?, summary_enc), summary = COALESCE(?, summary)`
	_, err = s.txExec(ctx, tx, s.q(`UPDATE fw_runs SET `+set+` WHERE rid = ?`), append(vals, rid)...)
	return rid, err
}

// mergedCols are the columns upsertRun writes from the merged record.
const mergedCols = `prompt, model, effort, urls, schema_json, label, status, created_at, expires_at, credits_used, max_credits,
	outcome, finished_at, duration_ms, tokens_used, events, tool_calls, errors, attention, credits_by_agent,
	started_at, complete, expired, cancel_requested, sort_at, team, cancelled_by, started_by,
	rerun_of, rerun_changed, thread_id, thread_turn, request`

// write runs fn in one write transaction (BEGIN IMMEDIATE on SQLite).
func (s *sqlStore) write(ctx context.Context, op string, fn func(tx *sql.Tx) error) (err error) {
	s.prepareWanted(ctx)
	tx, err := s.begin(ctx)
	if err != nil {
		return s.fail(op, err)
	}
	defer tx.Rollback()
	defer func() { err = s.fail(op, err) }()
	defer recoverNoMem(&err)
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// recoverNoMem, deferred, makes the SQLite driver's panic where SQLite runs
// out of its memory (it has a fixed amount: maxBody keeps bodies well
// under it) the write's ErrTooLarge: SQLite has rolled the statement back,
// and the write fails.
func recoverNoMem(err *error) {
	if r := recover(); r != nil {
		e, ok := r.(error)
		if !ok || !errors.Is(e, sqlite3.NOMEM) && e.Error() != "sqlite3: out of memory" {
			panic(r)
		}
		*err = &kindError{ErrTooLarge, e}
	}
}

func (s *sqlStore) PutRun(ctx context.Context, r *Run) error {
	return s.write(ctx, "saving a run", func(tx *sql.Tx) error {
		_, err := s.upsertRun(ctx, tx, r, true)
		return err
	})
}

func (s *sqlStore) insertPolls(ctx context.Context, tx *sql.Tx, rid int64, from int, polls []Poll) (int64, error) {
	var bytes int64
	for i, p := range polls {
		enc, body := p.encoded()
		if err := fits(fmt.Sprintf("poll %d", from+i+1), len(body)); err != nil {
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO fw_polls (rid, seq, received_at, enc, body) VALUES (?, ?, ?, ?, ?)`),
			rid, from+i, p.ReceivedAt.UnixMilli(), enc, body); err != nil {
			return 0, err
		}
		bytes += int64(len(body))
	}
	return bytes, nil
}

func (s *sqlStore) AppendPolls(ctx context.Context, service, id string, startedAt time.Time, polls []Poll) error {
	_, err := s.appendPolls(ctx, service, id, startedAt, polls, nil, nil)
	return err
}

// appendPolls stores polls after the ones held and returns the last one's
// sequence number. With a lease (l), the same transaction first renews it
// when it is still held with its token (fence), else stores nothing, and
// last rings its doorbell with that number. What along carries (if set)
// is written in the same transaction.
func (s *sqlStore) appendPolls(ctx context.Context, service, id string, startedAt time.Time, polls []Poll, l *Lease, along *Along) (int64, error) {
	if len(polls) == 0 {
		return -1, nil
	}
	var fence func(tx *sql.Tx) error
	var after func(tx *sql.Tx, last int64) error
	if l != nil {
		fence = func(tx *sql.Tx) error { return s.fence(ctx, tx, l) }
		after = func(tx *sql.Tx, last int64) error {
			return s.ring(ctx, tx, Doorbell{Service: l.Service, Team: l.Team, Run: l.Run, Seq: last})
		}
	}
	// Compressed before the transaction: it stays short.
	snaps, err := encodeSnapshots(along)
	if err != nil {
		return -1, s.fail("saving a snapshot", err)
	}
	encs := make([]int, len(polls))
	bodies := make([][]byte, len(polls))
	var size int64
	for i := range polls {
		encs[i], bodies[i] = polls[i].encoded()
		if err := fits("a poll", len(bodies[i])); err != nil {
			return -1, s.fail("saving a poll", err)
		}
		size += int64(len(bodies[i]))
	}
	last := int64(-1)
	insert := func(tx *sql.Tx, rid int64, from int) error {
		stmt, err := s.prepared(ctx, tx, s.insertPoll, insertPollSQL)
		if err != nil {
			return err
		}
		for i, p := range polls {
			if _, err := stmt.ExecContext(ctx, rid, from+i, p.ReceivedAt.UnixMilli(), encs[i], bodies[i]); err != nil {
				return err
			}
		}
		last = int64(from + len(polls) - 1)
		for _, sn := range snaps {
			if _, err := s.putSnapshot(ctx, tx, rid, sn.id, sn.enc, sn.body); err != nil {
				return err
			}
		}
		if along != nil && along.Spent != nil {
			if err := s.spendIn(ctx, tx, *along.Spent); err != nil {
				return err
			}
		}
		if after != nil {
			return after(tx, last)
		}
		return nil
	}
	key := service + "\x00" + id
	if v, ok := s.rids.Load(key); ok {
		// A watch's later polls: two small statements.
		rid := v.(int64)
		if s.d.name == sqliteDialect.name {
			// SQLite's own connection; its doorbell rings nobody.
			last, gone, err := s.hotAppend(ctx, rid, encs, bodies, polls, size, l, along, snaps)
			if errors.Is(err, errHotLost) {
				return -1, s.lostNow(l.LeaseKey, err)
			}
			if !gone {
				return last, err
			}
			s.rids.Delete(key)
			return s.appendPolls(ctx, service, id, startedAt, polls, l, along)
		}
		gone := false
		err := s.write(ctx, "saving a poll", func(tx *sql.Tx) error {
			if fence != nil {
				if err := fence(tx); err != nil {
					return err
				}
			}
			stmt, err := s.prepared(ctx, tx, s.countPolls, countPollsSQL)
			if err != nil {
				return err
			}
			var n int
			err = stmt.QueryRowContext(ctx, len(polls), size, rid).Scan(&n)
			if errors.Is(err, sql.ErrNoRows) {
				gone = true // pruned meanwhile: start again
				return err
			}
			if err != nil {
				return err
			}
			return insert(tx, rid, n-len(polls))
		})
		if !gone {
			return last, err
		}
		s.rids.Delete(key)
	}
	err = s.write(ctx, "saving a poll", func(tx *sql.Tx) error {
		if fence != nil {
			if err := fence(tx); err != nil {
				return err
			}
		}
		r := &Run{Service: service, ID: id}
		if !startedAt.IsZero() {
			r.StartedAt = &startedAt
		}
		rid, err := s.upsertRun(ctx, tx, r, true)
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, s.q(`SELECT polls FROM fw_runs WHERE rid = ?`), rid).Scan(&n); err != nil {
			return err
		}
		if err := insert(tx, rid, n); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE fw_runs SET polls = polls + ?, poll_bytes = poll_bytes + ? WHERE rid = ?`), len(polls), size, rid); err != nil {
			return err
		}
		s.rids.Store(key, rid)
		return nil
	})
	return last, err
}

func (s *sqlStore) ReplaceRun(ctx context.Context, r *Run, polls []Poll, snapshots map[string]string) error {
	return s.replaceRun(ctx, r, polls, snapshots, nil)
}

// replaceRun is ReplaceRun, with fence (if set) run first in the same
// transaction: its error refuses the write.
func (s *sqlStore) replaceRun(ctx context.Context, r *Run, polls []Poll, snapshots map[string]string, fence func(tx *sql.Tx) error) error {
	return s.write(ctx, "saving a run", func(tx *sql.Tx) error {
		if fence != nil {
			if err := fence(tx); err != nil {
				return err
			}
		}
		rid, err := s.upsertRun(ctx, tx, r, true)
		if err != nil {
			return err
		}
		if polls != nil {
			if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM fw_polls WHERE rid = ?`), rid); err != nil {
				return err
			}
			b, err := s.insertPolls(ctx, tx, rid, 0, polls)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE fw_runs SET polls = ?, poll_bytes = ? WHERE rid = ?`), len(polls), b, rid); err != nil {
				return err
			}
		}
		for sid, c := range snapshots {
			enc, body := encode([]byte(c))
			if err := fits("a snapshot", len(body)); err != nil {
				return err
			}
			if _, err := s.putSnapshot(ctx, tx, rid, sid, enc, body); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE fw_runs SET gaps = ? WHERE rid = ?`), r.Gaps, rid); err != nil {
			return err
		}
		return nil
	})
}

// encodedSnapshot is a snapshot compressed for its row.
type encodedSnapshot struct {
	id   string
	enc  int
	body []byte
}

// encodeSnapshots compresses the snapshots a poll write carries.
func encodeSnapshots(along *Along) ([]encodedSnapshot, error) {
	if along == nil {
		return nil, nil
	}
	out := make([]encodedSnapshot, 0, len(along.Snapshots))
	for _, sn := range along.Snapshots {
		enc, body := sn.enc, sn.body
		if body == nil {
			enc, body = encode([]byte(sn.Content))
		}
		if err := fits("the snapshot", len(body)); err != nil {
			return nil, err
		}
		out = append(out, encodedSnapshot{sn.ID, enc, body})
	}
	return out, nil
}

func (s *sqlStore) putSnapshot(ctx context.Context, tx *sql.Tx, rid int64, sid string, enc int, body []byte) (bool, error) {
	stmt, err := s.prepared(ctx, tx, s.insertSnapshot, s.d.putSnapshotSQL())
	if err != nil {
		return false, err
	}
	res, err := stmt.ExecContext(ctx, rid, sid, enc, body, rid)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

func (s *sqlStore) PutSnapshot(ctx context.Context, service, id, snapshotID, content string) error {
	enc, body := encode([]byte(content)) // before the transaction: it stays short
	if err := fits("the snapshot", len(body)); err != nil {
		return s.fail("saving a snapshot", err)
	}
	key := service + "\x00" + id
	if v, ok := s.rids.Load(key); ok {
		// A watch's snapshots: its run's row is known, one statement.
		stored := false
		var err error
		if s.d.name == sqliteDialect.name {
			stored, err = s.hotSnapshot(ctx, v.(int64), snapshotID, enc, body)
		} else {
			err = s.write(ctx, "saving a snapshot", func(tx *sql.Tx) error {
				var err error
				stored, err = s.putSnapshot(ctx, tx, v.(int64), snapshotID, enc, body)
				return err
			})
		}
		if err != nil || stored {
			return err
		}
		s.rids.Delete(key) // pruned meanwhile: start again
	}
	return s.write(ctx, "saving a snapshot", func(tx *sql.Tx) error {
		rid, err := s.upsertRun(ctx, tx, &Run{Service: service, ID: id}, true)
		if err != nil {
			return err
		}
		_, err = s.putSnapshot(ctx, tx, rid, snapshotID, enc, body)
		return err
	})
}

func nullI(i *int64) any {
	if i == nil {
		return nil
	}
	return *i
}

func (s *sqlStore) SetDerived(ctx context.Context, r *Run) error {
	return s.write(ctx, "saving the summary", func(tx *sql.Tx) error {
		_, err := s.upsertRun(ctx, tx, r, false)
		if errors.Is(err, ErrNotFound) {
			return nil // never held: nothing to add to
		}
		return err
	})
}

func (s *sqlStore) MarkExpired(ctx context.Context, service, id string) error {
	return s.write(ctx, "saving a run", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.q(`UPDATE fw_runs SET expired = 1 WHERE service = ? AND id = ?`), service, id)
		return err
	})
}

func (s *sqlStore) Claim(ctx context.Context, service, team string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return s.write(ctx, "saving a run", func(tx *sql.Tx) error {
		for len(ids) > 0 {
			n := min(len(ids), 200)
			args := []any{nullStr(team), service}
			for _, id := range ids[:n] {
				args = append(args, id)
			}
			ph := strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE fw_runs SET team = COALESCE(?, team), expired = 0 WHERE service = ? AND id IN (`+ph+`)`), args...); err != nil {
				return err
			}
			ids = ids[n:]
		}
		return nil
	})
}

const runCols = `service, id, prompt, model, effort, urls, schema_json, label, status, created_at, expires_at, credits_used, max_credits,
	outcome, finished_at, duration_ms, tokens_used, events, tool_calls, errors, attention, started_at, polls, poll_bytes, complete, expired, archived_at,
	credits_by_agent, cancel_requested, team, gaps, sort_at, cancelled_by, started_by,
	rerun_of, rerun_changed, thread_id, thread_turn, request`

type scanner interface{ Scan(...any) error }

func scanRun(sc scanner, extra ...any) (*Run, error) {
	var r Run
	var prompt, model, effort, urls, schema, label, status, outcome, byAgent, team, cancelledBy, startedBy sql.NullString
	var rerunOf, rerunChanged, threadID, request sql.NullString
	var threadTurn sql.NullInt64
	var created, expires, finished, dur, started sql.NullInt64
	var credits, maxc, tokens sql.NullFloat64
	var complete, expired, cancel int
	var archived, sortAt int64
	dst := []any{&r.Service, &r.ID, &prompt, &model, &effort, &urls, &schema, &label, &status, &created, &expires, &credits, &maxc,
		&outcome, &finished, &dur, &tokens, &r.Events, &r.ToolCalls, &r.Errors, &r.Attention, &started, &r.Polls, &r.PollBytes,
		&complete, &expired, &archived, &byAgent, &cancel, &team, &r.Gaps, &sortAt, &cancelledBy, &startedBy,
		&rerunOf, &rerunChanged, &threadID, &threadTurn, &request}
	if err := sc.Scan(append(dst, extra...)...); err != nil {
		return nil, err
	}
	r.Prompt, r.Model, r.Effort, r.Label, r.Status, r.Outcome = prompt.String, model.String, effort.String, label.String, status.String, outcome.String
	if urls.Valid {
		_ = json.Unmarshal([]byte(urls.String), &r.URLs)
	}
	if schema.Valid {
		r.Schema = []byte(schema.String)
	}
	if byAgent.Valid {
		_ = json.Unmarshal([]byte(byAgent.String), &r.CreditsByAgent)
	}
	r.CreatedAt, r.ExpiresAt, r.FinishedAt, r.StartedAt = fromMs(created), fromMs(expires), fromMs(finished), fromMs(started)
	if credits.Valid {
		r.CreditsUsed = &credits.Float64
	}
	if maxc.Valid {
		r.MaxCredits = &maxc.Float64
	}
	if tokens.Valid {
		r.TokensUsed = &tokens.Float64
	}
	if dur.Valid {
		r.DurationMs = &dur.Int64
	}
	r.Complete, r.Expired, r.CancelRequested, r.Team = complete == 1, expired == 1, cancel == 1, team.String
	r.CancelledBy, r.StartedBy = cancelledBy.String, startedBy.String
	r.RerunOf, r.ThreadID, r.ThreadTurn = rerunOf.String, threadID.String, int(threadTurn.Int64)
	if request.Valid {
		r.Request = []byte(request.String)
	}
	if rerunChanged.Valid {
		_ = json.Unmarshal([]byte(rerunChanged.String), &r.RerunChanged)
	}
	r.ArchivedAt, r.SortAt = time.UnixMilli(archived).UTC(), time.UnixMilli(sortAt).UTC()
	return &r, nil
}

func (s *sqlStore) Get(ctx context.Context, service, id string) (*Run, error) {
	query := `SELECT ` + runCols + `, item, result_enc, result, summary_enc, summary FROM fw_runs WHERE id = ?`
	args := []any{id}
	if service != "" {
		query += ` ORDER BY CASE WHEN service = ? THEN 0 ELSE 1 END, archived_at DESC`
		args = append(args, service)
	}
	query += ` LIMIT 1`
	var item, res, sum []byte
	var resEnc, sumEnc sql.NullInt64
	r, err := scanRun(s.db.QueryRowContext(ctx, s.q(query), args...), &item, &resEnc, &res, &sumEnc, &sum)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, s.fail("reading a run", err)
	}
	r.Item = item
	if res != nil {
		if r.Result, err = decode(int(resEnc.Int64), res); err != nil {
			return nil, s.fail("reading a run", err)
		}
	}
	if sum != nil {
		if r.Summary, err = decode(int(sumEnc.Int64), sum); err != nil {
			return nil, s.fail("reading a run", err)
		}
	}
	return r, nil
}

func (s *sqlStore) rid(ctx context.Context, service, id string) (int64, error) {
	var rid int64
	err := s.db.QueryRowContext(ctx, s.q(`SELECT rid FROM fw_runs WHERE service = ? AND id = ?`), service, id).Scan(&rid)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotFound
	}
	return rid, err
}

func (s *sqlStore) Polls(ctx context.Context, service, id string) ([]Poll, error) {
	rid, err := s.rid(ctx, service, id)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT seq, received_at, enc, body FROM fw_polls WHERE rid = ? ORDER BY seq`), rid)
	if err != nil {
		return nil, s.fail("reading polls", err)
	}
	return s.scanPolls(rows)
}

// scanPolls reads rows of (seq, received_at, enc, body), and closes them.
func (s *sqlStore) scanPolls(rows *sql.Rows) ([]Poll, error) {
	defer rows.Close()
	var out []Poll
	for rows.Next() {
		var seq, at int64
		var enc int
		var body []byte
		if err := rows.Scan(&seq, &at, &enc, &body); err != nil {
			return nil, s.fail("reading polls", err)
		}
		line, err := decode(enc, body)
		if err != nil {
			return nil, s.fail("reading polls", err)
		}
		out = append(out, Poll{ReceivedAt: time.UnixMilli(at).UTC(), Line: line, Seq: seq})
	}
	return out, s.fail("reading polls", rows.Err())
}

func (s *sqlStore) Snapshot(ctx context.Context, service, id, snapshotID string) (string, error) {
	rid, err := s.rid(ctx, service, id)
	if err != nil {
		return "", err
	}
	var enc int
	var body []byte
	err = s.db.QueryRowContext(ctx, s.q(`SELECT enc, body FROM fw_snapshots WHERE rid = ? AND snapshot_id = ?`), rid, snapshotID).Scan(&enc, &body)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", s.fail("reading a snapshot", err)
	}
	b, err := decode(enc, body)
	return string(b), s.fail("reading a snapshot", err)
}

// statusWords are the status words a --status filter matches.
var statusWords = map[string][]string{
	"processing": {"processing"},
	"completed":  {"completed"},
	"failed":     {"failed"},
	"cancelled":  {"cancelled", "canceled"},
}

// listQuery is List's query for q, newest first by creation time then id.
func (s *sqlStore) listQuery(q Query) (string, []any) {
	var where []string
	var args []any
	if q.Service != "" {
		where, args = append(where, `service = ?`), append(args, q.Service)
	}
	if q.Team != "" {
		where, args = append(where, `team = ?`), append(args, q.Team)
	}
	if !q.Since.IsZero() {
		where, args = append(where, `sort_at >= ?`), append(args, q.Since.UnixMilli())
	}
	switch {
	case !q.Before.IsZero() && q.BeforeID != "":
		// After the run (Before, BeforeID) in the order below.
		b := q.Before.UnixMilli()
		where, args = append(where, `(sort_at < ? OR sort_at = ? AND id < ?)`), append(args, b, b, q.BeforeID)
	case !q.Before.IsZero():
		where, args = append(where, `sort_at < ?`), append(args, q.Before.UnixMilli())
	}
	if st := strings.ToLower(q.Status); st != "" && st != "all" {
		words := statusWords[st]
		if words == nil {
			words = []string{st}
		}
		ph := strings.TrimSuffix(strings.Repeat("?, ", len(words)), ", ")
		where = append(where, `LOWER(status) IN (`+ph+`)`)
		for _, w := range words {
			args = append(args, w)
		}
	}
	if q.Grep != "" {
		esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(q.Grep)
		where, args = append(where, `prompt `+s.d.like+` ? ESCAPE '\'`), append(args, "%"+esc+"%")
	}
	query := `SELECT ` + runCols + ` FROM fw_runs`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, ` AND `)
	}
	query += ` ORDER BY sort_at DESC, id DESC`
	if q.Limit > 0 {
		query += ` LIMIT ` + strconv.Itoa(q.Limit)
	}
	return s.q(query), args
}

func (s *sqlStore) List(ctx context.Context, q Query) ([]Run, error) {
	var out []Run
	err := s.Each(ctx, q, func(r *Run) error {
		out = append(out, *r)
		return nil
	})
	return out, err
}

func (s *sqlStore) Each(ctx context.Context, q Query, fn func(r *Run) error) error {
	query, args := s.listQuery(q)
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return s.fail("listing runs", err)
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return s.fail("listing runs", err)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return s.fail("listing runs", rows.Err())
}

func (s *sqlStore) Held(ctx context.Context, service string, ids []string) (map[string]Held, error) {
	out := make(map[string]Held, len(ids))
	for len(ids) > 0 {
		n := min(len(ids), 200)
		chunk := ids[:n]
		ids = ids[n:]
		args := []any{service}
		for _, id := range chunk {
			args = append(args, id)
		}
		ph := strings.TrimSuffix(strings.Repeat("?, ", len(chunk)), ", ")
		rows, err := s.db.QueryContext(ctx, s.q(`SELECT id, complete, CASE WHEN item IS NULL THEN 0 ELSE 1 END, CASE WHEN expires_at IS NULL THEN 0 ELSE 1 END, polls, outcome,
			team, expired, gaps, started_by, cancelled_by, thread_id, thread_turn, credits_used FROM fw_runs WHERE service = ? AND id IN (`+ph+`)`), args...)
		if err != nil {
			return nil, s.fail("reading runs", err)
		}
		for rows.Next() {
			var id string
			var c, item, status, polls, expired, gaps int
			var outcome, team, startedBy, cancelledBy, threadID sql.NullString
			var threadTurn sql.NullInt64
			var credits sql.NullFloat64
			if err := rows.Scan(&id, &c, &item, &status, &polls, &outcome, &team, &expired, &gaps, &startedBy, &cancelledBy, &threadID, &threadTurn, &credits); err != nil {
				rows.Close()
				return nil, s.fail("reading runs", err)
			}
			out[id] = Held{Complete: c == 1, HasItem: item == 1, HasStatus: status == 1, Polls: polls, Outcome: outcome.String,
				Team: team.String, Expired: expired == 1, Gaps: gaps, StartedBy: startedBy.String, CancelledBy: cancelledBy.String,
				ThreadID: threadID.String, ThreadTurn: int(threadTurn.Int64)}
			if credits.Valid {
				h := out[id]
				h.CreditsUsed = &credits.Float64
				out[id] = h
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, s.fail("reading runs", err)
		}
	}
	return out, nil
}

func (s *sqlStore) Listed(ctx context.Context, service, team string, limit int) ([][]byte, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT item FROM fw_runs WHERE service = ? AND team = ? AND item IS NOT NULL AND expired = 0
		ORDER BY sort_at DESC, id DESC LIMIT `+strconv.Itoa(max(limit, 1))), service, team)
	if err != nil {
		return nil, s.fail("reading the team's list", err)
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var item []byte
		if err := rows.Scan(&item); err != nil {
			return nil, s.fail("reading the team's list", err)
		}
		out = append(out, item)
	}
	return out, s.fail("reading the team's list", rows.Err())
}

func (s *sqlStore) SnapshotIDs(ctx context.Context, service, id string) ([]string, error) {
	rid, err := s.rid(ctx, service, id)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT snapshot_id FROM fw_snapshots WHERE rid = ? ORDER BY snapshot_id`), rid)
	if err != nil {
		return nil, s.fail("reading snapshots", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var sid string
		if err := rows.Scan(&sid); err != nil {
			return nil, s.fail("reading snapshots", err)
		}
		out = append(out, sid)
	}
	return out, s.fail("reading snapshots", rows.Err())
}

// pruneWhere is what Prune deletes of a table whose rows are dated by
// dateCol: dated before before (service "" for every service), or the id
// when id is set. Runs are dated by sort_at; crawls by when firewatch
// first saw them (the service gives a crawl no creation time; archived
// then when even that is not known).
func pruneWhere(dateCol, service string, before time.Time, id string) (string, []any) {
	where, args := dateCol+` < ?`, []any{before.UnixMilli()}
	if id != "" {
		where, args = `id = ?`, []any{id}
	}
	if service != "" {
		where += ` AND service = ?`
		args = append(args, service)
	}
	return where, args
}

// pruned counts what the runs of where hold, and the crawls of cwhere.
func (s *sqlStore) pruned(ctx context.Context, qr interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, where string, args []any, cwhere string, cargs []any) (Pruned, error) {
	var p Pruned
	if err := qr.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM fw_crawls WHERE `+cwhere), cargs...).Scan(&p.Crawls); err != nil {
		return p, err
	}
	row := qr.QueryRowContext(ctx, s.q(`SELECT COUNT(*), CAST(COALESCE(SUM(polls), 0) AS BIGINT), CAST(COALESCE(SUM(poll_bytes), 0) AS BIGINT) FROM fw_runs WHERE `+where), args...)
	if err := row.Scan(&p.Runs, &p.Polls, &p.Bytes); err != nil {
		return p, err
	}
	var snap int64
	if err := qr.QueryRowContext(ctx, s.q(`SELECT CAST(COALESCE(SUM(LENGTH(body)), 0) AS BIGINT) FROM fw_snapshots WHERE rid IN (SELECT rid FROM fw_runs WHERE `+where+`)`), args...).Scan(&snap); err != nil {
		return p, err
	}
	p.Bytes += snap
	return p, nil
}

func (s *sqlStore) Pruning(ctx context.Context, service string, before time.Time, id string) (Pruned, error) {
	where, args := pruneWhere(`sort_at`, service, before, id)
	cwhere, cargs := pruneWhere(`COALESCE(created_at, archived_at)`, service, before, id)
	p, err := s.pruned(ctx, s.db, where, args, cwhere, cargs)
	return p, s.fail("reading runs", err)
}

func (s *sqlStore) Prune(ctx context.Context, service string, before time.Time, id string) (Pruned, error) {
	var p Pruned
	err := s.write(ctx, "pruning", func(tx *sql.Tx) error {
		where, args := pruneWhere(`sort_at`, service, before, id)
		cwhere, cargs := pruneWhere(`COALESCE(created_at, archived_at)`, service, before, id)
		var err error
		if p, err = s.pruned(ctx, tx, where, args, cwhere, cargs); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM fw_crawls WHERE `+cwhere), cargs...); err != nil {
			return err
		}
		sel := `SELECT rid FROM fw_runs WHERE ` + where
		for _, t := range []string{"fw_polls", "fw_snapshots"} {
			if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM `+t+` WHERE rid IN (`+sel+`)`), args...); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, s.q(`DELETE FROM fw_runs WHERE `+where), args...)
		return err
	})
	return p, err
}

func (s *sqlStore) Stats(ctx context.Context) (Stats, error) {
	var st Stats
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*), CAST(COALESCE(SUM(polls), 0) AS BIGINT), CAST(COALESCE(SUM(events), 0) AS BIGINT), CAST(COALESCE(SUM(poll_bytes), 0) AS BIGINT) FROM fw_runs`).
		Scan(&st.Runs, &st.Polls, &st.Events, &st.PollBytes)
	if err != nil {
		return st, s.fail("reading its size", err)
	}
	err = s.db.QueryRowContext(ctx, `SELECT CAST(COALESCE(SUM(LENGTH(body)), 0) AS BIGINT) FROM fw_snapshots`).Scan(&st.SnapshotBytes)
	return st, s.fail("reading its size", err)
}
