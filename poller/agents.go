package poller

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Starting a run (POST /v2/agent) and paging through the team's runs
// (GET /v2/agent?before=<unix ms>).

// MaxPromptLen is the longest prompt the service takes, in UTF-16 code units
// (JavaScript's string length, which the service counts).
const MaxPromptLen = 10000

// ListPageSize is the number of runs on a page of the service's list.
const ListPageSize = 20

// DefaultMaxCredits is the service's maxCredits for a run started without
// one.
const DefaultMaxCredits = 2500

// Efforts are the effort levels the service knows.
var Efforts = []string{"low", "medium", "high"}

// AgentRequest is the body of POST /v2/agent. Zero fields are left out.
type AgentRequest struct {
	Prompt                string
	URLs                  []string
	Schema                jsontext.Value // a JSON schema object; nil: none
	MaxCredits            int            // 0: the service's default (2 500)
	StrictConstrainToURLs bool
	Model                 string
	Effort                string
	// ThreadID makes the start a follow-up: the thread's next turn (the
	// schema, when nil, is the previous turn's). "": a new thread.
	ThreadID string
}

// FieldError is an AgentRequest the service would refuse, found before any
// request: the field and what is wrong with it.
type FieldError struct {
	Field string // the body's name: "prompt", "maxCredits", ...
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// PromptLen is the prompt's length as the service counts it.
func PromptLen(s string) int { return len(utf16.Encode([]rune(s))) }

// Validate checks what the service checks: a prompt (not blank, at most
// MaxPromptLen), http(s) URLs, a schema that is a JSON object, maxCredits
// not negative, a known effort. It returns a *FieldError.
func (r *AgentRequest) Validate() error {
	switch n := PromptLen(r.Prompt); {
	case strings.TrimSpace(r.Prompt) == "":
		return &FieldError{"prompt", "it is empty"}
	case n > MaxPromptLen:
		return &FieldError{"prompt", fmt.Sprintf("it is %d characters long; the service takes at most %d", n, MaxPromptLen)}
	}
	for _, u := range r.URLs {
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return &FieldError{"urls", fmt.Sprintf("%q is not an http(s) URL", u)}
		}
	}
	if r.Schema != nil && r.Schema.Kind() != '{' {
		return &FieldError{"schema", "a JSON schema must be a JSON object"}
	}
	if r.MaxCredits < 0 {
		return &FieldError{"maxCredits", "it must be a positive number"}
	}
	if r.Effort != "" && !slices.Contains(Efforts, r.Effort) {
		return &FieldError{"effort", fmt.Sprintf("%q is not one of %s", r.Effort, strings.Join(Efforts, ", "))}
	}
	return nil
}

// agentBody is POST /v2/agent's body, in the documented field order.
type agentBody struct {
	Prompt                string         `json:"prompt"`
	URLs                  []string       `json:"urls,omitempty"`
	Schema                jsontext.Value `json:"schema,omitzero"`
	MaxCredits            int            `json:"maxCredits,omitzero"`
	StrictConstrainToURLs bool           `json:"strictConstrainToURLs,omitzero"`
	Model                 string         `json:"model,omitempty"`
	Effort                string         `json:"effort,omitempty"`
	ThreadID              string         `json:"threadId,omitempty"`
}

// ParseAgentBody reads a body Body wrote (as the archive keeps it):
// unknown members are ignored, a schema that is not an object dropped;
// ok is false when it is not one or has no prompt.
func ParseAgentBody(data []byte) (r AgentRequest, ok bool) {
	var b agentBody
	if json.Unmarshal(data, &b, json.RejectUnknownMembers(false)) != nil || b.Prompt == "" {
		return AgentRequest{}, false
	}
	r = AgentRequest{Prompt: b.Prompt, URLs: b.URLs, MaxCredits: b.MaxCredits, StrictConstrainToURLs: b.StrictConstrainToURLs,
		Model: b.Model, Effort: b.Effort, ThreadID: b.ThreadID}
	if b.Schema.Kind() == '{' {
		r.Schema = b.Schema.Clone()
	}
	return r, true
}

// Body is the request's JSON, in the documented field order; the schema
// compacted.
func (r *AgentRequest) Body() ([]byte, error) {
	b := agentBody{Prompt: r.Prompt, URLs: r.URLs, MaxCredits: max(r.MaxCredits, 0), StrictConstrainToURLs: r.StrictConstrainToURLs, Model: r.Model, Effort: r.Effort, ThreadID: r.ThreadID}
	if r.Schema != nil {
		b.Schema = r.Schema.Clone()
		if err := b.Schema.Compact(); err != nil {
			return nil, &FieldError{"schema", err.Error()}
		}
	}
	return json.Marshal(b)
}

// StartAgent sends POST /v2/agent and returns the new run's id. The request
// is validated first (a *FieldError, no request). It is sent once: a
// refusal (400 "Invalid JSON schema: ...", 402, 403, 429, 5xx) is an *Error
// with the service's message and is never retried, since a run may have
// started.
func (c *Client) StartAgent(ctx context.Context, req AgentRequest) (string, error) {
	st, err := c.Start(ctx, req)
	return st.ID, err
}

// Started is the answer to a start: the new run's id and, from a service
// that runs threads, its thread and turn ("" and 0 when not said).
type Started struct {
	ID         string
	ThreadID   string
	ThreadTurn int
}

