package cli

import (
	"context"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/cli/internal/hubsvc"
	"github.com/firewatch/firewatch/follow"
)

// The hub's notifications (hub --notify-command, --notify-url,
// --notify-on) tell the team's channel the moments of every run the hub
// follows: decided once per run by its follower (follow.Run.Saw, on the
// merging goroutine), whatever the number of sessions that watch it, and
// once per moment however often the run is followed again (the notifier
// remembers what it sent). With --follow-processing the hub follows every
// processing run of the team, watched or not, for them.

// hubNotify is the hub's notifier (hubsvc.Notifier).
type hubNotify struct {
	ns *notifications
}

// newHubNotify starts the hub's notifier; nil when no sink was asked for.
// Its moments are claimed in the hub's archive st (nil: none), so that
// the hubs and watches sharing it send each once; without one the hub
// decides alone, said once in its log (say).
func (a *app) newHubNotify(x *notifyOptions, st archive.Store, svc service, say func(string)) (hubsvc.Notifier, error) {
	ns, err := a.startNotify(x, func() (*momentClaims, string) {
		if c := newMomentClaims(st, svc, "hub"); c != nil {
			return c, ""
		}
		return nil, "the hub has no shared archive"
	})
	if ns == nil || err != nil {
		return nil, err
	}
	// Each moment, and who claimed it, is a line of the hub's log.
	ns.mu.Lock()
	ns.logTo = say
	ns.mu.Unlock()
	if ns.alone != "" {
		say("firewatch hub: notifications are decided by this hub alone (no shared archive): another hub notifying the same channel sends them too")
	}
	a.checkTeam(ns, svc)
	return &hubNotify{ns: ns}, nil
}

// Follow makes the notifications of run (of jobID) decided by whoever
// merges into it: the run's follower.
func (n *hubNotify) Follow(jobID string, run *follow.Run) {
	nr := n.ns.n.Follow(jobID, run.Store)
	run.Saw = func(t *attention.Tracker, ch []attention.Change) { nr.Saw(t, ch) }
}

// Close waits, bounded, for the last notifications.
func (n *hubNotify) Close() {
	n.ns.stopTeam()
	ctx, cancel := context.WithTimeout(context.Background(), notifyFlush)
	defer cancel()
	left, dropped := n.ns.n.Close(ctx)
	n.ns.sayLost("firewatch hub", left, dropped, notifyFlush)
}
