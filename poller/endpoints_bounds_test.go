package poller

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The team's figures and a run's credits from the status and list
// endpoints are bounded like the trace's numbers: a value out of range
// (1.7e308, a negative count) is not used, so nothing prints a 309-digit
// figure or a negative balance of credits.
func TestTeamAndStatusFiguresAreBounded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value string
		ok    bool
	}{{"1.7e308", false}, {"-1.7e308", false}, {"-3", false}, {"1e13", false}, {"42", true}} {
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			switch {
			case strings.HasSuffix(r.URL.Path, "/team/token-usage"):
				fmt.Fprintf(w, `{"success":true,"data":{"remainingTokens":10,"planTokens":%s}}`, tc.value)
			case r.URL.Path == "/v2/agent":
				fmt.Fprintf(w, `{"success":true,"data":[{"id":"%s","status":"completed","createdAt":"2026-03-14T09:00:00Z","creditsUsed":%s}]}`, stubJob, tc.value)
			default:
				fmt.Fprintf(w, `{"success":true,"status":"completed","creditsUsed":%s}`, tc.value)
			}
		}))
		c, err := New(Config{BaseURL: hs.URL, APIKey: "fc-bounds-test-key"})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		st, err := c.Status(ctx, stubJob)
		if err != nil || (st.CreditsUsed != nil) != tc.ok {
			t.Errorf("status creditsUsed %s: %v, used %v; want used %v", tc.value, err, st.CreditsUsed != nil, tc.ok)
		}
		page, err := c.Runs(ctx, time.Time{})
		if err != nil || len(page.Runs) != 1 || (page.Runs[0].CreditsUsed != nil) != tc.ok {
			t.Errorf("list creditsUsed %s: %v %+v; want used %v", tc.value, err, page, tc.ok)
		}
		tu, err := c.TokenUsage(ctx)
		if err != nil || (tu.PlanTokens == 42) != tc.ok || tu.PlanTokens > maxTokens || tu.PlanTokens < 0 {
			t.Errorf("planTokens %s: %v %+v", tc.value, err, tu)
		}
		hs.Close()
	}
}
