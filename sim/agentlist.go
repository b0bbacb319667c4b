package sim

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The team's runs: GET /v2/agent lists every hosted run (the scenarios'
// jobs, Options.History finished runs and the runs POST /v2/agent started),
// newest first, 20 a page, with a "next" absolute URL while there are more.

// ListPageSize is the number of runs on a page of GET /v2/agent.
const ListPageSize = 20

// runMeta is what a list item says besides jobInfo.
type runMeta struct {
	origin      string // "api", "web", "sdk", ...
	integration string // "" → null
	hidden      bool
	starred     bool
	label       string // "" → absent
	schema      raw    // nil → absent
	strict      bool
}

// lookup returns the run with id (lower case), or nil.
func (s *Server) lookup(id string) *run {
	s.runsMu.RLock()
	defer s.runsMu.RUnlock()
	return s.runs[id]
}

// allRuns returns every hosted run, in creation order of the simulator.
func (s *Server) allRuns() []*run {
	s.runsMu.RLock()
	defer s.runsMu.RUnlock()
	return slices.Clone(s.byIdx)
}

// addRun registers r (its idx is its position).
func (s *Server) addRun(r *run) {
	s.runsMu.Lock()
	defer s.runsMu.Unlock()
	r.idx = len(s.byIdx)
	s.runs[r.id] = r
	s.byIdx = append(s.byIdx, r)
}

// shift moves every event of b by d in simulated time. The events keep
// the wire times they were rendered with (b's base was set for that);
// afterwards b's base is the server's again, so that events a cancel adds
// later render at their absolute time.
func (b *builder) shift(d time.Duration, base time.Time) {
	for i := range b.evs {
		b.evs[i].at += d
		b.evs[i].vis += d
	}
	b.base = base
}

// totalCredits is the sum of the script's usage so far.
func (b *builder) totalCredits() int {
	c := 0
	for i := range b.evs {
		if b.evs[i].kind == kUsage {
			c += int(b.evs[i].credits)
		}
	}
	return c
}

// historyKinds are the scenarios history runs play, in turn.
var historyKinds = []string{ScenarioResearch, ScenarioResearch, ScenarioFailure, ScenarioResearch, ScenarioRefused, ScenarioResearch, ScenarioCreditLimit}

// historyPrompts are the prompts of history runs, in turn (the trace is the
// scenario's: only the list and the status say these).
var historyPrompts = []struct {
	prompt string
	urls   []string
}{
	{"Find the pricing pages of the top 10 vector databases and extract plan names, prices and limits.", []string{"https://www.pinecone.io/pricing/"}},
	{"List every open data-engineering role at the companies on this page, with location and salary range.", []string{"https://www.ycombinator.com/companies"}},
	{"Summarise the changelog of each major LLM API provider for the last 30 days.\nGroup the changes by breaking / new / fixed.", nil},
	{"Which of these SaaS tools offer SSO on their cheapest plan? Cite the pricing page for each.", []string{"https://www.notion.so/pricing", "https://linear.app/pricing"}},
	{"Collect the top 20 Hacker News posts about web scraping this year with their points and comment counts.", []string{"https://news.ycombinator.com"}},
	{"Extract the nutrition facts of every product in the cereal category.", []string{"https://www.example-grocer.com/cereal"}},
	{"Compare the return policies of the five largest online electronics retailers in Germany.", nil},
	{"Get the conference dates, venues and ticket prices of the main Go and Rust conferences of 2027.", []string{"https://www.gophercon.com"}},
	{"Build a table of the public status pages of the top 15 cloud providers and their incidents last month.", nil},
	{"For each company in the attached list, find the CEO's name and the year the company was founded.", []string{"https://www.crunchbase.com"}},
	{"Track the price of the RTX 5090 at the ten largest US retailers and note which have it in stock.", nil},
}

var historyOrigins = []string{"api", "api", "web", "sdk", "api", "mcp"}
var historyIntegrations = []string{"", "", "", "zapier", "", "n8n", "", "make"}
var historyLabels = []string{"", "", "pricing", "", "weekly report", "", "", "competitors"}

