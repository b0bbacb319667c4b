package poller

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/internal/panics"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// Crawls: start (POST /v2/crawl), status (GET /v2/crawl/{id}, paged with
// next), errors (GET /v2/crawl/{id}/errors), cancel (DELETE) and a watcher
// that reads the WebSocket on /v2/crawl/{id} and falls back to polling.
//
// Everything the service sends is untrusted: strings for display are
// sanitised and bounded (crawlTitleMax, crawlURLMax), lists are bounded
// (crawlLinksMax, crawlErrorsMax, crawlDocsPerAnswer), every answer and
// socket message is redacted of the secrets (Secrets.RedactJSON) before
// anyone sees it, and a next link is followed only on the service's own
// origin and the crawl's own path. Every wait before asking again is
// ratelimit.go's Retry.

// Ops of this file, as in Error.Op.
const (
	OpStartCrawl  = "start crawl"
	OpCrawlStatus = "crawl status"
	OpCrawlErrors = "crawl errors"
	OpCancelCrawl = "cancel crawl"
)

// Bounds on what a crawl's answers may hold.
const (
	crawlTitleMax      = 300
	crawlURLMax        = 2048
	crawlLinksMax      = 1000
	crawlErrorsMax     = 100000
	crawlDocsPerAnswer = 10000
	crawlNextMax       = 100000 // next links followed in one status call
	crawlKeyMax        = 512    // dedup keys longer than this are hashed
)

// CrawlV1Names are the v1 option names v2 no longer takes, with the v2
// name to use instead.
var CrawlV1Names = map[string]string{
	"maxDepth":              "maxDiscoveryDepth",
	"allowBackwardLinks":    "crawlEntireDomain",
	"allowBackwardCrawling": "crawlEntireDomain",
	"ignoreSitemap":         "sitemap (only, skip or include)",
}

// CrawlRequest is the body of POST /v2/crawl (v2 names only). Nil
// pointers and empty values are not sent.
type CrawlRequest struct {
	URL                   string
	Prompt                string
	IncludePaths          []string
	ExcludePaths          []string
	MaxDiscoveryDepth     *int
	Sitemap               string // only, skip, include
	IgnoreQueryParameters *bool
	Limit                 *int
	CrawlEntireDomain     *bool
	AllowExternalLinks    *bool
	AllowSubdomains       *bool
	Delay                 *float64 // seconds between pages
	MaxConcurrency        *int
	ScrapeOptions         jsontext.Value // an object; nil: none
	Integration           string
	Origin                string
}

