package poller

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// bodyTransport answers every request with status and body.
type bodyTransport struct {
	status int
	body   []byte
}

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: b.status, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(b.body)), Request: r}, nil
}

// clean reports whether s is safe to print: no control character besides
// newline and tab, no escape sequence.
func clean(s string) bool {
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
			return false
		}
	}
	return true
}

// FuzzAnswers feeds any body, as a 200, to the parsers of the list pages,
// the team's usage and crawls, an interact answer and a crawl preview:
// none panics, every string is sanitised, every figure is in range, and a
// list page's cursor, when there is a next page, is a time.
func FuzzAnswers(f *testing.F) {
	f.Add([]byte(`{"success":true,"data":[{"id":"019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b","status":"processing","createdAt":"2026-10-01T00:00:00Z","prompt":"p\u001b[2J"}],"next":"https://x/v2/agent?before=1"}`))
	f.Add([]byte(`{"success":true,"data":{"remainingTokens":1e308,"planTokens":"NaN","billingPeriodEnd":"9999-12-31T00:00:00Z"}}`))
	f.Add([]byte(`{"success":true,"crawls":[{"id":"c","url":"https://x","options":{"scrapeOptions":{"formats":["extract"],"parsePDF":true}}}]}`))
	f.Add([]byte(`{"success":true,"stdout":"\u009b31m","stderr":"x","exitCode":-1e308,"killed":"yes","liveViewUrl":"javascript:1"}`))
	f.Add([]byte(`{"success":true,"data":{"url":"https://x","limit":-1,"crawlEntireDomain":"\u202e"},"warning":"\u0007"}`))
	f.Add([]byte(`[[[[[[[[[[`))
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := New(Config{BaseURL: "https://api.firecrawl.dev", APIKey: "fc-fuzzkey0123", HTTPClient: &http.Client{Transport: bodyTransport{200, body}}})
		if err != nil {
			t.Fatal(err)
		}
		c = c.WithRetry(Retry{Tries: 1})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if l, err := c.Runs(ctx, time.Time{}); err == nil {
			for _, r := range l.Runs {
				for _, s := range []string{r.ID, r.Status, r.Prompt, r.Model, r.Effort, r.TargetHint, r.Label} {
					if !clean(s) {
						t.Fatalf("list: %q", s)
					}
				}
				if r.CreditsUsed != nil && !(*r.CreditsUsed >= 0) {
					t.Fatalf("credits %v", *r.CreditsUsed)
				}
			}
			if l.Next != "" && len(l.Runs) > 0 && l.NextBefore.IsZero() && !l.Runs[len(l.Runs)-1].CreatedAt.IsZero() {
				t.Fatalf("a next page without a cursor: %+v", l)
			}
		}
		if u, err := c.TokenUsage(ctx); err == nil {
			if !(u.RemainingTokens >= 0 && u.RemainingTokens <= maxTokens) || !(u.PlanTokens >= 0 && u.PlanTokens <= maxTokens) {
				t.Fatalf("usage %+v", u)
			}
		}
		if cr, err := c.ActiveCrawls(ctx); err == nil {
			for _, x := range cr {
				if !clean(x.ID) || !clean(x.URL) || !clean(x.TeamID) {
					t.Fatalf("crawl %+v", x)
				}
			}
		}
		if res, err := c.Interact(ctx, "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", &InteractRequest{Code: "1"}); err == nil {
			if res.Duration < 0 || !clean(res.LiveViewURL) || !clean(res.Error) {
				t.Fatalf("interact %+v", res)
			}
		}
		if res, err := c.StopInteract(ctx, "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"); err == nil && res != nil {
			if res.SessionDuration < 0 || res.CreditsBilled != nil && !(*res.CreditsBilled >= 0) {
				t.Fatalf("stop %+v", res)
			}
		}
		if p, err := c.CrawlParamsPreview(ctx, "https://example.com", "docs"); err == nil {
			if !clean(p.Warning) {
				t.Fatalf("preview warning %q", p.Warning)
			}
			for _, o := range p.Options {
				if !clean(o.Name) || strings.ContainsRune(o.Name, '\n') {
					t.Fatalf("preview option %q", o.Name)
				}
			}
		}
	})
}
