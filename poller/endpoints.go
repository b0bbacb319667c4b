package poller

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/uuid"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// Snapshot is the content of one artifact snapshot.
type Snapshot struct {
	ID         string // the job id, sanitised
	SnapshotID string // sanitised
	// Content is the snapshot as the service sent it: for a json artifact
	// a JSON text, for markdown, html or text the content itself. It is
	// NOT sanitised: callers sanitise (or render) it for display. When the
	// service sends a non-string value, Content is that value's JSON.
	Content string
}

// Status is the job's status (GET /v2/agent/{jobId}).
type Status struct {
	Status      string         // "processing", "completed", "failed", "cancelled" or anything else; sanitised
	CreditsUsed *float64       // nil when absent (it is omitted while running)
	ExpiresAt   *time.Time     // nil when absent
	Model       string         // sanitised
	Effort      string         // sanitised; "" when absent
	Prompt      string         // sanitised; "" when absent (the documented answer has none)
	URLs        []string       // sanitised; nil when absent
	MaxCredits  float64        // 0 when absent
	Data        jsontext.Value // the result when completed, raw (not sanitised); nil when absent
	Error       string         // the job's error message when failed, sanitised
	Known       *Known         // what firewatch's own record adds (never from the wire); nil when nothing
	ThreadID    string         // the run's thread (a UUID), "" when the answer has none
	ThreadTurn  int            // its turn in the thread, from 1; 0 when absent
}

// Known is what firewatch's own record of a run (its archive) adds to the
// service's answers: how the run ended as its trace says (the service
// reports a cancelled or credit-limited run as failed) and whether it was
// read to its end.
type Known struct {
	Outcome  string // the trace's outcome; "" when not read
	Complete bool   // read to its end: the figures are final
	// StartedBy and CancelledBy name who did it through a hub ("" when
	// nobody did there, or firewatch did not see it).
	StartedBy, CancelledBy string
	// ThreadID and ThreadTurn are the run's thread and turn as its record
	// says ("", 0 unknown): the team's list carries neither.
	ThreadID   string
	ThreadTurn int
	// CreditsUsed is the run's credits as its record says (nil unknown):
	// the team's list carries none.
	CreditsUsed *float64
}

// Terminal reports whether the status says the job is over.
func (s *Status) Terminal() bool {
	switch strings.ToLower(s.Status) {
	case "completed", "failed", "cancelled", "canceled":
		return true
	}
	return false
}

// TeamRuns is what a runs screen asks of the team's runs: *Client is one,
// and archiving.Listing puts the archive behind it. One definition for the
// screen (ui/runs.Service) and the archive's listing (archiving.Service).
type TeamRuns interface {
	Runs(ctx context.Context, before time.Time) (*RunList, error)
	Status(ctx context.Context, jobID string) (*Status, error)
	TokenUsage(ctx context.Context) (*TokenUsage, error)
	ActiveCrawls(ctx context.Context) ([]Crawl, error)
	Cancel(ctx context.Context, jobID string) error
	StartAgent(ctx context.Context, req AgentRequest) (string, error)
}

var _ TeamRuns = (*Client)(nil)

// RunList is one page of the team's runs, newest first.
type RunList struct {
	Runs []RunInfo
	Next string // the service's next-page URL, sanitised; "" on the last page
	// NextBefore is the `before` of the next page (from Next, else the
	// oldest run on this page); zero on the last page. Pass it to Runs.
	NextBefore time.Time
}

// RunInfo is one run of the list. Strings are sanitised.
type RunInfo struct {
	ID          string
	CreatedAt   time.Time // zero when absent or unreadable
	Status      string
	Prompt      string
	URLs        []string
	Model       string
	Effort      string
	CreditsUsed *float64
	Raw         jsontext.Value // the item as received
	RunExtras                  // targetHint, origin, integration, settings (agents.go)
	Archived    bool           // read from firewatch's archive, not the service's list
	Known       *Known         // what firewatch's own record adds (never from the wire); nil when nothing
}

// TokenUsage is the team's token balance.
type TokenUsage struct {
	RemainingTokens    float64
	PlanTokens         float64
	BillingPeriodStart time.Time // zero when absent
	BillingPeriodEnd   time.Time
}

