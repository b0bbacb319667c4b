package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
)

// hangFront stands before the simulator and holds every request to route
// until the client goes away, telling arrived of each.
type hangFront struct {
	next    http.Handler
	route   string
	arrived chan struct{}
	release chan struct{} // closed at the end of the test
}

func (f *hangFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, f.route) {
		select {
		case f.arrived <- struct{}{}:
		default:
		}
		select {
		case <-r.Context().Done():
		case <-f.release:
		}
		return
	}
	f.next.ServeHTTP(w, r)
}

// TestSignalDuringARequestIs130: a signal (the cause the signal context
// gives for SIGINT, SIGTERM and SIGHUP alike) while a command waits on the
// service exits 130, without "context canceled"; a start (run, crawl, an
// interact call) says that it may have started all the same.
func TestSignalDuringARequestIs130(t *testing.T) {
	srv, err := sim.Start(context.Background(), sim.Options{Scenarios: []string{sim.ScenarioResearch}, Speed: 1000, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, c := range []struct {
		route string
		args  []string
	}{
		{"/v2/agent", []string{"runs", "-o", "json"}},
		{"/v2/agent", []string{"runs", "-o", "plain"}},
		{"/v2/agent", []string{"watch", "--latest", "-o", "plain"}},
		{"/v2/agent", []string{"run", "a prompt", "-o", "plain"}},
		{"/v2/agent", []string{"run", "a prompt", "--detach"}},
		{"/v2/team", []string{"team"}},
		{"/v2/team", []string{"team", "-o", "json"}},
		{"/v2/crawl", []string{"crawl-preview", "https://example.com", "the docs"}},
		{"/v2/scrape", []string{"scrape", "https://example.com"}},
		{"/v2/crawl", []string{"crawl", "https://example.com", "--detach"}},
		{"/v2/crawl", []string{"crawl", "https://example.com", "-o", "plain"}},
		{"/v2/scrape", []string{"interact", "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", "--code", "1+1"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			front := &hangFront{next: srv, route: c.route, arrived: make(chan struct{}, 1), release: make(chan struct{})}
			hs := httptest.NewServer(front)
			defer hs.Close()
			defer close(front.release)
			t.Setenv("FIRECRAWL_API_URL", hs.URL)
			t.Setenv("FIRECRAWL_API_KEY", srv.Key)
			ctx, cancel := context.WithCancelCause(context.Background())
			go func() {
				<-front.arrived
				cancel(errInterrupted)
			}()
			var out, errOut strings.Builder
			code := execute(ctx, c.args, strings.NewReader(""), &out, &errOut, poller.Retry{})
			if code != ExitInterrupted || strings.Contains(errOut.String(), "context canceled") {
				t.Errorf("exit %d, want %d\n%s", code, ExitInterrupted, errOut.String())
			}
			// A start interrupted after its request went out may have
			// started what it asked for: that is said.
			switch c.args[0] {
			case "run", "crawl", "interact":
				if !strings.Contains(errOut.String(), "may have started") && !strings.Contains(errOut.String(), "may be open") {
					t.Errorf("an interrupted start says nothing of what it may have started:\n%s", errOut.String())
				}
			}
		})
	}
}
