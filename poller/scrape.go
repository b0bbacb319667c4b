package poller

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// Scrape, the scrape's browser session (interact) and the crawl preview.
//
// Retries: every call here is sent under the client's Retry (ratelimit.go).
// An interact call is sent again only after a 429 (the code did not run),
// never after a 5xx or a network failure (it may have). The 429 "You have
// reached the maximum number of active browser sessions." is a refusal,
// not a rate limit: waiting alone does not lift it.

// Interact bounds (service-spec.md, Limits).
const (
	MaxInteractCode       = 100000
	MinInteractTimeout    = 1
	MaxInteractTimeout    = 300
	DefaultInteractTimout = 30
)

// Interact languages.
var InteractLanguages = []string{"node", "python", "bash"}

// Ops of this file, as in Error.Op.
const (
	OpScrape       = "scrape"
	OpInteract     = "interact"
	OpStopInteract = "stop interact"
	OpCrawlPreview = "crawl preview"
)

// Format is one entry of a scrape's formats: a string format ("markdown",
// "html", "rawHtml", "links", "summary", "images") or, for "json" and
// "screenshot", the object form.
type Format struct {
	Type     string
	Prompt   string         // json
	Schema   jsontext.Value // json; nil when none
	FullPage bool           // screenshot
}

// ScrapeRequest is the body of POST /v2/scrape (v2 names only).
type ScrapeRequest struct {
	URL             string
	Formats         []Format // nil: the service's default (markdown)
	OnlyMainContent *bool
	WaitFor         int // milliseconds; 0 omits it
	Mobile          bool
}

// Body is the request's JSON.
func (r *ScrapeRequest) Body() []byte {
	type fmtObj struct {
		Type     string         `json:"type"`
		Prompt   string         `json:"prompt,omitempty"`
		Schema   jsontext.Value `json:"schema,omitempty"`
		FullPage bool           `json:"fullPage,omitzero"`
	}
	type body struct {
		URL             string `json:"url"`
		Formats         []any  `json:"formats,omitempty"`
		OnlyMainContent *bool  `json:"onlyMainContent,omitempty"`
		WaitFor         int    `json:"waitFor,omitzero"`
		Mobile          bool   `json:"mobile,omitzero"`
	}
	b := body{URL: r.URL, OnlyMainContent: r.OnlyMainContent, WaitFor: r.WaitFor, Mobile: r.Mobile}
	for _, f := range r.Formats {
		switch f.Type {
		case "json", "screenshot", "changeTracking":
			b.Formats = append(b.Formats, fmtObj(f))
		default:
			b.Formats = append(b.Formats, f.Type)
		}
	}
	out, _ := json.Marshal(b)
	return out
}

// ScrapeResult is a scrape's answer. The content strings are as the
// service sent them, NOT sanitised (callers sanitise for display); ids,
// title and URL are sanitised.
type ScrapeResult struct {
	ScrapeID   string
	Title      string
	URL        string
	Markdown   string
	HTML       string
	RawHTML    string
	Summary    string
	Screenshot string
	Links      []string
	JSON       jsontext.Value // the json format's value; nil when absent
	Data       jsontext.Value // data as received
}

// Scrape sends POST /v2/scrape.
func (c *Client) Scrape(ctx context.Context, req *ScrapeRequest) (*ScrapeResult, error) {
	// A scrape may take the page's own time: waitFor and a slow site.
	r, err := c.send(ctx, OpScrape, http.MethodPost, "/v2/scrape", nil, req.Body(), c.timeout+time.Duration(req.WaitFor)*time.Millisecond+30*time.Second, maxOtherBody)
	if err != nil {
		return nil, err
	}
	o, err := c.answer(OpScrape, r)
	if err != nil {
		return nil, err
	}
	d, ok := o.obj("data")
	if !ok {
		return nil, c.malformed(OpScrape, r.status, "no data in the answer")
	}
	res := &ScrapeResult{Data: o.raw("data"), JSON: d.raw("json")}
	res.Markdown, _ = d.str("markdown")
	res.HTML, _ = d.str("html")
	res.RawHTML, _ = d.str("rawHtml")
	res.Summary, _ = d.str("summary")
	res.Screenshot = d.sanitized("screenshot")
	for _, l := range d.array("links") {
		var s string
		if unmarshal(l, &s) == nil {
			res.Links = append(res.Links, s)
		}
	}
	if md, ok := d.obj("metadata"); ok {
		res.ScrapeID = md.sanitized("scrapeId")
		res.Title = md.sanitized("title")
		res.URL = md.sanitized("url")
		if res.URL == "" {
			res.URL = md.sanitized("sourceURL")
		}
	}
	return res, nil
}