// Crawl is one active crawl of the team.
type Crawl struct {
	ID      string         // sanitised
	TeamID  string         // sanitised
	URL     string         // sanitised
	Options jsontext.Value // raw (scrapeOptions and the rest); nil when set aside
	// SetAside says why the crawl's options are not shown ("" when they
	// are): a crawl the service sent in a form firewatch does not use.
	SetAside string
}

// maxCrawlDepth is the deepest a crawl in the active list is read: options
// nest a few levels (actions, location, a JSON schema), never hundreds.
const maxCrawlDepth = 128

// Snapshot fetches GET /v2/agent/{jobID}/snapshots/{snapshotID}.
func (c *Client) Snapshot(ctx context.Context, jobID, snapshotID string) (*Snapshot, error) {
	const op = "snapshot"
	if err := c.checkJob(op, jobID); err != nil {
		return nil, err
	}
	if snapshotID == "" || snapshotID == "." || snapshotID == ".." || len(snapshotID) > 200 || strings.ContainsFunc(snapshotID, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return nil, &Error{Kind: KindInvalidID, Op: op, detail: "not a snapshot id", secrets: c.secrets}
	}
	r, err := c.do(ctx, op, http.MethodGet, "/v2/agent/"+jobID+"/snapshots/"+url.PathEscape(snapshotID), nil, maxOtherBody)
	if err != nil {
		return nil, err
	}
	o, err := c.answer(op, r)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{ID: jobID, SnapshotID: snapshotID}
	if v, ok := o.str("id"); ok {
		s.ID = text.Sanitize(v)
	}
	if v, ok := o.str("snapshotId"); ok {
		s.SnapshotID = text.Sanitize(v)
	}
	raw := o["snapshot"]
	if raw == nil {
		raw = o["content"]
	}
	switch {
	case raw == nil:
		return nil, c.malformed(op, r.status, "no snapshot in the answer")
	case raw.Kind() == '"':
		s.Content, _ = o.str("snapshot")
		if _, has := o["snapshot"]; !has {
			s.Content, _ = o.str("content")
		}
	case raw.Kind() == 'n':
	default:
		s.Content = string(raw)
	}
	return s, nil
}

// Cancel requests cancellation of the run (DELETE /v2/agent/{jobID}). It
// returns nil when the service accepted it; a 409 is an *Error of kind
// KindAlreadyFinished or KindAlreadyCancelled: the service's answer.
// Cancelling is cooperative: the trace shows run.cancel_requested, then
// run.finished with outcome cancelled.
func (c *Client) Cancel(ctx context.Context, jobID string) error {
	const op = "cancel"
	if err := c.checkJob(op, jobID); err != nil {
		return err
	}
	r, err := c.do(ctx, op, http.MethodDelete, "/v2/agent/"+jobID, nil, maxOtherBody)
	if err != nil {
		return err
	}
	// The status is what counts; a body that says otherwise is believed.
	if o, ok := parseObject(r.body); ok {
		return c.failure(op, r.status, o)
	}
	return nil
}

// Status fetches GET /v2/agent/{jobID}.
func (c *Client) Status(ctx context.Context, jobID string) (*Status, error) {
	const op = "status"
	if err := c.checkJob(op, jobID); err != nil {
		return nil, err
	}
	r, err := c.do(ctx, op, http.MethodGet, "/v2/agent/"+jobID, nil, maxOtherBody)
	if err != nil {
		return nil, err
	}
	o, err := c.answer(op, r)
	if err != nil {
		return nil, err
	}
	if d, ok := o.obj("data"); ok && o["status"] == nil && d["status"] != nil {
		// Some answers nest the job under data.
		o = d
	}
	s := &Status{Data: o.raw("data")}
	s.Status = o.sanitized("status")
	s.Error = o.sanitized("error")
	// The model is documented at the top level; the rest is not, but read
	// when present there or under options, as the list has them.
	opts, _ := o.obj("options")
	req := requestOf(o, opts)
	s.Prompt, s.Model, s.Effort, s.URLs, s.MaxCredits = req.Prompt, req.Model, req.Effort, req.URLs, req.MaxCredits
	if f, ok := o.numIn("creditsUsed", 0, model.MaxCredits); ok {
		s.CreditsUsed = &f
	}
	if t, ok := o.time("expiresAt"); ok {
		s.ExpiresAt = &t
	}
	s.ThreadID, s.ThreadTurn = threadOf(o)
	return s, nil
}

