package sim

import (
	"encoding/base64"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The team's usage: one ledger behind token-usage, credit-usage, the
// historical bins (by time and by key), queue-status and the activity, so
// that the parts add up to the totals as they do on the real service. Its
// entries are the agent runs (their credits so far, none for a failed run:
// failed runs are not billed), the crawls (their creditsUsed so far) and,
// with Options.History, the other endpoints' usage (scrapes, searches,
// extracts, maps, batch scrapes, interact sessions) of a few named API keys
// over the last 62 days, made from the seed. Every entry counts at its
// creation time.

// Team endpoint names for Options.TeamOff.
const (
	TeamCreditUsage = "credit-usage"
	TeamTokenUsage  = "token-usage"
	TeamHistorical  = "historical"
	TeamActivity    = "activity"
	TeamQueueStatus = "queue-status"
)

// TeamEndpoints returns the names Options.TeamOff takes.
func TeamEndpoints() []string {
	return []string{TeamCreditUsage, TeamTokenUsage, TeamHistorical, TeamActivity, TeamQueueStatus}
}

// Team faults for Options.TeamFaults.
const (
	// TeamFaultLegacy names the historical figure totalCredits, as older
	// deployments do, and credit-usage's figures as strings.
	TeamFaultLegacy = "legacy-fields"
	// TeamFaultHostile gives API keys names with terminal escape
	// sequences and a key-like value.
	TeamFaultHostile = "hostile-keys"
	// TeamFaultAbsurd sends negative and absurd figures: a bin of -50
	// credits, one of 1e300, a plan of -1.
	TeamFaultAbsurd = "absurd-numbers"
)

// TeamFaults returns the names Options.TeamFaults takes.
func TeamFaults() []string {
	return []string{TeamFaultLegacy, TeamFaultHostile, TeamFaultAbsurd}
}

// PlanCredits is the simulated team's plan: planTokens / 15.
const PlanCredits = planTokens / 15

// KeyNames are the names of the simulated team's API keys: the simulator's
// own key is the first; history runs and other usage use them all.
var KeyNames = []string{"default", "production", "ci-nightly", "zapier"}

var hostileKeyNames = []string{"default", "prod\x1b]0;pwned\x07uction", "ci\x1b[2J\x1b[31mnightly", "fc-0123456789abcdef0123456789abcdef"}

// otherEndpoints are the endpoints of the other usage, with their credits
// per call (min, max).
var otherEndpoints = []struct {
	name     string
	lo, hi   int
	targets  []string
	weighted int
}{
	{"scrape", 1, 5, []string{"https://example.com/pricing", "https://news.ycombinator.com", "https://docs.python.org/3/"}, 6},
	{"search", 2, 10, []string{"best vector database 2026", "firecrawl rate limits", "rust conferences 2027"}, 3},
	{"extract", 5, 60, []string{"https://www.example-grocer.com/cereal", "https://linear.app/pricing"}, 1},
	{"map", 1, 1, []string{"https://docs.firecrawl.dev", "https://go.dev"}, 2},
	{"batch_scrape", 10, 80, []string{"https://example.com/blog"}, 1},
	{"interact", 2, 12, []string{"https://example.com/docs"}, 1},
}

// otherUsage is one call of another endpoint.
type otherUsage struct {
	at       time.Time
	endpoint string
	key      int
	credits  int
	id       string
	target   string
}

// usageEntry is one line of the ledger.
type usageEntry struct {
	at       time.Time
	endpoint string
	key      int
	credits  int
	id       string
	target   string
	running  bool
}

// initOther makes Options.History's other usage: a call every 10 to 40
// minutes over the 62 days before the server's start.
func (s *Server) initOther() {
	if s.o.History <= 0 {
		return
	}
	rng := newRNG(s.o.Seed, -4, streamIDs)
	total := 0
	for _, e := range otherEndpoints {
		total += e.weighted
	}
	for at := s.base.Add(-62 * 24 * time.Hour); ; {
		at = at.Add(10*time.Minute + time.Duration(rng.IntN(30*60))*time.Second)
		if !at.Before(s.base) {
			break
		}
		w := rng.IntN(total)
		k := 0
		for w >= otherEndpoints[k].weighted {
			w -= otherEndpoints[k].weighted
			k++
		}
		e := otherEndpoints[k]
		s.other = append(s.other, otherUsage{
			at: at, endpoint: e.name, key: rng.IntN(len(KeyNames)),
			credits: e.lo + rng.IntN(e.hi-e.lo+1), id: randUUID(rng).String(),
			target: e.targets[rng.IntN(len(e.targets))],
		})
	}
}

// period is the billing period: 30 days from midnight UTC 17 days before
// the server's start.
func (s *Server) period() (time.Time, time.Time) {
	start := s.base.Truncate(24*time.Hour).AddDate(0, 0, -17)
	return start, start.AddDate(0, 0, 30)
}

// ledger is every usage entry as things stand now, oldest first.
func (s *Server) ledger() []usageEntry {
	now := s.simNow()
	var out []usageEntry
	for _, r := range s.allRuns() {
		v := r.v.Load()
		st := r.vstate.Load()
		c := r.credits(v, now)
		status, _ := r.status(v, now)
		if st != nil && st.outcome == "failed" && status != "processing" {
			c = 0 // failed runs are not billed
		}
		target := r.info.prompt
		if len(r.info.urls) > 0 {
			target = r.info.urls[0]
		}
		out = append(out, usageEntry{at: r.createdAt, endpoint: "agent", key: r.key, credits: c, id: r.id, target: target, running: status == "processing"})
	}
	s.crawlJobs.mu.Lock()
	s.initCrawlsLocked()
	jobs := make([]*crawlJob, 0, len(s.crawlJobs.jobs))
	for _, j := range s.crawlJobs.jobs {
		jobs = append(jobs, j)
	}
	s.crawlJobs.mu.Unlock()
	for _, j := range jobs {
		st := s.crawlAt(j)
		out = append(out, usageEntry{at: j.createdAt, endpoint: "crawl", credits: st.credits(), id: j.id, target: j.url, running: st.status == "scraping"})
	}
	for _, o := range s.other {
		out = append(out, usageEntry{at: o.at, endpoint: o.endpoint, key: o.key, credits: o.credits, id: o.id, target: o.target})
	}
	slices.SortStableFunc(out, func(a, b usageEntry) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	return out
}

// Usage is the ledger's sums over [From, To), for tests and e2e: the
// service's figures the parts must add up to.
type Usage struct {
	Total, Agent, Crawl, Other int
	ByKey                      map[string]int
	ByEndpoint                 map[string]int
}

// UsageBetween sums the ledger over [from, to).
func (s *Server) UsageBetween(from, to time.Time) Usage {
	u := Usage{ByKey: map[string]int{}, ByEndpoint: map[string]int{}}
	for _, e := range s.ledger() {
		if e.at.Before(from) || !e.at.Before(to) {
			continue
		}
		u.Total += e.credits
		switch e.endpoint {
		case "agent":
			u.Agent += e.credits
		case "crawl":
			u.Crawl += e.credits
		default:
			u.Other += e.credits
		}
		u.ByKey[s.keyName(e.key)] += e.credits
		u.ByEndpoint[e.endpoint] += e.credits
	}
	return u
}

// Period is the billing period the team endpoints report.
func (s *Server) Period() (start, end time.Time) { return s.period() }

func (s *Server) keyName(k int) string {
	if s.hasFault(TeamFaultHostile) {
		return hostileKeyNames[k%len(hostileKeyNames)]
	}
	return KeyNames[k%len(KeyNames)]
}

func (s *Server) hasFault(f string) bool { return slices.Contains(s.o.TeamFaults, f) }

// periodUsed is the credits used in the billing period.
func (s *Server) periodUsed() int {
	start, end := s.period()
	return s.UsageBetween(start, end).Total
}

// teamOff answers for a team endpoint Options.TeamOff switched off, as a
// self-hosted service does (activity 501, the others 404), and says so.
func (s *Server) teamOff(w http.ResponseWriter, name string) bool {
	if !slices.Contains(s.o.TeamOff, name) {
		return false
	}
	switch name {
	case TeamActivity:
		writeJSON(w, http.StatusNotImplemented, errBody("Activity is not available on this deployment"))
	case TeamTokenUsage, TeamCreditUsage:
		writeJSON(w, http.StatusNotFound, errBody(msgNoTokenUsage))
	default:
		writeJSON(w, http.StatusNotFound, errBody("Not found"))
	}
	return true
}

func (s *Server) tokenUsage() []byte {
	start, end := s.period()
	return jsonOf(obj{"success", true, "data", obj{
		"remainingTokens", planTokens - 15*s.periodUsed(),
		"planTokens", planTokens,
		"billingPeriodStart", start.Format(isoMillis),
		"billingPeriodEnd", end.Format(isoMillis),
	}})
}

func (s *Server) creditUsage() []byte {
	start, end := s.period()
	var remaining, plan any = PlanCredits - s.periodUsed(), PlanCredits
	if s.hasFault(TeamFaultLegacy) {
		remaining, plan = strconv.Itoa(remaining.(int)), strconv.Itoa(plan.(int))
	}
	if s.hasFault(TeamFaultAbsurd) {
		plan = -1
	}
	return jsonOf(obj{"success", true, "data", obj{
		"remainingCredits", remaining,
		"planCredits", plan,
		"billingPeriodStart", start.Format(isoMillis),
		"billingPeriodEnd", end.Format(isoMillis),
	}})
}

// serveHistorical answers GET /v2/team/credit-usage/historical.
func (s *Server) serveHistorical(w *respWriter, req *http.Request) {
	q := req.URL.Query()
	tr, hasTR := q.Get("timeRange"), q.Has("timeRange")
	byKey := strings.EqualFold(q.Get("byApiKey"), "true")
	if byKey && hasTR {
		writeJSON(w, http.StatusBadRequest, errBody("byApiKey cannot be combined with timeRange"))
		return
	}
	figure := "creditsUsed"
	if s.hasFault(TeamFaultLegacy) {
		figure = "totalCredits"
	}
	ledger := s.ledger()
	if byKey {
		s.serveByKey(w, ledger, figure)
		return
	}
	if !hasTR {
		tr = "month"
	}
	now := s.wallNow()
	var bin time.Duration
	var n int
	var end time.Time
	binName := "day"
	switch tr {
	case "day":
		bin, n, binName = time.Hour, 24, "hour"
		end = now.Truncate(time.Hour).Add(time.Hour)
	case "week":
		bin, n = 24*time.Hour, 7
		end = now.Truncate(24 * time.Hour).Add(24 * time.Hour)
	case "month":
		bin, n = 24*time.Hour, 30
		end = now.Truncate(24 * time.Hour).Add(24 * time.Hour)
	default:
		writeJSON(w, http.StatusBadRequest, errBody("Invalid timeRange: expected day, week or month"))
		return
	}
	start := end.Add(-time.Duration(n) * bin)
	sums := make([]int, n)
	for _, e := range ledger {
		if e.at.Before(start) || !e.at.Before(end) {
			continue
		}
		sums[int(e.at.Sub(start)/bin)] += e.credits
	}
	periods := arr{}
	for i := range n {
		var c any = sums[i]
		if s.hasFault(TeamFaultAbsurd) {
			switch i {
			case n - 3:
				c = -50
			case n - 2:
				c = 1e300
			}
		}
		b := start.Add(time.Duration(i) * bin)
		periods = append(periods, obj{"startDate", b.Format(isoMillis), "endDate", b.Add(bin).Format(isoMillis), figure, c})
	}
	writeJSON(w, http.StatusOK, jsonOf(obj{"success", true,
		"window", obj{"timeRange", tr, "binSize", binName, "startDate", start.Format(isoMillis), "endDate", end.Format(isoMillis)},
		"periods", periods}))
}

// serveByKey answers ?byApiKey=true: one row per key and calendar month
// (UTC) with usage, oldest month first, keys in their order.
func (s *Server) serveByKey(w *respWriter, ledger []usageEntry, figure string) {
	type cell struct {
		month time.Time
		key   int
	}
	sums := map[cell]int{}
	var months []time.Time
	for _, e := range ledger {
		m := time.Date(e.at.Year(), e.at.Month(), 1, 0, 0, 0, 0, time.UTC)
		if !slices.ContainsFunc(months, m.Equal) {
			months = append(months, m)
		}
		sums[cell{m, e.key % len(KeyNames)}] += e.credits
	}
	slices.SortFunc(months, time.Time.Compare)
	rows := arr{}
	for _, m := range months {
		for k := range KeyNames {
			c, ok := sums[cell{m, k}]
			if !ok {
				continue
			}
			rows = append(rows, obj{"startDate", m.Format(isoMillis), "endDate", m.AddDate(0, 1, 0).Format(isoMillis), "apiKey", s.keyName(k), figure, c})
		}
	}
	var start, end any
	if len(months) > 0 {
		start, end = months[0].Format(isoMillis), months[len(months)-1].AddDate(0, 1, 0).Format(isoMillis)
	}
	writeJSON(w, http.StatusOK, jsonOf(obj{"success", true,
		"window", obj{"timeRange", nil, "binSize", "month", "startDate", start, "endDate", end, "byApiKey", true},
		"periods", rows}))
}

// serveQueueStatus answers GET /v2/team/queue-status.
func (s *Server) serveQueueStatus(w *respWriter, _ *http.Request) {
	active := 0
	var recent time.Time
	for _, e := range s.ledger() {
		if e.running {
			active++
		} else if e.endpoint == "agent" && e.at.After(recent) {
			recent = e.at
		}
	}
	var mr any
	if !recent.IsZero() {
		mr = recent.Format(isoMillis)
	}
	writeJSON(w, http.StatusOK, jsonOf(obj{"success", true, "jobsInQueue", active, "activeJobsInQueue", active,
		"waitingJobsInQueue", 0, "maxConcurrency", maxConcurrency, "mostRecentSuccess", mr}))
}

// maxConcurrency is the simulated plan's concurrent jobs.
const maxConcurrency = 50

// serveConcurrency answers GET /v2/concurrency-check.
func (s *Server) serveConcurrency(w *respWriter, _ *http.Request) {
	active := 0
	for _, e := range s.ledger() {
		if e.running {
			active++
		}
	}
	writeJSON(w, http.StatusOK, jsonOf(obj{"success", true, "concurrency", active, "maxConcurrency", maxConcurrency}))
}

// serveActivity answers GET /v2/team/activity: the last 24 hours, newest
// first, limit 1..100 (default 20), an opaque cursor.
func (s *Server) serveActivity(w *respWriter, req *http.Request) {
	q := req.URL.Query()
	limit := 20
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > 100 {
			writeJSON(w, http.StatusBadRequest, errBody("Invalid limit: expected an integer from 1 to 100"))
			return
		}
		limit = n
	}
	skip := 0
	if c := q.Get("cursor"); c != "" {
		b, err := base64.RawURLEncoding.DecodeString(c)
		n, err2 := strconv.Atoi(strings.TrimPrefix(string(b), "o:"))
		if err != nil || err2 != nil || n < 0 || !strings.HasPrefix(string(b), "o:") {
			writeJSON(w, http.StatusBadRequest, errBody("Invalid cursor"))
			return
		}
		skip = n
	}
	endpoint := q.Get("endpoint")
	now := s.wallNow()
	ledger := s.ledger()
	var items []usageEntry
	for i := len(ledger) - 1; i >= 0; i-- {
		e := ledger[i]
		if e.at.After(now) || e.at.Before(now.Add(-24*time.Hour)) || endpoint != "" && e.endpoint != endpoint {
			continue
		}
		items = append(items, e)
	}
	data := arr{}
	for i := skip; i < len(items) && i < skip+limit; i++ {
		e := items[i]
		data = append(data, obj{"id", e.id, "endpoint", e.endpoint, "api_version", "v2", "created_at", e.at.Format(isoMillis), "target", e.target})
	}
	var cursor any
	more := skip+limit < len(items)
	if more {
		cursor = base64.RawURLEncoding.EncodeToString([]byte("o:" + strconv.Itoa(skip+limit)))
	}
	writeJSON(w, http.StatusOK, jsonOf(obj{"success", true, "data", data, "cursor", cursor, "has_more", more}))
}

// teamRoute is h behind Options.TeamOff's switch for name.
func (s *Server) teamRoute(name string, h func(*respWriter, *http.Request)) func(*respWriter, *http.Request) {
	return func(w *respWriter, req *http.Request) {
		if !s.teamOff(w, name) {
			h(w, req)
		}
	}
}
