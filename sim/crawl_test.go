package sim

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/go-json-experiment/json"
)

func TestCrawlStartValidation(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{RateLimit: -1})
	c := newClient(s)
	for _, tc := range []struct {
		body, want string
		status     int
	}{
		{`{"url":"https://example.com","maxDepth":2}`, "use maxDiscoveryDepth", 400},
		{`{"url":"https://example.com","ignoreSitemap":true}`, "use sitemap", 400},
		{`{"url":"https://example.com","allowBackwardLinks":true}`, "use crawlEntireDomain", 400},
		{`{"url":"https://example.com","bogus":1}`, "Unrecognized key in body: bogus", 400},
		{`{"url":"ftp://example.com"}`, "invalid URL", 400},
		{`{"url":"https://example.com","sitemap":"maybe"}`, "sitemap must be", 400},
		{`{"url":"https://example.com","includePaths":["(("]}`, "invalid regular expression", 400},
		{`{"url":"https://example.com","scrapeOptions":{"parsePDF":true}}`, "parsePDF", 400},
		{`{"url":"https://example.com","integration":"cli","origin":"js-sdk@4","limit":5}`, "", 200},
	} {
		st, m := c.post(t, "POST", "/v2/crawl", tc.body)
		if st != tc.status {
			t.Errorf("%s: status %d, want %d (%v)", tc.body, st, tc.status, m)
			continue
		}
		if msg, _ := m["error"].(string); !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q, want it to say %q", tc.body, msg, tc.want)
		}
		if st == 200 && !validUUID(m["id"].(string)) {
			t.Errorf("no id: %v", m)
		}
	}
}

type crawlStatusBody struct {
	Status      string           `json:"status"`
	Completed   int              `json:"completed"`
	Total       int              `json:"total"`
	CreditsUsed int              `json:"creditsUsed"`
	Next        string           `json:"next"`
	Data        []map[string]any `json:"data"`
}

func TestCrawlProgressPagesErrorsCancel(t *testing.T) {
	t.Parallel()
	var clk manualClock
	s := startSim(t, Options{RateLimit: -1, Speed: 1, CrawlPageDocs: 7, elapsed: clk.elapsed})
	c := newClient(s)
	_, m := c.post(t, "POST", "/v2/crawl", `{"url":"https://example.com"}`)
	id := m["id"].(string)
	get := func(path string) crawlStatusBody {
		t.Helper()
		r := c.must(t, "GET", path)
		var b crawlStatusBody
		if err := json.Unmarshal(r.body, &b); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return b
	}
	if b := get("/v2/crawl/" + id); b.Status != "scraping" || b.Completed != 0 || len(b.Data) != 0 {
		t.Fatalf("at start: %+v", b)
	}
	clk.advance(10*time.Second, 1) // 25 pages settled
	b := get("/v2/crawl/" + id)
	if b.Status != "scraping" || b.Completed != 25 || b.Total <= b.Completed || len(b.Data) != 7 || b.Next == "" {
		t.Fatalf("after 10 s: %+v", b)
	}
	// Follow next to the end: every document once, in order.
	seen := map[string]bool{}
	n := 0
	for path := "/v2/crawl/" + id; ; {
		b := get(path)
		for _, d := range b.Data {
			u := d["metadata"].(map[string]any)["url"].(string)
			if seen[u] {
				t.Fatalf("document %s twice", u)
			}
			seen[u] = true
			n++
		}
		if b.Next == "" {
			break
		}
		path = strings.TrimPrefix(b.Next, s.URL)
	}
	var e struct {
		Errors []struct {
			ID, URL, Error string
		} `json:"errors"`
		RobotsBlocked []string `json:"robotsBlocked"`
	}
	_ = json.Unmarshal(c.must(t, "GET", "/v2/crawl/"+id+"/errors").body, &e)
	if n+len(e.Errors) != 25 || len(e.Errors) == 0 || len(e.RobotsBlocked) < 2 {
		t.Fatalf("documents %d + errors %d != 25 settled; robots %v", n, len(e.Errors), e.RobotsBlocked)
	}
	if st, m := c.post(t, "DELETE", "/v2/crawl/"+id, ""); st != 200 || m["status"] != "cancelled" {
		t.Fatalf("cancel: %d %v", st, m)
	}
	clk.advance(time.Minute, 1)
	if b := get("/v2/crawl/" + id); b.Status != "cancelled" || b.Completed != 25 {
		t.Fatalf("after cancel: %+v", b)
	}
}

func TestCrawlSocket(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	var mu sync.Mutex
	// Held until the socket has caught up, so that documents follow.
	s := startSim(t, Options{RateLimit: -1, Speed: 100, CrawlPages: 30, Held: true, Log: writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return log.Write(p)
	})})
	c := newClient(s)
	_, m := c.post(t, "POST", "/v2/crawl", `{"url":"https://example.com/"}`)
	id := m["id"].(string)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(s.URL, "http")+"/v2/crawl/"+id, &websocket.DialOptions{Subprotocols: []string{"fc-wrong"}}); err == nil {
		t.Fatal("a wrong key opened the socket")
	}
	ws, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(s.URL, "http")+"/v2/crawl/"+id, &websocket.DialOptions{Subprotocols: []string{s.Key}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	if resp.Header.Get("Sec-WebSocket-Protocol") != s.Key {
		t.Fatal("the key was not taken as the subprotocol")
	}
	ws.SetReadLimit(1 << 24) // a catchup holds every document so far
	types := map[string]int{}
	docs := map[string]bool{}
	for {
		_, b, err := ws.Read(ctx)
		if err != nil {
			break
		}
		s.Release()
		var msg struct {
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal(b, &msg); err != nil {
			t.Fatal(err)
		}
		types[msg.Type]++
		switch msg.Type {
		case "catchup":
			for _, d := range msg.Data["data"].([]any) {
				docs[d.(map[string]any)["metadata"].(map[string]any)["url"].(string)] = true
			}
		case "document":
			u := msg.Data["metadata"].(map[string]any)["url"].(string)
			if docs[u] {
				t.Fatalf("document %s twice", u)
			}
			docs[u] = true
		}
		if msg.Type == "done" {
			break
		}
	}
	if types["catchup"] != 1 || types["done"] != 1 || types["document"] == 0 {
		t.Fatalf("messages %v", types)
	}
	var e struct {
		Errors []any `json:"errors"`
	}
	_ = json.Unmarshal(c.must(t, "GET", "/v2/crawl/"+id+"/errors").body, &e)
	// 30 planned: /login, /signup and the 17th are blocked, the failures are errors.
	if len(docs)+len(e.Errors) != 27 {
		t.Fatalf("%d documents + %d errors, want 27", len(docs), len(e.Errors))
	}
	ws.CloseNow()
	s.Close()
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(log.String(), "WS /v2/crawl/"+id) || strings.Contains(log.String(), s.Key) {
		t.Fatalf("log:\n%s", log.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