// stringList is the strings of a JSON array, sanitised; other values are
// skipped.
func stringList(items []jsontext.Value) []string {
	var out []string
	for _, u := range items {
		var s string
		if unmarshal(u, &s) == nil {
			out = append(out, text.Sanitize(s))
		}
	}
	return out
}

// RunRequest is what the run jobID was asked to do, as far as the service
// says (RunLookup's Request).
func (c *Client) RunRequest(ctx context.Context, jobID string) (model.Request, error) {
	l, err := c.RunLookup(ctx, jobID)
	return l.Request, err
}

// Lookup is what the service says of one run: its status and, when the
// list was asked, its list item.
type Lookup struct {
	Request model.Request // cleaned
	Status  *Status
	Item    *RunInfo // nil when the list was not asked or does not show it
}

// RunLookup asks the status of jobID once (the model and effort; the
// prompt, urls and cap too when an answer carries them) then, for a prompt
// the status does not carry (the service's status has none), one page of
// the team's runs: the page that starts at the run when its id is a UUIDv7
// (its time is in it), else the newest. A failed look-up leaves fields
// empty; the error is the status's.
func (c *Client) RunLookup(ctx context.Context, jobID string) (Lookup, error) {
	st, err := c.Status(ctx, jobID)
	if err != nil {
		return Lookup{}, err
	}
	l := Lookup{Status: st}
	req := model.Request{Prompt: st.Prompt, Model: st.Model, Effort: st.Effort, URLs: st.URLs, MaxCredits: st.MaxCredits}
	if req.Prompt == "" {
		var before time.Time
		if t, ok := uuidV7Time(jobID); ok {
			// The run is created a moment after its id: a minute's margin
			// keeps it on the page, with at most the runs of that minute
			// before it.
			before = t.Add(time.Minute)
		}
		if list, err := c.Runs(ctx, before); err == nil {
			for i, ri := range list.Runs {
				if strings.EqualFold(ri.ID, jobID) {
					req = req.Merge(model.Request{Prompt: ri.Prompt, Model: ri.Model, Effort: ri.Effort, URLs: ri.URLs})
					l.Item = &list.Runs[i]
					break
				}
			}
		}
	}
	l.Request = req.Clean()
	return l, nil
}

// uuidV7Time is the time in a UUIDv7 (its first 48 bits, Unix
// milliseconds); ok is false for any other id.
func uuidV7Time(id string) (time.Time, bool) {
	u, err := uuid.Parse(id)
	if err != nil || len(id) != 36 || u.Version() != 7 {
		return time.Time{}, false
	}
	sec, nsec := u.Time().UnixTime()
	if sec == 0 && nsec == 0 {
		return time.Time{}, false
	}
	return time.Unix(sec, nsec), true
}

// Runs lists the team's runs (GET /v2/agent), 20 a page, newest first:
// the newest page when before is zero, else the runs created before it.
func (c *Client) Runs(ctx context.Context, before time.Time) (*RunList, error) {
	const op = "list runs"
	var q url.Values
	if !before.IsZero() {
		q = url.Values{"before": {strconv.FormatInt(before.UnixMilli(), 10)}}
	}
	r, err := c.do(ctx, op, http.MethodGet, "/v2/agent", q, maxOtherBody)
	if err != nil {
		return nil, err
	}
	var items []jsontext.Value
	list := &RunList{}
	if err := unmarshal(r.body, &items); err != nil {
		o, err := c.answer(op, r)
		if err != nil {
			return nil, err
		}
		items = o.array("data", "runs", "agents", "jobs", "items")
		if items == nil {
			if d, ok := o.obj("data"); ok {
				items = d.array("runs", "agents", "jobs", "items", "data")
				if n := d.sanitized("next"); n != "" {
					list.Next = n
				}
			}
		}
		if n := o.sanitized("next"); n != "" {
			list.Next = n
		}
	}
	for _, it := range items {
		if ri, ok := ParseRunItem(it); ok {
			list.Runs = append(list.Runs, ri)
		}
	}
	if list.Next != "" {
		if u, err := url.Parse(list.Next); err == nil {
			if ms, err := strconv.ParseInt(u.Query().Get("before"), 10, 64); err == nil {
				list.NextBefore = time.UnixMilli(ms)
			}
		}
		if list.NextBefore.IsZero() && len(list.Runs) > 0 {
			list.NextBefore = list.Runs[len(list.Runs)-1].CreatedAt
		}
	}
	return list, nil
}

