package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firewatch/firewatch/internal/hostile"
	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
)

var waitLine = regexp.MustCompile(`rate limited, retrying in (\S+)(?: \((\d+)/(\d+)\))?`)

// TestOneRetryPolicy drives every command that asks the service against
// the same fault: k 429s in a row on the request it makes. Every one waits
// the same (the delay asked, 1s, each time), says each wait with its length
// on stderr, and gives up at the same try: after poller.DefaultTries tries
// in all it fails with exit 6 (the service refused), with fewer 429s it
// succeeds. The watch is a poller: it waits the same (its --interval is
// below the delay asked: a poller never waits less than its interval) and
// never gives up, saying each wait in its output. (The runs screen, a
// poller too, meets the same front in ui/runs's TestSameRetryAsTheCommands.)
func TestOneRetryPolicy(t *testing.T) {
	t.Parallel()
	srv, err := sim.Start(context.Background(), sim.Options{Scenarios: []string{sim.ScenarioResearch}, Speed: 1000, RateLimit: -1, Scrapes: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() }) // after the subtests, which run in parallel
	if err := srv.WaitFinished(context.Background(), srv.Jobs[0].ID); err != nil {
		t.Fatal(err)
	}
	job, scrape := srv.Jobs[0].ID, srv.ScrapeIDs[0]
	sink := newOTLPSink(t)
	// A crawl that is over (at this speed) to watch, and one that goes on
	// (a page an hour), to cancel.
	crawled := srv.StartCrawl("https://example.com", 20)
	waitCrawlDone(t, srv.URL, srv.Key, crawled)
	slow, err := sim.Start(context.Background(), sim.Options{Scenarios: []string{sim.ScenarioResearch}, Speed: 1, RateLimit: -1, Key: srv.Key, CrawlStep: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { slow.Close() })
	crawling := slow.StartCrawl("https://example.com", 50)
	callers := []struct {
		name, method, route string
		args                []string
		poller              bool // waits in its output, never gives up
		next                http.Handler
	}{
		{"crawl start", "POST", "/v2/crawl", []string{"crawl", "https://example.com", "--detach"}, false, nil},
		{"crawl --cancel", "DELETE", "/v2/crawl/" + crawling, []string{"crawl", crawling, "--cancel"}, false, slow},
		{"crawl watch", "GET", "/v2/crawl/" + crawled, []string{"crawl", crawled, "-o", "plain", "--poll", "--interval", "250ms"}, false, nil},
		{"runs", "GET", "/v2/agent", []string{"runs", "-o", "json", "--limit", "1"}, false, nil},
		{"team", "GET", "/v2/team/token-usage", []string{"team", "-o", "json"}, false, nil},
		{"crawl-preview", "POST", "/v2/crawl/params-preview", []string{"crawl-preview", "https://example.com", "the docs", "-o", "json"}, false, nil},
		{"scrape", "POST", "/v2/scrape", []string{"scrape", "https://example.com", "-o", "json"}, false, nil},
		{"interact --stop", "DELETE", "/v2/scrape/" + scrape + "/interact", []string{"interact", scrape, "--stop"}, false, nil},
		{"interact --code", "POST", "/v2/scrape/" + scrape + "/interact", []string{"interact", scrape, "--code", "1+1", "-o", "json"}, false, nil},
		{"report", "GET", "/v2/agent/" + job + "/trace", []string{"report", job, "--format", "md"}, false, nil},
		{"export JOB_ID", "GET", "/v2/agent/" + job + "/trace", []string{"export", job, "--otlp-endpoint", sink.URL}, false, nil},
		{"replay JOB_ID", "GET", "/v2/agent/" + job + "/trace", []string{"replay", job, "-o", "plain"}, false, nil},
		{"archive --once", "GET", "/v2/agent/" + job + "/trace", []string{"archive", "--once", "--archive", "ARCHIVE"}, false, nil},
		{"watch", "GET", "/v2/agent/" + job + "/trace", []string{"watch", job, "-o", "plain", "--interval", "100ms"}, true, nil},
	}
	for _, k := range []int{2, poller.DefaultTries} {
		for _, c := range callers {
			if c.poller && k == poller.DefaultTries {
				continue // the same waits, more of them: nothing new to see
			}
			t.Run(fmt.Sprintf("%s/%d 429s", c.name, k), func(t *testing.T) {
				t.Parallel()
				var next http.Handler = srv
				if c.next != nil {
					next = c.next
				}
				front := &hostile.Refuser{Next: next, Method: c.method, Route: c.route, N: k, Exact: true}
				hs := httptest.NewServer(front)
				defer hs.Close()
				var slept []time.Duration
				var mu sync.Mutex
				retry := poller.Retry{Sleep: func(ctx context.Context, d time.Duration) bool {
					mu.Lock()
					slept = append(slept, d)
					mu.Unlock()
					return ctx.Err() == nil
				}}
				var out, errOut bytes.Buffer
				// The service is asked, not the archive (the simulator's
				// ids repeat: another test may have archived this run).
				args := append(slices.Clone(c.args), "--api-url", hs.URL, "--api-key", srv.Key)
				if i := slices.Index(args, "ARCHIVE"); i >= 0 {
					args[i] = filepath.Join(t.TempDir(), "archive.db")
				} else {
					args = append(args, "--archive", "off")
				}
				code := execute(context.Background(), args, strings.NewReader(""), &out, &errOut, retry)

				said := waitLine.FindAllStringSubmatch(errOut.String()+out.String(), -1)
				waits := min(k, poller.DefaultTries-1) // a wait between two tries
				if c.poller {
					waits = k
				} else if !slices.Equal(slept, slices.Repeat([]time.Duration{time.Second}, waits)) {
					t.Errorf("waited %v, want %d × 1s", slept, waits)
				}
				if len(said) < waits {
					t.Fatalf("%d waits said, want %d:\n%s\n%s", len(said), waits, errOut.String(), out.String())
				}
				for i, m := range said[:waits] {
					if m[1] != "1.0s" {
						t.Errorf("wait %d said as %q, want 1.0s", i+1, m[0])
					}
					if !c.poller && (m[2] != fmt.Sprint(i+1) || m[3] != fmt.Sprint(poller.DefaultTries-1)) {
						t.Errorf("wait %d said as %q, want (%d/%d)", i+1, m[0], i+1, poller.DefaultTries-1)
					}
				}
				switch {
				case c.poller:
					if code != 0 || front.Requests() <= k { // the run succeeded
						t.Errorf("exit %d after %d requests: the watch should go on to the end\n%s", code, front.Requests(), errOut.String())
					}
				case k < poller.DefaultTries:
					if code != 0 || front.Requests() != k+1 {
						t.Errorf("exit %d after %d requests, want 0 after %d\n%s", code, front.Requests(), k+1, errOut.String())
					}
				default:
					if code != ExitRejected || front.Requests() != poller.DefaultTries || !strings.Contains(errOut.String(), "Rate limit exceeded") {
						t.Errorf("exit %d after %d requests, want %d after %d, with the service's message\n%s", code, front.Requests(), ExitRejected, poller.DefaultTries, errOut.String())
					}
				}
			})
		}
	}
}

// TestServerErrorRetriedThenExit1: a 5xx on the runs list is retried by the
// same policy (the doubling backoff: 1s, 2s, 4s, 8s, each said) and, still
// there after the last try, is exit 1 (firewatch failed), not 6.
func TestServerErrorRetriedThenExit1(t *testing.T) {
	srv, err := sim.Start(context.Background(), sim.Options{Scenarios: []string{sim.ScenarioResearch}, Speed: 1000, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	front := &hostile.Refuser{Next: srv, Method: "GET", Route: "/v2/agent", N: 100, Status: http.StatusServiceUnavailable}
	hs := httptest.NewServer(front)
	defer hs.Close()
	t.Setenv("FIRECRAWL_API_URL", hs.URL)
	t.Setenv("FIRECRAWL_API_KEY", srv.Key)
	var slept []time.Duration
	retry := poller.Retry{Sleep: func(ctx context.Context, d time.Duration) bool { slept = append(slept, d); return true }}
	var out, errOut bytes.Buffer
	code := execute(context.Background(), []string{"runs", "-o", "json"}, strings.NewReader(""), &out, &errOut, retry)
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}
	if code != ExitFailed || !slices.Equal(slept, want) || front.Requests() != poller.DefaultTries {
		t.Fatalf("exit %d, waited %v after %d requests; want exit 1, %v, %d\n%s", code, slept, front.Requests(), want, poller.DefaultTries, errOut.String())
	}
	if n := strings.Count(errOut.String(), "server error 503, retrying in"); n != len(want) {
		t.Errorf("%d waits said, want %d:\n%s", n, len(want), errOut.String())
	}
}

// waitCrawlDone asks the simulator for the crawl's status until it is
// completed, so that a watch of it ends on its first answer.
func waitCrawlDone(t *testing.T, base, key, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, "GET", base+"/v2/crawl/"+id+"?limit=1", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("crawl %s did not complete: %v", id, err)
		}
		var st struct{ Status string }
		err = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if err == nil && st.Status == "completed" {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("crawl %s did not complete: status %q", id, st.Status)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