// Start is StartAgent with the thread the answer names. A follow-up's
// refusal is an *Error whose Code says why (ThreadBusy with RunID,
// ThreadExpired, ThreadNotFound, ThreadsDisabled).
func (c *Client) Start(ctx context.Context, req AgentRequest) (Started, error) {
	const op = "start agent"
	if err := req.Validate(); err != nil {
		return Started{}, err
	}
	if req.ThreadID != "" && !isUUID(req.ThreadID) {
		return Started{}, &FieldError{"threadId", "it is not a thread id (a UUID)"}
	}
	body, err := req.Body()
	if err != nil {
		return Started{}, err
	}
	// A run is started once: the user decides about asking again.
	r, err := c.sendWith(ctx, Retry{Tries: 1}, op, http.MethodPost, "/v2/agent", nil, body, 0, maxOtherBody)
	if err != nil {
		return Started{}, err
	}
	o, err := c.answer(op, r)
	if err != nil {
		return Started{}, err
	}
	id := o.sanitized("id")
	if id == "" {
		if d, ok := o.obj("data"); ok {
			id = d.sanitized("id")
			o = d
		}
	}
	if !isUUID(id) {
		return Started{}, c.malformed(op, r.status, "no run id in the answer")
	}
	st := Started{ID: strings.ToLower(id)}
	st.ThreadID, st.ThreadTurn = threadOf(o)
	return st, nil
}

// RunExtras are the list item's fields besides the run's options.
// Strings are sanitised.
type RunExtras struct {
	TargetHint  string
	Origin      string
	Integration string
	Hidden      bool
	Starred     bool
	Label       string
	HasSchema   bool
}

func readExtras(o object) RunExtras {
	x := RunExtras{TargetHint: o.sanitized("targetHint"), Origin: o.sanitized("origin"), Integration: o.sanitized("integration")}
	if s, ok := o.obj("settings"); ok {
		x.Hidden, _ = s.boolean("hidden")
		x.Starred, _ = s.boolean("starred")
		x.Label = s.sanitized("label")
	}
	if opts, ok := o.obj("options"); ok {
		if v := opts.raw("schema"); v != nil && v.Kind() == '{' {
			x.HasSchema = true
		}
	}
	return x
}

// PagingStopped is why a pager stopped before the list said it ended: the
// service's paging cannot be trusted further. What came so far is good;
// Reason says why in a few words, for a status line.
type PagingStopped struct{ Reason string }

func (e *PagingStopped) Error() string { return "list runs: paging stopped: " + e.Reason }

// The reasons every pager of firewatch stops for (PageStep, MaxScanPages).
var (
	// ErrCursorLoop: the next page's cursor does not move strictly back in
	// time (a page fetched twice, or a loop).
	ErrCursorLoop = &PagingStopped{"the next page's cursor does not move back in time"}
	// ErrNoNewRuns: a page brought no run not already seen (or none at
	// all) though it names a next page.
	ErrNoNewRuns = &PagingStopped{"a page brought no new run"}
)

// MaxScanPages bounds a pager that looks for runs it may never find (a
// status filter over a list that does not end): 500 pages, 10 000 runs.
// Without a filter each page brings at least one new run, and the number
// asked for bounds the paging.
const MaxScanPages = 500

// ErrScanBound is the reason a pager stopped at MaxScanPages.
var ErrScanBound = &PagingStopped{fmt.Sprintf("looked through %d pages (%d runs) without finding more", MaxScanPages, MaxScanPages*ListPageSize)}

// PageStep is the one paging rule of every pager of the runs list (the
// RunPager, the runs screen): given the cursor page l was fetched with and
// how many runs on it were new, it returns the next page's cursor, or done
// and, when paging stopped before the list's own end, why. A page with no
// next ends paging; so does a page that brings no new run, and a cursor that
// does not move strictly back in time.
func PageStep(before time.Time, l *RunList, fresh int) (next time.Time, done bool, why error) {
	switch {
	case l.Next == "" || l.NextBefore.IsZero():
		return time.Time{}, true, nil
	case fresh == 0:
		return time.Time{}, true, ErrNoNewRuns
	case !before.IsZero() && !l.NextBefore.Before(before):
		return time.Time{}, true, ErrCursorLoop
	}
	return l.NextBefore, false, nil
}

// RunPager walks the team's runs page by page, newest first, following the
// `before` cursor the service's next URL carries (only its cursor: the
// requests go to the client's own address with its key). No page is
// fetched twice: the cursor must move back in time, and runs already seen
// (a run created between two pages) are dropped.
type RunPager struct {
	c      *Client
	before time.Time
	done   bool
	seen   map[string]bool
	pages  int
}

// RunPages starts paging at the newest run.
func (c *Client) RunPages() *RunPager {
	return &RunPager{c: c, seen: map[string]bool{}}
}

// Done reports whether the last page has been fetched.
func (p *RunPager) Done() bool { return p.done }

// Pages is the number of pages fetched.
func (p *RunPager) Pages() int { return p.pages }

// Cursor is the `before` of the next page (zero before the first).
func (p *RunPager) Cursor() time.Time { return p.before }

// Next fetches the next page. After the last page it returns an empty list
// and Done is true. When paging stops by PageStep's rule, the page's new
// runs come with a *PagingStopped and Done is true. An error leaves the
// pager where it was: calling Next again retries the same page
// (Retry.Delay says how long to wait first).
func (p *RunPager) Next(ctx context.Context) (*RunList, error) {
	if p.done {
		return &RunList{}, nil
	}
	l, err := p.c.Runs(ctx, p.before)
	if err != nil {
		return nil, err
	}
	p.pages++
	out := l.Runs[:0:0]
	for _, r := range l.Runs {
		if r.ID == "" || p.seen[r.ID] {
			continue
		}
		p.seen[r.ID] = true
		out = append(out, r)
	}
	l.Runs = out
	next, done, why := PageStep(p.before, l, len(out))
	p.done = done
	if !done {
		p.before = next
	}
	return l, why
}
