package notify

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/text"
)

// The team's moments (--notify-on team:80%, team:projected): the team's
// use of its plan passed a share in the billing period, or the projection
// at the last 7 days' rate says the plan runs out before the period ends.
// Each is told once per billing period: the period is in the moment's key,
// so the next period tells it again, and it is claimed for the team like
// every moment (one process of those sharing the archive sends it).

// EventTeam is a moment about the team's plan, not a run.
const EventTeam Event = "team"

// KindTeam is a team moment's Job.Kind; its Job.ID is TeamJob.
const KindTeam = "team"

// TeamJob is the Job.ID of the team's moments: the archive keeps their
// claims under it (a billing period lasts longer than a run's moments are
// kept).
const TeamJob = "team"

// TeamUsage is the team's balance as a process that asks for it saw it,
// for Team.
type TeamUsage struct {
	PeriodStart, PeriodEnd time.Time
	// Used and Plan are the period's credits; Plan 0: not known.
	Used, Plan float64
	// Projection, when known: the plan's end at the last 7 days' rate.
	PerDay        float64
	LastsUntil    *time.Time
	DaysBeforeEnd *int // > 0: the plan runs out that many days before the period ends
	Projection    string
}

// TeamMoment is the share or the projection a team moment is about.
type TeamMoment struct {
	PeriodStart, PeriodEnd time.Time
	Used, Plan             float64
	// Share is the share of the plan passed (0.8 for team:80%); 0 for
	// the projection's moment.
	Share float64
	// Projected: the projection says the plan runs out early.
	Projected     bool
	PerDay        float64
	LastsUntil    *time.Time
	DaysBeforeEnd *int
}

// WantsTeam reports whether any team moment was asked for: only then
// need the team's usage be asked.
func (n *Notifier) WantsTeam() bool {
	return n != nil && n.on.wants(EventTeam)
}

// WantsProjection reports whether team:projected was asked for (the
// usage by day is asked for it).
func (n *Notifier) WantsProjection() bool { return n != nil && n.on.TeamProjected }

// Team takes in the team's balance: it sends the highest share of the
// plan passed in the period that was not told yet in it (lower ones passed
// with it are marked told), and the projection's moment when the plan runs
// out before the period ends. A balance without a usable period (no start
// or end, an end before the start), or figures out of bounds, tells
// nothing. Safe to call from any goroutine.
func (n *Notifier) Team(u TeamUsage) {
	if !n.WantsTeam() || u.PeriodStart.IsZero() || !u.PeriodEnd.After(u.PeriodStart) {
		return
	}
	period := u.PeriodStart.UTC().Format(time.RFC3339) + "/" + u.PeriodEnd.UTC().Format(time.RFC3339)
	key := func(what string) string { return KindTeam + ":" + period + ":" + what }
	job := Job{Kind: KindTeam, ID: TeamJob}
	base := TeamMoment{PeriodStart: u.PeriodStart.UTC(), PeriodEnd: u.PeriodEnd.UTC(), Used: u.Used, Plan: u.Plan}
	if u.Plan > 0 && u.Used >= 0 && !math.IsInf(u.Used, 0) && !math.IsNaN(u.Used) {
		sent := false
		for i := len(n.on.Team) - 1; i >= 0; i-- {
			share := n.on.Team[i]
			if u.Used < share*u.Plan {
				continue
			}
			k := key("usage:" + pct(share) + "%")
			if !n.claim(k) || sent {
				continue
			}
			tm := base
			tm.Share = share
			n.send(&Moment{Key: k, Event: EventTeam, Text: teamShareText(&tm), Job: job, Team: &tm})
			sent = true
		}
	}
	if n.on.TeamProjected && u.DaysBeforeEnd != nil && *u.DaysBeforeEnd > 0 && u.Projection != "" {
		k := key("projected")
		if n.claim(k) {
			tm := base
			tm.Projected, tm.PerDay, tm.LastsUntil, tm.DaysBeforeEnd = true, u.PerDay, u.LastsUntil, u.DaysBeforeEnd
			n.send(&Moment{Key: k, Event: EventTeam, Text: "the team's plan runs out early: " + n.clean(u.Projection, maxField) + periodText(&tm), Job: job, Team: &tm})
		}
	}
}

func pct(share float64) string { return strconv.FormatFloat(math.Round(share*1000)/10, 'f', -1, 64) }

// teamShareText is "the team used 80% of its plan: 8,000 of 10,000
// credits in the billing period Nov 20 – Dec 20".
func teamShareText(tm *TeamMoment) string {
	return fmt.Sprintf("the team used %s%% of its plan: %s of %s%s", pct(tm.Share), describe.Tokens(tm.Used), text.Credits(tm.Plan), periodText(tm))
}

// periodText is " in the billing period Nov 20 – Dec 20".
func periodText(tm *TeamMoment) string {
	return " in the billing period " + tm.PeriodStart.Format("Jan 2") + " – " + tm.PeriodEnd.Format("Jan 2")
}