// Validate checks the request before anything is sent.
func (r *CrawlRequest) Validate() error {
	u, err := url.Parse(strings.TrimSpace(r.URL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not a URL to crawl: it must start with http:// or https:// and name a host", truncateRunes(text.Sanitize(r.URL), 100))
	}
	switch r.Sitemap {
	case "", "only", "skip", "include":
	default:
		return fmt.Errorf("sitemap %q: it must be only, skip or include", truncateRunes(text.Sanitize(r.Sitemap), 40))
	}
	if r.Limit != nil && *r.Limit < 1 {
		return fmt.Errorf("limit %d: it must be at least 1", *r.Limit)
	}
	if r.MaxDiscoveryDepth != nil && *r.MaxDiscoveryDepth < 0 {
		return fmt.Errorf("maxDiscoveryDepth %d: it must not be negative", *r.MaxDiscoveryDepth)
	}
	if r.MaxConcurrency != nil && *r.MaxConcurrency < 1 {
		return fmt.Errorf("maxConcurrency %d: it must be at least 1", *r.MaxConcurrency)
	}
	if r.Delay != nil && !(*r.Delay >= 0) {
		return errors.New("delay must not be negative")
	}
	if r.ScrapeOptions != nil && r.ScrapeOptions.Kind() != '{' {
		return errors.New("scrapeOptions must be a JSON object")
	}
	return nil
}

// Body is the request's JSON, in the SDK's order.
func (r *CrawlRequest) Body() []byte {
	type body struct {
		URL                   string         `json:"url"`
		Prompt                string         `json:"prompt,omitempty"`
		ExcludePaths          []string       `json:"excludePaths,omitempty"`
		IncludePaths          []string       `json:"includePaths,omitempty"`
		MaxDiscoveryDepth     *int           `json:"maxDiscoveryDepth,omitempty"`
		Sitemap               string         `json:"sitemap,omitempty"`
		IgnoreQueryParameters *bool          `json:"ignoreQueryParameters,omitempty"`
		Limit                 *int           `json:"limit,omitempty"`
		CrawlEntireDomain     *bool          `json:"crawlEntireDomain,omitempty"`
		AllowExternalLinks    *bool          `json:"allowExternalLinks,omitempty"`
		AllowSubdomains       *bool          `json:"allowSubdomains,omitempty"`
		Delay                 *float64       `json:"delay,omitempty"`
		MaxConcurrency        *int           `json:"maxConcurrency,omitempty"`
		Integration           string         `json:"integration,omitempty"`
		Origin                string         `json:"origin,omitempty"`
		ScrapeOptions         jsontext.Value `json:"scrapeOptions,omitempty"`
	}
	b, _ := json.Marshal(body{URL: strings.TrimSpace(r.URL), Prompt: r.Prompt, ExcludePaths: r.ExcludePaths, IncludePaths: r.IncludePaths,
		MaxDiscoveryDepth: r.MaxDiscoveryDepth, Sitemap: r.Sitemap, IgnoreQueryParameters: r.IgnoreQueryParameters, Limit: r.Limit,
		CrawlEntireDomain: r.CrawlEntireDomain, AllowExternalLinks: r.AllowExternalLinks, AllowSubdomains: r.AllowSubdomains,
		Delay: r.Delay, MaxConcurrency: r.MaxConcurrency, Integration: r.Integration, Origin: r.Origin, ScrapeOptions: r.ScrapeOptions})
	return b
}

// CrawlStarted is the answer of POST /v2/crawl.
type CrawlStarted struct {
	ID  string
	URL string // sanitised
}

// StartCrawl sends POST /v2/crawl. A rate-limited start is tried again as
// the client's Retry says; nothing else is sent twice (a crawl is billed).
func (c *Client) StartCrawl(ctx context.Context, req *CrawlRequest) (*CrawlStarted, error) {
	if err := req.Validate(); err != nil {
		return nil, &Error{Kind: KindBadRequest, Op: OpStartCrawl, detail: err.Error(), secrets: c.secrets}
	}
	r, err := c.sendWith(ctx, c.retry.rateLimitOnly(), OpStartCrawl, http.MethodPost, "/v2/crawl", nil, req.Body(), 0, maxErrorBody)
	if err != nil {
		return nil, err
	}
	o, err := c.answer(OpStartCrawl, r)
	if err != nil {
		return nil, err
	}
	id, _ := o.str("id")
	if !isUUID(id) {
		return nil, c.malformed(OpStartCrawl, r.status, "the answer has no crawl id")
	}
	return &CrawlStarted{ID: strings.ToLower(id), URL: truncateRunes(o.sanitized("url"), crawlURLMax)}, nil
}

// CrawlDoc is one document of a crawl.
type CrawlDoc struct {
	Key        string // what deduplicates it: metadata.scrapeId, else its URL, else a hash of its JSON
	URL        string // metadata.url, else sourceURL; sanitised, bounded
	Title      string // sanitised, bounded
	StatusCode int    // 0 when not sent
	Error      string // metadata.error, sanitised; "" when none
	Markdown   string // as sent, NOT sanitised (it goes to files; sanitise for display)
	Links      []string
	Raw        jsontext.Value // the document as sent, redacted of the key
}

// Size is the markdown's size in bytes.
func (d *CrawlDoc) Size() int { return len(d.Markdown) }

// CrawlStatus is a crawl's state.
type CrawlStatus struct {
	Status      string // scraping, completed, failed, cancelled, or what the service says (sanitised)
	Completed   int
	Total       int
	CreditsUsed *float64
	ExpiresAt   time.Time
	Docs        []CrawlDoc // the documents of this answer (or of the pages followed)
}

// Terminal reports whether the crawl is over.
func (s *CrawlStatus) Terminal() bool { return CrawlTerminal(s.Status) }

// CrawlTerminal reports whether status ends a crawl.
func CrawlTerminal(status string) bool {
	switch strings.ToLower(status) {
	case "completed", "failed", "cancelled", "canceled":
		return true
	}
	return false
}

// ParseCrawlDoc reads one document (as a status answer's data holds it,
// or as CrawlDoc.Raw keeps it); ok is false when it is not an object.
func ParseCrawlDoc(v jsontext.Value) (CrawlDoc, bool) {
	o, ok := parseObject(v)
	if !ok {
		return CrawlDoc{}, false
	}
	// The client redacted the answer v comes from (sendWith, socket).
	d := CrawlDoc{Raw: v.Clone()}
	d.Markdown, _ = o.str("markdown")
	for i, l := range o.array("links") {
		if i >= crawlLinksMax {
			break
		}
		var s string
		if unmarshal(l, &s) == nil {
			d.Links = append(d.Links, truncateRunes(text.Sanitize(s), crawlURLMax))
		}
	}
	md, _ := o.obj("metadata")
	if md == nil {
		md = object{}
	}
	d.URL = md.sanitized("url")
	src := md.sanitized("sourceURL")
	if d.URL == "" {
		d.URL = src
	}
	d.URL = truncateRunes(d.URL, crawlURLMax)
	d.Title = truncateRunes(strings.Join(strings.Fields(md.sanitized("title")), " "), crawlTitleMax)
	if f, ok := md.numIn("statusCode", 0, 999); ok {
		d.StatusCode = int(f)
	}
	d.Error = truncateRunes(md.sanitized("error"), maxMessage)
	switch id, _ := md.str("scrapeId"); {
	case id != "":
		d.Key = "id:" + id
	case src != "":
		d.Key = "url:" + src
	case d.URL != "":
		d.Key = "url:" + d.URL
	default:
		d.Key = string(v)
	}
	if len(d.Key) > crawlKeyMax {
		h := sha256.Sum256([]byte(d.Key))
		d.Key = "sha:" + hex.EncodeToString(h[:])
	}
	return d, true
}

// readCrawlStatus reads a status object (the status answer, a catchup's or
// a done message's data). Its documents are handed to onDoc one at a time
// as they are decoded (nil onDoc: collected in Docs); n is how many.
// Decoding one at a time keeps what a large answer costs to about its own
// size plus one document.
func readCrawlStatus(o object, onDoc func(*CrawlDoc)) (s *CrawlStatus, n int) {
	s = &CrawlStatus{Status: truncateRunes(o.sanitized("status"), 40)}
	if f, ok := o.numIn("completed", 0, 1e9); ok {
		s.Completed = int(f)
	}
	if f, ok := o.numIn("total", 0, 1e9); ok {
		s.Total = int(f)
	}
	if f, ok := o.numIn("creditsUsed", 0, model.MaxCredits); ok {
		s.CreditsUsed = &f
	}
	s.ExpiresAt, _ = o.time("expiresAt")
	data := o["data"]
	if data.Kind() != '[' {
		return s, 0
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if _, err := dec.ReadToken(); err != nil {
		return s, 0
	}
	for n < crawlDocsPerAnswer && dec.PeekKind() != ']' {
		v, err := dec.ReadValue()
		if err != nil {
			break
		}
		d, ok := ParseCrawlDoc(v)
		if !ok {
			continue
		}
		n++
		if onDoc != nil {
			onDoc(&d)
		} else {
			s.Docs = append(s.Docs, d)
		}
	}
	return s, n
}

// crawlPageLimit is the most documents a status request asks for (the
// service's limit parameter): an answer's size, and so what it costs to
// read, stays bounded whatever the crawl's size. An answer over the cap
// (crawlAnswerMax) is asked for again with half as many, down to one.
const crawlPageLimit = 100

// crawlAnswerMax is the most a status answer may hold (a variable for
// tests).
var crawlAnswerMax int64 = maxOtherBody

// crawlPager reads a crawl's status list: answers of at most limit
// documents from a skip, following next.
type crawlPager struct {
	c  *Client
	rp Retry // each request is asked again as it says
	id string
	// limit is the documents asked for an answer (0: crawlPageLimit),
	// halved after an answer over the cap for the rest of the pager's
	// life: a crawl's documents tend to be alike in size.
	limit int
	// oversize are the list's positions whose document alone is over
	// the cap: skipped, and said.
	oversize map[int]bool
	requests int // HTTP requests sent
}

// statusPage is one answer of the list.
type statusPage struct {
	st       *CrawlStatus
	n        int  // the list's positions it covers: its documents, duplicates included (1 for a skipped document)
	next     int  // the skip of the following answer; -1: none
	oversize bool // the document at its skip is alone over the cap and was skipped
}

// isTooLarge reports whether err is an answer over the cap.
func isTooLarge(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.tooLarge
}

// answer sends one status request, asking again as p.rp says; an answer
// over the cap is not asked for again as it was: its error is returned
// at once, for the caller to ask for fewer documents.
func (p *crawlPager) answer(ctx context.Context, skip, limit int) (*response, error) {
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	if skip > 0 {
		q.Set("skip", strconv.Itoa(skip))
	}
	var r *response
	var big error
	err := p.c.notifying(p.rp, OpCrawlStatus).Do(ctx, func(ctx context.Context) error {
		p.requests++
		var err error
		r, err = p.c.sendOnce(ctx, OpCrawlStatus, http.MethodGet, "/v2/crawl/"+p.id, q, nil, 0, crawlAnswerMax)
		if isTooLarge(err) {
			big = err
			return nil
		}
		return err
	})
	if err == nil && big != nil {
		return nil, big
	}
	return r, err
}

// page reads the answer from skip, handing its documents to onDoc (nil:
// collected in its status's Docs). An answer over the cap is asked for
// again with half the documents; a document alone over it is skipped (the
// answer then has the figures read past every document).
func (p *crawlPager) page(ctx context.Context, skip int, onDoc func(*CrawlDoc)) (statusPage, error) {
	if err := p.c.checkJob(OpCrawlStatus, p.id); err != nil {
		return statusPage{next: -1}, err
	}
	if p.limit <= 0 {
		p.limit = crawlPageLimit
	}
	for {
		r, err := p.answer(ctx, skip, p.limit)
		switch {
		case err == nil:
			return p.read(r, skip, onDoc)
		case !isTooLarge(err) || skip == figuresSkip:
			return statusPage{next: -1}, err
		case p.limit > 1:
			p.limit /= 2
			p.c.logf("crawl status: an answer over %d MB; asking for %d documents an answer", crawlAnswerMax>>20, p.limit)
			continue
		}
		if p.oversize == nil {
			p.oversize = map[int]bool{}
		}
		p.oversize[skip] = true
		p.c.logf("crawl status: document %d alone is over %d MB and cannot be read: skipped", skip, crawlAnswerMax>>20)
		r, err = p.answer(ctx, figuresSkip, 1)
		if err != nil {
			return statusPage{next: -1}, err
		}
		pg, err := p.read(r, figuresSkip, func(*CrawlDoc) {})
		pg.n, pg.next, pg.oversize = 1, skip+1, true
		return pg, err
	}
}

// read reads a status answer from skip.
func (p *crawlPager) read(r *response, skip int, onDoc func(*CrawlDoc)) (statusPage, error) {
	c := p.c
	// A view of the body, not a copy: its documents are decoded one by
	// one from it.
	o, ok := viewObject(r.body)
	if !ok {
		return statusPage{next: -1}, c.malformed(OpCrawlStatus, r.status, "not a JSON object")
	}
	if err := c.failure(OpCrawlStatus, r.status, o); err != nil {
		return statusPage{next: -1}, err
	}
	if d, ok := o.obj("data"); ok && o["status"] == nil && d["status"] != nil {
		o = d // some answers nest the job under data
	}
	st, n := readCrawlStatus(o, onDoc)
	next := -1
	if u, _ := o.str("next"); u != "" {
		next = c.crawlNext(p.id, u, skip+n)
	}
	if n == 0 {
		next = -1 // a next that brings nothing would loop
	}
	return statusPage{st: st, n: n, next: next}, nil
}

// crawlNext checks a next link: on the service's origin, the crawl's
// path, with a skip that moves forward. It returns the skip to ask for
// (the link's own, else the documents counted so far). A link elsewhere
// is not followed (the key stays home), but it says there is more: the
// rest is asked for at the crawl's own address, from the documents
// counted.
func (c *Client) crawlNext(id, next string, counted int) int {
	u, err := url.Parse(next)
	switch {
	case err != nil || !strings.EqualFold(strings.TrimRight(u.Path, "/"), strings.TrimRight(c.basePath()+"/v2/crawl/"+id, "/")):
		c.logf("crawl status: a next link that is not this crawl's is not followed; the rest is asked for at the crawl's own address")
		return counted
	case u.IsAbs() && origin(u) != c.origin:
		c.logf("crawl status: a next link to another address is not followed; the rest is asked for at the crawl's own address")
		return counted
	}
	s, err := strconv.Atoi(u.Query().Get("skip"))
	if err != nil || s < counted {
		s = counted
	}
	return s
}

// basePath is the base URL's path (the part after the host).
func (c *Client) basePath() string {
	u, err := url.Parse(c.base)
	if err != nil {
		return ""
	}
	return u.EscapedPath()
}

// CrawlStatus fetches GET /v2/crawl/{id} from document skip on and follows
// next to the end, handing each document to onDoc (nil: collected in the
// answer's Docs). requests is how many requests it sent. Each request is
// asked again as the client's Retry says.
func (c *Client) CrawlStatus(ctx context.Context, id string, skip int, onDoc func(*CrawlDoc)) (st *CrawlStatus, requests int, err error) {
	p := &crawlPager{c: c, rp: c.retry, id: id}
	st, _, err = p.all(ctx, skip, onDoc)
	return st, p.requests, err
}

// all reads the list from skip and follows next to its end; end is the
// list's position after the last answer read. Following next ends like
// every pager's paging: at a page that brings no document this call has
// not seen, past the documents the crawl's total says there are (one page
// of slack), or after crawlNextMax links.
func (p *crawlPager) all(ctx context.Context, skip int, onDoc func(*CrawlDoc)) (st *CrawlStatus, end int, err error) {
	var all []CrawlDoc
	seen := map[string]struct{}{}
	fresh := 0 // documents of the page not seen before in this call
	collect := func(d *CrawlDoc) {
		if _, ok := seen[d.Key]; !ok {
			seen[d.Key] = struct{}{}
			fresh++
		}
		if onDoc != nil {
			onDoc(d)
		} else {
			all = append(all, *d)
		}
	}
	pos, end := skip, skip
	for i := 0; ; i++ {
		fresh = 0
		pg, err := p.page(ctx, pos, collect)
		if err != nil {
			if st != nil {
				// The first answer came: keep it and what followed.
				st.Docs = all
				return st, end, err
			}
			return nil, end, err
		}
		if st == nil {
			st = pg.st
		}
		end = pos + pg.n
		if pg.next < 0 || i >= crawlNextMax {
			break
		}
		if fresh == 0 && !pg.oversize {
			p.c.logf("crawl status: a page brought no new document; its next link is not followed")
			break
		}
		if st.Total > 0 && pg.next >= st.Total+crawlPageLimit {
			p.c.logf("crawl status: a next link past the crawl's %d documents is not followed", st.Total)
			break
		}
		pos = pg.next
	}
	st.Docs = all
	return st, end, nil
}

// CrawlError is one failed page.
type CrawlError struct {
	ID, Timestamp, URL, Error string // sanitised, bounded
}

// CrawlErrors is the answer of GET /v2/crawl/{id}/errors.
type CrawlErrors struct {
	Errors        []CrawlError
	RobotsBlocked []string
}

// CrawlErrorsOf fetches GET /v2/crawl/{id}/errors ({errors, robotsBlocked},
// or the same under data).
func (c *Client) CrawlErrorsOf(ctx context.Context, id string) (*CrawlErrors, error) {
	if err := c.checkJob(OpCrawlErrors, id); err != nil {
		return nil, err
	}
	r, err := c.do(ctx, OpCrawlErrors, http.MethodGet, "/v2/crawl/"+id+"/errors", nil, maxOtherBody)
	if err != nil {
		return nil, err
	}
	o, err := c.answer(OpCrawlErrors, r)
	if err != nil {
		return nil, err
	}
	if d, ok := o.obj("data"); ok {
		o = d
	}
	out := &CrawlErrors{}
	for i, it := range o.array("errors") {
		if i >= crawlErrorsMax {
			break
		}
		e, ok := parseObject(it)
		if !ok {
			continue
		}
		out.Errors = append(out.Errors, CrawlError{
			ID: truncateRunes(e.sanitized("id"), 100), Timestamp: truncateRunes(e.sanitized("timestamp"), 40),
			URL: truncateRunes(e.sanitized("url"), crawlURLMax), Error: truncateRunes(strings.Join(strings.Fields(e.sanitized("error")), " "), maxMessage),
		})
	}
	for i, it := range o.array("robotsBlocked") {
		if i >= crawlErrorsMax {
			break
		}
		var s string
		if unmarshal(it, &s) == nil {
			out.RobotsBlocked = append(out.RobotsBlocked, truncateRunes(text.Sanitize(s), crawlURLMax))
		}
	}
	return out, nil
}

// CancelCrawl sends DELETE /v2/crawl/{id} and returns the status the
// service answers ("cancelled"). A failure is tried again as the client's
// Retry says (a cancel is idempotent). A 409 (the crawl is over) is an
// *Error of kind KindAlreadyFinished.
func (c *Client) CancelCrawl(ctx context.Context, id string) (string, error) {
	if err := c.checkJob(OpCancelCrawl, id); err != nil {
		return "", err
	}
	r, err := c.send(ctx, OpCancelCrawl, http.MethodDelete, "/v2/crawl/"+id, nil, nil, 0, maxErrorBody)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Status == http.StatusConflict {
			e.Kind = KindAlreadyFinished
		}
		return "", err
	}
	o, ok := parseObject(r.body)
	if !ok {
		return "", c.malformed(OpCancelCrawl, r.status, "not a JSON object")
	}
	if err := c.failure(OpCancelCrawl, r.status, o); err != nil {
		return "", err
	}
	return truncateRunes(o.sanitized("status"), 40), nil
}

// Transports of a crawl watch.
const (
	TransportLive    = "live"    // the WebSocket
	TransportPolling = "polling" // GET /v2/crawl/{id}
)

// CrawlUpdate is what a watch reports: a status, a new document, a
// transport change or a wait after a failure.
type CrawlUpdate struct {
	Status    *CrawlStatus // a status (its Docs empty: documents come one by one)
	Doc       *CrawlDoc    // a document not seen before
	Transport string       // set when the transport changes
	Why       string       // why polling (with Transport)
	Wait      *Wait        // a failure being waited out, and how long (Wait.String says it)
}

// CrawlWatchOptions configure WatchCrawl.
type CrawlWatchOptions struct {
	Interval time.Duration // between polls; default 2 s, at least 250 ms
	NoSocket bool          // poll only
	// Retry is the polls' policy (ratelimit.go), with Interval as its
	// Interval: each wait is reported as an update, not to Retry.Notify,
	// and Retry.Tries failures in a row end the watch.
	Retry Retry
}

// CrawlWatchStats count what a watch did.
type CrawlWatchStats struct {
	Requests   int // HTTP requests (status pages) and socket openings
	Docs       int // documents delivered
	Duplicates int // documents received again and dropped
	// Late are documents the check at the crawl's end found in its status
	// list undelivered (the socket skipped them, or sent them in another
	// order than the list), delivered then.
	Late int
	// Missing are documents the crawl's list holds that could not be
	// delivered: each alone larger than an answer may be, or the list
	// could not be read again at the end.
	Missing int
}

// WatchCrawl follows a crawl to its end: the WebSocket first (the key as
// its subprotocol, as the SDK sends it; wss:// except to loopback; no
// redirect followed), then, when no socket can be opened or it closes
// before done, polling the status from the status list's position the
// documents delivered reach. Any source that says the crawl ended ends the
// watch (the socket's done, its status, the figures read beside it, a
// poll). Documents are deduplicated across the switch, and at the end the
// documents delivered are checked against the list (check). It returns
// the final status once the crawl is over, ctx's error when ctx ends, or
// the error that ended the watch (a refusal; the failures in a row
// o.Retry gives up after).
func (c *Client) WatchCrawl(ctx context.Context, id string, o CrawlWatchOptions, sink func(CrawlUpdate)) (*CrawlStatus, CrawlWatchStats, error) {
	w := &crawlWatch{c: c, id: id, o: o, seen: map[string]struct{}{},
		pager: &crawlPager{c: c, rp: Retry{Tries: 1}, id: id}}
	// The figures goroutine of the socket reports too: one at a time.
	var mu sync.Mutex
	w.sink = func(u CrawlUpdate) {
		mu.Lock()
		defer mu.Unlock()
		sink(u)
	}
	if w.o.Interval <= 0 {
		w.o.Interval = 2 * time.Second
	}
	w.o.Interval = max(w.o.Interval, 250*time.Millisecond)
	w.o.Retry.Interval, w.o.Retry.Notify = w.o.Interval, nil
	if err := c.checkJob(OpCrawlStatus, id); err != nil {
		return nil, w.statsNow(), err
	}
	why := "polling was asked for"
	if !o.NoSocket {
		final, reason, err := w.socket(ctx)
		if err != nil {
			return nil, w.statsNow(), err
		}
		if final != nil {
			// The crawl ended: one status call from the list's position
			// held picks up any document the socket did not carry, and
			// the final figures.
			if st, err := w.poll(ctx); err == nil && st.Terminal() {
				final = st
			}
			w.check(ctx, final)
			return final, w.statsNow(), nil
		}
		why = reason
	}
	sink(CrawlUpdate{Transport: TransportPolling, Why: why})
	return w.pollLoop(ctx)
}

type crawlWatch struct {
	c    *Client
	id   string
	o    CrawlWatchOptions
	sink func(CrawlUpdate)
	seen map[string]struct{}
	// resume is the status list's position polling resumes at. A poll
	// moves it past each answer's documents (duplicates included: they
	// hold positions too); the socket, by each document not seen before
	// (the socket's order may not be the list's, nor is every document
	// sent once: the check at the end finds out).
	resume  int
	listEnd int // the list's end as the last poll read it
	pager   *crawlPager
	unread  int // documents the check at the end could not read again
	stats   CrawlWatchStats
	// figureRequests counts the figures goroutine's requests (added to
	// stats.Requests when the socket is left); ended is a status that
	// ended the crawl, read by it while the socket was open.
	figureRequests atomic.Int64
	ended          atomic.Pointer[CrawlStatus]
}

// statsNow is the watch's figures.
func (w *crawlWatch) statsNow() CrawlWatchStats {
	s := w.stats
	s.Requests += w.pager.requests
	s.Missing = len(w.pager.oversize) + w.unread
	return s
}

// deliver hands on a document not seen before.
func (w *crawlWatch) deliver(d *CrawlDoc) {
	if _, dup := w.seen[d.Key]; dup {
		w.stats.Duplicates++
		return
	}
	w.seen[d.Key] = struct{}{}
	w.stats.Docs++
	w.sink(CrawlUpdate{Doc: d})
}

// socketDoc takes a document the socket sent.
func (w *crawlWatch) socketDoc(d *CrawlDoc) {
	w.deliver(d)
	w.resume = max(w.resume, len(w.seen))
}

// wsURL is the socket's address, ok false when it would carry the key in
// the clear to a host that is not loopback.
func (w *crawlWatch) wsURL() (string, bool) {
	u, err := url.Parse(w.c.base + "/v2/crawl/" + w.id)
	if err != nil {
		return "", false
	}
	switch u.Scheme {
	case "https":
		u.Scheme = "wss"
	case "http":
		if !isLoopback(u.Hostname()) {
			return "", false
		}
		u.Scheme = "ws"
	default:
		return "", false
	}
	return u.String(), true
}

// socket reads the WebSocket until the crawl ends. It returns the final
// status, or why watching must go on by polling; err only for ctx's end.
func (w *crawlWatch) socket(ctx context.Context) (final *CrawlStatus, why string, err error) {
	addr, ok := w.wsURL()
	if !ok {
		return nil, "no secure WebSocket to this address", nil
	}
	hc := *w.c.hc
	// The key travels in Sec-WebSocket-Protocol, which Go's client would
	// copy to wherever a redirect leads: no redirect is followed.
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return errors.New("redirect refused") }
	dctx, cancel := context.WithTimeout(ctx, w.c.timeout)
	w.stats.Requests++
	conn, resp, err := websocket.Dial(dctx, addr, &websocket.DialOptions{
		HTTPClient:   &hc,
		HTTPHeader:   http.Header{"User-Agent": {"firewatch/" + Version}},
		Subprotocols: []string{w.c.key},
	})
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		reason := "the WebSocket could not be opened"
		if resp != nil {
			reason += " (" + strconv.Itoa(resp.StatusCode) + ")"
		}
		w.c.logf("crawl %s: %s: %v", w.id, reason, scrubErr(err, w.c.secrets))
		return nil, reason, nil
	}
	defer conn.CloseNow()
	conn.SetReadLimit(maxOtherBody)
	w.c.logf("crawl %s: WebSocket open", w.id)
	w.sink(CrawlUpdate{Transport: TransportLive})
	// The figures read beside the socket may say the crawl ended while
	// the socket is silent: that ends the reading.
	rctx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	fctx, stopFigures := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	panics.Go(ctx, func() {
		defer wg.Done()
		w.figures(fctx, func(st *CrawlStatus) {
			w.ended.Store(st)
			stopReading()
		})
	})
	defer func() {
		stopFigures()
		wg.Wait()
		w.stats.Requests += int(w.figureRequests.Load())
	}()
	for {
		_, b, err := conn.Read(rctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, "", ctx.Err()
			}
			if st := w.ended.Load(); st != nil {
				w.c.logf("crawl %s: the status says %s while the WebSocket is silent: the socket is left", w.id, st.Status)
				w.sink(CrawlUpdate{Status: st})
				return st, "", nil
			}
			w.c.logf("crawl %s: WebSocket closed: %v", w.id, scrubErr(err, w.c.secrets))
			return nil, "the WebSocket closed before the crawl ended", nil
		}
		if final, why := w.message(b); final != nil || why != "" {
			if final != nil {
				_ = conn.Close(websocket.StatusNormalClosure, "")
			}
			return final, why, nil
		}
	}
}

