package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/firewatch/firewatch/sim"
)

// A request scrape's flags cannot make is bad usage (exit 2), nothing
// sent; a good one is scraped, its id on stderr.
func TestScrapeUsage(t *testing.T) {
	srv := crawlSim(t, sim.Options{})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"a.dev"}, "must start with http"},
		{[]string{"https://a.dev", "--formats", "extract"}, "v1 name; in v2 it is json"},
		{[]string{"https://a.dev", "--wait-for", "60001"}, "0 to 60000"},
		{[]string{"https://a.dev", "--formats", "json"}, "needs --json-prompt"},
	} {
		before := srv.Stats().Requests
		_, errOut, code := run(t, context.Background(), append([]string{"scrape"}, tc.args...)...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
		if srv.Stats().Requests != before {
			t.Errorf("%v: a request was sent", tc.args)
		}
	}
	out, errOut, code := run(t, context.Background(), "scrape", "https://a.dev", "--formats", "markdown,links", "--only-main-content=false")
	if code != ExitOK || !strings.Contains(errOut, "Scrape ID: ") || !strings.Contains(out, "--- links ---") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
