package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/attention"
	"github.com/firewatch/firewatch/follow"
	"github.com/firewatch/firewatch/notify"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/ui/runs"
)

// The hub's notifications (hub --notify-command, --notify-url,
// --notify-on) tell the team's channel the moments of every run the hub
// follows: decided once per run by its follower (follow.Run.Saw, on the
// merging goroutine), whatever the number of sessions that watch it, and
// once per moment however often the run is followed again (the notifier
// remembers what it sent). With --follow-processing the hub follows every
// processing run of the team, watched or not, for them.

// hubNotify is the hub's notifier.
type hubNotify struct {
	ns *notifications
}

// newHubNotify starts the hub's notifier; nil when no sink was asked for.
// Its moments are claimed in the hub's archive st (nil: none), so that
// the hubs and watches sharing it send each once; without one the hub
// decides alone, said once in its log (say).
func (a *app) newHubNotify(x *notifyOptions, st archive.Store, svc service, say func(string)) (*hubNotify, error) {
	ns, err := a.startNotify(x, func() (*notify.ArchiveClaims, string) {
		if c := notify.NewArchiveClaims(st, svc.baseURL, svc.key, "hub", false); c != nil {
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

// follow makes the notifications of run (of jobID) decided by whoever
// merges into it: the run's follower.
func (n *hubNotify) follow(jobID string, run *follow.Run) {
	if n == nil {
		return
	}
	nr := n.ns.n.Follow(jobID, run.Store)
	run.Saw = func(t *attention.Tracker, ch []attention.Change) { nr.Saw(t, ch) }
}

// close waits, bounded, for the last notifications.
func (n *hubNotify) close() {
	if n == nil {
		return
	}
	n.ns.stopTeam()
	ctx, cancel := context.WithTimeout(context.Background(), notifyFlush)
	defer cancel()
	left, dropped := n.ns.n.Close(ctx)
	n.ns.sayLost("firewatch hub", left, dropped, notifyFlush)
}

// followProcessing follows every processing run of the team the list shows
// (hub --follow-processing), each until it ends, looking every hubListTTL
// until ctx ends. A run is followed once: one that ended (or was refused)
// is not followed again.
func (h *hubFollows) followProcessing(ctx context.Context) {
	seen := map[string]bool{}
	t := time.NewTicker(hubListTTL + time.Second)
	defer t.Stop()
	for {
		l, err := h.list.latest(ctx)
		if err != nil && ctx.Err() == nil {
			fmt.Fprintf(h.a.stderr, "firewatch hub: --follow-processing: the team's runs: %s\n", h.a.secrets.Redact(err.Error()))
		}
		if l != nil {
			for _, ri := range l.Runs {
				if seen[ri.ID] || !runs.StatusMatches("processing", ri.Status) || poller.ValidateJobID(ri.ID) != nil {
					continue
				}
				seen[ri.ID] = true
				r, release := h.open(ri.ID)
				h.wg.Add(1)
				go func() {
					defer h.wg.Done()
					select {
					case <-r.f.Done():
					case <-ctx.Done():
					}
					release()
				}()
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