// message takes one socket message: final when it says the crawl ended,
// why when watching must go on by polling, neither when the socket is
// read on.
func (w *crawlWatch) message(b []byte) (final *CrawlStatus, why string) {
	// Redacted as every answer is (sendOnce). Views of the message, not
	// copies: a catchup's documents are decoded one by one from it.
	b, _ = w.c.secrets.RedactJSON(b)
	msg, ok := viewObject(b)
	if !ok {
		return nil, ""
	}
	typ, _ := msg.str("type")
	switch typ {
	case "catchup", "done":
		d, ok := viewObject(msg["data"])
		if !ok {
			d = msg
		}
		st, _ := readCrawlStatus(d, w.socketDoc)
		if typ == "done" && st.Status == "" {
			st.Status = "completed"
		}
		if st.Status != "" {
			w.sink(CrawlUpdate{Status: st})
		}
		if typ == "done" || st.Terminal() {
			return st, ""
		}
	case "document":
		if d, ok := ParseCrawlDoc(msg.raw("data")); ok {
			w.socketDoc(&d)
		}
	case "error":
		e := truncateRunes(cleanMessage(msg.sanitized("error"), w.c.secrets), 100)
		return nil, "the WebSocket reported an error (" + e + ")"
	default:
		// Another message with a status: take the figures, and the end.
		if d, ok := msg.obj("data"); ok && d["status"] != nil {
			st, _ := readCrawlStatus(d, func(*CrawlDoc) {})
			w.sink(CrawlUpdate{Status: st})
			if st.Terminal() {
				return st, ""
			}
		}
	}
	return nil, ""
}

