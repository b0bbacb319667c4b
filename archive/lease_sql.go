package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
)

const leaseCols = `service, team, run, token, holder, label, host, pid, since, renewed, expires, ttl_ms, bell`

// leaseKeep is how long a lease's row outlives its expiry.
const leaseKeep = 24 * time.Hour

// maxTTLMs is MaxLeaseTTL in milliseconds, as the statements use it.
const maxTTLMs = int64(MaxLeaseTTL / time.Millisecond)

// endsSQL is when the lease of the row p (a table's name or alias) ends,
// by the database's clock NOW: its expiry, but no later than its last
// renewal and its TTL (at most MaxLeaseTTL) and a renewal dated after
// NOW and MaxLeaseTTL is none (the lease has ended). A row whose expiry
// is far off (a clock-skewed host, a hand-edited row, a holder gone) is
// believed only while its holder keeps renewing it. The renewal is
// compared before any sum, so that no value a row holds overflows.
func endsSQL(p string) string {
	most := strconv.FormatInt(maxTTLMs, 10)
	return `(CASE WHEN ` + p + `.renewed > NOW + ` + most + ` THEN NOW
		ELSE LEAST(` + p + `.expires, ` + p + `.renewed + LEAST(GREATEST(` + p + `.ttl_ms, 0), ` + most + `)) END)`
}

// leftSQL is how long p's lease is still held, by NOW (<= 0: free; never
// less than -1 ms, whatever the row holds).
func leftSQL(p string) string { return `GREATEST(` + endsSQL(p) + `, NOW - 1) - NOW` }

// nextToken is the token a new holder of p's lease gets: the next one, or
// 1 again after maxToken, so that no row's token overflows (a write is
// fenced with the holder's id as well as its token).
func nextToken(p string) string {
	return `CASE WHEN ` + p + `.token >= ` + strconv.FormatInt(maxToken, 10) + ` OR ` + p + `.token < 0 THEN 1 ELSE ` + p + `.token + 1 END`
}

// takeSQL takes a lease that is free, expired or the holder's own: a new
// holder gets the next token and a since of its own. NOW is the
// database's clock, one value in the statement.
var takeSQL = `INSERT INTO fw_leases AS l (` + leaseCols + `)
	VALUES (?, ?, ?, 1, ?, ?, ?, ?, NOW, NOW, NOW + ?, ?, 0)
	ON CONFLICT (service, team, run) DO UPDATE SET
		token = CASE WHEN l.holder = excluded.holder THEN l.token ELSE ` + nextToken("l") + ` END,
		since = CASE WHEN l.holder = excluded.holder AND ` + endsSQL("l") + ` > NOW THEN l.since ELSE excluded.since END,
		holder = excluded.holder, label = excluded.label, host = excluded.host, pid = excluded.pid,
		renewed = excluded.renewed, expires = excluded.expires, ttl_ms = excluded.ttl_ms
	WHERE l.holder = excluded.holder OR ` + endsSQL("l") + ` <= NOW
	RETURNING token, since, renewed, expires, bell`

// takeDeadSQL takes over a lease whose holder is gone, fenced by its
// token and holder as read.
var takeDeadSQL = `UPDATE fw_leases SET token = ` + nextToken("fw_leases") + `, holder = ?, label = ?, host = ?, pid = ?,
		since = NOW, renewed = NOW, expires = NOW + ?, ttl_ms = ?
	WHERE service = ? AND team = ? AND run = ? AND token = ? AND holder = ?
	RETURNING token, since, renewed, expires, bell`

// leaseWhere selects one holder's lease with its token: the fence.
const leaseWhere = ` WHERE service = ? AND team = ? AND run = ? AND holder = ? AND token = ?`

// fenceSQL renews a lease still held with its token, for a TTL (its two
// parameters, in ms) and then fenceArgs.
const fenceSQL = `UPDATE fw_leases SET renewed = NOW, expires = NOW + ?, ttl_ms = ?` + leaseWhere