// ParseRunItem reads one item of the list as Runs does (the archive keeps
// the item as it came: the team's list shown from it reads the same run);
// false when it is not an object.
func ParseRunItem(it jsontext.Value) (RunInfo, bool) {
	o, ok := parseObject(it)
	if !ok {
		return RunInfo{}, false
	}
	ri := RunInfo{Raw: it}
	ri.ID = o.sanitized("id")
	if ri.ID == "" {
		ri.ID = o.sanitized("jobId")
	}
	ri.CreatedAt, _ = o.time("createdAt")
	ri.RunExtras = readExtras(o)
	ri.Status = o.sanitized("status")
	if f, ok := o.numIn("creditsUsed", 0, model.MaxCredits); ok {
		ri.CreditsUsed = &f
	}
	opts, _ := o.obj("options")
	req := requestOf(opts, o)
	ri.Prompt, ri.Model, ri.Effort, ri.URLs = req.Prompt, req.Model, req.Effort, req.URLs
	return ri, true
}

// TokenUsage fetches GET /v2/team/token-usage. A 404 (no usage information
// for the team) is an *Error of kind KindNotFound: hide the figure.
func (c *Client) TokenUsage(ctx context.Context) (*TokenUsage, error) {
	const op = "token usage"
	r, err := c.do(ctx, op, http.MethodGet, "/v2/team/token-usage", nil, maxOtherBody)
	if err != nil {
		return nil, err
	}
	o, err := c.answer(op, r)
	if err != nil {
		return nil, err
	}
	if d, ok := o.obj("data"); ok {
		o = d
	}
	t := &TokenUsage{}
	var has bool
	if t.RemainingTokens, has = o.numIn("remainingTokens", 0, maxTokens); !has {
		return nil, c.malformed(op, r.status, "no usable remainingTokens in the answer (absent, not a number, or out of range)")
	}
	t.PlanTokens, _ = o.numIn("planTokens", 0, maxTokens)
	t.BillingPeriodStart, _ = o.time("billingPeriodStart")
	t.BillingPeriodEnd, _ = o.time("billingPeriodEnd")
	return t, nil
}

// ActiveCrawls fetches GET /v2/crawl/active.
func (c *Client) ActiveCrawls(ctx context.Context) ([]Crawl, error) {
	const op = "active crawls"
	r, err := c.do(ctx, op, http.MethodGet, "/v2/crawl/active", nil, maxOtherBody)
	if err != nil {
		return nil, err
	}
	// One crawl nested past the decoder's depth bound would make the
	// whole list unreadable: what lies deeper than any options go is cut
	// first, and that crawl is set aside with its reason.
	if body, cut := cutDeep(r.body, maxCrawlDepth); cut {
		r.body = body
	}
	o, err := c.answer(op, r)
	if err != nil {
		return nil, err
	}
	items := o.array("crawls", "data")
	crawls := make([]Crawl, 0, len(items))
	for _, it := range items {
		co, ok := parseObject(it)
		if !ok {
			continue
		}
		cr := Crawl{ID: co.sanitized("id"), TeamID: co.sanitized("teamId"), URL: co.sanitized("url"), Options: co.raw("options")}
		if bytes.Contains(it, []byte(tooDeep)) {
			cr.Options, cr.SetAside = nil, fmt.Sprintf("its options are nested deeper than %d levels", maxCrawlDepth)
		}
		crawls = append(crawls, cr)
	}
	return crawls, nil
}

// answer reads a response's body as a JSON object that does not say it
// failed: a KindMalformed *Error when it is not an object, the service's
// error when it says {"success": false}.
func (c *Client) answer(op string, r *response) (object, error) {
	o, ok := parseObject(r.body)
	if !ok {
		return nil, c.malformed(op, r.status, "not a JSON object")
	}
	if err := c.failure(op, r.status, o); err != nil {
		return nil, err
	}
	return o, nil
}

// object is a JSON object read leniently: duplicate names allowed (the last
// wins), invalid UTF-8 allowed; values kept raw and read by kind.
type object map[string]jsontext.Value

var lenient = json.JoinOptions(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))

func unmarshal(b []byte, v any) error { return json.Unmarshal(b, v, lenient) }

func parseObject(b []byte) (object, bool) {
	var o object
	if err := unmarshal(b, &o); err != nil || o == nil {
		return nil, false
	}
	return o, true
}

