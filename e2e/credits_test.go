package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/sim"
)

type costTeamJSON struct {
	Team struct {
		Period struct {
			Start            time.Time `json:"start"`
			End              time.Time `json:"end"`
			PlanCredits      float64   `json:"planCredits"`
			RemainingCredits float64   `json:"remainingCredits"`
			UsedCredits      float64   `json:"usedCredits"`
		} `json:"period"`
		Parts struct {
			AgentRuns struct {
				Runs          int     `json:"runs"`
				BilledCredits float64 `json:"billedCredits"`
				FailedCredits float64 `json:"failedCredits"`
				UnknownRuns   int     `json:"unknownRuns"`
			} `json:"agentRuns"`
			Crawls struct {
				Crawls      int     `json:"crawls"`
				CreditsUsed float64 `json:"creditsUsed"`
			} `json:"crawls"`
			Rest    *float64 `json:"rest"`
			RestWhy string   `json:"restWhy"`
			Total   *float64 `json:"total"`
		} `json:"parts"`
		Projection *struct {
			PerDay     float64    `json:"perDay"`
			LastsUntil *time.Time `json:"lastsUntil"`
		} `json:"projection"`
		ByDay []struct {
			Day     string   `json:"day"`
			Credits *float64 `json:"credits"`
		} `json:"byDay"`
		ByKey []struct {
			Month   string   `json:"month"`
			APIKey  string   `json:"apiKey"`
			Credits *float64 `json:"credits"`
		} `json:"byKey"`
		Activity []struct {
			Endpoint string `json:"endpoint"`
			Count    int    `json:"count"`
		} `json:"activity"`
		Unavailable map[string]string `json:"unavailable"`
	} `json:"team"`
}

