package archive

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"time"
)

// The notification moments the processes that share one archive claim for
// the team (notify.Claimer): a moment of a run (its event and item, as the
// notifier keys it) for one of the team's sinks (a webhook, a command) is
// sent by the process that claims it, once. A claim is a short lease of its
// own: a claimer that dies before its delivery is done leaves the moment
// to another process once the claim expires; a moment marked sent is
// claimed by nobody again, a restarted process included. Times are the
// database's clock, as the leases'.

// MomentKey names one moment for one sink.
type MomentKey struct {
	Service string // the service's base URL
	Team    string // TeamOf(key): never the key
	Run     string // the run's (or crawl's) id
	Moment  string // the notifier's key: "run:ID:attention:stall"
	Sink    string // a hash of the sink (the webhook's URL, the command): never the URL
}

// Claim is the answer to ClaimMoment.
type Claim struct {
	// Got: the caller holds the claim now (new, expired, or its own
	// renewed): it sends the moment.
	Got bool
	// Sent: the moment was sent already (or given up as failed), by
	// whoever claimed it: nobody sends it again.
	Sent bool
	// Left is how long another's claim is still held (Got and Sent
	// false): the moment is to be claimed again then.
	Left time.Duration
	// By is the holder of another's claim (its label).
	By string
}

// MaxClaimTTL is the longest claim (a longer one asked is cut to it); a
// row whose expiry is further ahead than that is believed expired.
const MaxClaimTTL = 5 * time.Minute

// Claimer is a store whose processes claim notification moments (both of
// firewatch's stores are).
type Claimer interface {
	// ClaimMoment claims k for h, for ttl: when it was never claimed,
	// its claim expired, or it is h's own (then renewed), and it was not
	// sent. Claim says what it got.
	ClaimMoment(ctx context.Context, k MomentKey, h Holder, ttl time.Duration) (Claim, error)
	// MomentSent marks h's claimed k sent (failed: its sink failed for
	// good, and it is given up, not sent again by anyone); a claim that
	// is no longer h's is marked all the same (the moment went out).
	MomentSent(ctx context.Context, k MomentKey, h Holder, failed bool) error
	// ReleaseMoment gives up h's claim of k unsent (its delivery was
	// abandoned at exit): another process may claim it at once.
	ReleaseMoment(ctx context.Context, k MomentKey, h Holder) error
}

// momentKeep is how long a moment's row outlives its sending: a run's
// moments are not told again for that long.
const momentKeep = 30 * 24 * time.Hour

// TeamMoments is the run of the team's moments (a billing period's share
// of the plan, its projection: notify.TeamJob), kept teamMomentKeep: a
// yearly plan's period outlasts a run's moments.
const TeamMoments = "team"

const teamMomentKeep = 400 * 24 * time.Hour

var maxClaimMs = strconv.FormatInt(int64(MaxClaimTTL/time.Millisecond), 10)

// claimSQL claims a moment unsent whose claim is free, expired (or
// expiring beyond MaxClaimTTL: a row from elsewhere), or the holder's own.
var claimSQL = `INSERT INTO fw_moments AS m (service, team, run, moment, sink, holder, label, claimed, expires, sent_at, failed)
	VALUES (?, ?, ?, ?, ?, ?, ?, NOW, NOW + ?, 0, 0)
	ON CONFLICT (service, team, run, moment, sink) DO UPDATE SET
		claimed = CASE WHEN m.holder = excluded.holder THEN m.claimed ELSE excluded.claimed END,
		holder = excluded.holder, label = excluded.label, expires = excluded.expires
	WHERE m.sent_at = 0 AND (m.holder = excluded.holder OR m.expires <= NOW OR m.expires > NOW + ` + maxClaimMs + `)
	RETURNING expires`

// claimRead is another's claim as it stands: sent, and how long it is held.
const claimRead = `SELECT sent_at, expires - NOW, label FROM fw_moments
	WHERE service = ? AND team = ? AND run = ? AND moment = ? AND sink = ?`

const momentWhere = ` WHERE service = ? AND team = ? AND run = ? AND moment = ? AND sink = ?`

func momentArgs(k MomentKey) []any { return []any{k.Service, k.Team, k.Run, k.Moment, k.Sink} }

func (s *sqlStore) ClaimMoment(ctx context.Context, k MomentKey, h Holder, ttl time.Duration) (Claim, error) {
	if s.readOnly {
		return Claim{}, s.fail("claiming a notification", ErrReadOnly)
	}
	if h.ID == "" || ttl <= 0 {
		return Claim{}, errors.New("archive: a claim needs a holder (NewHolder) and a TTL")
	}
	ms := min(max(ttl.Milliseconds(), 1), int64(MaxClaimTTL/time.Millisecond))
	var c Claim
	err := s.write(ctx, "claiming a notification", func(tx *sql.Tx) error {
		c = Claim{}
		var expires int64
		err := tx.QueryRowContext(ctx, s.clocked(claimSQL), append(momentArgs(k), h.ID, h.Label, ms)...).Scan(&expires)
		if err == nil {
			c.Got = true
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var sent, left int64
		if err := tx.QueryRowContext(ctx, s.clocked(claimRead), momentArgs(k)...).Scan(&sent, &left, &c.By); err != nil {
			return err
		}
		c.Sent = sent != 0
		c.Left = msDur(min(max(left, 0), int64(MaxClaimTTL/time.Millisecond)))
		return nil
	})
	return c, err
}

func (s *sqlStore) MomentSent(ctx context.Context, k MomentKey, h Holder, failed bool) error {
	if s.readOnly {
		return s.fail("marking a notification sent", ErrReadOnly)
	}
	f := 0
	if failed {
		f = 1
	}
	return s.write(ctx, "marking a notification sent", func(tx *sql.Tx) error {
		// The row is there (claimed); one gone (pruned by hand) is made
		// again, sent.
		if _, err := tx.ExecContext(ctx, s.clocked(`INSERT INTO fw_moments (service, team, run, moment, sink, holder, label, claimed, expires, sent_at, failed)
			VALUES (?, ?, ?, ?, ?, ?, ?, NOW, NOW, NOW, ?)
			ON CONFLICT (service, team, run, moment, sink) DO UPDATE SET sent_at = excluded.sent_at, failed = excluded.failed, expires = excluded.expires`),
			append(momentArgs(k), h.ID, h.Label, f)...); err != nil {
			return err
		}
		// The team's moments sent long ago go: a run's moments are over.
		_, err := tx.ExecContext(ctx, s.clocked(`DELETE FROM fw_moments WHERE service = ? AND team = ? AND sent_at > 0
			AND (run <> ? AND sent_at < NOW - ? OR sent_at < NOW - ?)`),
			k.Service, k.Team, TeamMoments, momentKeep.Milliseconds(), teamMomentKeep.Milliseconds())
		return err
	})
}

func (s *sqlStore) ReleaseMoment(ctx context.Context, k MomentKey, h Holder) error {
	if s.readOnly {
		return s.fail("releasing a notification", ErrReadOnly)
	}
	return s.write(ctx, "releasing a notification", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.clocked(`UPDATE fw_moments SET holder = '', expires = NOW`+momentWhere+` AND holder = ? AND sent_at = 0`),
			append(momentArgs(k), h.ID)...)
		return err
	})
}