// clocked is query with NOW the database's clock, LEAST and GREATEST the
// dialect's, and its placeholders the dialect's.
func (s *sqlStore) clocked(query string) string {
	query = strings.ReplaceAll(query, "NOW", s.d.nowMs)
	if s.d.name != postgresDialect.name {
		query = strings.NewReplacer("LEAST(", "min(", "GREATEST(", "max(").Replace(query)
	}
	return s.q(query)
}

func fenceArgs(l Lease) []any {
	return []any{l.Service, l.Team, l.Run, l.ID, l.Token}
}

// ttlMs is a TTL as stored: at least 1 ms, at most MaxLeaseTTL.
func ttlMs(d time.Duration) int64 { return min(max(d.Milliseconds(), 1), maxTTLMs) }

// msDur is ms milliseconds, saturated rather than overflowed (a row's
// values are anyone's).
func msDur(ms int64) time.Duration {
	const most = int64(math.MaxInt64 / int64(time.Millisecond))
	return time.Duration(min(max(ms, -most), most)) * time.Millisecond
}

func fromMsT(v int64) time.Time { return time.UnixMilli(v).UTC() }

func (s *sqlStore) TryJoin(ctx context.Context) error {
	if s.readOnly {
		return s.fail("joining the leases", ErrReadOnly)
	}
	if s.d.name != postgresDialect.name {
		return nil
	}
	return s.fail("joining the leases", s.db.PingContext(ctx))
}

func (s *sqlStore) Take(ctx context.Context, k LeaseKey, h Holder, ttl time.Duration) (Lease, error) {
	if h.ID == "" || ttl <= 0 {
		return Lease{}, fmt.Errorf("archive: a lease needs a holder (NewHolder) and a TTL")
	}
	ttl = min(ttl, MaxLeaseTTL)
	l := Lease{LeaseKey: k, Holder: h, TTL: ttl, Left: ttl}
	err := s.write(ctx, "taking a lease", func(tx *sql.Tx) error {
		var since, renewed, expires int64
		err := tx.QueryRowContext(ctx, s.clocked(takeSQL), k.Service, k.Team, k.Run, h.ID, h.Label, h.Host, h.PID, ttlMs(ttl), ttlMs(ttl)).
			Scan(&l.Token, &since, &renewed, &expires, &l.Bell)
		if errors.Is(err, sql.ErrNoRows) {
			held, herr := s.leaseIn(ctx, tx, k)
			if herr != nil {
				return herr
			}
			if held.Host != h.Host || held.PID == h.PID || !gone(held.PID) {
				return &HeldError{Lease: *held}
			}
			// Its holder was a process of this machine that is gone
			// (killed): taken over now rather than when it expires.
			err = tx.QueryRowContext(ctx, s.clocked(takeDeadSQL), h.ID, h.Label, h.Host, h.PID, ttlMs(ttl), ttlMs(ttl),
				k.Service, k.Team, k.Run, held.Token, held.ID).Scan(&l.Token, &since, &renewed, &expires, &l.Bell)
			if errors.Is(err, sql.ErrNoRows) {
				return &HeldError{Lease: *held}
			}
		}
		if err != nil {
			return err
		}
		l.Since, l.Renewed, l.Expires, l.Read = fromMsT(since), fromMsT(renewed), fromMsT(expires), fromMsT(renewed)
		return nil
	})
	var he *HeldError
	if errors.As(err, &he) {
		return Lease{}, he // said as it is: the usual answer, not a failure
	}
	return l, err
}

// leaseRead is a lease's columns, how long it is still held and the
// database's clock when read.
var leaseRead = `SELECT ` + leaseCols + `, ` + leftSQL("fw_leases") + `, NOW FROM fw_leases`

// leaseSQL reads one lease.
var leaseSQL = leaseRead + ` WHERE service = ? AND team = ? AND run = ?`

// leaseIn reads k's lease in tx (nil: none).
func (s *sqlStore) leaseIn(ctx context.Context, tx *sql.Tx, k LeaseKey) (*Lease, error) {
	l, err := scanLease(tx.QueryRowContext(ctx, s.clocked(leaseSQL), k.Service, k.Team, k.Run))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return l, err
}

