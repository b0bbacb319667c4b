package poller

import (
	"bytes"
	"strings"
	"testing"

	"github.com/firewatch/firewatch/text"
)

// FuzzCrawlSocket feeds any sequence of WebSocket messages (split at
// 0x1e) to the crawl watch's socket handling: nothing panics, every
// document is delivered once with its strings safe and bounded and the
// key nowhere in it, the position polling would resume at never passes the
// documents delivered, every status is safe, and the reading stops only at
// a message that ends the crawl or sends it to polling, said safely.
func FuzzCrawlSocket(f *testing.F) {
	const key = "fc-fuzzkey0123456789abcdef012345"
	doc := `{"markdown":"# x","links":["https://e.com/\u001b[2J"],"metadata":{"title":"T\u202e","url":"https://e.com/1","sourceURL":"https://e.com/1","statusCode":200,"scrapeId":"s1"}}`
	f.Add([]byte(`{"type":"catchup","data":{"status":"scraping","completed":1,"total":3,"data":[` + doc + `]}}` + "\x1e" +
		`{"type":"document","data":` + doc + `}` + "\x1e" + `{"type":"done","data":{"status":"completed","completed":3,"total":3}}`))
	f.Add([]byte(`{"type":"document","data":{"metadata":{"url":"` + key + `","title":"\u009b31m` + key + `"}}}` + "\x1e" + `{"type":"error","error":"bad ` + key + ` \u001b]0;x\u0007"}`))
	f.Add([]byte(`{"type":"progress","data":{"status":"cancelled","completed":-1,"total":1e308}}`))
	f.Add([]byte(`{"type":"catchup","data":{"status":"\u202ecompleted","data":[1,"x",null,{},{"metadata":"no"}]}}`))
	f.Add([]byte(`{"type":"done"}` + "\x1e" + `[[[[`))
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := New(Config{BaseURL: "https://api.firecrawl.dev", APIKey: key})
		if err != nil {
			t.Fatal(err)
		}
		keys := map[string]bool{}
		w := &crawlWatch{c: c, id: "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", seen: map[string]struct{}{}, pager: &crawlPager{}}
		w.sink = func(u CrawlUpdate) {
			if d := u.Doc; d != nil {
				if keys[d.Key] {
					t.Fatalf("document %q delivered twice", d.Key)
				}
				keys[d.Key] = true
				for _, s := range append([]string{d.URL, d.Title, d.Error}, d.Links...) {
					if !text.IsSafe(s) || strings.Contains(s, key) {
						t.Fatalf("document string %q", s)
					}
				}
				if len([]rune(d.Title)) > crawlTitleMax+1 || len([]rune(d.URL)) > crawlURLMax+1 || len(d.Links) > crawlLinksMax {
					t.Fatalf("unbounded document: title %d, url %d, %d links", len(d.Title), len(d.URL), len(d.Links))
				}
				if bytes.Contains(d.Raw, []byte(key)) {
					t.Fatal("the key is in a document's JSON")
				}
			}
			if s := u.Status; s != nil {
				if !text.IsSafe(s.Status) || s.Completed < 0 || s.Total < 0 || s.CreditsUsed != nil && !(*s.CreditsUsed >= 0) {
					t.Fatalf("status %+v", s)
				}
			}
		}
		msgs := bytes.Split(in, []byte{0x1e})
		for i, m := range msgs {
			final, why := w.message(m)
			if w.resume != len(w.seen) || w.stats.Docs != len(keys) {
				t.Fatalf("resume %d with %d documents held, %d delivered", w.resume, len(w.seen), len(keys))
			}
			if why != "" && (!text.IsSafe(why) || strings.Contains(why, key)) {
				t.Fatalf("why %q", why)
			}
			if final != nil || why != "" {
				if final != nil && !final.Terminal() && !bytes.Contains(m, []byte(`"done"`)) {
					t.Fatalf("message %d ended the reading with %q: %s", i, final.Status, m)
				}
				return
			}
		}
	})
}
