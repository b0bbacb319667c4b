package notify

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func teamUsage(start time.Time, used float64) TeamUsage {
	return TeamUsage{PeriodStart: start, PeriodEnd: start.AddDate(0, 0, 30), Used: used, Plan: 10000}
}

// team:50% and team:80%: the highest share passed is told once in a
// billing period, the lower one passed with it is not told after; two
// processes on one archive tell it once; the next period tells it again.
func TestTeamShareOncePerPeriod(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	fc := newFakeClaims()
	on, err := ParseOn("team:50%,team:80%")
	if err != nil {
		t.Fatal(err)
	}
	start := func(holder string) *Notifier {
		t.Helper()
		n, err := New(Config{On: on, URL: rc.URL, Retry: retryNoWait(), Claims: fc.as(holder)})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	nov := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	a, b := start("a"), start("b")
	a.Team(teamUsage(nov, 4000)) // under both
	a.Team(teamUsage(nov, 8100)) // both passed at once: 80% told
	a.Team(teamUsage(nov, 8300)) // again: nothing
	a.Team(teamUsage(nov, 5100)) // a lower figure (a refund): nothing
	// a has delivered (Close drains it) before b sees the share, so the
	// one POST is a's; were both queued at once, either might send it.
	closeNow(t, a)
	b.Team(teamUsage(nov, 8200)) // the other process: told already
	closeNow(t, b)
	got := rc.got()
	if len(got) != 1 {
		t.Fatalf("%d POSTs, want 1", len(got))
	}
	var body struct {
		Text  string `json:"text"`
		Event string `json:"event"`
		ID    string `json:"id"`
		Run   any    `json:"run"`
		Team  *struct {
			PeriodStart string   `json:"periodStart"`
			PeriodEnd   string   `json:"periodEnd"`
			UsedCredits float64  `json:"usedCredits"`
			PlanCredits *float64 `json:"planCredits"`
			Percent     *float64 `json:"percent"`
			Projected   bool     `json:"projected"`
		} `json:"team"`
	}
	if err := json.Unmarshal(got[0], &body); err != nil {
		t.Fatal(err)
	}
	if body.Event != "team" || body.Run != nil || body.Team == nil || *body.Team.Percent != 80 || body.Team.UsedCredits != 8100 ||
		body.Team.PeriodStart != "2026-11-20T00:00:00Z" || body.Team.Projected ||
		body.Text != "the team used 80% of its plan: 8,100 of 10,000 credits in the billing period Nov 20 – Dec 20" ||
		!strings.Contains(body.ID, "2026-11-20T00:00:00Z/2026-12-20T00:00:00Z") {
		t.Errorf("body %s", got[0])
	}
	// The next period: told again, by a process restarted.
	c := start("c")
	c.Team(teamUsage(nov, 9000))                   // the old period still: nothing
	c.Team(teamUsage(nov.AddDate(0, 0, 30), 5200)) // 50% of the new one
	closeNow(t, c)
	if got := rc.got(); len(got) != 2 || !strings.Contains(string(got[1]), `"percent":50`) || !strings.Contains(string(got[1]), "2026-12-20T00:00:00Z/2027-01-19") {
		t.Fatalf("the next period: %d POSTs %s", len(got), got[len(got)-1])
	}
}

// team:projected tells once per period when the plan runs out before the
// period ends, never when it lasts; a balance without a usable period or
// with absurd figures tells nothing.
func TestTeamProjected(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t)
	on, err := ParseOn("team:projected,team:90%")
	if err != nil {
		t.Fatal(err)
	}
	n, err := New(Config{On: on, URL: rc.URL, Retry: retryNoWait()})
	if err != nil {
		t.Fatal(err)
	}
	nov := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	until := time.Date(2026, 12, 8, 0, 0, 0, 0, time.UTC)
	early, late := 12, -3
	u := teamUsage(nov, 6000)
	u.PerDay, u.LastsUntil, u.DaysBeforeEnd, u.Projection = 1900, &until, &late, "at 1,900 credits a day the plan lasts until Dec 23, past the period's end (Dec 20)"
	n.Team(u) // lasts: nothing
	u.DaysBeforeEnd, u.Projection = &early, "at 1,900 credits a day the plan lasts until Dec 8, 12 days before the period ends"
	n.Team(u)
	n.Team(u)
	n.Team(TeamUsage{PeriodStart: nov, PeriodEnd: nov, Used: 1e300, Plan: 10, DaysBeforeEnd: &early, Projection: "x"}) // no usable period
	n.Team(TeamUsage{PeriodStart: nov.AddDate(0, 1, 0), PeriodEnd: nov.AddDate(0, 2, 0), Used: -5, Plan: 10})          // negative use
	closeNow(t, n)
	got := rc.got()
	if len(got) != 1 {
		t.Fatalf("%d POSTs, want 1: %q", len(got), got)
	}
	s := string(got[0])
	for _, want := range []string{`"projected":true`, `"daysBeforeEnd":12`, `"perDay":1900`, `"lastsUntil":"2026-12-08T00:00:00Z"`, `"percent":null`,
		"the team's plan runs out early: at 1,900 credits a day the plan lasts until Dec 8, 12 days before the period ends in the billing period Nov 20 – Dec 20"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %s in %s", want, s)
		}
	}
}

func TestParseOnTeam(t *testing.T) {
	t.Parallel()
	on, err := ParseOn("finished,TEAM:80%,team:projected,team:80")
	if err != nil || len(on.Team) != 1 || on.Team[0] != 0.8 || !on.TeamProjected || on.String() != "finished,team:80%,team:projected" {
		t.Fatalf("%+v %v", on, err)
	}
	for s, want := range map[string]string{"team": "team:80% or team:projected", "team:0%": "the share of the plan must be from 1% to 100%", "team:soon": "e.g. team:80%"} {
		if _, err := ParseOn(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", s, err, want)
		}
	}
	if on, _ := ParseOn("finished"); on.wants(EventTeam) {
		t.Error("finished wants team moments")
	}
}
