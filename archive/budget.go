package archive

import (
	"context"
	"database/sql"
	"time"
)

// The request budget of the background work that shares one archive (the
// archive passes, the runs screen's completions): the firewatch processes
// that talk to one service with one team's key pace their background
// requests together, through one row per service and team, so that two
// passes split the share a pass may take instead of taking it twice.
//
// The row holds when the next request is due (a generic cell rate
// algorithm, the same as a token bucket): a request reserves the slot at
// max(due, now) and moves due on by the interval; it is sent once due is
// no more than burst intervals ahead of now. Times are the database's
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
	// the caller waits before sending it (0: now). hold > 0 is a 429: no
	// request of k's is due before hold from now, and the burst is spent.
	Pace(ctx context.Context, k BudgetKey, interval time.Duration, burst int, hold time.Duration) (time.Duration, error)
}

// paceSQL reserves a slot: due becomes max(due, now + hold) + interval;
// it returns how far ahead of now the new due is.
const paceSQL = `INSERT INTO fw_budget AS b (service, team, due) VALUES (?, ?, NOW + ? + ?)
	ON CONFLICT (service, team) DO UPDATE SET
		due = CASE WHEN b.due + ? > excluded.due THEN b.due + ? ELSE excluded.due END
	RETURNING due - NOW`

func (s *sqlStore) Pace(ctx context.Context, k BudgetKey, interval time.Duration, burst int, hold time.Duration) (time.Duration, error) {
	if s.readOnly {
		return 0, s.fail("pacing the requests", ErrReadOnly)
	}
	iv := ttlMs(interval)
	burst = max(burst, 1)
	var holdMs int64
	if hold > 0 {
		// Past the hold's end by the whole burst: the next request waits
		// the hold out, and the ones after it are paced.
		holdMs = hold.Milliseconds() + int64(burst)*iv
	}
	var ahead int64
	err := s.write(ctx, "pacing the requests", func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, s.clocked(paceSQL), k.Service, k.Team, holdMs, iv, iv, iv).Scan(&ahead)
	})
	if err != nil {
		return 0, err
	}
	wait := time.Duration(ahead-int64(burst)*iv) * time.Millisecond
	return max(wait, 0), nil
}
