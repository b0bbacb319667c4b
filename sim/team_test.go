package sim

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

type histAnswer struct {
	Success bool `json:"success"`
	Window  struct {
		TimeRange *string `json:"timeRange"`
		BinSize   string  `json:"binSize"`
		StartDate string  `json:"startDate"`
		EndDate   string  `json:"endDate"`
	} `json:"window"`
	Periods []struct {
		StartDate    string   `json:"startDate"`
		EndDate      string   `json:"endDate"`
		APIKey       string   `json:"apiKey"`
		CreditsUsed  *float64 `json:"creditsUsed"`
		TotalCredits *float64 `json:"totalCredits"`
	} `json:"periods"`
}

func getJSON(t *testing.T, c *tclient, path string, want int, v any) {
	t.Helper()
	r := c.must(t, "GET", path)
	if r.status != want {
		t.Fatalf("%s: %d %s", path, r.status, r.body)
	}
	if v != nil {
		if err := json.Unmarshal(r.body, v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
}

func ts(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The team endpoints answer from one ledger: the period's balance is the
// plan minus the sum of agent runs, crawls and other usage; the bins and
// the per-key rows add up to the same ledger.
func TestTeamLedgerAddsUp(t *testing.T) {
	t.Parallel()
	var clk manualClock // the crawls stand still between two readings
	s := startSim(t, Options{History: 30, elapsed: clk.elapsed})
	clk.advance(2*time.Minute, 1000)
	waitFinished(t, s, s.Jobs[0].ID)
	c := newClient(s)
	if st, m := c.post(t, "POST", "/v2/crawl", `{"url":"https://example.com","limit":5}`); st != 200 {
		t.Fatalf("crawl: %d %v", st, m)
	}
	start, end := s.Period()
	u := s.UsageBetween(start, end)
	if u.Agent == 0 || u.Other == 0 || u.Total != u.Agent+u.Crawl+u.Other {
		t.Fatalf("usage %+v", u)
	}
	var cu struct {
		Success bool `json:"success"`
		Data    struct {
			Remaining          int    `json:"remainingCredits"`
			Plan               int    `json:"planCredits"`
			BillingPeriodStart string `json:"billingPeriodStart"`
			BillingPeriodEnd   string `json:"billingPeriodEnd"`
		} `json:"data"`
	}
	getJSON(t, c, "/v2/team/credit-usage", 200, &cu)
	u = s.UsageBetween(start, end) // with the crawl just started
	if cu.Data.Plan != PlanCredits || cu.Data.Remaining != PlanCredits-u.Total {
		t.Errorf("credit usage %+v; used %d", cu.Data, u.Total)
	}
	if !ts(t, cu.Data.BillingPeriodStart).Equal(start) || !ts(t, cu.Data.BillingPeriodEnd).Equal(end) {
		t.Errorf("period %+v", cu.Data)
	}
	// Agent credits: every run's creditsUsed but the failed ones'.
	agent := 0
	for _, r := range s.allRuns() {
		if !r.createdAt.Before(start) {
			var st struct {
				Status      string `json:"status"`
				CreditsUsed int    `json:"creditsUsed"`
			}
			getJSON(t, c, "/v2/agent/"+r.id, 200, &st)
			if r.vstate.Load().outcome != "failed" {
				agent += st.CreditsUsed
			}
		}
	}
	if agent != u.Agent {
		t.Errorf("agent runs %d, ledger %d", agent, u.Agent)
	}

	var month histAnswer
	getJSON(t, c, "/v2/team/credit-usage/historical?timeRange=month", 200, &month)
	if len(month.Periods) != 30 || month.Window.BinSize != "day" {
		t.Fatalf("month: %+v", month.Window)
	}
	sum := 0.0
	for _, p := range month.Periods {
		sum += *p.CreditsUsed
	}
	mu := s.UsageBetween(ts(t, month.Window.StartDate), ts(t, month.Window.EndDate))
	if int(sum) != mu.Total {
		t.Errorf("month bins %v, ledger %d", sum, mu.Total)
	}
	var day histAnswer
	getJSON(t, c, "/v2/team/credit-usage/historical?timeRange=day", 200, &day)
	if len(day.Periods) != 24 || day.Window.BinSize != "hour" {
		t.Errorf("day: %+v", day.Window)
	}

	var keys histAnswer
	getJSON(t, c, "/v2/team/credit-usage/historical?byApiKey=true", 200, &keys)
	byKey := map[string]float64{}
	for _, p := range keys.Periods {
		byKey[p.APIKey] += *p.CreditsUsed
	}
	all := s.UsageBetween(time.Time{}, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC))
	for _, k := range KeyNames {
		if int(byKey[k]) != all.ByKey[k] || byKey[k] == 0 {
			t.Errorf("key %s: %v, ledger %d", k, byKey[k], all.ByKey[k])
		}
	}
	for _, p := range keys.Periods {
		if strings.Contains(p.APIKey, s.Key) {
			t.Fatal("a key's value in byApiKey")
		}
	}
	var bad struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
	}
	getJSON(t, c, "/v2/team/credit-usage/historical?byApiKey=true&timeRange=week", 400, &bad)
	if bad.Success || !strings.Contains(bad.Error, "byApiKey") {
		t.Errorf("byApiKey with timeRange: %+v", bad)
	}
	getJSON(t, c, "/v2/team/credit-usage/historical?timeRange=year", 400, nil)

	var qs map[string]any
	getJSON(t, c, "/v2/team/queue-status", 200, &qs)
	for _, f := range []string{"jobsInQueue", "activeJobsInQueue", "waitingJobsInQueue", "maxConcurrency", "mostRecentSuccess"} {
		if _, ok := qs[f]; !ok {
			t.Errorf("queue-status lacks %s: %v", f, qs)
		}
	}
}

// The activity is the last 24 hours, newest first, paged by its cursor,
// filtered by endpoint.
func TestTeamActivityPages(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{History: 30})
	c := newClient(s)
	type item struct {
		ID        string `json:"id"`
		Endpoint  string `json:"endpoint"`
		CreatedAt string `json:"created_at"`
		Target    string `json:"target"`
	}
	var got []item
	cursor := ""
	for range 100 {
		var page struct {
			Data    []item  `json:"data"`
			Cursor  *string `json:"cursor"`
			HasMore bool    `json:"has_more"`
		}
		p := "/v2/team/activity?limit=100"
		if cursor != "" {
			p += "&cursor=" + cursor
		}
		getJSON(t, c, p, 200, &page)
		got = append(got, page.Data...)
		if !page.HasMore {
			break
		}
		cursor = *page.Cursor
	}
	if len(got) < 40 {
		t.Fatalf("%d items in 24 hours", len(got))
	}
	seen := map[string]bool{}
	for i, it := range got {
		if seen[it.ID] {
			t.Fatalf("%s twice", it.ID)
		}
		seen[it.ID] = true
		if i > 0 && it.CreatedAt > got[i-1].CreatedAt {
			t.Fatalf("not newest first at %d", i)
		}
		if ts(t, it.CreatedAt).Before(s.wallNow().Add(-24*time.Hour - time.Minute)) {
			t.Fatalf("older than 24 hours: %v", it)
		}
	}
	var scrapes struct {
		Data []item `json:"data"`
	}
	getJSON(t, c, "/v2/team/activity?endpoint=scrape&limit=5", 200, &scrapes)
	if len(scrapes.Data) != 5 {
		t.Errorf("%d scrapes", len(scrapes.Data))
	}
	for _, it := range scrapes.Data {
		if it.Endpoint != "scrape" {
			t.Errorf("filter: %v", it)
		}
	}
	getJSON(t, c, "/v2/team/activity?limit=0", 400, nil)
	getJSON(t, c, "/v2/team/activity?cursor=zz", 400, nil)
}