// addHistory adds Options.History finished runs, created before the
// scenarios' jobs, 7 to 11 minutes apart.
func (s *Server) addHistory() {
	o := s.o
	at := time.Duration(0)
	for k := range o.History {
		idx := len(s.byIdx)
		rng := newRNG(o.Seed, idx, streamIDs)
		u := randUUID(rng)
		at -= 7*time.Minute + time.Duration(rng.IntN(240))*time.Second
		sc := historyKinds[k%len(historyKinds)]
		// Far enough in the past (in simulated time) that the whole run,
		// late events included, was over before the simulator started:
		// every history scenario ends within a few minutes.
		t0 := min(time.Duration(float64(at)*o.Speed), -15*time.Minute)
		at = time.Duration(float64(t0) / o.Speed)
		// The service's ids are UUIDv7s: their time is the run's creation.
		id := uuidV7(u, s.base.Add(at)).String()
		b := newBuilder(newRNG(o.Seed, idx, streamScript), id, s.base.Add(at), o.Speed, s.URL+"/files/"+id)
		info := script(sc, b, Options{MaxCredits: 120 + 40*(k%5), Events: o.Events, Seed: o.Seed}, idx)
		b.shift(t0, s.base)
		hp := historyPrompts[k%len(historyPrompts)]
		info.prompt, info.urls = hp.prompt, hp.urls
		switch k % 3 {
		case 0:
			info.effort = "medium"
		case 1:
			info.effort = "low"
		}
		if sc == ScenarioRefused {
			info.prompt, info.urls = refusedPrompt, []string{"https://northwind-traders.example/team"}
		}
		r := &run{s: s, id: id, scenario: sc, info: info, changed: make(chan struct{}), createdAt: s.base.Add(at), b: b, key: k % len(KeyNames)}
		r.meta = &runMeta{
			origin:      historyOrigins[k%len(historyOrigins)],
			integration: historyIntegrations[k%len(historyIntegrations)],
			label:       historyLabels[k%len(historyLabels)],
			starred:     k%9 == 4,
		}
		if k%4 == 1 {
			r.meta.schema = raw(`{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"price":{"type":"number"}}}}}}`)
		}
		r.setView(b.view())
		s.addRun(r)
	}
}

// serveList answers GET /v2/agent[?before=<unix ms>].
func (s *Server) serveList(w *respWriter, req *http.Request) {
	before := int64(-1)
	if q := req.URL.Query().Get("before"); q != "" {
		n, err := strconv.ParseInt(q, 10, 64)
		if err != nil || n < 0 {
			writeJSON(w, http.StatusBadRequest, errBody("Invalid 'before' parameter: expected a unix timestamp in milliseconds"))
			return
		}
		before = n
	}
	runs := s.allRuns()
	slices.SortStableFunc(runs, func(a, b *run) int { return b.createdAt.Compare(a.createdAt) })
	now := s.simNow()
	items := arr{}
	var next any
	for i, r := range runs {
		if before >= 0 && r.createdAt.UnixMilli() >= before || s.expired(r) {
			continue
		}
		if len(items) == ListPageSize {
			// The next page starts below the last item of this one.
			next = s.URL + "/v2/agent?" + url.Values{"before": {strconv.FormatInt(runs[i-1].createdAt.UnixMilli(), 10)}}.Encode()
			break
		}
		items = append(items, s.listItem(r, now))
	}
	// "data" is what the API reference shows; the JS SDK's type reads
	// "agents": both carry the same list.
	writeJSON(w, http.StatusOK, jsonOf(obj{"success", true, "data", items, "agents", items, "next", next}))
}

// listItem is one run as the list shows it.
func (s *Server) listItem(r *run, now time.Duration) obj {
	st, _ := r.status(r.v.Load(), now)
	m := r.meta
	if m == nil {
		m = &runMeta{origin: "api"}
	}
	opts := obj{"prompt", r.info.prompt}
	if len(r.info.urls) > 0 {
		opts = append(opts, "urls", r.info.urls)
	}
	if m.schema != nil {
		opts = append(opts, "schema", m.schema)
	}
	opts = append(opts, "model", r.info.model)
	if r.info.effort != "" {
		opts = append(opts, "effort", r.info.effort)
	}
	hint := "" // the SDKs type it as a string
	if len(r.info.urls) > 0 {
		if u, err := url.Parse(r.info.urls[0]); err == nil && u.Host != "" {
			hint = strings.TrimPrefix(u.Host, "www.")
		}
	}
	var integ any
	if m.integration != "" {
		integ = m.integration
	}
	settings := obj{"hidden", m.hidden, "starred", m.starred}
	if m.label != "" {
		settings = append(settings, "label", m.label)
	}
	return obj{"id", r.id, "createdAt", r.createdAt.Format(isoMillis), "targetHint", hint, "origin", m.origin,
		"integration", integ, "settings", settings, "status", st, "options", opts}
}
