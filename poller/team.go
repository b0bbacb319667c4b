package poller

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"time"

	"github.com/firewatch/firewatch/model"
	"github.com/firewatch/firewatch/text"
)

// The team's usage beyond the token balance: credit-usage (the balance in
// credits), the historical bins (by time, and by API key by month), the
// activity of the last 24 hours and the queue. Every figure is read from
// what the service sends, never trusted: a figure outside [0, MaxCredits]
// (negative, 1e300, not a number) is left out and counted in Dropped, so
// that the reader can say what it could not use.

// CreditUsage is the team's balance in credits for the billing period.
type CreditUsage struct {
	Remaining   *float64 // nil when absent or unusable
	Plan        *float64
	PeriodStart time.Time // zero when absent
	PeriodEnd   time.Time
	// FromTokens: the service has no credit-usage; these are the token
	// usage's figures / 15.
	FromTokens bool
	// Negative: remainingCredits was below zero (a team over its plan), kept
	// as Remaining; other unusable figures are nil.
	Negative bool
}

// UsageBin is one bin of the historical usage.
type UsageBin struct {
	Start, End time.Time
	APIKey     string   // byApiKey rows: the key's name as the service gives it (sanitised); never a key's value
	Credits    *float64 // nil: absent or unusable (negative, absurd)
}

// UsageHistory is the historical endpoint's answer.
type UsageHistory struct {
	TimeRange, BinSize string
	Start, End         time.Time
	Bins               []UsageBin
	Dropped            int // bins whose figure could not be used
}

// Activity is one line of the team's last 24 hours of activity.
type Activity struct {
	ID, Endpoint, Target string // sanitised
	CreatedAt            time.Time
}

// creditsIn reads a credit figure named creditsUsed (or totalCredits, as
// older deployments name it).
func creditsIn(o object, names ...string) (*float64, bool) {
	for _, n := range names {
		if _, ok := o[n]; !ok {
			continue
		}
		f, ok := o.numIn(n, 0, model.MaxCredits)
		if !ok {
			return nil, false
		}
		return &f, true
	}
	return nil, true
}

// CreditUsage fetches GET /v2/team/credit-usage; a service without it
// (404) is asked its token usage, in credits (FromTokens).
func (c *Client) CreditUsage(ctx context.Context) (*CreditUsage, error) {
	const op = "credit usage"
	r, err := c.do(ctx, op, http.MethodGet, "/v2/team/credit-usage", nil, maxOtherBody)
	if err == nil {
		var o object
		if o, err = c.answer(op, r); err == nil {
			if d, ok := o.obj("data"); ok {
				o = d
			}
			u := &CreditUsage{}
			if f, ok := o.num("remainingCredits"); ok && f < 0 && f >= -model.MaxCredits {
				u.Remaining, u.Negative = &f, true
			} else if f, ok := o.numIn("remainingCredits", 0, model.MaxCredits); ok {
				u.Remaining = &f
			}
			if f, ok := o.numIn("planCredits", 0, model.MaxCredits); ok {
				u.Plan = &f
			}
			u.PeriodStart, _ = o.time("billingPeriodStart")
			u.PeriodEnd, _ = o.time("billingPeriodEnd")
			return u, nil
		}
	}
	if pe := (*Error)(nil); !errors.As(err, &pe) || pe.Kind != KindNotFound {
		return nil, err
	}
	t, terr := c.TokenUsage(ctx)
	if terr != nil {
		return nil, err // the credit usage's 404 says it
	}
	rem, plan := t.RemainingTokens/model.TokensPerCredit, t.PlanTokens/model.TokensPerCredit
	u := &CreditUsage{Remaining: &rem, PeriodStart: t.BillingPeriodStart, PeriodEnd: t.BillingPeriodEnd, FromTokens: true}
	if t.PlanTokens > 0 {
		u.Plan = &plan
	}
	return u, nil
}

