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

	"github.com/firewatch/firewatch/sim"
)

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
