package poller

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/firewatch/firewatch/sim"
)

// crawlFaultWatch starts a crawl on a simulator with faults and watches it
// to its end; it returns the final status, the stats, the documents'
// keys delivered, the transports, and the keys the crawl's status list
// holds once it is over.
func crawlFaultWatch(t *testing.T, o sim.Options, watch CrawlWatchOptions) (*CrawlStatus, CrawlWatchStats, []string, []string, []string) {
	t.Helper()
	srv := startSim(t, o)
	c := newClient(t, srv, withKey(srv))
	id := srv.StartCrawl("https://example.com/", 0)
	if watch.Interval == 0 {
		watch.Interval = 250 * time.Millisecond
	}
	st, stats, docs, tr := watchCrawlAll(t, c, id, watch)
	var keys []string
	for _, d := range docs {
		keys = append(keys, d.Key)
	}
	all, _, err := c.CrawlStatus(context.Background(), id, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, d := range all.Docs {
		want = append(want, d.Key)
	}
	slices.Sort(keys)
	slices.Sort(want)
	return st, stats, keys, tr, want
}

// A socket that sends documents again, or in another order than the
// status list, then drops: polling resumes where the list says the
// documents delivered reach, and the check at the end finds in the list
// what the socket skipped. Every document is delivered once. (Resuming at
// the count of documents received skipped some for good.)
func TestCrawlWatchSocketResendReorder(t *testing.T) {
	t.Parallel()
	for _, fault := range []string{sim.CrawlFaultResend, sim.CrawlFaultReorder} {
		t.Run(fault, func(t *testing.T) {
			st, stats, got, tr, want := crawlFaultWatch(t, sim.Options{Speed: 20, CrawlPages: 60, CrawlFaults: []string{fault, sim.CrawlFaultDrop}}, CrawlWatchOptions{})
			if len(tr) != 2 || !strings.Contains(tr[1], "closed before the crawl ended") {
				t.Fatalf("the socket did not drop: transports %v", tr)
			}
			if st.Status != "completed" || !slices.Equal(got, want) || stats.Missing != 0 {
				t.Fatalf("status %q: %d documents delivered, the list holds %d; stats %+v", st.Status, len(got), len(want), stats)
			}
			if fault == sim.CrawlFaultReorder && stats.Late == 0 {
				t.Fatalf("the document the socket swapped past was not found at the end: %+v", stats)
			}
		})
	}
}

// A socket that sends every document and then stays silent, neither done
// nor a close, while the status says completed: the figures read beside
// it end the watch. (It was watched for ever.)
func TestCrawlWatchSilentSocketEnds(t *testing.T) {
	t.Parallel()
	st, stats, got, tr, want := crawlFaultWatch(t, sim.Options{Speed: 200, CrawlPages: 40, CrawlFaults: []string{sim.CrawlFaultSilent}}, CrawlWatchOptions{})
	if st.Status != "completed" || len(tr) != 1 || tr[0] != "live:" || !slices.Equal(got, want) || stats.Missing != 0 {
		t.Fatalf("status %q, transports %v, %d of %d documents, %+v", st.Status, tr, len(got), len(want), stats)
	}
}

// A next link to another origin is not followed, but the rest of the list
// is read from the crawl's own address. (The watch ended with the first
// answer's documents.)
func TestCrawlWatchForeignNext(t *testing.T) {
	t.Parallel()
	o := sim.Options{Speed: 1000, CrawlPages: 60, CrawlPageDocs: 10, CrawlFaults: []string{sim.CrawlFaultForeignNext}}
	st, stats, got, _, want := crawlFaultWatch(t, o, CrawlWatchOptions{NoSocket: true})
	if st.Status != "completed" || len(got) != len(want) || len(want) <= 10 || stats.Late != 0 {
		t.Fatalf("status %q: %d documents delivered, the list holds %d; %+v", st.Status, len(got), len(want), stats)
	}
}

// An answer over the cap is asked for again with fewer documents until
// one fits; a document alone over the cap is skipped and counted missing,
// and the watch still ends. (The same request was asked four more times,
// and the watch failed.)
func TestCrawlWatchAnswerOverCap(t *testing.T) {
	defer func(m int64) { crawlAnswerMax = m }(crawlAnswerMax)
	o := sim.Options{Speed: 1000, CrawlPages: 40, CrawlPageDocs: 100, CrawlMarkdownBytes: 100 << 10, CrawlFaults: []string{sim.CrawlFaultUnbounded}}
	crawlAnswerMax = 1 << 20 // 10 documents are about 1 MB
	srv := startSim(t, o)
	c := newClient(t, srv, withKey(srv))
	id := srv.StartCrawl("https://example.com/", 0)
	// Over before it is watched: every answer has all its documents.
	for i := 0; ; i++ {
		p := &crawlPager{c: c, rp: Retry{Tries: 1}, id: id}
		if pg, err := p.page(context.Background(), figuresSkip, nil); err == nil && pg.st.Terminal() {
			break
		} else if i == 200 {
			t.Fatalf("the crawl did not end: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	st, stats, docs, _ := watchCrawlAll(t, c, id, CrawlWatchOptions{NoSocket: true, Interval: 250 * time.Millisecond})
	// 4 answers too large (100, 50, 25, 12 documents), then 6 a page.
	if st.Status != "completed" || len(docs) < 30 || stats.Missing != 0 || stats.Requests > 4+len(docs)/6+1 {
		t.Fatalf("status %q, %d documents, %+v", st.Status, len(docs), stats)
	}
	crawlAnswerMax = 50 << 10 // a document alone is over it
	st, stats, docs, _ = watchCrawlAll(t, c, id, CrawlWatchOptions{NoSocket: true, Interval: 250 * time.Millisecond})
	if st.Status != "completed" || len(docs) != 0 || stats.Missing < 30 {
		t.Fatalf("status %q, %d documents, %+v", st.Status, len(docs), stats)
	}
}
