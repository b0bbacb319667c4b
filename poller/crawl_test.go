package poller

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/firewatch/firewatch/sim"
	"github.com/firewatch/firewatch/text"
)

func intp(n int) *int { return &n }

// watchAll watches a crawl and returns the documents delivered, by key.
func watchCrawlAll(t *testing.T, c *Client, id string, o CrawlWatchOptions) (*CrawlStatus, CrawlWatchStats, []CrawlDoc, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var docs []CrawlDoc
	var transports []string
	st, stats, err := c.WatchCrawl(ctx, id, o, func(u CrawlUpdate) {
		if u.Doc != nil {
			docs = append(docs, *u.Doc)
		}
		if u.Transport != "" {
			transports = append(transports, u.Transport+":"+u.Why)
		}
	})
	if err != nil {
		t.Fatalf("WatchCrawl: %v", err)
	}
	keys := map[string]bool{}
	for _, d := range docs {
		if keys[d.Key] {
			t.Fatalf("document %s delivered twice", d.URL)
		}
		keys[d.Key] = true
	}
	return st, stats, docs, transports
}

func TestCrawlStartStatusErrorsCancel(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 1, CrawlPageDocs: 4})
	var logs strings.Builder
	var mu sync.Mutex
	cfg := withKey(srv)
	cfg.Logf = func(f string, a ...any) { mu.Lock(); fmt.Fprintf(&logs, f+"\n", a...); mu.Unlock() }
	c := newClient(t, srv, cfg)
	ctx := context.Background()
	if _, err := c.StartCrawl(ctx, &CrawlRequest{URL: "ftp://x"}); err == nil {
		t.Fatal("an ftp URL was sent")
	}
	started, err := c.StartCrawl(ctx, &CrawlRequest{URL: "https://example.com", Limit: intp(40), Integration: "firewatch"})
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := c.CrawlStatus(ctx, started.ID, 0, nil)
	if err != nil || st.Status != "scraping" || st.Terminal() {
		t.Fatalf("status %+v, %v", st, err)
	}
	if s, err := c.CancelCrawl(ctx, started.ID); err != nil || s != "cancelled" {
		t.Fatalf("cancel: %q %v", s, err)
	}
	st, _, err = c.CrawlStatus(ctx, started.ID, 0, nil)
	if err != nil || st.Status != "cancelled" {
		t.Fatalf("after cancel: %+v %v", st, err)
	}
	if _, err := c.CrawlErrorsOf(ctx, started.ID); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Contains(logs.String(), srv.Key) {
		t.Fatal("the key is in the debug log")
	}
}

func TestCrawlWatchSocketAndPolling(t *testing.T) {
	t.Parallel()
	srv := startSim(t, sim.Options{Speed: 200, CrawlPages: 80, CrawlPageDocs: 6})
	c := newClient(t, srv, withKey(srv))
	ctx := context.Background()
	for _, noSocket := range []bool{false, true} {
		s, err := c.StartCrawl(ctx, &CrawlRequest{URL: "https://example.com"})
		if err != nil {
			t.Fatal(err)
		}
		st, stats, docs, tr := watchCrawlAll(t, c, s.ID, CrawlWatchOptions{Interval: 250 * time.Millisecond, NoSocket: noSocket})
		if st.Status != "completed" {
			t.Fatalf("final %+v", st)
		}
		all, _, err := c.CrawlStatus(ctx, s.ID, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(docs) != len(all.Docs) || len(docs) == 0 {
			t.Fatalf("noSocket %v: %d documents delivered, the crawl has %d", noSocket, len(docs), len(all.Docs))
		}
		// A completed crawl cannot be cancelled: the 409 is an answer.
		_, err = c.CancelCrawl(ctx, s.ID)
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindAlreadyFinished || !strings.Contains(e.Error(), "the crawl is already over") {
			t.Fatalf("cancelling a completed crawl: %v", err)
		}
		if stats.Duplicates != 0 {
			t.Fatalf("noSocket %v: %d documents fetched twice", noSocket, stats.Duplicates)
		}
		want := "live:"
		if noSocket {
			want = "polling:polling was asked for"
		}
		if tr[0] != want {
			t.Fatalf("transports %v", tr)
		}
		// Paging must not make a request per document.
		if noSocket && stats.Requests > len(docs) {
			t.Fatalf("%d requests for %d documents", stats.Requests, len(docs))
		}
	}
}

// fakeCrawl serves a socket that sends a catchup of two documents and
// closes, and a status whose data holds all three from the start
// whatever skip asks (a service that ignores skip), so that the watcher's
// dedup and resume offset both show.
func fakeCrawl(t *testing.T, key string, skips *[]string, mu *sync.Mutex) *httptest.Server {
	doc := func(n int) string {
		return fmt.Sprintf(`{"markdown":"# %d","metadata":{"title":"T%d","url":"https://e.com/%d","sourceURL":"https://e.com/%d","statusCode":200,"scrapeId":"s%d"}}`, n, n, n, n, n)
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{key}})
			if err != nil {
				return
			}
			_ = c.Write(r.Context(), websocket.MessageText, []byte(`{"type":"catchup","data":{"status":"scraping","completed":2,"total":3,"data":[`+doc(1)+","+doc(2)+`]}}`))
			c.CloseNow()
			return
		}
		mu.Lock()
		*skips = append(*skips, r.URL.Query().Get("skip"))
		mu.Unlock()
		w.Write([]byte(`{"success":true,"status":"completed","completed":3,"total":3,"next":"https://evil.example/v2/crawl/x?skip=99","data":[` + doc(1) + "," + doc(2) + "," + doc(3) + `]}`))
	}))
}