// InteractRequest is the body of POST /v2/scrape/{id}/interact: Code or
// Prompt, never both.
type InteractRequest struct {
	Code     string
	Prompt   string
	Language string // node (default), python, bash
	Timeout  int    // seconds, 1-300; 0 omits it (the service's default, 30)
	Origin   string
}

// Validate checks the request against the service's bounds, before any
// request is made.
func (r *InteractRequest) Validate() error {
	code, prompt := r.Code != "", strings.TrimSpace(r.Prompt) != ""
	switch {
	case code && prompt:
		return errors.New("give either code or a prompt, not both")
	case !code && !prompt && r.Prompt != "":
		return errors.New("the prompt is empty")
	case !code && !prompt:
		return errors.New("give code to run or a prompt")
	case code && utf8.RuneCountInString(r.Code) > MaxInteractCode:
		return fmt.Errorf("the code is %d characters long; the service takes at most %d", utf8.RuneCountInString(r.Code), MaxInteractCode)
	}
	if r.Language != "" && !validLanguage(r.Language) {
		return fmt.Errorf("language %q: it must be one of %s", truncateRunes(text.Sanitize(r.Language), 40), strings.Join(InteractLanguages, ", "))
	}
	if r.Timeout != 0 && (r.Timeout < MinInteractTimeout || r.Timeout > MaxInteractTimeout) {
		return fmt.Errorf("timeout %d s: it must be from %d to %d seconds", r.Timeout, MinInteractTimeout, MaxInteractTimeout)
	}
	return nil
}

func validLanguage(l string) bool {
	for _, x := range InteractLanguages {
		if l == x {
			return true
		}
	}
	return false
}

// Body is the request's JSON. The language goes with a prompt too, as the
// JS SDK sends it.
func (r *InteractRequest) Body() []byte {
	type body struct {
		Code     string `json:"code,omitempty"`
		Prompt   string `json:"prompt,omitempty"`
		Language string `json:"language,omitempty"`
		Timeout  int    `json:"timeout,omitzero"`
		Origin   string `json:"origin,omitempty"`
	}
	lang := r.Language
	if lang == "" {
		lang = "node"
	}
	b, _ := json.Marshal(body{Code: r.Code, Prompt: r.Prompt, Language: lang, Timeout: r.Timeout, Origin: r.Origin})
	return b
}

// InteractResult is the answer of one interaction. Output, Stdout, Stderr
// and Error are as the service sent them, NOT sanitised: sanitise them for
// a terminal (text.Sanitize). The links are sanitised.
type InteractResult struct {
	CDPURL                 string
	LiveViewURL            string
	InteractiveLiveViewURL string

	Output    string // prompt mode's answer
	HasOutput bool
	Stdout    string // stdout, else result
	Stderr    string
	ExitCode  *int // nil when the service sent none (killed, prompt mode)
	Killed    bool
	Error     string // the exception, "" when none

	Raw      jsontext.Value // the response object as received (scrubbed of the key)
	Duration time.Duration  // how long the call took
}