// figuresEvery is how often a watch on the socket asks for the crawl's
// figures: the socket sends documents between its catchup and done, not
// the completed, total and credits.
func (w *crawlWatch) figuresEvery() time.Duration { return max(5*w.o.Interval, time.Second) }

// figures asks for the status with a skip past every document (so the
// answer carries the figures and no document) until ctx ends, or until it
// says the crawl ended: ended is then told, and the reading stops.
func (w *crawlWatch) figures(ctx context.Context, ended func(*CrawlStatus)) {
	// Each asked once: the next tick asks again.
	p := &crawlPager{c: w.c, rp: Retry{Tries: 1}, id: w.id}
	defer func() { w.figureRequests.Add(int64(p.requests)) }()
	t := time.NewTicker(w.figuresEvery())
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pg, err := p.page(ctx, figuresSkip, func(*CrawlDoc) {})
		switch {
		case err != nil || ctx.Err() != nil || pg.st.Status == "":
		case pg.st.Terminal():
			ended(pg.st)
			return
		default:
			w.sink(CrawlUpdate{Status: pg.st})
		}
	}
}

// figuresSkip is past any crawl's documents.
const figuresSkip = 1 << 30

// poll makes one status call from the list's position held on, following
// next; each request is sent once (pollLoop decides about asking again).
func (w *crawlWatch) poll(ctx context.Context) (*CrawlStatus, error) {
	st, end, err := w.pager.all(ctx, w.resume, w.deliver)
	w.resume = max(w.resume, end)
	if err == nil {
		w.listEnd = end
	}
	if st != nil {
		st.Docs = nil
		w.sink(CrawlUpdate{Status: st})
	}
	return st, err
}

