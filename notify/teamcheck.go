package notify

import (
	"context"
	"time"

	"github.com/firewatch/firewatch/poller"
)

// The team's check feeds the team's moments (team:N%, team:projected):
// the balance at every tick, the usage by day at most every
// TeamHistoryEvery for the projection.

// TeamHistoryEvery is how often the team's usage by day is asked for
// team:projected.
const TeamHistoryEvery = time.Hour

// TeamAsker is what the team's check asks (*poller.Client is one).
type TeamAsker interface {
	CreditUsage(ctx context.Context) (*poller.CreditUsage, error)
	UsageHistory(ctx context.Context, timeRange string, byKey bool) (*poller.UsageHistory, error)
}

// TeamCheck asks Service for the team's balance and hands it to N.
type TeamCheck struct {
	Service TeamAsker
	N       *Notifier
	Log     func(string)
	Now     func() time.Time
	// Absent reports whether an error is the service lacking the
	// endpoint, and how to say so.
	Absent func(error) (string, bool)

	hist *poller.UsageHistory
	// histAt is when the usage by day was last asked; noHist: the service
	// lacks it.
	histAt time.Time
	noHist bool
}

// Once asks once and tells what passed; it reports false when the
// service lacks the balance (nothing more to ask).
func (tc *TeamCheck) Once(ctx context.Context) bool {
	cu, err := tc.Service.CreditUsage(ctx)
	if err != nil {
		if why, ok := tc.Absent(err); ok {
			tc.Log("notify: the team's balance is " + why + ": no team moments")
			return false
		}
		if ctx.Err() == nil {
			tc.Log("notify: the team's balance not learned: " + err.Error())
		}
		return true
	}
	if cu == nil || cu.Remaining == nil {
		tc.Log("notify: the team's balance has no usable remaining figure")
		return true
	}
	u := TeamUsage{PeriodStart: cu.PeriodStart, PeriodEnd: cu.PeriodEnd}
	if cu.Plan != nil {
		u.Plan, u.Used = *cu.Plan, *cu.Plan-*cu.Remaining
	}
	now := tc.Now()
	if tc.N.WantsProjection() && !tc.noHist && !cu.PeriodEnd.IsZero() {
		if tc.hist == nil || now.Sub(tc.histAt) >= TeamHistoryEvery {
			h, err := tc.Service.UsageHistory(ctx, "month", false)
			switch _, gone := tc.Absent(err); {
			case err == nil:
				tc.hist, tc.histAt = h, now
			case gone:
				tc.noHist = true
				tc.Log("notify: the team's usage by day is not offered: no team:projected")
			default:
				tc.Log("notify: the team's usage by day not learned: " + err.Error())
			}
		}
		if tc.hist != nil {
			if p, _ := tc.hist.Project(*cu.Remaining, cu.PeriodEnd, now); p != nil {
				u.PerDay, u.LastsUntil, u.DaysBeforeEnd, u.Projection = p.PerDay, p.LastsUntil, p.DaysBeforeEnd, p.Text
			}
		}
	}
	tc.N.Team(u)
	return true
}

// Loop asks at once, then every every, until stop is closed (a check
// under way is finished first) or ctx ends, or the service is found to
// lack the balance.
func (tc *TeamCheck) Loop(ctx context.Context, stop <-chan struct{}, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for tc.Once(ctx) {
		select {
		case <-ctx.Done():
			return
		case <-stop:
			return
		case <-t.C:
		}
	}
}
