package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/describe"
	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/text"
)

// EnvURL is the webhook's URL when --notify-url is not given: it keeps the
// URL (a Slack webhook's is its token) out of the process list.
const EnvURL = "FIREWATCH_NOTIFY_URL"

const (
	// WebhookTimeout bounds one POST, its answer included.
	WebhookTimeout = 10 * time.Second
	// webhookTries is the tries in all for one moment (the first
	// included), unless Config.Retry says otherwise.
	webhookTries = 3
	// webhookDeadline bounds one moment's tries and waits together: a
	// receiver asking to wait longer is given up on.
	webhookDeadline = time.Minute
	// maxRedirects is how many redirects to the same host are followed.
	maxRedirects = 3
	opNotify     = "notification"
)

// CheckURL checks a webhook URL: http or https, with a host.
func CheckURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, errors.New("not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, errors.New("it must start with https:// (or http://)")
	}
	if u.Hostname() == "" {
		return nil, errors.New("it has no host")
	}
	return u, nil
}

// webhook POSTs each moment as JSON to one URL.
type webhook struct {
	url    string
	host   string // for messages: the URL itself is a secret
	client *http.Client
	retry  poller.Retry
	agent  string
	n      *Notifier

	waitSaid sync.Once
}

func newWebhook(c Config, n *Notifier) (*webhook, error) {
	u, err := CheckURL(c.URL)
	if err != nil {
		return nil, fmt.Errorf("--notify-url: %v", err)
	}
	w := &webhook{url: u.String(), host: describe.OneLine(u.Host, 100), retry: c.Retry, agent: c.UserAgent, n: n}
	if w.retry.Tries == 0 {
		w.retry.Tries = webhookTries
	}
	tr := c.Transport
	if tr == nil {
		tr = http.DefaultTransport.(*http.Transport).Clone()
	}
	w.client = &http.Client{Transport: tr, Timeout: WebhookTimeout, CheckRedirect: sameHostOnly}
	return w, nil
}

// sameHostOnly follows a redirect only to the same host, never from https
// to http, and only one that keeps the POST and its body (307, 308): a 301,
// 302 or 303 would turn it into a GET without the body. Any other redirect
// is the answer, reported as not followed.
func sameHostOnly(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	switch {
	case len(via) > maxRedirects,
		!strings.EqualFold(req.URL.Hostname(), first.Hostname()),
		first.Scheme == "https" && req.URL.Scheme != "https",
		req.Method != http.MethodPost:
		return http.ErrUseLastResponse
	}
	return nil
}

func (w *webhook) name() string { return "--notify-url " + w.host }

func (w *webhook) deliver(ctx context.Context, m *Moment) error {
	body := w.body(m)
	ctx, cancel := context.WithTimeout(ctx, webhookDeadline)
	defer cancel()
	r := w.retry
	r.Notify = func(wt poller.Wait) {
		msg := fmt.Sprintf("notification to %s: %s", w.host, wt)
		w.n.logf("notify: %s", msg)
		w.waitSaid.Do(func() { w.n.sayf("%s", msg) })
	}
	tries := 0
	err := r.Do(ctx, func(ctx context.Context) error {
		tries++
		return w.post(ctx, body)
	})
	var pe *poller.Error
	switch {
	case err == nil:
	case errors.As(err, &pe):
		return fmt.Errorf("--notify-url %s: %s (%d %s)", w.host, pe.Short(), tries, plural(tries, "try", "tries"))
	case ctx.Err() != nil && !errors.As(err, new(*finalError)):
		return fmt.Errorf("--notify-url %s: not delivered in time (%d %s)", w.host, tries, plural(tries, "try", "tries"))
	default:
		return err
	}
	w.n.logf("notify: POSTed %s to %s (%d %s)", m.Key, w.host, tries, plural(tries, "try", "tries"))
	return nil
}

// finalError is a failure not to retry: its message is the whole story.
type finalError struct{ msg string }

func (e *finalError) Error() string { return e.msg }

