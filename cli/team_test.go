package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
)

// partFront stands before the simulator and answers one route with a
// hostile body (status, body), letting the rest through.
type partFront struct {
	next   http.Handler
	route  string
	status int
	body   string
}

func (f *partFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == f.route {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.status)
		_, _ = w.Write([]byte(f.body))
		return
	}
	f.next.ServeHTTP(w, r)
}

// TestTeamPartsStandAlone: one part of team failing (a 500 on the crawl
// list, an unusable token figure, a crawl nested past any depth) does not
// drop the others: they are shown, the failed part is named in its own
// section (plain) or under errors (json), and the exit code is 1.
func TestTeamPartsStandAlone(t *testing.T) {
	srv, err := sim.Start(context.Background(), sim.Options{Scenarios: []string{sim.ScenarioResearch}, Speed: 1, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	deep := `{"success":true,"crawls":[{"id":"c1","url":"https://x","options":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `},{"id":"c2","url":"https://fine.example","options":{"scrapeOptions":{"formats":["markdown"]}}}]}`
	for _, c := range []struct {
		name, route, body string
		status            int
		part, other       string // the failed section, a section still shown
	}{
		{"crawls 500", "/v2/crawl/active", `{"success":false,"error":"boom"}`, 500, "Active crawls  unavailable", "Processing     1 run"},
		{"crawls nested", "/v2/crawl/active", deep, 200, "set aside: its options are nested deeper than", "https://fine.example"},
		{"usage 1e308", "/v2/team/token-usage", `{"success":true,"data":{"remainingTokens":1e308}}`, 200, "Tokens         unavailable", "Active crawls  "},
		{"usage NaN", "/v2/team/token-usage", `{"success":true,"data":{"remainingTokens":"NaN"}}`, 200, "Tokens         unavailable", "Processing     1 run"},
		{"runs 500", "/v2/agent", `{"success":false,"error":"boom"}`, 500, "Processing     unavailable", "Tokens         "},
	} {
		t.Run(c.name, func(t *testing.T) {
			hs := httptest.NewServer(&partFront{next: srv, route: c.route, status: c.status, body: c.body})
			defer hs.Close()
			t.Setenv("FIRECRAWL_API_URL", hs.URL)
			t.Setenv("FIRECRAWL_API_KEY", srv.Key)
			noWait := poller.Retry{Sleep: func(ctx context.Context, _ time.Duration) bool { return ctx.Err() == nil }}
			var out, errOut strings.Builder
			code := execute(context.Background(), []string{"team"}, strings.NewReader(""), &out, &errOut, noWait)
			want := ExitFailed
			if c.status == 200 && c.route == "/v2/crawl/active" {
				want = ExitOK // the list was read; one crawl set aside
			}
			if code != want || !strings.Contains(out.String(), c.part) || !strings.Contains(out.String(), c.other) {
				t.Errorf("exit %d, want 1 with %q and %q:\n%s\n%s", code, c.part, c.other, out.String(), errOut.String())
			}
			out.Reset()
			code = execute(context.Background(), []string{"team", "-o", "json"}, strings.NewReader(""), &out, &errOut, noWait)
			if want == ExitOK {
				if code != ExitOK || !strings.Contains(out.String(), `"setAside":`) {
					t.Errorf("json: exit %d:\n%s", code, out.String())
				}
				return
			}
			if code != ExitFailed || !strings.Contains(out.String(), `"errors":{`) {
				t.Errorf("json: exit %d:\n%s", code, out.String())
			}
		})
	}
}