// Interact sends POST /v2/scrape/{jobID}/interact. It never retries. The
// request's own timeout plus a margin is the HTTP timeout.
func (c *Client) Interact(ctx context.Context, jobID string, req *InteractRequest) (*InteractResult, error) {
	if err := c.checkJob(OpInteract, jobID); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, &Error{Kind: KindBadRequest, Op: OpInteract, detail: err.Error(), secrets: c.secrets}
	}
	t := req.Timeout
	if t == 0 {
		t = DefaultInteractTimout
	}
	if req.Prompt != "" {
		t = max(t, 120) // the agent's task has no timeout of its own
	}
	start := time.Now()
	// Code that ran must not run twice: only a refusal (429) is retried.
	r, err := c.sendWith(ctx, c.retry.rateLimitOnly(), OpInteract, http.MethodPost, "/v2/scrape/"+jobID+"/interact", nil, req.Body(), time.Duration(t)*time.Second+c.timeout, maxOtherBody)
	if err != nil {
		return nil, interactKind(err)
	}
	o, err := c.answer(OpInteract, r)
	if err != nil {
		return nil, interactKind(err)
	}
	res := &InteractResult{Raw: jsontext.Value(r.body), Duration: time.Since(start)}
	res.CDPURL = o.sanitized("cdpUrl")
	res.LiveViewURL = o.sanitized("liveViewUrl")
	res.InteractiveLiveViewURL = o.sanitized("interactiveLiveViewUrl")
	res.Output, res.HasOutput = o.str("output")
	var hasStdout bool
	if res.Stdout, hasStdout = o.str("stdout"); !hasStdout {
		res.Stdout, _ = o.str("result")
	}
	res.Stderr, _ = o.str("stderr")
	if f, ok := o.num("exitCode"); ok {
		n := int(f)
		res.ExitCode = &n
	}
	res.Killed, _ = o.boolean("killed")
	res.Error, _ = o.str("error")
	return res, nil
}

// interactKind: the interact 429 is the session limit, which waiting
// alone does not lift.
func interactKind(err error) error {
	var e *Error
	if errors.As(err, &e) && e.Status == http.StatusTooManyRequests && e.SessionLimit() {
		e.Kind = KindBadRequest
		e.RetryAfter = 0
	}
	if e != nil && e.tooLarge && e.Status >= 200 && e.Status < 300 {
		// The service answered: the code ran, only its answer is lost.
		e.detail = "the code ran, but " + e.detail
	}
	return err
}

// SessionLimit reports whether the error is the service's refusal to open
// another browser session (429 "You have reached the maximum number of
// active browser sessions.").
func (e *Error) SessionLimit() bool {
	return e.Status == http.StatusTooManyRequests && strings.Contains(strings.ToLower(e.ServerMessage), "browser session")
}

// NoSession reports whether a stop found no session to stop.
func (e *Error) NoSession() bool {
	low := strings.ToLower(e.ServerMessage)
	return e.Op == OpStopInteract && e.Status == http.StatusNotFound && (strings.Contains(low, "no active") || strings.Contains(low, "session"))
}

// StopResult is the answer of a stop.
type StopResult struct {
	NoSession       bool          // there was no session to stop (the service's 404 saying so)
	Message         string        // the service's message then, sanitised
	SessionDuration time.Duration // 0 when not sent
	CreditsBilled   *float64
}

// maxSessionDuration is the longest browser session a stop's answer is
// believed about.
const maxSessionDuration = 30 * 24 * time.Hour

// StopInteract sends DELETE /v2/scrape/{jobID}/interact. No session to stop
// is not an error: StopResult.NoSession says so.
func (c *Client) StopInteract(ctx context.Context, jobID string) (*StopResult, error) {
	if err := c.checkJob(OpStopInteract, jobID); err != nil {
		return nil, err
	}
	r, err := c.send(ctx, OpStopInteract, http.MethodDelete, "/v2/scrape/"+jobID+"/interact", nil, nil, 0, maxOtherBody)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.NoSession() {
			return &StopResult{NoSession: true, Message: e.ServerMessage}, nil
		}
		return nil, err
	}
	res := &StopResult{}
	if o, ok := parseObject(r.body); ok {
		if err := c.failure(OpStopInteract, r.status, o); err != nil {
			return nil, err
		}
		// Figures out of range (negative, 1e308, NaN) are not used.
		if f, ok := o.numIn("sessionDurationMs", 1, float64(maxSessionDuration/time.Millisecond)); ok {
			res.SessionDuration = time.Duration(f) * time.Millisecond
		}
		if f, ok := o.numIn("creditsBilled", 0, model.MaxCredits); ok {
			res.CreditsBilled = &f
		}
	}
	return res, nil
}

