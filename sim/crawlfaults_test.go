package sim

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/go-json-experiment/json"
)

// The socket's order under CrawlFaultResend and CrawlFaultReorder: each
// document again after the next one; swapped pairs, the last one alone
// once the crawl is over.
func TestSocketPlan(t *testing.T) {
	t.Parallel()
	p := socketPlan{resend: true, last: -1}
	if got := append(p.take(2, false), p.take(4, false)...); !slices.Equal(got, []int{0, 1, 0, 2, 1, 3, 2}) {
		t.Fatalf("resend: %v", got)
	}
	p = socketPlan{reorder: true, last: -1}
	got := p.take(3, false)
	if !slices.Equal(got, []int{1, 0}) {
		t.Fatalf("reorder while scraping: %v", got)
	}
	if got = p.take(3, true); !slices.Equal(got, []int{2}) {
		t.Fatalf("reorder at the end: %v", got)
	}
	if err := checkCrawlFaults([]string{"socket-bogus"}); err == nil || !strings.Contains(err.Error(), CrawlFaultSilent) {
		t.Fatalf("an unknown fault: %v", err)
	}
}

// socketTypes reads the socket until it closes or ctx ends: the
// messages' types in order, and the documents' URLs in order.
func socketTypes(ctx context.Context, t *testing.T, s *Server, id string) (types, urls []string, closed bool) {
	t.Helper()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(s.URL, "http")+"/v2/crawl/"+id, &websocket.DialOptions{Subprotocols: []string{s.Key}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	ws.SetReadLimit(1 << 24) // a catchup holds every document so far
	for {
		_, b, err := ws.Read(ctx)
		if err != nil {
			return types, urls, ctx.Err() == nil
		}
		// A server held until now (Options.Held) starts the crawl once
		// the socket has caught up, however late the test got here.
		s.Release()
		var msg struct {
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal(b, &msg); err != nil {
			t.Fatal(err)
		}
		types = append(types, msg.Type)
		if msg.Type == "document" {
			urls = append(urls, msg.Data["metadata"].(map[string]any)["url"].(string))
		}
	}
}

// CrawlFaultDrop closes the socket early without done; CrawlFaultSilent
// sends every document and then nothing, while the status says completed.
func TestCrawlFaultSocket(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fault      string
		wantClosed bool
	}{{CrawlFaultDrop, true}, {CrawlFaultSilent, false}} {
		t.Run(tc.fault, func(t *testing.T) {
			s := startSim(t, Options{RateLimit: -1, Speed: 200, CrawlPages: 30, CrawlFaults: []string{tc.fault}, Held: true})
			id := s.StartCrawl("https://example.com/", 0)
			// The crawl is over in about 60 ms: a second is plenty for
			// the silent socket to have said everything it will say.
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			types, urls, closed := socketTypes(ctx, t, s, id)
			if closed != tc.wantClosed || slices.Contains(types, "done") {
				t.Fatalf("closed %v, messages %v", closed, types)
			}
			var st crawlStatusBody
			for i := 0; st.Status != "completed" && i < 100; i++ {
				_ = json.Unmarshal(newClient(s).must(t, "GET", "/v2/crawl/"+id+"?limit=1000").body, &st)
				time.Sleep(10 * time.Millisecond)
			}
			switch tc.fault {
			case CrawlFaultDrop:
				if len(urls) != 30/4|1 || len(st.Data) <= len(urls) {
					t.Fatalf("%d documents before the drop, %d in the crawl", len(urls), len(st.Data))
				}
			case CrawlFaultSilent:
				if st.Status != "completed" || len(urls) == 0 {
					t.Fatalf("status %+v, %d documents", st, len(urls))
				}
			}
		})
	}
}

// CrawlFaultForeignNext names another origin in next; CrawlFaultUnbounded
// carries every document asked for, however large the answer.
func TestCrawlFaultStatus(t *testing.T) {
	t.Parallel()
	s := startSim(t, Options{RateLimit: -1, Speed: 1000, CrawlPages: 30, CrawlPageDocs: 100, CrawlMarkdownBytes: 1 << 20,
		CrawlFaults: []string{CrawlFaultForeignNext, CrawlFaultUnbounded}})
	id := s.StartCrawl("https://example.com/", 0)
	c := newClient(s)
	var st crawlStatusBody
	for i := 0; st.Status != "completed" && i < 100; i++ {
		time.Sleep(20 * time.Millisecond)
		_ = json.Unmarshal(c.must(t, "GET", "/v2/crawl/"+id+"?skip=100000").body, &st)
	}
	r := c.must(t, "GET", "/v2/crawl/"+id+"?limit=6")
	if err := json.Unmarshal(r.body, &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Data) != 6 || len(r.body) < 6<<20 || !strings.HasPrefix(st.Next, foreignOrigin+"/v2/crawl/"+id+"?skip=6") {
		t.Fatalf("%d documents in %d bytes, next %q", len(st.Data), len(r.body), st.Next)
	}
}