// cost --team against serve --history 30 with a crawl and the team's
// other usage: the parts add up to the service's period total exactly;
// the agent runs' and crawls' figures are history's; the rest is the
// simulator's other usage and the crawls firewatch never watched; the
// per-key rows are the simulator's; the projection's date is computed
// from the figures shown.
func TestCostTeamAddsUp(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{History: 30, Speed: 1000})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.WaitFinished(ctx, srv.Jobs[0].ID); err != nil {
		t.Fatal(err)
	}
	env := simEnv(srv, "XDG_DATA_HOME="+t.TempDir())
	if r := runFW(t, env, 60*time.Second, "archive", "--once"); r.code != 0 {
		t.Fatalf("archive: %v", r)
	}
	if r := runFW(t, env, 60*time.Second, "crawl", "https://example.com", "--limit", "5", "-o", "plain"); r.code != 0 {
		t.Fatalf("crawl: %v", r)
	}
	// The team's active crawls are kept as seen (without their credits:
	// firewatch has not watched them).
	if r := runFW(t, env, 30*time.Second, "team"); r.code != 0 {
		t.Fatalf("team: %v", r)
	}
	// The active crawls settle a page every 3 simulated seconds: at speed
	// 1000 they are over long before this.
	before := time.Now()
	r := runFW(t, env, 30*time.Second, "cost", "--team", "-o", "json")
	after := time.Now()
	if r.code != 0 {
		t.Fatalf("cost --team: %v", r)
	}
	var got costTeamJSON
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	tm := got.Team
	u := srv.UsageBetween(srv.Period())
	p := tm.Parts
	if p.Total == nil || p.Rest == nil || *p.Total != float64(u.Total) {
		t.Fatalf("total %v, the simulator's %d (%+v)", p.Total, u.Total, tm)
	}
	if p.AgentRuns.BilledCredits+p.Crawls.CreditsUsed+*p.Rest != *p.Total {
		t.Errorf("parts %v + %v + %v != %v", p.AgentRuns.BilledCredits, p.Crawls.CreditsUsed, *p.Rest, *p.Total)
	}
	if p.AgentRuns.BilledCredits != float64(u.Agent) || p.AgentRuns.UnknownRuns != 0 {
		t.Errorf("agent runs %+v, the simulator's %d", p.AgentRuns, u.Agent)
	}
	if want := float64(u.Other+u.Crawl) - p.Crawls.CreditsUsed; *p.Rest != want || p.RestWhy != "" {
		t.Errorf("rest %v (%q), want %v", *p.Rest, p.RestWhy, want)
	}

	// The agent runs' and crawls' figures are history's.
	h := runFW(t, env, 30*time.Second, "history", "-o", "json", "--since", tm.Period.Start.Format(time.RFC3339))
	var billed float64
	sc := bufio.NewScanner(strings.NewReader(h.stdout))
	for sc.Scan() {
		var line struct {
			BilledCredits *float64  `json:"billedCredits"`
			CreatedAt     time.Time `json:"createdAt"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if line.BilledCredits != nil && line.CreatedAt.Before(tm.Period.End) {
			billed += *line.BilledCredits
		}
	}
	if billed != p.AgentRuns.BilledCredits {
		t.Errorf("history bills %v, cost --team %v", billed, p.AgentRuns.BilledCredits)
	}
	hc := runFW(t, env, 30*time.Second, "history", "--kind", "crawl", "-o", "json")
	var crawled float64
	n := 0
	sc = bufio.NewScanner(strings.NewReader(hc.stdout))
	for sc.Scan() {
		var line struct {
			Kind        string   `json:"kind"`
			CreditsUsed *float64 `json:"creditsUsed"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil || line.Kind != "crawl" {
			t.Fatalf("%v %s", err, sc.Bytes())
		}
		n++
		if line.CreditsUsed != nil {
			crawled += *line.CreditsUsed
		}
	}
	if n != p.Crawls.Crawls || n != 5 || crawled != p.Crawls.CreditsUsed || crawled != 5 {
		t.Errorf("history --kind crawl: %d crawls, %v credits; cost --team %+v", n, crawled, p.Crawls)
	}

	// Per key: the simulator's sums by calendar month.
	if len(tm.ByKey) == 0 {
		t.Fatal("no per-key rows")
	}
	for _, k := range tm.ByKey {
		m, err := time.Parse("2006-01", k.Month)
		if err != nil {
			t.Fatal(err)
		}
		want := srv.UsageBetween(m, m.AddDate(0, 1, 0)).ByKey[k.APIKey]
		if k.Credits == nil || *k.Credits != float64(want) {
			t.Errorf("%s %s: %v, the simulator's %d", k.Month, k.APIKey, k.Credits, want)
		}
		if strings.Contains(k.APIKey, srv.Key) {
			t.Fatal("a key's value")
		}
	}

	// The projection: the mean of the last 7 whole days shown, and the
	// remaining credits at that rate from when cost ran.
	pj := tm.Projection
	if pj == nil || pj.LastsUntil == nil || len(tm.ByDay) < 8 {
		t.Fatalf("projection %+v, %d days", pj, len(tm.ByDay))
	}
	var week float64
	for _, d := range tm.ByDay[len(tm.ByDay)-8 : len(tm.ByDay)-1] {
		week += *d.Credits
	}
	if math.Round(week/7*10)/10 != pj.PerDay {
		t.Errorf("per day %v, the last 7 days shown say %v", pj.PerDay, week/7)
	}
	days := time.Duration(tm.Period.RemainingCredits / pj.PerDay * float64(24*time.Hour))
	if pj.LastsUntil.Before(before.Add(days).Add(-time.Second)) || pj.LastsUntil.After(after.Add(days).Add(time.Second)) {
		t.Errorf("lasts until %v; from the figures %v..%v", pj.LastsUntil, before.Add(days), after.Add(days))
	}
	if len(tm.Activity) == 0 || tm.Unavailable != nil {
		t.Errorf("activity %+v, unavailable %v", tm.Activity, tm.Unavailable)
	}
	noKey(t, srv.Key, map[string][]byte{"stdout": []byte(r.stdout), "stderr": []byte(r.stderr)})
}

// A self-hosted-like service (no history, no activity, no queue status):
// cost --team shows the period and the archive's parts, names what it
// lacks, and exits 0.
func TestCostTeamSelfHosted(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{History: 5, Speed: 1000, TeamOff: []string{sim.TeamHistorical, sim.TeamActivity, sim.TeamQueueStatus}})
	env := simEnv(srv, "XDG_DATA_HOME="+t.TempDir())
	r := runFW(t, env, 30*time.Second, "cost", "--team", "-o", "plain")
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	for _, want := range []string{"Billing period", "Where the period's credits went", "Not learned",
		"activity: not offered by this service (501)", "byDay: not offered by this service (404)", "byKey: not offered by this service (404)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in\n%s", want, r.stdout)
		}
	}
	if got := srv.Stats().ByRoute["GET team-activity"]; got != 1 {
		t.Errorf("the activity asked %d times: a 501 is not retried", got)
	}
}