func (s *sqlStore) Lease(ctx context.Context, k LeaseKey) (Lease, error) {
	l, err := scanLease(s.db.QueryRowContext(ctx, s.clocked(leaseSQL), k.Service, k.Team, k.Run))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return Lease{}, ErrNotFound
	case err != nil:
		return Lease{}, s.fail("reading a lease", err)
	}
	return *l, nil
}

func scanLease(sc scanner) (*Lease, error) {
	var l Lease
	var since, renewed, expires, ttl, left, now int64
	err := sc.Scan(&l.Service, &l.Team, &l.Run, &l.Token, &l.ID, &l.Label, &l.Host, &l.PID, &since, &renewed, &expires, &ttl, &l.Bell, &left, &now)
	if err != nil {
		return nil, err
	}
	l.Since, l.Renewed, l.Expires, l.Read = fromMsT(since), fromMsT(renewed), fromMsT(expires), fromMsT(now)
	l.TTL, l.Left = msDur(ttl), msDur(left)
	return &l, nil
}

// fence renews l in tx when it is still held with its token; else a
// *LostError (nothing else of tx is to be written).
func (s *sqlStore) fence(ctx context.Context, tx *sql.Tx, l *Lease) error {
	var since, renewed, expires int64
	l.TTL = min(l.TTL, MaxLeaseTTL)
	err := tx.QueryRowContext(ctx, s.clocked(fenceSQL+` RETURNING since, renewed, expires, bell`), append([]any{ttlMs(l.TTL), ttlMs(l.TTL)}, fenceArgs(*l)...)...).
		Scan(&since, &renewed, &expires, &l.Bell)
	if errors.Is(err, sql.ErrNoRows) {
		now, err := s.leaseIn(ctx, tx, l.LeaseKey)
		if err != nil {
			return err
		}
		return &LostError{Key: l.LeaseKey, Now: now}
	}
	if err != nil {
		return err
	}
	l.Since, l.Renewed, l.Expires, l.Read, l.Left = fromMsT(since), fromMsT(renewed), fromMsT(expires), fromMsT(renewed), l.TTL
	return nil
}

// leaseErr is a lease operation's error: a lost lease as it is (the
// holder's usual news, not a failure of the archive), else the store's.
func leaseErr(err error) error {
	var le *LostError
	if errors.As(err, &le) {
		return le
	}
	return err
}

func (s *sqlStore) Renew(ctx context.Context, l Lease) (Lease, error) {
	if s.d.name == sqliteDialect.name && !s.readOnly {
		return s.hotRenew(ctx, l)
	}
	err := s.write(ctx, "renewing a lease", func(tx *sql.Tx) error { return s.fence(ctx, tx, &l) })
	return l, leaseErr(err)
}

func (s *sqlStore) Release(ctx context.Context, l Lease) error {
	err := s.write(ctx, "releasing a lease", func(tx *sql.Tx) error {
		// Its holder is cleared (no renewal finds it) and the rest kept:
		// who held it last.
		res, err := tx.ExecContext(ctx, s.clocked(`UPDATE fw_leases SET holder = '', renewed = NOW, expires = NOW`+leaseWhere), fenceArgs(l)...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err // lost already: nothing to release
		}
		if _, err := tx.ExecContext(ctx, s.clocked(`DELETE FROM fw_leases WHERE service = ? AND team = ? AND `+endsSQL("fw_leases")+` < NOW - ?`),
			l.Service, l.Team, leaseKeep.Milliseconds()); err != nil {
			return err
		}
		return s.ring(ctx, tx, Doorbell{Service: l.Service, Team: l.Team, Run: l.Run, Seq: -1, Free: true})
	})
	return err
}

func (s *sqlStore) Leases(ctx context.Context, service, team string) ([]Lease, error) {
	query, args := leaseRead+` WHERE 1 = 1`, []any{}
	if service != "" {
		query, args = query+` AND service = ?`, append(args, service)
	}
	if team != "" {
		query, args = query+` AND team = ?`, append(args, team)
	}
	rows, err := s.db.QueryContext(ctx, s.clocked(query+` ORDER BY service, team, run`), args...)
	if err != nil {
		return nil, s.fail("reading the leases", err)
	}
	defer rows.Close()
	var out []Lease
	for rows.Next() {
		l, err := scanLease(rows)
		if err != nil {
			return nil, s.fail("reading the leases", err)
		}
		out = append(out, *l)
	}
	return out, s.fail("reading the leases", rows.Err())
}

