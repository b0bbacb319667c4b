package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Crawls (POST /v2/crawl, GET|DELETE /v2/crawl/{id}, GET
// /v2/crawl/{id}/errors, and the WebSocket on /v2/crawl/{id}).
//
// A crawl plans its pages when it starts, from the simulated site of its
// URL (page.go): the home page, the site's own links, then numbered
// /docs/, /blog/ and /guides/ pages up to the limit (Options.CrawlPages, 60
// by default, caps a site). includePaths, excludePaths and
// maxDiscoveryDepth filter the plan. Page i settles at simulated
// (i+1) × Options.CrawlStep (400 ms by default) after the start:
//
//   - every 11th page fails (it is in the errors list, not a document);
//   - /login, /signup and every 17th page are blocked by robots.txt (in
//     robotsBlocked; never attempted, not counted in total);
//   - /blog/hostile is a hostile document: escape sequences, bidi and C1
//     characters, a 20 000-character title, a links list with junk;
//   - the rest are documents (markdown, links, metadata).
//
// completed counts the pages attempted (documents and failures), total the
// pages discovered so far (all of them once the crawl is over). Status
// pages carry at most Options.CrawlPageDocs documents (25) and about 4 MB,
// with next set to this URL with skip past them; skip and limit are read
// as the real status handler does. Options.CrawlFaults make the socket
// and the status misbehave (crawlfaults.go).
//
// The routes are rows of the routing table (routes, server.go); the
// WebSocket is GET /v2/crawl/{id} with an upgrade.

// Crawl defaults.
const (
	defaultCrawlPages   = 60
	defaultCrawlStep    = 400 * time.Millisecond
	defaultCrawlPageDoc = 25
	maxCrawlPageBytes   = 4 << 20
	maxCrawlLimit       = 100000
)

// crawl page outcomes.
const (
	cpDoc = iota
	cpFailed
	cpRobots
	cpHostile
)

type crawlPage struct {
	url  string
	kind int
	at   time.Duration // simulated time since the crawl's start when it settles
	err  string        // a failure's message
	id   string        // a failure's id
}

type crawlJob struct {
	id, url   string
	start     time.Duration // simNow at POST
	createdAt time.Time
	pages     []crawlPage // attempted pages, in order (robots-blocked ones excluded)
	robots    []crawlPage
	formats   []string
	mainOnly  bool
	active    bool // one of the team's active crawls, started with the server

	mu          sync.Mutex
	cancelledAt time.Duration // -1: not cancelled
	changed     chan struct{} // closed and replaced on cancel
}

type crawlStore struct {
	mu   sync.Mutex
	jobs map[string]*crawlJob
	rng  *rand.Rand
	init bool
}

func (s *Server) crawlJob(id string) *crawlJob {
	s.crawlJobs.mu.Lock()
	defer s.crawlJobs.mu.Unlock()
	s.initCrawlsLocked()
	return s.crawlJobs.jobs[strings.ToLower(id)]
}

// initCrawlsLocked makes the team's active crawls (GET /v2/crawl/active)
// crawls that can be watched: they started with the server and settle a
// page every 3 simulated seconds.
func (s *Server) initCrawlsLocked() {
	st := &s.crawlJobs
	if st.init {
		return
	}
	st.init = true
	st.jobs = map[string]*crawlJob{}
	st.rng = newRNG(s.o.Seed, -3, streamIDs)
	var active struct {
		Crawls []struct {
			ID      string `json:"id"`
			URL     string `json:"url"`
			Options struct {
				Limit int `json:"limit"`
			} `json:"options"`
		} `json:"crawls"`
	}
	if json.Unmarshal(s.crawls, &active) != nil {
		return
	}
	for _, c := range active.Crawls {
		j := &crawlJob{id: c.ID, url: c.URL, createdAt: s.base, formats: []string{"markdown", "links"}, mainOnly: true,
			cancelledAt: -1, changed: make(chan struct{}), active: true}
		j.plan(s.crawlPages(), 3*time.Second, max(c.Options.Limit, 1), -1, nil, nil)
		st.jobs[c.ID] = j
	}
}

// newCrawlLocked registers a crawl of u started now.
func (s *Server) newCrawlLocked(u string, formats []string, mainOnly bool) *crawlJob {
	s.initCrawlsLocked()
	id := randUUID(s.crawlJobs.rng).String()
	j := &crawlJob{id: id, url: u, start: s.simNow(), createdAt: s.o.Now().UTC(), formats: formats, mainOnly: mainOnly,
		cancelledAt: -1, changed: make(chan struct{})}
	s.crawlJobs.jobs[id] = j
	return j
}

// crawlKeys are the body fields POST /v2/crawl takes (v2 names, and what
// the SDK and the official CLI add).
var crawlKeys = map[string]bool{
	"url": true, "prompt": true, "includePaths": true, "excludePaths": true, "maxDiscoveryDepth": true,
	"sitemap": true, "ignoreQueryParameters": true, "deduplicateSimilarURLs": true, "limit": true,
	"crawlEntireDomain": true, "allowExternalLinks": true, "allowSubdomains": true, "delay": true,
	"maxConcurrency": true, "regexOnFullURL": true, "webhook": true, "scrapeOptions": true,
	"zeroDataRetention": true, "integration": true, "origin": true, "robotsUserAgent": true,
}

// crawlV1 are the v1 names with the v2 name to use.
var crawlV1 = map[string]string{
	"maxDepth":              "maxDiscoveryDepth",
	"allowBackwardLinks":    "crawlEntireDomain",
	"allowBackwardCrawling": "crawlEntireDomain",
	"ignoreSitemap":         "sitemap (\"only\", \"skip\" or \"include\")",
	"crawlerOptions":        "the top-level v2 options",
	"pageOptions":           "scrapeOptions",
}

// crawlRoute looks the request's crawl up (400 for an id that is not a
// UUID, 404 for an unknown one), then lets h answer.
func (s *Server) crawlRoute(h func(w *respWriter, req *http.Request, j *crawlJob)) func(*respWriter, *http.Request) {
	return func(w *respWriter, req *http.Request) {
		id := req.PathValue("id")
		if !validUUID(id) {
			writeJSON(w, http.StatusBadRequest, errBody(msgInvalidJobID))
			return
		}
		j := s.crawlJob(id)
		if j == nil {
			writeJSON(w, http.StatusNotFound, errBody(msgCrawlNotFound))
			return
		}
		h(w, req, j)
	}
}

// serveCrawlStatusOrSocket answers GET /v2/crawl/{id}: the WebSocket when
// the request asks for an upgrade (its route is then "WS crawl"), the
// status page otherwise.
func (s *Server) serveCrawlStatusOrSocket(w *respWriter, req *http.Request, j *crawlJob) {
	if isWebSocket(req) {
		w.route = "WS crawl"
		s.serveCrawlSocket(w, req, j)
		return
	}
	s.serveCrawlStatus(w, req, j)
}

const msgCrawlNotFound = "Job not found"

// isWebSocket reports whether req asks to upgrade to a WebSocket.
func isWebSocket(req *http.Request) bool {
	return strings.EqualFold(req.Header.Get("Upgrade"), "websocket")
}

// authOf is the request's Authorization header or, for a WebSocket
// upgrade without one, the key offered as a subprotocol (as the SDK sends
// it: a browser's socket cannot carry headers) as a bearer token; another
// offered protocol is then a wrong token (401).
func (s *Server) authOf(req *http.Request) string {
	auth := req.Header.Get("Authorization")
	if auth != "" || !isWebSocket(req) {
		return auth
	}
	ps := wsProtocols(req)
	if slices.Contains(ps, s.Key) {
		return "Bearer " + s.Key
	}
	if len(ps) > 0 {
		return "Bearer " + ps[0]
	}
	return ""
}

func wsProtocols(req *http.Request) []string {
	var out []string
	for _, h := range req.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(h, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// ---- POST /v2/crawl ----

func (s *Server) serveStartCrawl(w http.ResponseWriter, req *http.Request) {
	var all map[string]jsontext.Value
	if !decodeBody(req, &all) {
		writeJSON(w, http.StatusBadRequest, errBody(msgInvalidBody))
		return
	}
	bad := func(msg string) { writeJSON(w, http.StatusBadRequest, errBody("Bad Request: "+msg)) }
	for k := range all {
		if v2, ok := crawlV1[k]; ok {
			bad("Unrecognized key in body: " + k + " (a v1 option; use " + v2 + ")")
			return
		}
	}
	for k := range all {
		if !crawlKeys[k] {
			bad("Unrecognized key in body: " + k)
			return
		}
	}
	var r struct {
		URL               string   `json:"url"`
		IncludePaths      []string `json:"includePaths"`
		ExcludePaths      []string `json:"excludePaths"`
		MaxDiscoveryDepth *int     `json:"maxDiscoveryDepth"`
		Sitemap           *string  `json:"sitemap"`
		Limit             *int     `json:"limit"`
		Delay             *float64 `json:"delay"`
		MaxConcurrency    *int     `json:"maxConcurrency"`
		Integration       *string  `json:"integration"`
		Origin            *string  `json:"origin"`
		ScrapeOptions     *struct {
			Formats         []jsontext.Value `json:"formats"`
			OnlyMainContent *bool            `json:"onlyMainContent"`
		} `json:"scrapeOptions"`
	}
	if b, _ := json.Marshal(all); json.Unmarshal(b, &r) != nil {
		bad("a field has the wrong type")
		return
	}
	if strings.TrimSpace(r.URL) == "" {
		bad("url is required")
		return
	}
	u, err := url.Parse(strings.TrimSpace(r.URL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("invalid URL")
		return
	}
	if r.Sitemap != nil && *r.Sitemap != "only" && *r.Sitemap != "skip" && *r.Sitemap != "include" {
		bad(`sitemap must be one of "only", "skip", "include"`)
		return
	}
	if r.Limit != nil && (*r.Limit < 1 || *r.Limit > maxCrawlLimit) {
		bad(fmt.Sprintf("limit must be between 1 and %d", maxCrawlLimit))
		return
	}
	if r.MaxDiscoveryDepth != nil && *r.MaxDiscoveryDepth < 0 {
		bad("maxDiscoveryDepth must not be negative")
		return
	}
	if r.Delay != nil && *r.Delay < 0 {
		bad("delay must not be negative")
		return
	}
	if r.MaxConcurrency != nil && *r.MaxConcurrency < 1 {
		bad("maxConcurrency must be at least 1")
		return
	}
	var inc, exc []*regexp.Regexp
	for _, p := range r.IncludePaths {
		re, err := regexp.Compile(p)
		if err != nil {
			bad("includePaths: invalid regular expression " + strconv.Quote(p))
			return
		}
		inc = append(inc, re)
	}
	for _, p := range r.ExcludePaths {
		re, err := regexp.Compile(p)
		if err != nil {
			bad("excludePaths: invalid regular expression " + strconv.Quote(p))
			return
		}
		exc = append(exc, re)
	}
	formats, mainOnly := []string{"markdown"}, true
	if so := r.ScrapeOptions; so != nil {
		var keys map[string]jsontext.Value
		_ = json.Unmarshal(all["scrapeOptions"], &keys)
		for _, k := range v1Options {
			if _, ok := keys[k]; ok {
				bad("scrapeOptions: Unrecognized key: " + k + " (a v1 option; see the v2 migration guide)")
				return
			}
		}
		if so.Formats != nil {
			formats = nil
		}
		for _, f := range so.Formats {
			var name string
			if f.Kind() == '"' {
				_ = json.Unmarshal(f, &name)
			} else {
				var o struct {
					Type string `json:"type"`
				}
				_ = json.Unmarshal(f, &o)
				name = o.Type
			}
			switch name {
			case "markdown", "html", "rawHtml", "links", "summary", "images", "screenshot", "json", "changeTracking", "branding":
				formats = append(formats, name)
			case "extract", "screenshot@fullPage", "content":
				bad(fmt.Sprintf("scrapeOptions: invalid format %q: it is a v1 format", name))
				return
			default:
				bad(fmt.Sprintf("scrapeOptions: invalid format %q", name))
				return
			}
		}
		if so.OnlyMainContent != nil {
			mainOnly = *so.OnlyMainContent
		}
	}
	limit := 10000
	if r.Limit != nil {
		limit = *r.Limit
	}
	depth := -1
	if r.MaxDiscoveryDepth != nil {
		depth = *r.MaxDiscoveryDepth
	}
	s.crawlJobs.mu.Lock()
	j := s.newCrawlLocked(u.String(), formats, mainOnly)
	j.plan(s.crawlPages(), s.crawlStep(), limit, depth, inc, exc)
	s.crawlJobs.mu.Unlock()
	writeJSON(w, http.StatusOK, jsonOf(obj{"success", true, "id", j.id, "url", s.URL + "/v2/crawl/" + j.id}))
}

func (s *Server) crawlPages() int {
	if s.o.CrawlPages > 0 {
		return s.o.CrawlPages
	}
	return defaultCrawlPages
}

func (s *Server) crawlStep() time.Duration {
	if s.o.CrawlStep > 0 {
		return s.o.CrawlStep
	}
	return defaultCrawlStep
}

// plan lays out the crawl's pages: the site's paths in discovery order,
// filtered, up to limit attempted pages.
func (j *crawlJob) plan(site int, step time.Duration, limit, depth int, inc, exc []*regexp.Regexp) {
	u, _ := url.Parse(j.url)
	base := u.Scheme + "://" + u.Host
	paths := []string{"/", "/pricing", "/docs", "/blog", "/about", "/login", "/signup", "/blog/hostile"}
	sections := []string{"/docs/", "/blog/", "/guides/"}
	for n := 1; len(paths) < site; n++ {
		for _, s := range sections {
			if len(paths) < site {
				paths = append(paths, s+"page-"+strconv.Itoa(n))
			}
		}
	}
	keep := func(p string) bool {
		if depth >= 0 && strings.Count(strings.Trim(p, "/"), "/")+boolInt(p != "/") > depth {
			return false
		}
		if len(inc) > 0 {
			ok := false
			for _, re := range inc {
				ok = ok || re.MatchString(p)
			}
			if !ok && p != "/" {
				return false
			}
		}
		for _, re := range exc {
			if re.MatchString(p) {
				return false
			}
		}
		return true
	}
	n := 0
	for i, p := range paths {
		if !keep(p) {
			continue
		}
		cp := crawlPage{url: base + p, kind: cpDoc}
		switch {
		case p == "/login" || p == "/signup" || i%17 == 16:
			cp.kind = cpRobots
			j.robots = append(j.robots, cp)
			continue
		case p == "/blog/hostile":
			cp.kind = cpHostile
		case i%11 == 10:
			cp.kind = cpFailed
			cp.id = fmt.Sprintf("%08x-0000-4000-8000-%012x", hashOf(j.id)&0xffffffff, i)
			cp.err = []string{"Request timed out", "Site returned 503 Service Unavailable", "ERR_TUNNEL_CONNECTION_FAILED"}[i%3]
		}
		if n >= limit {
			break
		}
		n++
		cp.at = time.Duration(n) * step
		j.pages = append(j.pages, cp)
	}
}

// ---- the crawl's state at a time ----

// crawlState is what a crawl shows at simulated time now.
type crawlState struct {
	status    string
	attempted int // pages settled
	docs      []int
	total     int
}

func (s *Server) crawlAt(j *crawlJob) crawlState {
	now := s.simNow() - j.start
	j.mu.Lock()
	cancelled := j.cancelledAt
	j.mu.Unlock()
	st := crawlState{status: "scraping"}
	end := now
	if j.active && s.o.StillCrawls {
		end = -1 // no page settles
	}
	if cancelled >= 0 && cancelled < end {
		end = cancelled
	}
	for i := range j.pages {
		if j.pages[i].at > end {
			break
		}
		st.attempted++
		if j.pages[i].kind != cpFailed {
			st.docs = append(st.docs, i)
		}
	}
	switch {
	case cancelled >= 0:
		st.status = "cancelled"
		st.total = st.attempted
	case st.attempted == len(j.pages):
		st.status = "completed"
		st.total = st.attempted
	default:
		st.total = min(len(j.pages), st.attempted+5)
	}
	return st
}

// credits: one a document.
func (st *crawlState) credits() int { return len(st.docs) }

func (j *crawlJob) expires() string { return j.createdAt.Add(24 * time.Hour).Format(isoMillis) }

// ---- GET /v2/crawl/{id} ----

func (s *Server) serveCrawlStatus(w http.ResponseWriter, req *http.Request, j *crawlJob) {
	q := req.URL.Query()
	skip, _ := strconv.Atoi(q.Get("skip"))
	skip = max(skip, 0)
	limit := s.o.CrawlPageDocs
	if limit <= 0 {
		limit = defaultCrawlPageDoc
	}
	unbounded := s.crawlFault(CrawlFaultUnbounded)
	if l, err := strconv.Atoi(q.Get("limit")); err == nil && l > 0 {
		limit = min(l, limit)
		if unbounded {
			limit = min(l, maxCrawlLimit) // as many as asked for
		}
	}
	st := s.crawlAt(j)
	b := append([]byte(`{"success":true`), `,"status":`...)
	b = appendJSON(b, st.status)
	b = appendField(b, "completed", st.attempted)
	b = appendField(b, "total", st.total)
	b = appendField(b, "creditsUsed", st.credits())
	b = appendField(b, "expiresAt", j.expires())
	data := []byte{'['}
	n := 0
	for i := skip; i < len(st.docs) && n < limit && (unbounded || len(data) < maxCrawlPageBytes); i++ {
		if n > 0 {
			data = append(data, ',')
		}
		data = s.appendCrawlDoc(data, j, st.docs[i])
		n++
	}
	data = append(data, ']')
	if skip+n < len(st.docs) {
		base := s.URL
		if s.crawlFault(CrawlFaultForeignNext) {
			base = foreignOrigin
		}
		next := base + "/v2/crawl/" + j.id + "?skip=" + strconv.Itoa(skip+n)
		if q.Get("limit") != "" {
			next += "&limit=" + strconv.Itoa(limit)
		}
		b = appendField(b, "next", next)
	}
	b = append(b, `,"data":`...)
	b = append(b, data...)
	b = append(b, '}')
	writeJSON(w, http.StatusOK, b)
}

// appendCrawlDoc appends the document of page i.
func (s *Server) appendCrawlDoc(b []byte, j *crawlJob, i int) []byte {
	cp := &j.pages[i]
	p := newPage(cp.url)
	title, md, links := p.title, p.markdown(j.mainOnly), p.links
	if cp.kind == cpHostile {
		title = "\x1b]0;pwned\x07\x1b[2J\u202eevil title\u202c " + strings.Repeat("W", 20000)
		md = "# Hostile \x1b[31mred\x1b[0m page\n\n\u202edesrever\u202c text with a C1 \u009b31m CSI and a \x1b]8;;javascript:alert(1)\x1b\\link\x1b]8;;\x1b\\.\n\n" +
			"[click](javascript:alert(1)) [ok](https://example.com/ok)\n"
		links = []string{"javascript:alert(1)", "https://example.com/\x1b[2Jclear", strings.Repeat("https://x.example/", 200)}
	}
	if pad := s.o.CrawlMarkdownBytes; pad > len(md) {
		var sb strings.Builder
		sb.Grow(pad + 200)
		sb.WriteString(md)
		for n := 1; sb.Len() < pad; n++ {
			fmt.Fprintf(&sb, "\n## Section %d\n\n%s %s\n", n, p.description, p.description)
		}
		md = sb.String()
	}
	o := obj{}
	for _, f := range j.formats {
		switch f {
		case "markdown":
			o = append(o, "markdown", md)
		case "html":
			o = append(o, "html", p.html(j.mainOnly))
		case "rawHtml":
			o = append(o, "rawHtml", p.html(false))
		case "links":
			o = append(o, "links", links)
		case "summary":
			o = append(o, "summary", p.summary())
		}
	}
	o = append(o, "metadata", obj{
		"title", title, "description", p.description, "language", "en",
		"sourceURL", cp.url, "url", cp.url, "statusCode", 200, "contentType", "text/html; charset=utf-8",
		"scrapeId", fmt.Sprintf("%08x-0000-4000-9000-%012x", hashOf(j.id)&0xffffffff, i), "proxyUsed", "basic", "creditsUsed", 1,
	})
	return appendJSON(b, o)
}

// ---- GET /v2/crawl/{id}/errors ----

func (s *Server) crawlErrors(j *crawlJob) []byte {
	st := s.crawlAt(j)
	errs := arr{}
	for i := 0; i < st.attempted; i++ {
		cp := &j.pages[i]
		if cp.kind == cpFailed {
			errs = append(errs, obj{"id", cp.id, "timestamp", j.createdAt.Add(cp.at).Format(isoMillis), "url", cp.url, "error", cp.err})
		}
	}
	// Robots-blocked pages are known as soon as they are discovered: with
	// the first page.
	robots := []string{}
	if st.attempted > 0 {
		for _, cp := range j.robots {
			robots = append(robots, cp.url)
		}
	}
	return jsonOf(obj{"errors", errs, "robotsBlocked", robots})
}

// ---- DELETE /v2/crawl/{id} ----

func (s *Server) cancelCrawl(w *respWriter, _ *http.Request, j *crawlJob) {
	st := s.crawlAt(j)
	if st.status == "completed" {
		writeJSON(w, http.StatusConflict, errBody("Crawl already completed"))
		return
	}
	j.mu.Lock()
	if j.cancelledAt < 0 {
		j.cancelledAt = s.simNow() - j.start
		close(j.changed)
		j.changed = make(chan struct{})
	}
	j.mu.Unlock()
	writeJSON(w, http.StatusOK, []byte(`{"status":"cancelled"}`))
}

// ---- the WebSocket ----

// serveCrawlSocket sends catchup (status and every document so far), a
// document message per page as it settles, and done at the end (or error
// when the crawl was cancelled, as the service reports a cancelled crawl).
func (s *Server) serveCrawlSocket(w http.ResponseWriter, req *http.Request, j *crawlJob) {
	c, err := websocket.Accept(w, req, &websocket.AcceptOptions{Subprotocols: []string{s.Key}})
	if err != nil {
		return
	}
	defer c.CloseNow()
	sctx, cancel := context.WithCancel(req.Context())
	defer cancel()
	go func() {
		select {
		case <-s.done:
			cancel()
		case <-sctx.Done():
		}
	}()
	// The client sends nothing we read; CloseRead handles its close.
	ctx := c.CloseRead(sctx)
	st := s.crawlAt(j)
	docs := []byte{'['}
	for n, i := range st.docs {
		if n > 0 {
			docs = append(docs, ',')
		}
		docs = s.appendCrawlDoc(docs, j, i)
	}
	docs = append(docs, ']')
	msg := jsonOf(obj{"type", "catchup", "data", obj{"status", st.status, "completed", st.attempted, "total", st.total,
		"creditsUsed", st.credits(), "expiresAt", j.expires(), "data", raw(docs)}})
	if c.Write(ctx, websocket.MessageText, msg) != nil {
		return
	}
	plan := socketPlan{resend: s.crawlFault(CrawlFaultResend), reorder: s.crawlFault(CrawlFaultReorder), next: len(st.docs), last: -1}
	// CrawlFaultDrop closes the socket after an odd number of document
	// messages (with CrawlFaultReorder: half of a swapped pair sent).
	sent, dropAt := 0, -1
	if s.crawlFault(CrawlFaultDrop) {
		dropAt = len(j.pages)/4 | 1
	}
	for {
		st = s.crawlAt(j)
		for _, i := range plan.take(len(st.docs), st.status != "scraping") {
			if c.Write(ctx, websocket.MessageText, jsonOf(obj{"type", "document", "data", raw(s.appendCrawlDoc(nil, j, st.docs[i]))})) != nil {
				return
			}
			if sent++; sent == dropAt {
				_ = c.Close(websocket.StatusGoingAway, "")
				return
			}
		}
		if st.status != "scraping" && s.crawlFault(CrawlFaultSilent) {
			<-ctx.Done() // every document sent; nothing more, not even a close
			return
		}
		switch st.status {
		case "completed":
			_ = c.Write(ctx, websocket.MessageText, jsonOf(obj{"type", "done", "data", obj{"status", st.status,
				"completed", st.attempted, "total", st.total, "creditsUsed", st.credits(), "expiresAt", j.expires()}}))
			_ = c.Close(websocket.StatusNormalClosure, "")
			return
		case "cancelled":
			_ = c.Write(ctx, websocket.MessageText, jsonOf(obj{"type", "error", "error", "Crawl was cancelled"}))
			_ = c.Close(websocket.StatusNormalClosure, "")
			return
		}
		j.mu.Lock()
		changed := j.changed
		j.mu.Unlock()
		wait := time.Duration(float64(j.pages[st.attempted].at-(s.simNow()-j.start))/s.o.Speed) + time.Millisecond
		if s.o.elapsed != nil {
			wait = time.Millisecond
		}
		t := time.NewTimer(max(wait, time.Millisecond))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-changed:
		case <-s.heldUntil(): // the clock starts
		case <-t.C:
		}
		t.Stop()
	}
}

// StartCrawl starts a crawl of rawURL as POST /v2/crawl would, for the
// demo and tests; it returns the crawl's id.
func (s *Server) StartCrawl(rawURL string, limit int) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		u, _ = url.Parse("https://example.com")
	}
	s.crawlJobs.mu.Lock()
	defer s.crawlJobs.mu.Unlock()
	j := s.newCrawlLocked(u.String(), []string{"markdown", "links"}, true)
	if limit <= 0 {
		limit = maxCrawlLimit
	}
	j.plan(s.crawlPages(), s.crawlStep(), limit, -1, nil, nil)
	return j.id
}
