package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/go-json-experiment/json"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
)

// 10 001 pages whose URLs share their first 150 bytes, one URL twice, and a
// file already where a page would go: every page gets a file of its own
// (a short hash of its URL tells them apart), none is written over, and
// the index maps each URL to its file. (The names were cut at 120 bytes
// and numbered -2 to -9999: the 10 000th page stopped the watch.)
func TestCrawlPagesDirNames(t *testing.T) {
	if raceDetector {
		t.Skip("10 001 files under the race detector take a quarter of a minute: .ci/run runs this test without it")
	}
	t.Parallel()
	dir := t.TempDir()
	prefix := "https://docs.example.com/" + strings.Repeat("a-long-section-name/", 7)
	if err := os.WriteFile(filepath.Join(dir, pageName(prefix+"0")+".md"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	const key = "fc-0123456789abcdef0123456789abcdef"
	p, err := newPageWriter(dir, text.NewSecrets(key))
	if err != nil {
		t.Fatal(err)
	}
	const n = 10001
	for i := range n {
		if err := p.write(&poller.CrawlDoc{URL: fmt.Sprint(prefix, i), Markdown: fmt.Sprint("page ", i, " ", key)}); err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
	}
	if err := p.write(&poller.CrawlDoc{URL: prefix + "7", Markdown: "page 7 again"}); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, pageName(prefix+"0")+".md")); string(b) != "mine" {
		t.Fatalf("a file already there was written over: %q", b)
	}
	index, err := os.ReadFile(filepath.Join(dir, pagesIndex))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(index)), "\n")
	if len(lines) != n+1 {
		t.Fatalf("%d index lines for %d pages", len(lines), n+1)
	}
	files := map[string]bool{}
	for i, l := range lines {
		var e struct {
			URL  string `json:"url"`
			File string `json:"file"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil || files[e.File] || len(e.File) > 120 {
			t.Fatalf("index line %d %s: %v", i, l, err)
		}
		files[e.File] = true
		b, err := os.ReadFile(filepath.Join(dir, e.File))
		want := "page " + strings.TrimPrefix(e.URL, prefix) + " "
		if i == n {
			want = "page 7 again"
		}
		if err != nil || !strings.HasPrefix(string(b), want) || strings.Contains(string(b), key) {
			t.Fatalf("%s holds %q (%v), want %q and no key", e.File, b, err, want)
		}
	}
}

// Every output is checked before the crawl is started (and billed): a
// --pages-dir that is a file, a --summary in no folder, a --save-dir that
// is not one, the screen asked for without a terminal. Exit 2, nothing
// sent.
func TestCrawlOutputsCheckedBeforeStart(t *testing.T) {
	srv := crawlSim(t, sim.Options{})
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--pages-dir", file}, "it is a file, not a folder"},
		{[]string{"--pages-dir", filepath.Join(file, "pages")}, "is a file, not a folder"},
		{[]string{"--summary", filepath.Join(dir, "none", "s.json")}, "--summary"},
		{[]string{"--save-dir", file}, "--save-dir"},
		{[]string{"-o", "tui"}, "needs a terminal"},
	} {
		args := append([]string{"crawl", "https://example.com", "-o", "plain"}, tc.args...)
		_, errOut, code := run(t, context.Background(), args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	if n := srv.Stats().ByRoute["POST crawl"]; n != 0 {
		t.Fatalf("%d crawls started", n)
	}
	// A folder still to be made is fine: it is made when the first page comes.
	pages := filepath.Join(dir, "new", "pages")
	if _, errOut, code := run(t, context.Background(), "crawl", "https://example.com", "-o", "plain", "--pages-dir", pages, "--timeout", "200ms"); code != ExitTimeout {
		t.Fatalf("a new --pages-dir: exit %d, %s", code, errOut)
	}
}

// fakeCrawlService answers a crawl's status with completed of total and
// the documents given, its errors with none, and a socket (when socketDone
// is set) that sends a catchup of every document and a done message
// without figures.
func fakeCrawlService(t *testing.T, completed int, docs int, socketDone bool) *httptest.Server {
	t.Helper()
	var ds []string
	for i := range docs {
		ds = append(ds, fmt.Sprintf(`{"markdown":"# %d","metadata":{"title":"T%d","url":"https://e.com/%d","statusCode":200,"scrapeId":"s%d"}}`, i, i, i, i))
	}
	data := "[" + strings.Join(ds, ",") + "]"
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.EqualFold(r.Header.Get("Upgrade"), "websocket") && socketDone:
			c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: websocketProtocols(r)})
			if err != nil {
				return
			}
			defer c.CloseNow()
			_ = c.Write(r.Context(), websocket.MessageText, []byte(`{"type":"catchup","data":{"status":"scraping","data":`+data+`}}`))
			_ = c.Write(r.Context(), websocket.MessageText, []byte(`{"type":"done"}`))
			c.Close(websocket.StatusNormalClosure, "")
		case strings.HasSuffix(r.URL.Path, "/errors"):
			w.Write([]byte(`{"errors":[],"robotsBlocked":[]}`))
		default:
			body := fmt.Sprintf(`{"success":true,"status":"completed","completed":%d,"total":%d,"creditsUsed":%d,"data":%s}`, completed, completed, completed, data)
			if r.URL.Query().Get("skip") != "" {
				body = fmt.Sprintf(`{"success":true,"status":"completed","completed":%d,"total":%d,"creditsUsed":%d,"data":[]}`, completed, completed, completed)
			}
			w.Write([]byte(body))
		}
	}))
	t.Cleanup(ts.Close)
	t.Setenv("FIRECRAWL_API_URL", ts.URL)
	t.Setenv("FIRECRAWL_API_KEY", "fc-0123456789abcdef0123456789abcdef")
	return ts
}

func websocketProtocols(r *http.Request) []string {
	return strings.Split(r.Header.Get("Sec-WebSocket-Protocol"), ", ")
}

// The socket's done carries no figures ("completed 0/0"); the status read
// after it has them: the last plain status line has them too. (It stayed
// "completed 0/0" while stderr said 3 pages.)
func TestCrawlLastStatusLineFresh(t *testing.T) {
	fakeCrawlService(t, 3, 3, true)
	out, errOut, code := run(t, context.Background(), "crawl", "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", "-o", "plain")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if last := lines[len(lines)-1]; last != "status completed 3/3 pages, 3 credits (live)" {
		t.Fatalf("last line %q of:\n%s", last, out)
	}
	if !strings.Contains(errOut, "completed: 3 pages, 0 failed") {
		t.Fatalf("stderr %q", errOut)
	}
}

// A crawl that completed 5 pages whose status list holds 3 (and no failed
// page) ends saying 2 pages could not be fetched, and the summary counts
// them. (It ended "completed: 3 pages" as if whole.)
func TestCrawlMissingPagesSaid(t *testing.T) {
	fakeCrawlService(t, 5, 3, false)
	sum := filepath.Join(t.TempDir(), "s.json")
	_, errOut, code := run(t, context.Background(), "crawl", "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", "-o", "plain", "--poll", "--summary", sum)
	if code != ExitOK || !strings.Contains(errOut, "2 pages the crawl completed could not be fetched") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var s struct {
		Pages        int `json:"pages"`
		MissingPages int `json:"missingPages"`
	}
	if b, err := os.ReadFile(sum); err != nil || json.Unmarshal(b, &s) != nil || s.Pages != 3 || s.MissingPages != 2 {
		t.Fatalf("summary %+v, %v", s, err)
	}
}