// PreviewOption is one derived crawl option: its name and JSON value.
type PreviewOption struct {
	Name  string
	Value jsontext.Value // raw; use text.Sanitize on its text for display
}

// CrawlPreview is the answer of POST /v2/crawl/params-preview.
type CrawlPreview struct {
	Options []PreviewOption // in the service's order
	Warning string          // sanitised; "" when none
	Data    jsontext.Value  // data as received
}

// CrawlParamsPreview sends POST /v2/crawl/params-preview.
func (c *Client) CrawlParamsPreview(ctx context.Context, url, prompt string) (*CrawlPreview, error) {
	b, _ := json.Marshal(struct {
		URL    string `json:"url"`
		Prompt string `json:"prompt"`
	}{strings.TrimSpace(url), prompt})
	r, err := c.send(ctx, OpCrawlPreview, http.MethodPost, "/v2/crawl/params-preview", nil, b, 0, maxOtherBody)
	if err != nil {
		return nil, err
	}
	o, err := c.answer(OpCrawlPreview, r)
	if err != nil {
		return nil, err
	}
	data := o.raw("data")
	if data.Kind() != '{' {
		return nil, c.malformed(OpCrawlPreview, r.status, "no data object in the answer")
	}
	p := &CrawlPreview{Data: data, Warning: o.sanitized("warning")}
	dec := jsontext.NewDecoder(strings.NewReader(string(data)), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if _, err := dec.ReadToken(); err != nil {
		return nil, c.malformed(OpCrawlPreview, r.status, "data is not an object")
	}
	for dec.PeekKind() != '}' {
		k, err := dec.ReadToken()
		if err != nil {
			return nil, c.malformed(OpCrawlPreview, r.status, "data is not an object")
		}
		name := k.String()
		v, err := dec.ReadValue()
		if err != nil {
			return nil, c.malformed(OpCrawlPreview, r.status, "data is not an object")
		}
		p.Options = append(p.Options, PreviewOption{Name: text.Sanitize(name), Value: v.Clone()})
	}
	return p, nil
}

// scrapeHint is what to do after a failure of this file's calls ("" for
// the generic hint).
func scrapeHint(e *Error) string {
	switch e.Op {
	case OpInteract, OpStopInteract:
	case OpScrape, OpCrawlPreview:
		if e.Status == http.StatusPaymentRequired {
			return "add credits or upgrade the plan (https://firecrawl.dev/pricing)"
		}
		if e.Status == http.StatusBadRequest {
			return "check the URL and the options (v2 names; formats as strings or {\"type\":...} objects)"
		}
		return ""
	default:
		return ""
	}
	low := strings.ToLower(e.ServerMessage)
	switch e.Status {
	case http.StatusBadRequest:
		if strings.Contains(low, "browser state") || strings.Contains(low, "no browser") {
			return "scrape the page again (firewatch scrape URL) and interact with its new scrape id"
		}
		if e.Kind == KindInvalidID {
			return ""
		}
		return "check the code or prompt, the language (node, python, bash) and the timeout (1-300 s)"
	case http.StatusPaymentRequired:
		return "add credits or upgrade the plan (https://firecrawl.dev/pricing), then try again"
	case http.StatusForbidden:
		return "use a key of the team that ran the scrape (FIRECRAWL_API_KEY)"
	case http.StatusNotFound:
		if e.NoSession() {
			return "nothing to stop"
		}
		return "check the scrape id: it is data.metadata.scrapeId of a scrape (firewatch scrape URL prints it); scrapes expire"
	case http.StatusConflict:
		return "another call is running in this session: wait for it to finish, then send again"
	case http.StatusGone:
		return "the session is over: scrape the page again (firewatch scrape URL) and interact with the new scrape id"
	case http.StatusTooManyRequests:
		if e.SessionLimit() {
			return "stop a session you no longer need (firewatch interact SCRAPE_ID --stop) or wait for one to time out"
		}
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return "the browser service failed: try again in a moment"
	}
	return ""
}
