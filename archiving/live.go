package archiving

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/firewatch/firewatch/archive"
)

// LiveMeter counts a process's live requests to one service for one team
// (a hub's followers and its list) into the team's budget in the archive,
// so that the background work of every firewatch on it takes only what
// the live work leaves: each live request costs a slot of the whole limit
// (the background's are two, its half), so with L live requests of a limit
// of N the background takes (N-L)/2. A live request never waits: it is
// counted in memory (a poller.Pacer whose Wait returns at once) and the
// counts are written every flushEvery on a goroutine of the meter's; a
// 429 a live request met holds the background too, written at once. The archive failing
// loses the counts, not a request.
type LiveMeter struct {
	st    archive.Budgeter
	key   archive.BudgetKey
	limit Limit

	n    atomic.Int64 // live requests not counted yet
	hold atomic.Int64 // the longest 429's delay not said yet (ns)
	// carried: a watch's polls carry the counts (Take), at most once a
	// flushEvery (counted, when they last did, ns); the meter's own tick
	// writes them only once the polls have not for two.
	carried atomic.Bool
	counted atomic.Int64

	ctx  context.Context // the meter's life (flush's writes outlive it: Stop)
	stop context.CancelFunc
	tick *time.Timer   // the meter's own turn: every flushEvery, put off by Take
	done chan struct{} // closed once loop returns
	held chan struct{} // a 429's hold to write now
}

// NewLiveMeter starts the meter of service and team's live requests on
// st, until ctx ends or Stop; nil when st keeps no budget (a nil meter
// counts nothing).
func NewLiveMeter(ctx context.Context, st archive.Store, service, team string, limit Limit) *LiveMeter {
	bs, ok := st.(archive.Budgeter)
	if !ok {
		return nil
	}
	if limit.N < 1 || limit.Per <= 0 {
		limit = Limit{DefaultRateLimit, time.Minute}
	}
	m := &LiveMeter{st: bs, key: archive.BudgetKey{Service: service, Team: team}, limit: limit, done: make(chan struct{}),
		held: make(chan struct{}, 1)}
	m.ctx, m.stop = context.WithCancel(ctx)
	m.tick = time.NewTimer(m.flushEvery())
	go m.loop(m.ctx)
	return m
}

// Stop ends the meter, writing the counts kept since the last flush
// first, so that a watch that ends (and closes st after) loses none of
// its requests; a nil meter, or one stopped already, does nothing more.
func (m *LiveMeter) Stop() {
	if m == nil {
		return
	}
	m.stop()
	<-m.done
	m.flush(context.WithoutCancel(m.ctx))
}

// Wait counts one live request; it never waits.
func (m *LiveMeter) Wait(context.Context) error {
	if m == nil {
		return nil
	}
	m.n.Add(1)
	return nil
}

// RateLimited keeps a 429's delay, for the background to wait out too.
func (m *LiveMeter) RateLimited(retryAfter time.Duration) {
	if m == nil {
		return
	}
	d := int64(max(retryAfter, m.limit.Per/time.Duration(m.limit.N)))
	for {
		old := m.hold.Load()
		if old >= d {
			return
		}
		if m.hold.CompareAndSwap(old, d) {
			select {
			case m.held <- struct{}{}:
			default:
			}
			return
		}
	}
}

// Take hands the requests not counted yet to a write that carries them
// (a watch's next poll, Sink.CarrySpend): n of them, to Give back if that
// write fails. A meter whose polls carry its counts writes none itself
// while they do.
func (m *LiveMeter) Take() (sp archive.Spent, n int64) {
	m.carried.Store(true)
	// The meter's turn is put off while the polls carry the counts, so
	// that it wakes the process only once they have not for two.
	m.tick.Reset(2 * m.flushEvery())
	now := time.Now().UnixNano()
	if time.Duration(now-m.counted.Load()) < m.flushEvery() {
		return archive.Spent{}, 0 // counted lately: the next poll's
	}
	m.counted.Store(now)
	n = m.n.Swap(0)
	return archive.Spent{Key: m.key, Cost: m.limit.Per / time.Duration(m.limit.N) * time.Duration(n), Most: m.limit.Per}, n
}

// Give counts again n requests Take handed to a write that failed.
func (m *LiveMeter) Give(n int64) { m.n.Add(n) }

// take is Take of a meter that may be nil.
func (m *LiveMeter) take() (archive.Spent, int64) {
	if m == nil {
		return archive.Spent{}, 0
	}
	return m.Take()
}

// give is Give of a meter that may be nil.
func (m *LiveMeter) give(n int64) {
	if m != nil && n > 0 {
		m.Give(n)
	}
}

// flushEvery is how often the counts are written: every five seconds (a
// twelfth of the usual minute's window: each write is a transaction of
// its own, which a live watch pays for), or a twelfth of the limit's
// window when that is shorter.
func (m *LiveMeter) flushEvery() time.Duration {
	return max(min(5*time.Second, m.limit.Per/12), time.Millisecond)
}

func (m *LiveMeter) loop(ctx context.Context) {
	defer close(m.done)
	defer m.tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.tick.C:
			m.tick.Reset(m.flushEvery())
			if m.carried.Load() && time.Since(time.Unix(0, m.counted.Load())) < 2*m.flushEvery() {
				continue // the polls carry the counts
			}
			m.flush(ctx)
		case <-m.held:
			m.flush(ctx)
		}
	}
}

// flush writes the counts kept since the last one.
func (m *LiveMeter) flush(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, WriteTimeout)
	defer cancel()
	m.counted.Store(time.Now().UnixNano())
	if n := m.n.Swap(0); n > 0 {
		// A slot of the whole limit each, holding the background a
		// window at most however heavy the live work.
		cost := m.limit.Per / time.Duration(m.limit.N) * time.Duration(n)
		_ = m.st.Spend(ctx, m.key, cost, m.limit.Per)
	}
	if hold := time.Duration(m.hold.Swap(0)); hold > 0 {
		share := max(int(float64(m.limit.N)*BackgroundShare), 1)
		_, _ = m.st.Pace(ctx, m.key, m.limit.Per/time.Duration(share), 1, hold)
	}
}