func TestCrawlWatchFallsBackAndDeduplicates(t *testing.T) {
	t.Parallel()
	const key = "fc-0123456789abcdef0123456789abcdef"
	var skips []string
	var mu sync.Mutex
	ts := fakeCrawl(t, key, &skips, &mu)
	defer ts.Close()
	c, err := New(Config{BaseURL: ts.URL, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	st, stats, docs, tr := watchCrawlAll(t, c, "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", CrawlWatchOptions{Interval: 250 * time.Millisecond})
	// Two duplicates from the first answer, three from the one asked for
	// after the next link elsewhere (which ignores skip too).
	if st.Status != "completed" || len(docs) != 3 || stats.Duplicates != 5 {
		t.Fatalf("status %q, %d documents, %d duplicates", st.Status, len(docs), stats.Duplicates)
	}
	if len(tr) != 2 || tr[0] != "live:" || !strings.Contains(tr[1], "closed before the crawl ended") {
		t.Fatalf("transports %v", tr)
	}
	mu.Lock()
	defer mu.Unlock()
	// Polling resumed after the two documents the socket brought; the
	// next link to another address was not followed, the rest was asked
	// for at the crawl's own address, and a page with nothing new ended
	// the paging.
	if !slices.Equal(skips, []string{"2", "5"}) {
		t.Fatalf("status requests with skip %q", skips)
	}
}

func TestCrawlSocketRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	const key = "fc-0123456789abcdef0123456789abcdef"
	var leaked atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Add(1)
	}))
	defer other.Close()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "" {
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
			return
		}
		w.Write([]byte(`{"success":true,"status":"completed","completed":0,"total":0,"data":[]}`))
	}))
	defer ts.Close()
	c, err := New(Config{BaseURL: ts.URL, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, tr := watchCrawlAll(t, c, "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", CrawlWatchOptions{Interval: 250 * time.Millisecond})
	if leaked.Load() != 0 {
		t.Fatal("the socket followed a redirect to another address")
	}
	if len(tr) != 1 || !strings.HasPrefix(tr[0], "polling:the WebSocket could not be opened") {
		t.Fatalf("transports %v", tr)
	}
}

// A hostile document in a status answer: its strings are made safe and
// bounded, and the key it echoes is redacted (the client redacts every
// answer) in its fields and in the raw document.
func TestCrawlDocHostile(t *testing.T) {
	t.Parallel()
	const key = "fc-feedfacefeedfacefeedfacefeedface"
	raw := `{"markdown":"x","links":[` + strings.Repeat(`"https://a.example/\u001b[2J",`, 3000) + `"z"],"metadata":{"title":"\u001b]0;pwned\u0007\u202eevil ` + key + " " + strings.Repeat("W", 50000) + `","url":"https://e.com/\u009b31m","statusCode":1e308}}`
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"success":true,"status":"scraping","completed":1,"total":2,"data":[` + raw + `]}`))
	}))
	defer ts.Close()
	c, err := New(Config{BaseURL: ts.URL, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := c.CrawlStatus(context.Background(), "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", 0, nil)
	if err != nil || len(st.Docs) != 1 {
		t.Fatalf("%v, %v", st, err)
	}
	d := st.Docs[0]
	if !text.IsSafe(d.Title) || !text.IsSafe(d.URL) || len([]rune(d.Title)) > crawlTitleMax+1 || strings.Contains(d.Title, key) {
		t.Fatalf("title %q url %q", d.Title[:min(len(d.Title), 80)], d.URL)
	}
	if len(d.Links) != crawlLinksMax || !text.IsSafe(d.Links[0]) || d.StatusCode != 0 {
		t.Fatalf("%d links, status %d", len(d.Links), d.StatusCode)
	}
	if strings.Contains(string(d.Raw), key) {
		t.Fatal("the key is in the raw document")
	}
}

func TestCrawlWSURL(t *testing.T) {
	t.Parallel()
	for base, want := range map[string]string{
		"https://api.firecrawl.dev":    "wss://api.firecrawl.dev/v2/crawl/019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b",
		"http://127.0.0.1:3002/":       "ws://127.0.0.1:3002/v2/crawl/019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b",
		"https://proxy.example/fc/v2/": "wss://proxy.example/fc/v2/crawl/019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b",
	} {
		c, err := New(Config{BaseURL: base, APIKey: "fc-0123456789abcdef0123456789abcdef"})
		if err != nil {
			t.Fatal(err)
		}
		w := &crawlWatch{c: c, id: "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"}
		if got, ok := w.wsURL(); !ok || got != want {
			t.Errorf("%s: %q %v, want %q", base, got, ok, want)
		}
	}
	// Without a key, plain http to another host is allowed by New: the
	// socket is not opened there.
	c, _ := New(Config{BaseURL: "http://example.com"})
	if _, ok := (&crawlWatch{c: c, id: "x"}).wsURL(); ok {
		t.Error("a ws:// socket to a host that is not loopback")
	}
}

// A polling watch waits as the one policy says and reports each wait: a
// 503 is waited out with the backoff's first wait; 429s in a row are each
// waited at least the interval, and after the policy's tries the watch
// ends with the rate-limit error (the CLI exits 6 on it).
func TestCrawlWatchRetries(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/limited") {
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"success":false,"error":"Rate limit exceeded. please retry after 0.01s"}`))
			return
		}
		if n.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(`{"success":true,"status":"completed","completed":0,"total":0,"data":[]}`))
	}))
	defer ts.Close()
	const id = "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"
	var slept []time.Duration
	watch := CrawlWatchOptions{NoSocket: true, Interval: 250 * time.Millisecond, Retry: Retry{Sleep: func(ctx context.Context, d time.Duration) bool {
		slept = append(slept, d)
		return true
	}}}
	var said []string
	sink := func(u CrawlUpdate) {
		if u.Wait != nil {
			said = append(said, u.Wait.String())
		}
	}
	c, _ := New(Config{BaseURL: ts.URL, APIKey: "fc-0123456789abcdef0123456789abcdef"})
	st, _, err := c.WatchCrawl(context.Background(), id, watch, sink)
	if err != nil || st.Status != "completed" || !slices.Equal(slept, []time.Duration{time.Second}) ||
		!slices.Equal(said, []string{"server error 503, retrying in 1.0s (1/4)"}) {
		t.Fatalf("after a 503: %v %v, waited %v, said %q", st, err, slept, said)
	}
	slept, said = nil, nil
	c, _ = New(Config{BaseURL: ts.URL + "/limited", APIKey: "fc-0123456789abcdef0123456789abcdef"})
	_, _, err = c.WatchCrawl(context.Background(), id, watch, sink)
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindRateLimited {
		t.Fatalf("after 429s: %v", err)
	}
	if want := slices.Repeat([]time.Duration{250 * time.Millisecond}, DefaultTries-1); !slices.Equal(slept, want) || len(said) != DefaultTries-1 ||
		said[0] != "rate limited, retrying in 250ms (1/4)" {
		t.Fatalf("after 429s: waited %v, want %v; said %q", slept, want, said)
	}
}
