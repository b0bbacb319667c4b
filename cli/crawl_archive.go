package cli

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/firewatch/firewatch/archive"
	"github.com/firewatch/firewatch/archiving"
	"github.com/firewatch/firewatch/poller"
	uicrawl "github.com/firewatch/firewatch/ui/crawl"
)

// A crawl firewatch starts or watches is kept in the archive
// (archive.Crawl): when it starts, and at every status that changes its
// status word, pages or credits. The archive is opened as a watch opens it
// (keepArchive): a failure is said once and the crawl goes on.

// crawlArchive is the archive a crawl command keeps its crawl in.
type crawlArchive struct {
	st      archive.Store
	ck      archive.CrawlKeeper
	service string
	team    string
	by      string // who started it through a hub
	say     func(string)

	mu     sync.Mutex
	failed bool
}

// keepCrawls opens the archive for a crawl of svc; nil when it is off or
// keeps no crawls (why is said through say, nil: stderr).
func (a *app) keepCrawls(ctx context.Context, svc service, say func(string)) *crawlArchive {
	if say == nil {
		say = func(s string) { fmt.Fprintf(a.stderr, "firewatch: %s\n", s) }
	}
	st, err := a.openArchive(ctx, keepArchive, &lockNote{quiet: true})
	if err != nil {
		say("the crawl is not archived: " + err.Error())
		return nil
	}
	ck, ok := st.(archive.CrawlKeeper)
	if st == nil || !ok {
		if st != nil {
			st.Close()
		}
		return nil
	}
	return &crawlArchive{st: st, ck: ck, service: svc.baseURL, team: archive.TeamOf(svc.key), by: a.hub.PersonName(), say: say}
}

func (k *crawlArchive) close() {
	if k != nil {
		k.st.Close()
	}
}

// put records c, saying the first failure.
func (k *crawlArchive) put(c *archive.Crawl) {
	if k == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), archiving.WriteTimeout)
	defer cancel()
	if err := k.ck.PutCrawl(ctx, c); err != nil {
		k.mu.Lock()
		first := !k.failed
		k.failed = true
		k.mu.Unlock()
		if first {
			k.say("the crawl is not archived: " + err.Error())
		}
	}
}

// started records a crawl this command started.
func (k *crawlArchive) started(id, url string) {
	if k == nil {
		return
	}
	now := time.Now()
	k.put(&archive.Crawl{Service: k.service, ID: id, URL: url, Status: "scraping", Team: k.team, CreatedAt: &now, StartedBy: k.by})
}

// watch is svc with every status its watch sees kept.
func (k *crawlArchive) watch(svc uicrawl.Service, url string) uicrawl.Service {
	if k == nil {
		return svc
	}
	return &archivedCrawl{Service: svc, k: k, url: url}
}

type archivedCrawl struct {
	uicrawl.Service
	k   *crawlArchive
	url string
}

func (c *archivedCrawl) WatchCrawl(ctx context.Context, id string, o poller.CrawlWatchOptions, sink func(poller.CrawlUpdate)) (*poller.CrawlStatus, poller.CrawlWatchStats, error) {
	var last struct {
		status    string
		completed int
		credits   float64
	}
	url := c.url // a page's URL is not the crawl's: none when not known
	keep := func(st *poller.CrawlStatus) {
		cr := -1.0
		if st.CreditsUsed != nil {
			cr = *st.CreditsUsed
		}
		if st.Status == last.status && st.Completed == last.completed && cr == last.credits {
			return
		}
		last.status, last.completed, last.credits = st.Status, st.Completed, cr
		c.k.put(archiving.CrawlRecord(c.k.service, c.k.team, id, url, st, time.Now()))
	}
	final, stats, err := c.Service.WatchCrawl(ctx, id, o, func(u poller.CrawlUpdate) {
		if u.Status != nil {
			keep(u.Status)
		}
		sink(u)
	})
	if final != nil {
		keep(final)
	}
	return final, stats, err
}