// check compares, once the crawl is over, the documents delivered with
// what its status list holds: the list's end as the last poll read it
// (its documents too large to read left out), no more than the crawl's
// completed count. Fewer delivered means the socket skipped some, or sent
// them in another order than the list: the list is read again from its
// start (the documents held are dropped) and what was missing is
// delivered then (stats.Late). What still cannot be read is counted
// (stats.Missing).
func (w *crawlWatch) check(ctx context.Context, st *CrawlStatus) {
	want := w.listEnd - len(w.pager.oversize)
	if st != nil && st.Completed > 0 {
		want = min(want, st.Completed)
	}
	if len(w.seen) >= want {
		return
	}
	w.c.logf("crawl %s: %d documents delivered, its status list holds %d: reading the list again", w.id, len(w.seen), want)
	rp := w.o.Retry
	rp.Notify = func(wt Wait) { w.sink(CrawlUpdate{Wait: &wt}) }
	p := &crawlPager{c: w.c, rp: rp, id: w.id, limit: w.pager.limit, oversize: w.pager.oversize}
	before := w.stats.Docs
	_, _, err := p.all(ctx, 0, w.deliver)
	w.stats.Requests += p.requests
	w.pager.oversize = p.oversize
	w.stats.Late += w.stats.Docs - before
	if err != nil && ctx.Err() == nil {
		w.unread = max(want-len(w.seen), 0)
	}
}

// pollLoop polls until the crawl is over. After a failure it waits as
// o.Retry says (each wait reported), and gives up when o.Retry does.
func (w *crawlWatch) pollLoop(ctx context.Context) (*CrawlStatus, CrawlWatchStats, error) {
	failures := 0 // in a row
	for {
		st, err := w.poll(ctx)
		wait := w.o.Interval
		switch {
		case ctx.Err() != nil:
			return nil, w.statsNow(), ctx.Err()
		case err != nil:
			failures++
			rw, ok := w.o.Retry.Delay(err, failures)
			if !ok {
				return nil, w.statsNow(), err
			}
			w.c.logf("%s: %s", OpCrawlStatus, rw)
			w.sink(CrawlUpdate{Wait: &rw})
			wait = rw.Delay
		case st.Terminal():
			w.check(ctx, st)
			return st, w.statsNow(), nil
		default:
			failures = 0
		}
		if !w.o.Retry.sleep(ctx, wait) {
			return nil, w.statsNow(), ctx.Err()
		}
	}
}