// viewObject is parseObject without copies: the members' values are
// slices of b, so b must not change while the object is used. A replay
// reads its 60 MB first value this way instead of copying its events
// array only to read the header's few members.
func viewObject(b []byte) (object, bool) {
	d := jsontext.NewDecoder(bytes.NewBuffer(b), lenient)
	if t, err := d.ReadToken(); err != nil || t.Kind() != '{' {
		return nil, false
	}
	o := object{}
	for d.PeekKind() != '}' {
		name, err := d.ReadToken()
		if err != nil {
			return nil, false
		}
		key := name.String() // before the next read voids the token
		v, err := d.ReadValue()
		if err != nil {
			return nil, false
		}
		o[key] = v
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, false
	}
	if _, err := d.ReadValue(); err != io.EOF {
		return nil, false // more than one value
	}
	return o, true
}

// str returns a string member, unsanitised.
func (o object) str(name string) (string, bool) {
	v := o[name]
	if v.Kind() != '"' {
		return "", false
	}
	var s string
	if unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

func (o object) sanitized(name string) string {
	s, _ := o.str(name)
	return text.Sanitize(s)
}

// num returns a number member, or a string holding one.
func (o object) num(name string) (float64, bool) {
	v := o[name]
	var f float64
	switch v.Kind() {
	case '0':
		if unmarshal(v, &f) != nil {
			return 0, false
		}
	case '"':
		s, _ := o.str(name)
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// maxTokens bounds the team's token figures: the model's credit bound in
// tokens (15 a credit).
const maxTokens = model.MaxCredits * 15

// numIn is num for a figure that must lie in [lo, hi]: one outside (a
// server's 1.7e308 or a negative count) is not used, as the model does
// with the trace's numbers (model/bounds.go), so nothing downstream
// prints a 309-digit figure or overflows.
func (o object) numIn(name string, lo, hi float64) (float64, bool) {
	f, ok := o.num(name)
	if !ok || !(f >= lo && f <= hi) { // NaN too
		return 0, false
	}
	return f, true
}

// boolean returns a boolean member; present is false when absent or not a
// boolean.
func (o object) boolean(name string) (v, present bool) {
	switch o[name].Kind() {
	case 't':
		return true, true
	case 'f':
		return false, true
	}
	return false, false
}

// time reads an RFC 3339 string, or a Unix time number (milliseconds when
// large, else seconds).
func (o object) time(name string) (time.Time, bool) {
	switch o[name].Kind() {
	case '"':
		s, _ := o.str(name)
		t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
		if err != nil {
			return time.Time{}, false
		}
		return t, true
	case '0':
		f, ok := o.num(name)
		if !ok || f <= 0 || f > 1e15 {
			return time.Time{}, false
		}
		if f > 1e11 {
			return time.UnixMilli(int64(f)), true
		}
		return time.Unix(int64(f), 0), true
	}
	return time.Time{}, false
}

func (o object) obj(name string) (object, bool) {
	v := o[name]
	if v.Kind() != '{' {
		return nil, false
	}
	return parseObject(v)
}

// array returns the first of the named members that is an array.
func (o object) array(names ...string) []jsontext.Value {
	for _, n := range names {
		v := o[n]
		if v.Kind() != '[' {
			continue
		}
		var items []jsontext.Value
		if unmarshal(v, &items) == nil {
			return items
		}
	}
	return nil
}

// raw returns a member's JSON, nil when absent or null.
func (o object) raw(name string) jsontext.Value {
	v := o[name]
	if v == nil || v.Kind() == 'n' {
		return nil
	}
	return v
}

// requestOf reads what a run was asked to do (prompt, model, effort, urls,
// cap), each field from the first of srcs (nil ones skipped) that has it;
// strings sanitised, the cap bounded.
func requestOf(srcs ...object) model.Request {
	var r model.Request
	for _, src := range srcs {
		if src == nil {
			continue
		}
		if r.Prompt == "" {
			r.Prompt = src.sanitized("prompt")
		}
		if r.Model == "" {
			r.Model = src.sanitized("model")
		}
		if r.Effort == "" {
			r.Effort = src.sanitized("effort")
		}
		if r.URLs == nil {
			r.URLs = stringList(src.array("urls"))
		}
		if f, ok := src.numIn("maxCredits", 0, model.MaxCredits); ok && r.MaxCredits == 0 {
			r.MaxCredits = f
		}
	}
	return r
}
