package poller

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// TestCrawlNextPagingEnds: following a crawl's next links ends like every
// pager's paging: at a page that brings no document not seen before (a
// server that sends the same page with a moving skip), and past the
// documents the crawl's total says there are, even when every page brings
// new ones.
func TestCrawlNextPagingEnds(t *testing.T) {
	t.Parallel()
	const id = "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"
	for _, c := range []struct {
		name     string
		distinct bool
		total    int
		max      int64 // requests at most
		docs     int   // documents handed over at least
	}{
		{"same page again", false, 0, 2, 3},
		{"endless distinct, total 250", true, 250, 4, 250},
	} {
		t.Run(c.name, func(t *testing.T) {
			var requests atomic.Int64
			var ts *httptest.Server
			ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := requests.Add(1)
				if n > 1000 {
					http.Error(w, "enough", http.StatusGone)
					return
				}
				skip, _ := strconv.Atoi(r.URL.Query().Get("skip"))
				per := 3
				if c.distinct {
					per = crawlPageLimit
				}
				var docs []string
				for i := range per {
					k := i
					if c.distinct {
						k = skip + i
					}
					docs = append(docs, fmt.Sprintf(`{"markdown":"x","metadata":{"url":"https://a.example/%d","statusCode":200}}`, k))
				}
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"success":true,"status":"scraping","completed":%d,"total":%d,"next":"%s/v2/crawl/%s?skip=%d","data":[%s]}`,
					c.total, c.total, ts.URL, id, skip+per, strings.Join(docs, ","))
			}))
			defer ts.Close()
			cl, err := New(Config{BaseURL: ts.URL, APIKey: "fc-0123456789abcdef0123456789abcdef"})
			if err != nil {
				t.Fatal(err)
			}
			handed := 0
			_, n, err := cl.CrawlStatus(context.Background(), id, 0, func(*CrawlDoc) { handed++ })
			if err != nil || int64(n) > c.max || requests.Load() > c.max || handed < c.docs {
				t.Fatalf("err %v, %d requests (at most %d), %d documents (at least %d)", err, requests.Load(), c.max, handed, c.docs)
			}
		})
	}
}
