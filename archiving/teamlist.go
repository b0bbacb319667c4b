package archiving

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// TeamList is the team's list (its newest page) shared by the firewatch
// processes on one archive through the list's lease (service and team, no
// run): the holder asks the service and stores each run it lists that is
// new or changed since its last page (its list item, as a pass stores
// it), renewing the lease and ringing its doorbell at each page; the
// others show the newest page from the archive, read at their interval.
// A holder that stops (quits, or is killed) loses the lease after its TTL,
// and the next process to refresh takes it. The older pages, and
// everything else, are the live service's.
type TeamList struct {
	Service // the live service: details, actions, older pages
	st      archive.Store
	sec     *text.Secrets
	key     archive.LeaseKey
	holder  archive.Holder
	ttl     time.Duration
	logf    func(format string, args ...any)

	mu      sync.Mutex
	holding bool              // the lease was this process's at its last page
	state   string            // what was said last: "held", "followed", "alone"
	stored  map[string]string // the last page stored: id → its item
}

// listIntervals is the list lease's TTL in the screens' refresh
// intervals: a holder gone is replaced within a few refreshes.
const listIntervals = 3

// NewTeamList is live's newest page shared through st's list lease of
// service and team, for holder; interval is how often the screens
// refresh it; logf (nil: nowhere) is told each take, loss and follow.
func NewTeamList(live Service, st archive.Store, sec *text.Secrets, service, team string, holder archive.Holder,
	interval time.Duration, logf func(string, ...any)) *TeamList {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &TeamList{Service: live, st: st, sec: sec, key: archive.LeaseKey{Service: service, Team: team},
		holder: holder, ttl: listIntervals * interval, logf: logf}
}

// Runs is the newest page through the lease (before zero), else the live
// service's page.
func (t *TeamList) Runs(ctx context.Context, before time.Time) (*poller.RunList, error) {
	if !before.IsZero() {
		return t.Service.Runs(ctx, before)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	l, err := t.st.Take(ctx, t.key, t.holder, t.ttl)
	var he *archive.HeldError
	switch {
	case errors.As(err, &he):
		if t.holding {
			t.logf("lease: lost the team's list to %s", he.Lease.Holder.String())
		}
		t.holding, t.stored = false, nil
		if list, err := t.fromArchive(ctx); err == nil {
			t.say("followed", "lease: the team's list is polled by "+he.Lease.Holder.String()+": shown from the archive")
			return list, nil
		}
		// The archive cannot be read: the service's list, as alone.
	case err != nil:
		t.holding, t.stored = false, nil
		t.say("alone", "lease: the team's list is polled on its own: "+err.Error())
		return t.Service.Runs(ctx, before)
	default:
		if !t.holding {
			t.logf("%s", LeaseLine("took", l))
		}
		t.holding = true
		t.state = "held"
	}
	list, err := t.Service.Runs(ctx, before)
	if err != nil || !t.holding {
		return list, err
	}
	t.store(ctx, list.Runs)
	// Renewed, and the followers' doorbell rung.
	if _, err := t.st.Ring(ctx, l); errors.Is(err, archive.ErrLeaseLost) {
		t.holding, t.stored = false, nil
		t.logf("lease: lost the team's list on renewing: %v", err)
	}
	return list, nil
}

// say logs msg when the list's state changes to state.
func (t *TeamList) say(state, msg string) {
	if t.state != state {
		t.state = state
		t.logf("%s", text.Sanitize(msg))
	}
}

// store keeps in the archive each run of the page that is new or changed
// since the last page stored: its list item, with the team, as a pass
// stores it. A failure is tried again at the next page.
func (t *TeamList) store(ctx context.Context, page []poller.RunInfo) {
	stored := make(map[string]string, len(page))
	for i := range page {
		ri := &page[i]
		if poller.ValidateJobID(ri.ID) != nil {
			continue
		}
		item := string(ri.Raw)
		if old, ok := t.stored[ri.ID]; ok && old == item {
			stored[ri.ID] = item
			continue
		}
		r := RunFromInfo(t.sec, t.key.Service, ri)
		r.Team = t.key.Team
		if err := t.st.PutRun(ctx, r); err != nil {
			t.logf("lease: the team's list could not be stored: %v", err)
			continue
		}
		stored[ri.ID] = item
	}
	t.stored = stored
}

// fromArchive is the newest page as the list's holder stored it: the
// team's newest runs the service listed and still keeps, read as the
// service's items.
func (t *TeamList) fromArchive(ctx context.Context) (*poller.RunList, error) {
	items, err := t.st.Listed(ctx, t.key.Service, t.key.Team, poller.ListPageSize)
	if err != nil {
		return nil, err
	}
	list := &poller.RunList{}
	for _, it := range items {
		ri, ok := poller.ParseRunItem(it)
		if ok && poller.ValidateJobID(ri.ID) == nil {
			list.Runs = append(list.Runs, ri)
		}
	}
	if n := len(list.Runs); n == poller.ListPageSize && !list.Runs[n-1].CreatedAt.IsZero() {
		// A whole page: older ones may follow, which are the service's
		// (the archive holds the newest page the holder stored).
		list.Next, list.NextBefore = "archive", list.Runs[n-1].CreatedAt
	}
	return list, nil
}

// Release gives the list's lease up (the screen no longer refreshes it):
// another process takes it at its next refresh, and this one at its own
// if it is still free. Nil: nothing.
func (t *TeamList) Release(ctx context.Context) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.holding {
		return
	}
	t.holding, t.stored, t.state = false, nil, ""
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), WriteTimeout)
	defer cancel()
	l, err := t.st.Lease(ctx, t.key)
	if err == nil && l.Holder.ID == t.holder.ID {
		_ = t.st.Release(ctx, l)
		t.logf("%s", LeaseLine("released", l))
	}
}

// Start passes the start's thread and turn on (StartOn).
func (t *TeamList) Start(ctx context.Context, req poller.AgentRequest) (poller.Started, error) {
	return StartOn(ctx, t.Service, req)
}

// UsageHistory is the live service's usage by day (the team tab's
// projection), when it gives one: the embedded Service names no such
// method, and a wrapper hides what its interface does not name.
func (t *TeamList) UsageHistory(ctx context.Context, timeRange string, byKey bool) (*poller.UsageHistory, error) {
	if h, ok := t.Service.(interface {
		UsageHistory(ctx context.Context, timeRange string, byKey bool) (*poller.UsageHistory, error)
	}); ok {
		return h.UsageHistory(ctx, timeRange, byKey)
	}
	return nil, &poller.Error{Kind: poller.KindNotFound, Status: 404, Op: "usage history"}
}