// post sends body once. A 429, a 5xx or a network failure come back as a
// *poller.Error that Retry retries; a timeout does not (the receiver may
// have taken the moment: it is not sent twice), nor a 4xx or a redirect.
func (w *webhook) post(ctx context.Context, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return &finalError{"--notify-url " + w.host + ": " + err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	if w.agent != "" {
		req.Header.Set("User-Agent", w.agent)
	}
	resp, err := w.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		pe := poller.OutsideError(opNotify, 0, "", err, WebhookTimeout)
		if pe.Kind == poller.KindTimeout {
			return &finalError{"--notify-url " + w.host + ": no answer within " + text.Duration(WebhookTimeout) + " (not sent again: it may have arrived)"}
		}
		return pe
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	switch s := resp.StatusCode; {
	case s >= 200 && s < 300:
		return nil
	case s >= 300 && s < 400:
		to := "elsewhere"
		if loc, err := resp.Location(); err == nil {
			to = "to " + describe.OneLine(loc.Host, 100)
		}
		return &finalError{fmt.Sprintf("--notify-url %s: the receiver answered %d, a redirect %s: not followed (only a 307 or 308 to the same host is)", w.host, s, to)}
	}
	pe := poller.OutsideError(opNotify, resp.StatusCode, resp.Header.Get("Retry-After"), nil, 0)
	if pe.Retryable() {
		return pe
	}
	return &finalError{fmt.Sprintf("--notify-url %s: the receiver refused it (%d)", w.host, resp.StatusCode)}
}

// The JSON shape (docs/notify.md): stable keys, null where a value does
// not apply.
type (
	webhookBody struct {
		Text      string         `json:"text"`
		Event     Event          `json:"event"`
		ID        string         `json:"id"`
		At        string         `json:"at"`
		Source    string         `json:"source"`
		Run       *runBody       `json:"run,omitempty"`
		Crawl     *crawlBody     `json:"crawl,omitempty"`
		Attention *attentionBody `json:"attention"`
		Budget    *budgetBody    `json:"budget"`
		// Team is a team moment's: the share of the plan passed or the
		// projection, in its billing period.
		Team *teamBody `json:"team"`
		// Dropped is the moments dropped since the last one delivered.
		Dropped int `json:"dropped"`
	}
	runBody struct {
		ID      string  `json:"id"`
		Prompt  string  `json:"prompt"`
		Model   string  `json:"model"`
		Outcome *string `json:"outcome"`
		// StartedBy and CancelledBy: who did it through a hub, null when
		// nobody did there or firewatch did not see it.
		StartedBy   *string `json:"startedBy"`
		CancelledBy *string `json:"cancelledBy"`
		// StartedVia and CancelledVia: the name of the hub it was done
		// through (firewatch hub --name), null when not known (a record
		// from before hubs had names, a local firewatch mcp).
		StartedVia   *string `json:"startedVia"`
		CancelledVia *string `json:"cancelledVia"`
		figuresBody  `json:",inline"`
	}
	crawlBody struct {
		ID          string `json:"id"`
		URL         string `json:"url"`
		Status      string `json:"status"`
		Pages       int    `json:"pages"`
		figuresBody `json:",inline"`
	}
	// figuresBody is what a run and a crawl both have.
	figuresBody struct {
		Credits    *float64 `json:"credits"`
		DurationMs *int64   `json:"durationMs"`
		Duration   *string  `json:"duration"`
	}
	attentionBody struct {
		Kind    string  `json:"kind"`
		AgentID *string `json:"agentId"`
		Agent   string  `json:"agent"`
		Message string  `json:"message"`
	}
	teamBody struct {
		PeriodStart string   `json:"periodStart"`
		PeriodEnd   string   `json:"periodEnd"`
		UsedCredits float64  `json:"usedCredits"`
		PlanCredits *float64 `json:"planCredits"` // null: not known
		// Percent is the share passed (team:80%: 80); null for the
		// projection's moment.
		Percent   *float64 `json:"percent"`
		Projected bool     `json:"projected"`
		// The projection's figures (team:projected), null otherwise.
		PerDay        *float64 `json:"perDay"`
		LastsUntil    *string  `json:"lastsUntil"`
		DaysBeforeEnd *int     `json:"daysBeforeEnd"`
	}
	budgetBody struct {
		Percent    float64 `json:"percent"`
		Credits    float64 `json:"credits"`
		Cap        float64 `json:"cap"`
		CapAssumed bool    `json:"capAssumed"`
	}
)

// Body is the JSON a webhook is sent for m, the secrets redacted once more
// as JSON (a key the service echoed in any form).
func Body(m *Moment, secrets *text.Secrets) []byte {
	j := &m.Job
	b := webhookBody{Text: m.Text, Event: m.Event, ID: m.Key, At: m.At.UTC().Format(time.RFC3339Nano), Source: "firewatch", Dropped: m.Dropped}
	fig := figuresBody{Credits: j.Credits}
	if j.HasDuration {
		v, s := j.Duration.Milliseconds(), text.Duration(j.Duration)
		fig.DurationMs, fig.Duration = &v, &s
	}
	switch j.Kind {
	case KindTeam:
	case KindCrawl:
		b.Crawl = &crawlBody{ID: j.ID, URL: j.URL, Status: j.Outcome, Pages: j.Pages, figuresBody: fig}
	default:
		rb := &runBody{ID: j.ID, Prompt: j.Prompt, Model: j.Model, figuresBody: fig}
		if j.Outcome != "" {
			o := j.Outcome
			rb.Outcome = &o
		}
		rb.StartedBy, rb.StartedVia = model.ActorFields(j.StartedBy)
		rb.CancelledBy, rb.CancelledVia = model.ActorFields(j.CancelledBy)
		b.Run = rb
	}
	if a := m.Attention; a != nil {
		ab := &attentionBody{Kind: string(a.Kind), Agent: a.Agent, Message: a.Message}
		if a.AgentID != "" {
			id := a.AgentID
			ab.AgentID = &id
		}
		b.Attention = ab
	}
	if bu := m.Budget; bu != nil {
		b.Budget = &budgetBody{Percent: bu.Share * 100, Credits: bu.Credits, Cap: bu.Cap, CapAssumed: bu.CapAssumed}
	}
	if tm := m.Team; tm != nil {
		tb := &teamBody{PeriodStart: tm.PeriodStart.UTC().Format(time.RFC3339), PeriodEnd: tm.PeriodEnd.UTC().Format(time.RFC3339),
			UsedCredits: tm.Used, Projected: tm.Projected, DaysBeforeEnd: tm.DaysBeforeEnd}
		if tm.Plan > 0 {
			p := tm.Plan
			tb.PlanCredits = &p
		}
		if tm.Projected {
			pd := tm.PerDay
			tb.PerDay = &pd
			if tm.LastsUntil != nil {
				s := tm.LastsUntil.UTC().Format(time.RFC3339)
				tb.LastsUntil = &s
			}
		} else {
			p := math.Round(tm.Share*1000) / 10
			tb.Percent = &p
		}
		b.Team = tb
	}
	out, err := json.Marshal(b)
	if err != nil {
		// Only invalid UTF-8 can fail, and every string is sanitised.
		out, _ = json.Marshal(webhookBody{Text: m.Text, Event: m.Event, ID: m.Key, Source: "firewatch"})
	}
	out, _ = secrets.RedactJSON(out)
	return out
}

func (w *webhook) body(m *Moment) []byte { return Body(m, w.n.secrets) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
