package archiving

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/firewatch/firewatch/archive"
)

// The background work's request budget. Live follows (screens, watch,
// run, a hub's followers and its list) ask the service as they need to
// and are never paced here; the background work of every firewatch that
// shares the archive (archive passes, the runs screen's and a hub's
// completions) takes at most BackgroundShare of the service's limit, all
// of them together, paced through one row of the archive per service and
// team (archive.Budgeter), so that what is left is the live work's. A 429
// one of them meets holds them all for the delay it asked for, and slows
// that Budget's pace by half (down to a sixteenth) for as long as it
// lives (a pass makes one of its own).

// DefaultRateLimit is the service's limit on one team's requests when
// $FIREWATCH_RATE_LIMIT says none: the free plan's 500 a minute.
const DefaultRateLimit = 500

// EnvRateLimit is the team's limit: "N" requests a minute, or "N/DUR"
// (e.g. "100/10s").
const EnvRateLimit = "FIREWATCH_RATE_LIMIT"

// BackgroundShare is the part of the limit the background work takes at
// most: a half, so that the live work has the other half however many
// passes run.
const BackgroundShare = 0.5

// maxSlow bounds the halvings of a pace after 429s.
const maxSlow = 4

// Limit is the service's limit: N requests per Per.
type Limit struct {
	N   int
	Per time.Duration
}

// LimitFromEnv reads $FIREWATCH_RATE_LIMIT (DefaultRateLimit a minute when
// unset); a value it cannot read is an error naming it.
func LimitFromEnv() (Limit, error) {
	v := strings.TrimSpace(os.Getenv(EnvRateLimit))
	if v == "" {
		return Limit{DefaultRateLimit, time.Minute}, nil
	}
	n, per, ok := strings.Cut(v, "/")
	l := Limit{Per: time.Minute}
	var err error
	if l.N, err = strconv.Atoi(strings.TrimSpace(n)); err != nil || l.N < 1 {
		return Limit{}, fmt.Errorf("$%s=%q: expected requests a minute (500) or requests per duration (100/10s)", EnvRateLimit, v)
	}
	if ok {
		if l.Per, err = time.ParseDuration(strings.TrimSpace(per)); err != nil || l.Per < time.Millisecond || l.Per > 24*time.Hour {
			return Limit{}, fmt.Errorf("$%s=%q: expected requests a minute (500) or requests per duration (100/10s)", EnvRateLimit, v)
		}
	}
	return l, nil
}

// Budget paces one process's background requests to one service for one
// team (a poller.Pacer). Safe for concurrent use.
type Budget struct {
	st    archive.Budgeter // nil: this process paces alone
	key   archive.BudgetKey
	limit Limit
	logf  func(format string, args ...any)

	mu       sync.Mutex
	slow     int           // halvings after 429s
	due      time.Time     // this process's own pace, when the archive cannot keep it
	held     time.Time     // and until when its last 429 holds it
	fellBack bool          // said once in the debug log
	waited   time.Duration // the waits in all (the report's)
}

// NewBudget is the budget of service and team's background work, shared
// through st when it can be (nil: paced alone); logf (nil: none) is the
// debug log.
func NewBudget(st archive.Store, service, team string, limit Limit, logf func(format string, args ...any)) *Budget {
	b := &Budget{key: archive.BudgetKey{Service: service, Team: team}, limit: limit, logf: logf}
	if bs, ok := st.(archive.Budgeter); ok {
		b.st = bs
	}
	if b.limit.N < 1 || b.limit.Per <= 0 {
		b.limit = Limit{DefaultRateLimit, time.Minute}
	}
	if b.logf == nil {
		b.logf = func(string, ...any) {}
	}
	return b
}

// pace is the interval between two background requests and the burst
// allowed, as b's 429s have slowed it; b.mu is held.
func (b *Budget) pace() (time.Duration, int) {
	share := max(int(float64(b.limit.N)*BackgroundShare), 1)
	iv := b.limit.Per / time.Duration(share) << b.slow
	burst := max(share/20, 1)
	if b.slow > 0 {
		burst = 1
	}
	return max(iv, time.Millisecond), burst
}

// Wait waits for the next request's slot.
func (b *Budget) Wait(ctx context.Context) error {
	wait, err := b.reserve(ctx, 0)
	if err != nil {
		return err
	}
	if wait <= 0 {
		return nil
	}
	b.mu.Lock()
	b.waited += wait
	b.mu.Unlock()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// reserve reserves the next slot, in the archive when it can, and says
// how long until it; hold > 0: a 429's (see archive.Budgeter).
func (b *Budget) reserve(ctx context.Context, hold time.Duration) (time.Duration, error) {
	b.mu.Lock()
	iv, burst := b.pace()
	b.mu.Unlock()
	if b.st != nil {
		wait, err := b.st.Pace(ctx, b.key, iv, burst, hold)
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		if err == nil {
			return wait, nil
		}
		return b.paceAlone(iv, burst, hold, err), nil
	}
	return b.paceAlone(iv, burst, hold, nil), nil
}

// paceAlone is Pace kept in the process: the archive is read-only or
// failing (err, said once in the debug log), or cannot pace.
func (b *Budget) paceAlone(iv time.Duration, burst int, hold time.Duration, err error) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil && !b.fellBack {
		b.fellBack = true
		b.logf("archive: the background requests are paced by this process alone: %v", err)
	}
	now := time.Now()
	if hold > 0 {
		// As the archive's row: held until the hold ends, the burst spent.
		b.held = later(b.held, now.Add(hold))
		b.due = later(b.due, now.Add(hold+time.Duration(burst-1)*iv))
		return 0
	}
	b.due = later(b.due, now).Add(iv)
	return max(b.due.Sub(now)-time.Duration(burst)*iv, b.held.Sub(now), 0)
}

// RateLimited is a 429 a background request met: every background
// request waits its delay (at least an interval), and this process's pace
// is halved.
// The hold is reserved at once, so that the other processes' requests
// wait too while this one's retry waits the delay out.
func (b *Budget) RateLimited(retryAfter time.Duration) {
	b.mu.Lock()
	b.slow = min(b.slow+1, maxSlow)
	iv, _ := b.pace()
	b.mu.Unlock()
	hold := max(retryAfter, iv)
	ctx, cancel := context.WithTimeout(context.Background(), WriteTimeout)
	defer cancel()
	_, _ = b.reserve(ctx, hold)
	b.logf("archive: a background request was rate limited: background requests wait %s, then go one every %s", hold, iv)
}

// Waited is how long b's requests have waited for their slots in all.
func (b *Budget) Waited() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.waited
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