// UsageHistory fetches GET /v2/team/credit-usage/historical, with
// timeRange (day, week or month) or, when byKey, byApiKey=true (the two
// cannot be combined: the service answers 400).
func (c *Client) UsageHistory(ctx context.Context, timeRange string, byKey bool) (*UsageHistory, error) {
	const op = "usage history"
	q := url.Values{}
	if byKey {
		q.Set("byApiKey", "true")
	} else {
		q.Set("timeRange", timeRange)
	}
	r, err := c.do(ctx, op, http.MethodGet, "/v2/team/credit-usage/historical", q, maxOtherBody)
	if err != nil {
		return nil, err
	}
	o, err := c.answer(op, r)
	if err != nil {
		return nil, err
	}
	h := &UsageHistory{}
	if w, ok := o.obj("window"); ok {
		h.TimeRange, h.BinSize = w.sanitized("timeRange"), w.sanitized("binSize")
		h.Start, _ = w.time("startDate")
		h.End, _ = w.time("endDate")
	}
	for _, it := range o.array("periods", "data") {
		p, ok := parseObject(it)
		if !ok {
			h.Dropped++
			continue
		}
		b := UsageBin{APIKey: p.sanitized("apiKey")}
		b.Start, _ = p.time("startDate")
		b.End, _ = p.time("endDate")
		cr, ok := creditsIn(p, "creditsUsed", "totalCredits")
		if !ok || cr == nil {
			h.Dropped++
		}
		b.Credits = cr
		h.Bins = append(h.Bins, b)
	}
	return h, nil
}

// Activity fetches the team's last 24 hours of activity, newest first,
// following the cursor for at most pages pages of 100.
func (c *Client) Activity(ctx context.Context, pages int) ([]Activity, error) {
	const op = "activity"
	var out []Activity
	cursor := ""
	for range max(pages, 1) {
		q := url.Values{"limit": {"100"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		r, err := c.do(ctx, op, http.MethodGet, "/v2/team/activity", q, maxOtherBody)
		if err != nil {
			if len(out) > 0 {
				return out, nil // what came is kept
			}
			return nil, err
		}
		o, err := c.answer(op, r)
		if err != nil {
			return nil, err
		}
		for _, it := range o.array("data") {
			p, ok := parseObject(it)
			if !ok {
				continue
			}
			a := Activity{ID: p.sanitized("id"), Endpoint: p.sanitized("endpoint"), Target: p.sanitized("target")}
			a.CreatedAt, _ = p.time("created_at")
			out = append(out, a)
		}
		more, _ := o.boolean("has_more")
		next, _ := o.str("cursor")
		if !more || next == "" || len(next) > 4096 {
			break
		}
		cursor = next
	}
	return out, nil
}

// Projection is when the plan's credits run out at the rate of the last 7
// whole days.
type Projection struct {
	PerDay        float64 // the 7 days' mean, to a tenth
	Days          int     // 7
	LastsUntil    *time.Time
	DaysBeforeEnd *int // calendar days (UTC) from LastsUntil to the period's end; > 0: early
	Text          string
}

// Project is the plan's end at the mean of the last 7 whole daily bins
// before now, with remaining credits and a period ending at end; nil and
// why when the bins do not allow it.
func (h *UsageHistory) Project(remaining float64, end, now time.Time) (*Projection, string) {
	var sum float64
	n := 0
	for i := len(h.Bins) - 1; i >= 0 && n < 7; i-- {
		b := h.Bins[i]
		if b.End.After(now) || b.End.Sub(b.Start) != 24*time.Hour {
			continue // today's bin is not whole yet
		}
		if b.Credits == nil {
			return nil, "a day of the last 7 has no usable figure"
		}
		sum += *b.Credits
		n++
	}
	if n < 7 {
		return nil, fmt.Sprintf("the service gave %d whole days of the last 7", n)
	}
	p := &Projection{PerDay: math.Round(sum/7*10) / 10, Days: 7}
	end = end.UTC()
	switch {
	case remaining <= 0:
		p.Text = "the plan's credits are used up"
		left := 0
		if end.After(now) {
			left = int(end.Sub(now).Hours() / 24)
		}
		p.DaysBeforeEnd, p.LastsUntil = &left, &now
	case p.PerDay <= 0:
		p.Text = "no use in the last 7 days: the plan lasts the period"
	default:
		until := now.Add(time.Duration(remaining / p.PerDay * float64(24*time.Hour))).UTC()
		p.LastsUntil = &until
		// Calendar days (UTC) between the two dates, as people count them.
		days := int(math.Round(end.Truncate(24*time.Hour).Sub(until.Truncate(24*time.Hour)).Hours() / 24))
		p.DaysBeforeEnd = &days
		rate := "at " + text.Credits(p.PerDay) + " a day the plan lasts until " + until.Format("Jan 2")
		switch {
		case days == 1:
			p.Text = rate + ", 1 day before the period ends"
		case days > 0:
			p.Text = fmt.Sprintf("%s, %d days before the period ends", rate, days)
		case days == 0 && until.Before(end):
			p.Text = rate + ", the day the period ends"
		default:
			p.Text = rate + ", past the period's end (" + end.Format("Jan 2") + ")"
		}
	}
	return p, ""
}
