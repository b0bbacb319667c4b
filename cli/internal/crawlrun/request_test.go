package crawlrun

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/poller"
)

// A preview's options become a v2 crawl body: its maxDepth (v1) and the
// options it left unset are not sent, nor the prompt.
func TestPreviewRequest(t *testing.T) {
	p := &poller.CrawlPreview{Options: []poller.PreviewOption{
		{Name: "includePaths", Value: jsontext.Value(`["^/blog/.*"]`)},
		{Name: "maxDepth", Value: jsontext.Value(`2`)},
		{Name: "maxDiscoveryDepth", Value: jsontext.Value(`2`)},
		{Name: "limit", Value: jsontext.Value(`null`)},
		{Name: "prompt", Value: jsontext.Value(`"the blog"`)},
	}}
	r, err := PreviewRequest("https://example.com", p)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"url":"https://example.com","includePaths":["^/blog/.*"],"maxDiscoveryDepth":2,"integration":"firewatch"}`
	if got := string(r.Body()); got != want {
		t.Fatalf("body %s\nwant %s", got, want)
	}
	p.Options = append(p.Options, poller.PreviewOption{Name: "limit", Value: jsontext.Value(`"ten"`)})
	if _, err := PreviewRequest("https://example.com", p); err == nil || !strings.Contains(err.Error(), "cannot be sent as a crawl") {
		t.Fatalf("a limit that is not a number: err %v", err)
	}
}

// A crawl watched by its id takes none of a start's flags; the numbers
// given are bounded, the ones not given are not checked.
func TestCheck(t *testing.T) {
	given := func(names ...string) func(string) bool {
		return func(n string) bool { return strings.Contains(" "+strings.Join(names, " ")+" ", " "+n+" ") }
	}
	for _, tc := range []struct {
		o       Options
		changed func(string) bool
		isID    bool
		want    string // "" for none
	}{
		{Options{Limit: 3}, given("limit"), true, "--limit is for starting a crawl"},
		{Options{}, given("detach"), true, "--detach is for starting a crawl"},
		{Options{Limit: 3}, given("limit"), false, ""},
		{Options{Limit: 0}, given("limit"), false, "--limit 0: it must be at least 1"},
		{Options{Limit: 0}, given(), false, ""},
		{Options{MaxDiscoveryDepth: -1}, given("max-discovery-depth"), false, "at least 0"},
		{Options{Sitemap: "never"}, given("sitemap"), false, "only, skip or include"},
	} {
		err := tc.o.Check(tc.changed, tc.isID)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v (id %v): err %v, want %q", tc.o, tc.isID, err, tc.want)
		}
	}
}
