package cli

import (
	"context"
	"sync"
	"time"

	"github.com/firewatch/firewatch/internal/panics"
	"github.com/firewatch/firewatch/notify"
	"github.com/firewatch/firewatch/poller"
)

// The team's moments (--notify-on team:80%, team:projected) are decided
// by every process that notifies with one of them asked for: watch, run,
// rerun, follow-up and the runs screen (from its start), crawl, and the
// hub (for its whole life). Each asks the team's balance (credit-usage,
// else the token usage in credits) at its start and every teamCheckEvery,
// and the usage by day at most every teamHistoryEvery for the projection
// (team:projected only); the moments are claimed in the archive like every
// other, so the processes that share it tell each once per billing period.
// A service that lacks the balance (self-hosted: 404) is asked no more,
// said once in the debug log.

// teamCheckEvery is how often the team's balance is asked for the team's
// moments; teamHistoryEvery how often its usage by day.
const (
	teamCheckEvery   = 5 * time.Minute
	teamHistoryEvery = time.Hour
)

// teamAsker is what the team's check asks (*poller.Client is one).
type teamAsker interface {
	CreditUsage(ctx context.Context) (*poller.CreditUsage, error)
	UsageHistory(ctx context.Context, timeRange string, byKey bool) (*poller.UsageHistory, error)
}

// teamCheck asks svc for the team's balance and hands it to n.
type teamCheck struct {
	svc  teamAsker
	n    *notify.Notifier
	log  func(string)
	now  func() time.Time
	hist *poller.UsageHistory
	// histAt is when the usage by day was last asked; noHist: the service
	// lacks it.
	histAt time.Time
	noHist bool
}

// once asks once and tells what passed; it reports false when the
// service lacks the balance (nothing more to ask).
func (tc *teamCheck) once(ctx context.Context) bool {
	cu, err := tc.svc.CreditUsage(ctx)
	if err != nil {
		if why, ok := absent(err); ok {
			tc.log("notify: the team's balance is " + why + ": no team moments")
			return false
		}
		if ctx.Err() == nil {
			tc.log("notify: the team's balance not learned: " + err.Error())
		}
		return true
	}
	if cu == nil || cu.Remaining == nil {
		tc.log("notify: the team's balance has no usable remaining figure")
		return true
	}
	u := notify.TeamUsage{PeriodStart: cu.PeriodStart, PeriodEnd: cu.PeriodEnd}
	if cu.Plan != nil {
		u.Plan, u.Used = *cu.Plan, *cu.Plan-*cu.Remaining
	}
	now := tc.now()
	if tc.n.WantsProjection() && !tc.noHist && !cu.PeriodEnd.IsZero() {
		if tc.hist == nil || now.Sub(tc.histAt) >= teamHistoryEvery {
			h, err := tc.svc.UsageHistory(ctx, "month", false)
			switch _, gone := absent(err); {
			case err == nil:
				tc.hist, tc.histAt = h, now
			case gone:
				tc.noHist = true
				tc.log("notify: the team's usage by day is not offered: no team:projected")
			default:
				tc.log("notify: the team's usage by day not learned: " + err.Error())
			}
		}
		if tc.hist != nil {
			if p, _ := tc.hist.Project(*cu.Remaining, cu.PeriodEnd, now); p != nil {
				u.PerDay, u.LastsUntil, u.DaysBeforeEnd, u.Projection = p.PerDay, p.LastsUntil, p.DaysBeforeEnd, p.Text
			}
		}
	}
	tc.n.Team(u)
	return true
}

// loop asks at once, then every every, until stop is closed (a check
// under way is finished first) or ctx ends, or the service is found to
// lack the balance.
func (tc *teamCheck) loop(ctx context.Context, stop <-chan struct{}, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for tc.once(ctx) {
		select {
		case <-ctx.Done():
			return
		case <-stop:
			return
		case <-t.C:
		}
	}
}

// teamStopWait bounds the wait for a check under way when the command
// ends: a short run's end does not lose the check made at its start.
const teamStopWait = 3 * time.Second

// teamChecking is a started check: stop ends it and waits for it.
type teamChecking struct {
	once sync.Once
	stop func()
}

// checkTeam starts the team's check for ns's notifier against svc, once
// per invocation, when a team moment was asked for; ns.stopTeam ends it.
func (a *app) checkTeam(ns *notifications, svc service) {
	if ns == nil || !ns.n.WantsTeam() {
		return
	}
	ns.team.once.Do(func() {
		c, err := a.client(svc, nil, ns.log)
		if err != nil {
			ns.log("notify: no team moments: " + err.Error())
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		stop, done := make(chan struct{}), make(chan struct{})
		tc := &teamCheck{svc: c, n: ns.n, log: ns.log, now: time.Now}
		panics.Go(ctx, func() {
			defer close(done)
			tc.loop(ctx, stop, teamCheckEvery)
		})
		ns.team.stop = func() {
			close(stop)
			select {
			case <-done:
			case <-time.After(teamStopWait):
			}
			cancel()
			<-done
		}
	})
}

// stopTeam ends the team's check (before the notifier closes).
func (ns *notifications) stopTeam() {
	if ns != nil && ns.team.stop != nil {
		ns.team.stop()
		ns.team.stop = nil
	}
}