func (s *sqlStore) AppendLeased(ctx context.Context, l Lease, startedAt time.Time, polls []Poll) (int64, error) {
	if len(polls) == 0 {
		_, err := s.Renew(ctx, l)
		return -1, err
	}
	last, err := s.appendPolls(ctx, l.Service, l.Run, startedAt, polls, &l, nil)
	if err != nil {
		return -1, leaseErr(err)
	}
	return last, nil
}

func (s *sqlStore) AppendLeasedAlong(ctx context.Context, l Lease, startedAt time.Time, polls []Poll, a Along) (int64, error) {
	if len(polls) == 0 || s.readOnly {
		return -1, s.fail("saving a poll", errors.New("nothing to carry the snapshots and counts"))
	}
	last, err := s.appendPolls(ctx, l.Service, l.Run, startedAt, polls, &l, &a)
	if err != nil {
		return -1, leaseErr(err)
	}
	return last, nil
}

func (s *sqlStore) ReplaceLeased(ctx context.Context, l Lease, r *Run, polls []Poll, snapshots map[string]string) error {
	return leaseErr(s.replaceRun(ctx, r, polls, snapshots, func(tx *sql.Tx) error { return s.fence(ctx, tx, &l) }))
}

func (s *sqlStore) Ring(ctx context.Context, l Lease) (int64, error) {
	err := s.write(ctx, "ringing a lease's doorbell", func(tx *sql.Tx) error {
		if err := s.fence(ctx, tx, &l); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, s.q(`UPDATE fw_leases SET bell = bell + 1`+leaseWhere+` RETURNING bell`), fenceArgs(l)...).Scan(&l.Bell); err != nil {
			return err
		}
		return s.ring(ctx, tx, Doorbell{Service: l.Service, Team: l.Team, Run: l.Run, Seq: l.Bell})
	})
	if err != nil {
		return -1, leaseErr(err)
	}
	return l.Bell, nil
}

func (s *sqlStore) PollsSince(ctx context.Context, service, id string, after int64, limit int) ([]Poll, error) {
	query := `SELECT p.seq, p.received_at, p.enc, p.body FROM fw_polls p JOIN fw_runs r ON r.rid = p.rid
		WHERE r.service = ? AND r.id = ? AND p.seq > ? ORDER BY p.seq`
	args := []any{service, id, after}
	if limit > 0 {
		query, args = query+` LIMIT ?`, append(args, limit)
	}
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, s.fail("reading polls", err)
	}
	return s.scanPolls(rows)
}

// bellPayload is a doorbell as NOTIFY carries it: the lease's key and a
// number, nothing of what was stored.
type bellPayload struct {
	S string `json:"s"`
	T string `json:"t"`
	R string `json:"r"`
	Q int64  `json:"q"`
	F bool   `json:"f,omitzero"`
}

// maxPayload is under PostgreSQL's bound on a NOTIFY payload (8000 bytes):
// a longer key rings no bell, and its followers read at their interval.
const maxPayload = 7900

// ring rings b's doorbell when tx commits (PostgreSQL's NOTIFY; SQLite
// has none).
func (s *sqlStore) ring(ctx context.Context, tx *sql.Tx, b Doorbell) error {
	if s.channel == "" {
		return nil
	}
	p, _ := json.Marshal(bellPayload{S: b.Service, T: b.Team, R: b.Run, Q: b.Seq, F: b.Free})
	if len(p) > maxPayload {
		return nil
	}
	_, err := tx.ExecContext(ctx, `SELECT pg_notify($1, $2)`, s.channel, string(p))
	return err
}

func parseBell(payload string) (Doorbell, bool) {
	var p bellPayload
	if err := json.Unmarshal([]byte(payload), &p); err != nil {
		return Doorbell{}, false
	}
	return Doorbell{Service: p.S, Team: p.T, Run: p.R, Seq: p.Q, Free: p.F}, true
}
