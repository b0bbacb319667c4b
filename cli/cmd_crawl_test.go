package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/cli/internal/crawlprint"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
	uicrawl "github.com/firewatch/firewatch/ui/crawl"
)

func crawlSim(t *testing.T, o sim.Options) *sim.Server {
	t.Helper()
	o.RateLimit = -1
	srv, err := sim.Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	t.Setenv("FIRECRAWL_API_URL", srv.URL)
	t.Setenv("FIRECRAWL_API_KEY", srv.Key)
	return srv
}

// Usage errors are refused before anything is sent (exit 2).
func TestCrawlUsage(t *testing.T) {
	srv := crawlSim(t, sim.Options{})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"crawl", "https://a.dev", "--max-depth", "2"}, "use --max-discovery-depth"},
		{[]string{"crawl", "https://a.dev", "--ignore-sitemap"}, "use --sitemap skip"},
		{[]string{"crawl", "https://a.dev", "--allow-backward-links"}, "use --crawl-entire-domain"},
		{[]string{"crawl", "a.dev"}, "neither a crawl id"},
		{[]string{"crawl", "https://a.dev", "--sitemap", "never"}, "only, skip or include"},
		{[]string{"crawl", "https://a.dev", "--cancel"}, "--cancel needs a crawl id"},
		{[]string{"crawl", "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", "--limit", "3"}, "give a URL"},
		{[]string{"crawl", "https://a.dev", "--scrape-options", `{"parsePDF":true}`}, "v1 leftovers"},
		{[]string{"crawl", "https://a.dev", "--scrape-options", `[1]`}, "neither a JSON object nor a readable file"},
	} {
		before := srv.Stats().Requests
		_, errOut, code := run(t, context.Background(), tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
		if srv.Stats().Requests != before {
			t.Errorf("%v: a request was sent", tc.args)
		}
	}
}

var startedRe = regexp.MustCompile(`firewatch: started crawl ([0-9a-f-]{36})`)

