package crawl

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/firewatch/firewatch/poller"
	"github.com/firewatch/firewatch/sim"
)

// The budgets of the crawl screen (DEVELOPERS.md): with 10 000 pages a
// key costs within 2x of 100 pages, and memory stays within 3.5x of the
// JSON of the pages' metadata. Run:
//
//	go test ./ui/crawl -run '^$' -bench 'Key|Memory' -benchtime 2000x
//
// BenchmarkKey reports ns/op for a key (j, wrapping to the top with g)
// and the frame drawn after it; BenchmarkMemory10k reports
// heap-bytes/metadata-byte while the last page arrives (the watch's
// buffers and dedup set included) and once the watch has ended.

func benchModel(b *testing.B, n int) *Model {
	m, err := New(Config{Service: &fakeService{}, ID: "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b", URL: "https://docs.example.com/"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { m.Close() })
	m.SetSize(120, 40)
	for i := range n {
		m.apply(pageMsg{row{url: fmt.Sprintf("https://docs.example.com/docs/page-%d", i), title: fmt.Sprintf("Docs | Page %d", i), code: 200, size: 20 << 10, kind: kindPage}})
	}
	m.apply(statusMsg{&poller.CrawlStatus{Status: "scraping", Completed: n, Total: n + 10}})
	return m
}

func BenchmarkKey(b *testing.B) {
	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprintf("pages=%d", n), func(b *testing.B) {
			m := benchModel(b, n)
			_ = m.View()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if m.sel == m.shown()-1 {
					press(m, "g")
				} else {
					press(m, "j")
				}
				_ = m.View()
			}
		})
	}
}

// meter wraps the real client: when the last document arrives it
// measures the heap (the watcher's dedup set included) and adds up the
// documents' metadata JSON.
type meter struct {
	*poller.Client
	want     int
	docs     int
	metaJSON int
	heap     uint64
	stats    poller.CrawlWatchStats
}

func (mt *meter) WatchCrawl(ctx context.Context, id string, o poller.CrawlWatchOptions, sink func(poller.CrawlUpdate)) (*poller.CrawlStatus, poller.CrawlWatchStats, error) {
	st, stats, err := mt.Client.WatchCrawl(ctx, id, o, func(u poller.CrawlUpdate) {
		sink(u)
		if u.Doc == nil {
			return
		}
		mt.docs++
		var top map[string]jsontext.Value
		if json.Unmarshal(u.Doc.Raw, &top) == nil {
			mt.metaJSON += len(top["metadata"])
		}
		if mt.docs == mt.want {
			time.Sleep(50 * time.Millisecond) // the screen takes the last pages
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			mt.heap = ms.HeapAlloc
		}
	})
	mt.stats = stats
	return st, stats, err
}

func BenchmarkMemory10k(b *testing.B) {
	const pages = 10000
	for b.Loop() {
		srv, err := sim.Start(context.Background(), sim.Options{RateLimit: -1, Speed: sim.MaxSpeed, CrawlPages: pages * 3 / 2,
			CrawlMarkdownBytes: 20 << 10, CrawlPageDocs: 1000})
		if err != nil {
			b.Fatal(err)
		}
		c, _ := poller.New(poller.Config{BaseURL: srv.URL, APIKey: srv.Key})
		// 1 page in 11 fails: about 10 000 documents.
		id := srv.StartCrawl("https://docs.example.com/", pages*11/10)
		mt := &meter{Client: c}
		n := 0
		if _, _, err := c.CrawlStatus(context.Background(), id, 0, func(*poller.CrawlDoc) { n++ }); err != nil {
			b.Fatal(err)
		}
		mt.want = n
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		m, err := New(Config{Service: mt, ID: id, NoColor: true, Watch: poller.CrawlWatchOptions{NoSocket: true, Interval: 250 * time.Millisecond}})
		if err != nil {
			b.Fatal(err)
		}
		m.SetSize(120, 40)
		drive(b, m, m.Init())
		if len(m.rows) < n {
			b.Fatalf("%d rows of %d pages", len(m.rows), n)
		}
		heap := int64(mt.heap) - int64(before.HeapAlloc)
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(heap)/float64(mt.metaJSON), "heap-bytes/metadata-byte")
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(mt.metaJSON), "heap-after-end/metadata-byte")
		b.ReportMetric(float64(mt.metaJSON)/float64(n), "metadata-bytes/page")
		b.ReportMetric(float64(heap)/float64(n), "heap-bytes/page")
		b.ReportMetric(float64(n), "pages")
		b.ReportMetric(float64(mt.stats.Requests), "poll-requests")
		b.ReportMetric(float64(mt.stats.Duplicates), "docs-fetched-twice")
		runtime.KeepAlive(m)
		m.Close()
		srv.Close()
	}
}
