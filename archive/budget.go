package archive

import (
	"context"
	"database/sql"
	"time"
)

// The request budget of the background work that shares one archive (the
// archive passes, the runs screen's and a hub's completions), less what
// the live work spent (Spend): the firewatch processes
// that talk to one service with one team's key pace their background
// requests together, through one row per service and team, so that two
// passes split the share a pass may take instead of taking it twice.
//
// The row holds when the next request is due (a generic cell rate
// algorithm, the same as a token bucket): a request reserves the slot at
// max(due, now) and moves due on by the interval; it is sent once due is
// no more than burst intervals ahead of now. A 429 sets held_until: no
// request of any process is sent before it, whatever its burst. Times are the database's
// clock, as the leases', so that processes whose clocks differ agree.

// BudgetKey names a shared budget: one service, one team (TeamOf its key).
type BudgetKey struct {
	Service, Team string
}

// Budgeter is a store whose processes share a request budget (both of
// firewatch's stores are).
type Budgeter interface {
	// Pace reserves the next request of k's background work, at one
	// request an interval with bursts of up to burst, and returns how long
	// the caller waits before sending it (0: now). hold > 0 is a 429,
	// reserving nothing: no request of k's is sent before hold from now,
	// and the caller's burst is spent.
	Pace(ctx context.Context, k BudgetKey, interval time.Duration, burst int, hold time.Duration) (time.Duration, error)
	// Spend counts live work's requests (screens, watches, a hub's
	// followers), which never wait, into k's budget: due moves on by cost
	// from now at the earliest, to at most most ahead of now, so that the
	// background takes only what the live work leaves.
	Spend(ctx context.Context, k BudgetKey, cost, most time.Duration) error
}

// Spent is live work's requests that a watch's poll write carries into
// Key's budget (as Spend, in the poll's own transaction).
type Spent struct {
	Key        BudgetKey
	Cost, Most time.Duration
}

// Along is what a leased watch's poll write carries in its transaction:
// its live requests' count (Spent, nil none) and the artifact snapshots
// fetched since the last poll.
type Along struct {
	Spent     *Spent
	Snapshots []Snapshot
}

// Snapshot is one artifact snapshot's content; NewSnapshot compresses it
// once made, so that the poll write carrying it does not.
type Snapshot struct {
	ID, Content string
	enc         int
	body        []byte // compressed (nil: not yet)
}

// NewSnapshot is a snapshot compressed for its row.
func NewSnapshot(id, content string) Snapshot {
	enc, body := encode([]byte(content))
	return Snapshot{ID: id, Content: content, enc: enc, body: body}
}

// AlongAppender is a store that appends a leased watch's polls with what
// they carry (Along) in one transaction: a live watch writes once a poll,
// not once more for its count and for each snapshot.
type AlongAppender interface {
	AppendLeasedAlong(ctx context.Context, l Lease, startedAt time.Time, polls []Poll, a Along) (int64, error)
}

// ms is sp's cost and bound in the row's milliseconds.
func (sp Spent) ms() (costMs, mostMs int64) {
	mostMs = ttlMs(sp.Most)
	return min(ttlMs(sp.Cost), mostMs), mostMs
}

// spendSQL moves due on by a cost, from now at the earliest, to at most
// now + most.
const spendSQL = `INSERT INTO fw_budget AS b (service, team, due, held_until) VALUES (?, ?, NOW + ?, NOW)
	ON CONFLICT (service, team) DO UPDATE SET due = LEAST(GREATEST(b.due, NOW) + ?, NOW + ?)`

func (s *sqlStore) Spend(ctx context.Context, k BudgetKey, cost, most time.Duration) error {
	if s.readOnly {
		return s.fail("counting the live requests", ErrReadOnly)
	}
	costMs, mostMs := Spent{k, cost, most}.ms()
	if s.d.name == sqliteDialect.name {
		return s.hotSpend(ctx, k, costMs, mostMs)
	}
	return s.write(ctx, "counting the live requests", func(tx *sql.Tx) error { return s.spendIn(ctx, tx, Spent{k, cost, most}) })
}

// spendIn counts sp in the transaction tx.
func (s *sqlStore) spendIn(ctx context.Context, tx *sql.Tx, sp Spent) error {
	costMs, mostMs := sp.ms()
	_, err := tx.ExecContext(ctx, s.clocked(spendSQL), sp.Key.Service, sp.Key.Team, costMs, costMs, mostMs)
	return err
}

// paceSQL moves due to max(due + step, now + base + step) and held_until
// to at least now + hold, and returns how far ahead of now both are. A
// request's step is the interval (base 0); a 429's step is 0 and its base
// the hold less an interval, its burst spent (see Pace).
const paceSQL = `INSERT INTO fw_budget AS b (service, team, due, held_until) VALUES (?, ?, NOW + ? + ?, NOW + ?)
	ON CONFLICT (service, team) DO UPDATE SET
		due = CASE WHEN b.due + ? > excluded.due THEN b.due + ? ELSE excluded.due END,
		held_until = CASE WHEN b.held_until > excluded.held_until THEN b.held_until ELSE excluded.held_until END
	RETURNING due - NOW, held_until - NOW`

func (s *sqlStore) Pace(ctx context.Context, k BudgetKey, interval time.Duration, burst int, hold time.Duration) (time.Duration, error) {
	if s.readOnly {
		return 0, s.fail("pacing the requests", ErrReadOnly)
	}
	// Whole milliseconds, the row's, rounded up: never faster than asked.
	iv := ttlMs(interval + time.Millisecond - 1)
	burst = max(burst, 1)
	step, base, holdMs := iv, int64(0), int64(0)
	if hold > 0 {
		// No request of any process before the hold's end (held_until);
		// this one's next request goes then, the ones after it an
		// interval apart: its burst is spent.
		holdMs = hold.Milliseconds()
		step, base = 0, holdMs+int64(burst-1)*iv
	}
	var ahead, held int64
	err := s.write(ctx, "pacing the requests", func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, s.clocked(paceSQL), k.Service, k.Team, base, step, holdMs, step, step).Scan(&ahead, &held)
	})
	if err != nil {
		return 0, err
	}
	wait := max(ahead-int64(burst)*iv, held)
	return max(time.Duration(wait)*time.Millisecond, 0), nil
}
