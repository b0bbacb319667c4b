package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Scrape jobs and their browser sessions (POST /v2/scrape,
// POST|DELETE /v2/scrape/{id}/interact). See doc.go.

// FaultScrapeID is the scrape id whose interact call answers status (400,
// 402, 403, 404, 409, 410, 429 or 502) with the service's message.
func FaultScrapeID(status int) string {
	return fmt.Sprintf("00000000-0000-4000-8000-000000000%03d", status)
}

// Interact error messages.
const (
	MsgMaxSessions      = "You have reached the maximum number of active browser sessions."
	msgScrapeNotFound   = "Scrape job not found."
	msgNoSession        = "No active browser session for this scrape job."
	msgSessionStopped   = "The browser session of this scrape job was stopped. Scrape the page again to interact with it."
	msgScrapeExpired    = "This scrape job has expired: its browser state is no longer available. Scrape the page again to interact with it."
	msgBusy             = "An interaction is already running in this browser session. Wait for it to finish and try again."
	msgNoCredits        = "Insufficient credits to start a browser session. Upgrade your plan or buy more credits at https://firecrawl.dev/pricing."
	msgForbidden        = "You do not have access to this scrape job."
	msgNoBrowser        = "This scrape job has no browser state to interact with (it was served from the cache or was not a web page). Scrape it again with maxAge 0."
	msgBrowserDown      = "The browser service did not respond. Try again in a moment."
	msgCodeXorPrompt    = "Either 'code' or 'prompt' must be provided, but not both."
	msgCodeLength       = "code must be between 1 and 100000 characters."
	msgLanguage         = "language must be one of: python, node, bash."
	msgTimeout          = "timeout must be an integer between 1 and 300 (seconds)."
	msgPromptEmpty      = "prompt must not be empty."
	msgInvalidBody      = "Invalid JSON body."
	maxCode             = 100000
	defaultMaxSessions  = 5
	defaultInteractTime = 30
)

var faultMessages = map[int]string{
	400: msgNoBrowser, 402: msgNoCredits, 403: msgForbidden, 404: msgScrapeNotFound,
	409: msgBusy, 410: msgScrapeExpired, 429: MsgMaxSessions, 502: msgBrowserDown,
}

type scrapeStore struct {
	mu     sync.Mutex
	jobs   map[string]*scrapeJob
	rng    *rand.Rand
	active int
}

type scrapeJob struct {
	id      string
	page    *page
	country string
	session *browserSession
	stopped bool
}

type browserSession struct {
	id      string
	started time.Time
	page    *page
	busy    bool
	calls   int
}

func (s *Server) initScrapes() {
	st := &scrapeStore{jobs: map[string]*scrapeJob{}, rng: newRNG(s.o.Seed, -2, streamIDs)}
	s.scrapes = st
	paths := []string{"/pricing", "/docs", "/blog"}
	for i := range s.o.Scrapes {
		u := "https://example.com" + paths[i%len(paths)]
		if i >= len(paths) {
			u += fmt.Sprintf("?page=%d", i/len(paths)+1)
		}
		j := st.add(newPage(u), "")
		s.ScrapeIDs = append(s.ScrapeIDs, j.id)
	}
}

func (st *scrapeStore) add(p *page, country string) *scrapeJob {
	j := &scrapeJob{id: randUUID(st.rng).String(), page: p, country: country}
	st.jobs[j.id] = j
	return j
}

// decodeBody reads a JSON object body into v.
func decodeBody(req *http.Request, v any) bool {
	var b jsontext.Value
	if err := json.UnmarshalRead(http.MaxBytesReader(nil, req.Body, 8<<20), &b); err != nil || b.Kind() != '{' {
		return false
	}
	return json.Unmarshal(b, v) == nil
}

// ---- POST /v2/scrape ----

type scrapeRequest struct {
	URL             *string                   `json:"url"`
	Formats         []jsontext.Value          `json:"formats"`
	OnlyMainContent *bool                     `json:"onlyMainContent"`
	WaitFor         *int                      `json:"waitFor"`
	Mobile          bool                      `json:"mobile"`
	Timeout         *int                      `json:"timeout"`
	Location        *struct{ Country string } `json:"location"`
	Unknown         jsontext.Value            `json:",unknown"`
}

// v1Options are body fields v2 no longer takes.
var v1Options = []string{"pageOptions", "extractorOptions", "parsePDF", "extract", "jsonOptions", "changeTrackingOptions", "screenshotOptions"}

func (s *Server) serveScrape(w http.ResponseWriter, req *http.Request) {
	var all map[string]jsontext.Value
	if !decodeBody(req, &all) {
		writeJSON(w, http.StatusBadRequest, errBody(msgInvalidBody))
		return
	}
	var r scrapeRequest
	if b, _ := json.Marshal(all); json.Unmarshal(b, &r) != nil {
		writeJSON(w, http.StatusBadRequest, errBody("Bad Request: a field has the wrong type"))
		return
	}
	if r.URL == nil || *r.URL == "" {
		writeJSON(w, http.StatusBadRequest, errBody("Bad Request: url is required"))
		return
	}
	u, err := url.Parse(*r.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		writeJSON(w, http.StatusBadRequest, errBody("Bad Request: invalid URL"))
		return
	}
	for _, k := range v1Options {
		if _, ok := all[k]; ok {
			writeJSON(w, http.StatusBadRequest, errBody("Bad Request: Unrecognized key in body: "+k+" (a v1 option; see the v2 migration guide)"))
			return
		}
	}
	if r.WaitFor != nil && (*r.WaitFor < 0 || *r.WaitFor > 60000) {
		writeJSON(w, http.StatusBadRequest, errBody("Bad Request: waitFor must be between 0 and 60000 milliseconds"))
		return
	}
	if r.Timeout != nil && (*r.Timeout < 1000 || *r.Timeout > 300000) {
		writeJSON(w, http.StatusBadRequest, errBody("Bad Request: timeout must be between 1000 and 300000 milliseconds"))
		return
	}
	type jsonFmt struct {
		Type   string         `json:"type"`
		Prompt string         `json:"prompt"`
		Schema jsontext.Value `json:"schema"`
	}
	var formats []string
	var jf *jsonFmt
	if r.Formats == nil {
		formats = []string{"markdown"}
	}
	for _, f := range r.Formats {
		var name string
		if f.Kind() == '"' {
			_ = json.Unmarshal(f, &name)
		} else {
			var o jsonFmt
			if json.Unmarshal(f, &o) != nil {
				writeJSON(w, http.StatusBadRequest, errBody("Bad Request: invalid format"))
				return
			}
			name = o.Type
			if name == "json" {
				if o.Prompt == "" && o.Schema == nil {
					writeJSON(w, http.StatusBadRequest, errBody("Bad Request: the json format needs a prompt or a schema"))
					return
				}
				jf = &o
			}
		}
		switch name {
		case "markdown", "html", "rawHtml", "links", "summary", "images", "screenshot", "json", "changeTracking", "branding":
		case "extract", "screenshot@fullPage", "content":
			writeJSON(w, http.StatusBadRequest, errBody(fmt.Sprintf("Bad Request: invalid format %q: it is a v1 format (use the object form, e.g. {\"type\":\"json\",...})", name)))
			return
		default:
			writeJSON(w, http.StatusBadRequest, errBody(fmt.Sprintf("Bad Request: invalid format %q", name)))
			return
		}
		if name == "json" && f.Kind() == '"' {
			writeJSON(w, http.StatusBadRequest, errBody("Bad Request: the json format takes the object form {\"type\":\"json\",\"prompt\":...,\"schema\":...}"))
			return
		}
		formats = append(formats, name)
	}
	p := newPage(u.String())
	country := "US"
	if r.Location != nil && r.Location.Country != "" {
		country = strings.ToUpper(r.Location.Country)
	}
	s.scrapes.mu.Lock()
	j := s.scrapes.add(p, country)
	s.scrapes.mu.Unlock()
	mainOnly := r.OnlyMainContent == nil || *r.OnlyMainContent
	data := obj{}
	for _, f := range formats {
		switch f {
		case "markdown":
			data = append(data, "markdown", p.markdown(mainOnly))
		case "html":
			data = append(data, "html", p.html(mainOnly))
		case "rawHtml":
			data = append(data, "rawHtml", p.html(false))
		case "links":
			data = append(data, "links", p.links)
		case "summary":
			data = append(data, "summary", p.summary())
		case "images":
			data = append(data, "images", []string{"https://" + p.host + "/static/og.png", "https://" + p.host + "/static/plans.svg"})
		case "screenshot":
			data = append(data, "screenshot", s.URL+"/files/"+j.id+"/screenshots/page.png")
		case "json":
			data = append(data, "json", raw(jsonExtract(p, jf.Prompt, jf.Schema)))
		}
	}
	ctype := "text/html; charset=utf-8"
	data = append(data, "metadata", obj{
		"title", p.title, "description", p.description, "language", "en", "ogTitle", p.title,
		"sourceURL", *r.URL, "url", p.url, "statusCode", 200, "contentType", ctype,
		"scrapeId", j.id, "proxyUsed", "basic", "cacheState", "miss", "creditsUsed", 1 + boolInt(jf != nil)*4,
	})
	writeJSON(w, http.StatusOK, jsonOf(obj{"success", true, "data", data}))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// jsonExtract fills the schema (or, without one, keys named after the
// prompt's words) from the page.
func jsonExtract(p *page, prompt string, schema jsontext.Value) []byte {
	if schema != nil {
		var sch map[string]any
		if json.Unmarshal(schema, &sch) == nil {
			return jsonOf(fillSchema(p, "", sch, 0))
		}
	}
	low := strings.ToLower(prompt)
	o := obj{}
	if strings.Contains(low, "title") {
		o = append(o, "title", p.title)
	}
	if strings.Contains(low, "price") || strings.Contains(low, "plan") {
		plans := arr{}
		for _, pl := range p.plans {
			plans = append(plans, obj{"name", pl.name, "price", pl.price, "currency", "USD", "requestsPerMonth", pl.requests})
		}
		o = append(o, "plans", plans)
	}
	if strings.Contains(low, "link") {
		o = append(o, "links", p.links)
	}
	if strings.Contains(low, "description") || strings.Contains(low, "summar") || len(o) == 0 {
		o = append(o, "description", p.description)
	}
	return jsonOf(o)
}

func fillSchema(p *page, name string, sch map[string]any, depth int) any {
	typ, _ := sch["type"].(string)
	low := strings.ToLower(name)
	switch typ {
	case "object":
		props, _ := sch["properties"].(map[string]any)
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		o := obj{}
		for _, k := range keys {
			sub, _ := props[k].(map[string]any)
			if depth < 6 && sub != nil {
				o = append(o, k, fillSchema(p, k, sub, depth+1))
			}
		}
		return o
	case "array":
		items, _ := sch["items"].(map[string]any)
		out := arr{}
		switch {
		case strings.Contains(low, "link") || strings.Contains(low, "url"):
			for _, l := range p.links[:4] {
				out = append(out, l)
			}
			return out
		case items != nil && items["type"] == "object":
			for _, pl := range p.plans {
				pp := &page{title: pl.name, url: p.url, description: p.description, plans: []plan{pl}, links: p.links}
				out = append(out, fillSchema(pp, "", items, depth+1))
			}
			return out
		}
		for _, pl := range p.plans {
			out = append(out, pl.name)
		}
		return out
	case "number", "integer":
		if strings.Contains(low, "request") {
			return p.plans[0].requests
		}
		if len(p.plans) > 0 {
			return p.plans[min(1, len(p.plans)-1)].price
		}
		return 0
	case "boolean":
		return true
	}
	switch {
	case strings.Contains(low, "url") || strings.Contains(low, "link"):
		return p.url
	case strings.Contains(low, "desc") || strings.Contains(low, "summary"):
		return p.description
	case strings.Contains(low, "price"):
		return fmt.Sprintf("$%d/mo", p.plans[min(1, len(p.plans)-1)].price)
	case strings.Contains(low, "currency"):
		return "USD"
	}
	return p.title
}

// ---- POST|DELETE /v2/scrape/{id}/interact ----

type interactRequest struct {
	Code     *string        `json:"code"`
	Prompt   *string        `json:"prompt"`
	Language *string        `json:"language"`
	Timeout  jsontext.Value `json:"timeout"`
	Origin   string         `json:"origin"`
}

func (s *Server) serveInteract(w http.ResponseWriter, req *http.Request, id string) {
	if !validUUID(id) {
		writeJSON(w, http.StatusBadRequest, errBody(msgInvalidJobID))
		return
	}
	id = strings.ToLower(id)
	if req.Method == http.MethodDelete {
		s.stopInteract(w, id)
		return
	}
	var r interactRequest
	if !decodeBody(req, &r) {
		writeJSON(w, http.StatusBadRequest, errBody(msgInvalidBody))
		return
	}
	hasCode, hasPrompt := r.Code != nil, r.Prompt != nil && *r.Prompt != ""
	switch {
	case hasCode == hasPrompt:
		writeJSON(w, http.StatusBadRequest, errBody(msgCodeXorPrompt))
		return
	case hasCode && (len([]rune(*r.Code)) < 1 || len([]rune(*r.Code)) > maxCode):
		writeJSON(w, http.StatusBadRequest, errBody(msgCodeLength))
		return
	case hasPrompt && strings.TrimSpace(*r.Prompt) == "":
		writeJSON(w, http.StatusBadRequest, errBody(msgPromptEmpty))
		return
	}
	lang := "node"
	if r.Language != nil {
		lang = *r.Language
	}
	if lang != "node" && lang != "python" && lang != "bash" {
		writeJSON(w, http.StatusBadRequest, errBody(msgLanguage))
		return
	}
	timeout := defaultInteractTime
	if r.Timeout != nil && r.Timeout.Kind() != 'n' {
		var f float64
		if r.Timeout.Kind() != '0' || json.Unmarshal(r.Timeout, &f) != nil || f != float64(int(f)) || f < 1 || f > 300 {
			writeJSON(w, http.StatusBadRequest, errBody(msgTimeout))
			return
		}
		timeout = int(f)
	}
	for st, msg := range faultMessages {
		if id == FaultScrapeID(st) {
			writeJSON(w, st, errBody(msg))
			return
		}
	}
	st := s.scrapes
	st.mu.Lock()
	j := st.jobs[id]
	switch {
	case j == nil:
		st.mu.Unlock()
		writeJSON(w, http.StatusNotFound, errBody(msgScrapeNotFound))
		return
	case j.stopped:
		st.mu.Unlock()
		writeJSON(w, http.StatusGone, errBody(msgSessionStopped))
		return
	case j.session == nil && st.active >= s.o.MaxBrowserSessions:
		st.mu.Unlock()
		writeJSON(w, http.StatusTooManyRequests, errBody(MsgMaxSessions))
		return
	case j.session != nil && j.session.busy:
		st.mu.Unlock()
		writeJSON(w, http.StatusConflict, errBody(msgBusy))
		return
	}
	if j.session == nil {
		j.session = &browserSession{id: randUUID(st.rng).String(), started: time.Now(), page: j.page}
		st.active++
	}
	sess := j.session
	sess.busy = true
	sess.calls++
	p := sess.page
	st.mu.Unlock()

	var res *execResult
	if hasCode {
		res = runCode(lang, *r.Code, time.Duration(timeout)*time.Second, p)
	} else {
		res = runPrompt(*r.Prompt, p)
	}
	if sess.calls == 1 {
		res.dur += 1200 * time.Millisecond // the browser starts at the scrape's page state
	}
	s.pace(req.Context(), res.dur)

	st.mu.Lock()
	sess.busy = false
	sess.page = res.page
	st.mu.Unlock()

	host := strings.TrimPrefix(strings.TrimPrefix(s.URL, "http://"), "https://")
	o := obj{"success", true,
		"cdpUrl", "ws://" + host + "/cdp/" + sess.id,
		"liveViewUrl", s.URL + "/live/" + sess.id,
		"interactiveLiveViewUrl", s.URL + "/live/" + sess.id + "?interactive=true"}
	if hasPrompt {
		o = append(o, "output", res.output, "stdout", nil, "result", nil, "stderr", nil, "exitCode", 0, "killed", false, "error", nil)
		writeJSON(w, http.StatusOK, jsonOf(o))
		return
	}
	var exit any = res.exitCode
	if res.killed {
		exit = nil
	}
	var errv any
	if res.errMsg != "" {
		errv = res.errMsg
	}
	out := res.stdout.String()
	o = append(o, "stdout", out, "result", out, "stderr", res.stderr.String(), "exitCode", exit, "killed", res.killed, "error", errv)
	writeJSON(w, http.StatusOK, jsonOf(o))
}

// pace waits d of simulated time (d / Speed of real time), or until the
// client goes away.
func (s *Server) pace(ctx context.Context, d time.Duration) {
	real := time.Duration(float64(d) / s.o.Speed)
	if real <= 0 {
		return
	}
	t := time.NewTimer(real)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	case <-s.done:
	}
}

func (s *Server) stopInteract(w http.ResponseWriter, id string) {
	st := s.scrapes
	st.mu.Lock()
	defer st.mu.Unlock()
	j := st.jobs[id]
	switch {
	case j == nil:
		writeJSON(w, http.StatusNotFound, errBody(msgScrapeNotFound))
		return
	case j.session == nil:
		writeJSON(w, http.StatusNotFound, errBody(msgNoSession))
		return
	}
	d := time.Duration(float64(time.Since(j.session.started)) * s.o.Speed)
	credits := max(1, int((d+time.Minute-1)/time.Minute)) * 2
	j.session = nil
	j.stopped = true
	st.active--
	writeJSON(w, http.StatusOK, jsonOf(obj{"success", true, "sessionDurationMs", d.Milliseconds(), "creditsBilled", credits}))
}

// ScrapeKnown reports whether id is a scrape job of the simulator.
func (s *Server) scrapeKnown(id string) bool {
	s.scrapes.mu.Lock()
	defer s.scrapes.mu.Unlock()
	return s.scrapes.jobs[id] != nil
}

// ActiveBrowserSessions is the number of scrape browser sessions alive.
func (s *Server) ActiveBrowserSessions() int {
	s.scrapes.mu.Lock()
	defer s.scrapes.mu.Unlock()
	return s.scrapes.active
}