// A crawl watched to its end as NDJSON, with --summary and --pages-dir.
func TestCrawlJSONSummaryPages(t *testing.T) {
	srv := crawlSim(t, sim.Options{Speed: 100, CrawlPages: 40})
	dir := t.TempDir()
	sum := filepath.Join(dir, "s.json")
	pages := filepath.Join(dir, "pages")
	out, errOut, code := run(t, context.Background(), "crawl", "https://example.com", "--limit", "30", "-o", "json",
		"--summary", sum, "--pages-dir", pages, "--interval", "250ms")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	m := startedRe.FindStringSubmatch(errOut)
	if m == nil {
		t.Fatalf("no crawl id on stderr: %s", errOut)
	}
	docs, statuses := 0, 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("not JSON: %s", l)
		}
		switch v["type"] {
		case "document":
			docs++
			if _, ok := v["document"].(map[string]any)["metadata"]; !ok {
				t.Fatalf("document without metadata: %s", l)
			}
		case "status":
			statuses++
			for _, k := range []string{"id", "status", "completed", "total", "creditsUsed", "expiresAt", "transport"} {
				if _, ok := v[k]; !ok {
					t.Fatalf("status line without %s: %s", k, l)
				}
			}
		default:
			t.Fatalf("unknown line %s", l)
		}
	}
	if strings.Contains(out+errOut, srv.Key) {
		t.Fatal("the key is in the output")
	}
	var s struct {
		ID            string  `json:"id"`
		Status        string  `json:"status"`
		Completed     int     `json:"completed"`
		Total         int     `json:"total"`
		Pages         int     `json:"pages"`
		FailedPages   int     `json:"failedPages"`
		RobotsBlocked int     `json:"robotsBlocked"`
		MissingPages  int     `json:"missingPages"`
		CreditsUsed   float64 `json:"creditsUsed"`
		DurationMs    int64   `json:"durationMs"`
	}
	b, err := os.ReadFile(sum)
	if err != nil || json.Unmarshal(b, &s) != nil {
		t.Fatalf("summary %s: %v", b, err)
	}
	if s.ID != m[1] || s.Status != "completed" || s.Pages != docs || s.Pages+s.FailedPages != s.Completed || s.RobotsBlocked == 0 || statuses == 0 {
		t.Fatalf("summary %+v, %d documents", s, docs)
	}
	if s.MissingPages != 0 {
		t.Fatalf("summary %+v: pages missing", s)
	}
	// A file a page, and the index names each one with its URL.
	files, _ := os.ReadDir(pages)
	if len(files) != docs+1 {
		t.Fatalf("%d files for %d pages and the index", len(files), docs)
	}
	index, err := os.ReadFile(filepath.Join(pages, crawlprint.PagesIndex))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(index)), "\n")
	if len(lines) != docs {
		t.Fatalf("%d index lines for %d pages", len(lines), docs)
	}
	for _, l := range lines {
		var e struct {
			URL  string `json:"url"`
			File string `json:"file"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil || !strings.HasPrefix(e.URL, "https://example.com") {
			t.Fatalf("index line %s: %v", l, err)
		}
		if _, err := os.Stat(filepath.Join(pages, e.File)); err != nil {
			t.Fatalf("index line %s: %v", l, err)
		}
	}
}

// --detach prints the id on stdout; when stdout fails the id is still on
// stderr and the exit is 8.
func TestCrawlDetach(t *testing.T) {
	crawlSim(t, sim.Options{})
	out, errOut, code := run(t, context.Background(), "crawl", "https://example.com", "--detach")
	m := startedRe.FindStringSubmatch(errOut)
	if code != ExitOK || m == nil || strings.TrimSpace(out) != m[1] {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	var errBuf bytes.Buffer
	code = Execute(context.Background(), []string{"crawl", "https://example.com", "--detach"}, strings.NewReader(""), failWriter{}, &errBuf)
	if code != ExitOutput || startedRe.FindStringSubmatch(errBuf.String()) == nil {
		t.Fatalf("failing stdout: exit %d, stderr %q", code, errBuf.String())
	}
	// Watching, the same: the id on stderr, exit 8 once stdout fails.
	errBuf.Reset()
	code = Execute(context.Background(), []string{"crawl", "https://example.com", "-o", "plain"}, strings.NewReader(""), failWriter{}, &errBuf)
	if code != ExitOutput || startedRe.FindStringSubmatch(errBuf.String()) == nil {
		t.Fatalf("failing stdout while watching: exit %d, stderr %q", code, errBuf.String())
	}
	// Cancel, then watching it exits 3; an unknown crawl exits 6.
	if _, e, code := run(t, context.Background(), "crawl", m[1], "--cancel"); code != ExitOK {
		t.Fatalf("cancel: exit %d %s", code, e)
	}
	if _, e, code := run(t, context.Background(), "crawl", m[1], "-o", "plain"); code != ExitCancelled {
		t.Fatalf("watching a cancelled crawl: exit %d %s", code, e)
	}
	if _, e, code := run(t, context.Background(), "crawl", "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", "-o", "plain", "--poll"); code != ExitRejected {
		t.Fatalf("unknown crawl: exit %d %s", code, e)
	}
	// --timeout: exit 7 while the crawl goes on.
	if _, e, code := run(t, context.Background(), "crawl", "https://example.com", "-o", "plain", "--timeout", "300ms"); code != ExitTimeout {
		t.Fatalf("--timeout: exit %d %s", code, e)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

func TestPageFileName(t *testing.T) {
	for in, want := range map[string]string{
		"https://example.com/":             "example.com",
		"https://example.com/docs/a b?x=1": "example.com_docs_a_20b_x_1",
		"https://e.com/../../etc/passwd":   "e.com_etc_passwd",
		"https://e.com/\x1b[2J\u202e":      "https_e.com_2J",
		"..":                               "index",
		"":                                 "index",
		"https://e.com/" + strings.Repeat("a", 500): "e.com_" + strings.Repeat("a", 114),
	} {
		got := uicrawl.PageFileName(in)
		if got != want {
			t.Errorf("PageFileName(%q) = %q, want %q", in, got, want)
		}
		if strings.ContainsAny(got, "/\\") || strings.HasPrefix(got, ".") || len(got) > 120 {
			t.Errorf("unsafe name %q", got)
		}
	}
	dir := t.TempDir()
	const key = "fc-0123456789abcdef0123456789abcdef"
	p1, _ := uicrawl.SavePage(dir, "https://e.com/a", ".md", "one "+key, text.NewSecrets(key))
	p2, _ := uicrawl.SavePage(dir, "https://e.com/a", ".md", "two", nil)
	if filepath.Base(p1) != "e.com_a.md" || filepath.Base(p2) != "e.com_a-2.md" {
		t.Fatalf("collision names %s %s", p1, p2)
	}
	if b, err := os.ReadFile(p1); err != nil || strings.Contains(string(b), key) || !strings.HasPrefix(string(b), "one ") {
		t.Fatalf("saved %q, %v: the key must be redacted", b, err)
	}
}

// crawl-preview --start sends the previewed options as a v2 crawl (the
// simulator refuses maxDepth and unknown keys, so a start proves the body);
// without --start and with stdin not a terminal nothing is asked or sent.
func TestCrawlPreviewStart(t *testing.T) {
	srv := crawlSim(t, sim.Options{})
	_, errOut, code := run(t, context.Background(), "crawl-preview", "https://example.com", "the blog, 2 levels deep, 30 pages", "--start")
	if code != ExitOK || startedRe.FindStringSubmatch(errOut) == nil {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	before := srv.Stats().ByRoute["POST crawl"]
	_, errOut, code = run(t, context.Background(), "crawl-preview", "https://example.com", "the blog")
	if code != ExitOK || strings.Contains(errOut, "Start this crawl") || srv.Stats().ByRoute["POST crawl"] != before {
		t.Fatalf("without --start: exit %d, stderr %q", code, errOut)
	}
}
