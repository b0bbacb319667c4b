package cli

import (
	"context"
	"sync"
	"time"

	"github.com/firewatch/firewatch/internal/panics"
	"github.com/firewatch/firewatch/notify"
)

// The team's moments (--notify-on team:80%, team:projected) are decided
// by every process that notifies with one of them asked for: watch, run,
// rerun, follow-up and the runs screen (from its start), crawl, and the
// hub (for its whole life). Each asks the team's balance (credit-usage,
// else the token usage in credits) at its start and every teamCheckEvery,
// and the usage by day at most every notify.TeamHistoryEvery for the projection
// (team:projected only); the moments are claimed in the archive like every
// other, so the processes that share it tell each once per billing period.
// A service that lacks the balance (self-hosted: 404) is asked no more,
// said once in the debug log.

// teamCheckEvery is how often the team's balance is asked for the team's
// moments.
const teamCheckEvery = 5 * time.Minute

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
		tc := &notify.TeamCheck{Service: c, N: ns.n, Log: ns.log, Now: time.Now, Absent: absent}
		panics.Go(ctx, func() {
			defer close(done)
			tc.Loop(ctx, stop, teamCheckEvery)
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