// A self-hosted-like service: the endpoints switched off answer as a
// self-hosted one does.
func TestTeamOff(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{TeamOff: []string{TeamHistorical, TeamActivity, TeamQueueStatus}})
	c := newClient(s)
	getJSON(t, c, "/v2/team/credit-usage/historical", 404, nil)
	getJSON(t, c, "/v2/team/activity", 501, nil)
	getJSON(t, c, "/v2/team/queue-status", 404, nil)
	getJSON(t, c, "/v2/team/credit-usage", 200, nil)
	if _, err := Start(t.Context(), Options{TeamOff: []string{"billing"}}); err == nil {
		t.Error("an unknown team endpoint was taken")
	}
}

func TestTeamFaults(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{History: 3, TeamFaults: TeamFaults()})
	c := newClient(s)
	var h histAnswer
	getJSON(t, c, "/v2/team/credit-usage/historical?timeRange=week", 200, &h)
	neg := false
	for _, p := range h.Periods {
		if p.CreditsUsed != nil || p.TotalCredits == nil {
			t.Fatalf("legacy: %+v", p)
		}
		neg = neg || *p.TotalCredits < 0
	}
	if !neg {
		t.Error("no negative bin")
	}
	getJSON(t, c, "/v2/team/credit-usage/historical?byApiKey=true", 200, &h)
	esc := false
	for _, p := range h.Periods {
		esc = esc || strings.Contains(p.APIKey, "\x1b")
	}
	if !esc {
		t.Error("no hostile key name")
	}
}
